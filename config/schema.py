"""OpenAPI schema generation tweaks (drf-spectacular)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.drainage import set_override
from drf_spectacular.openapi import AutoSchema as _SpectacularAutoSchema

from accounts.authentication import ProcessTokenAuthentication

# The move endpoint takes the same `Authorization: Token` scheme as every other endpoint; only
# where the token's owner is looked up differs. So the schema has one `tokenAuth` component.
set_override(ProcessTokenAuthentication, "suppress_collision_warning", True)


class AutoSchema(_SpectacularAutoSchema):
    """Names nested `InputSerializer`/`OutputSerializer` classes after their view.

    `RegisterView.InputSerializer` becomes the component `RegisterRequest` (drf-spectacular adds
    "Request" to request bodies) and `MeView.OutputSerializer` becomes `Me`, so one view's
    serializers never collide with another's in the OpenAPI schema.
    """

    def get_operation_id(self) -> str:
        """`<view name in snake case>_<method>`: unique, because each view is one resource."""
        name = type(self.view).__name__.removesuffix("View")
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        return f"{snake}_{self.method.lower()}"

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        cls = type(serializer)
        owner, _, name = cls.__qualname__.rpartition(".")
        if owner.endswith("View") and name in ("InputSerializer", "OutputSerializer"):
            return owner.removesuffix("View")
        return super().get_serializer_name(serializer, direction)  # type: ignore[no-any-return]


def paginated(item: Any, name: str) -> Any:
    """Schema of a page of `item` serializers, as `config.api.paginated_response` sends it."""
    from drf_spectacular.utils import inline_serializer
    from rest_framework import serializers

    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
        },
    )


def swagger_ui_view() -> Any:
    """The Swagger UI page (/api/v1/docs/): drf-spectacular's split view, which serves its
    script from a URL, as the CSP wants; its template still carries a <style> block, so this
    one page also allows inline styles (never inline scripts)."""
    from csp.constants import UNSAFE_INLINE
    from csp.decorators import csp_update
    from drf_spectacular.views import SpectacularSwaggerSplitView

    view = SpectacularSwaggerSplitView.as_view(url_name="schema")
    return csp_update({"style-src": [UNSAFE_INLINE]})(view)
