"""OpenAPI schema generation tweaks (drf-spectacular)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as _SpectacularAutoSchema


class AutoSchema(_SpectacularAutoSchema):
    """Names nested `InputSerializer`/`OutputSerializer` classes after their view.

    `RegisterView.InputSerializer` becomes the component `RegisterRequest` (drf-spectacular adds
    "Request" to request bodies) and `MeView.OutputSerializer` becomes `Me`, so one view's
    serializers never collide with another's in the OpenAPI schema.
    """

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        cls = type(serializer)
        owner, _, name = cls.__qualname__.rpartition(".")
        if owner.endswith("View") and name in ("InputSerializer", "OutputSerializer"):
            return owner.removesuffix("View")
        return super().get_serializer_name(serializer, direction)  # type: ignore[no-any-return]
