"""OpenAPI schema generation tweaks (drf-spectacular)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as _SpectacularAutoSchema
from drf_spectacular.plumbing import build_bearer_security_scheme_object


class TokenScheme(OpenApiAuthenticationExtension):  # type: ignore[misc]
    """`Authorization: Token <key>`: the API tokens (knox's, through our own classes, which
    drf-spectacular's knox extension does not match)."""

    target_class = "accounts.authentication.CachedTokenAuthentication"
    name = "tokenAuth"
    match_subclasses = True

    def get_security_definition(self, auto_schema: Any) -> Any:
        return build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Token"
        )


class SessionScheme(OpenApiAuthenticationExtension):  # type: ignore[misc]
    """The page's session cookie (DRF's session authentication, bound to a token)."""

    target_class = "accounts.authentication.SessionTokenAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> Any:
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}


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
