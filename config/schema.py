"""OpenAPI schema generation tweaks (drf-spectacular)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as _SpectacularAutoSchema
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import Direction, OpenApiParameter, OpenApiResponse
from rest_framework import permissions, serializers
from rest_framework.authentication import SessionAuthentication

from config.errors import ERROR_CODES
from config.fields import MAX_PAGE


class TokenScheme(OpenApiAuthenticationExtension):
    """`Authorization: Token <key>`: the API tokens (knox's, through our own classes, which
    drf-spectacular's knox extension does not match)."""

    target_class = "accounts.authentication.CachedTokenAuthentication"
    name = "tokenAuth"
    match_subclasses = True

    def get_security_definition(self, auto_schema: Any) -> Any:
        return build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Token"
        )


class SessionScheme(OpenApiAuthenticationExtension):
    """The page's session cookie (DRF's session authentication, bound to a token)."""

    target_class = "accounts.authentication.SessionTokenAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> Any:
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}


# The error codes with what each means: the `ErrorCodeEnum` of the schema.
ERROR_CODE_CHOICES = [
    (code, f"{status}: {meaning}") for code, (status, meaning) in ERROR_CODES.items()
]


class ErrorDetailSerializer(serializers.Serializer[dict[str, Any]]):
    """The inside of every error body; `code` is what a client keys on."""

    code = serializers.ChoiceField(choices=ERROR_CODE_CHOICES)
    message = serializers.CharField(help_text="In the request's language.")
    fields = serializers.DictField(  # type: ignore[assignment]  # a declared field (DRF's)
        required=False, help_text="`invalid`: each field's messages (a list, or nested fields)."
    )
    expected = serializers.IntegerField(
        required=False, help_text="`seq_mismatch`: the log's length, the `seq` to send."
    )
    game = serializers.IntegerField(required=False, help_text="`already_played`: its game.")
    retry_after = serializers.IntegerField(
        required=False, help_text="`throttled`, `unavailable`: seconds to wait."
    )
    reason = serializers.CharField(
        required=False, help_text="`illegal_move`: the rule that refused it (docs/api.md)."
    )
    details = serializers.DictField(
        required=False, help_text="`illegal_move`: the cards and piles the refusal names."
    )
    rule = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="`illegal_move`: the rules section the refusal rests on (`2.1`), or null.",
    )


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """Every 4xx and 5xx body (but `GET /health`'s 503): the API's error format."""

    error = ErrorDetailSerializer()


class ErrorResponse(OpenApiResponse):
    """An error response that knows its codes, so the schema merges those an operation
    declares with those its view's settings give it."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__(ErrorSerializer)
        self.codes = codes


def errors(*codes: str) -> dict[int, ErrorResponse]:
    """The error responses of `codes`, by status: for `extend_schema(responses=...)`. An
    operation declares only the codes its own logic answers; those of its credentials,
    throttles, body and parameters are added by `AutoSchema`."""
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(ERROR_CODES[code][0], []).append(code)
    return {status: ErrorResponse(listed) for status, listed in by_status.items()}


# Statuses whose error bodies carry `retry_after` and a `Retry-After` header.
_RETRY_STATUSES = ("429", "503")
_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before asking again (the body's `retry_after`).",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    }
}
_WWW_AUTHENTICATE = {
    "WWW-Authenticate": {
        "description": "`Token`: how to authenticate.",
        "schema": {"type": "string"},
    }
}

PAGE_PARAMETER = OpenApiParameter(
    "page",
    {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
    required=False,
    description="A page of 20; past the end: 404.",
)

_ACCEPT_LANGUAGE = OpenApiParameter(
    "Accept-Language",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The language of error messages and texts: en, hr, sk or pl, else English (the "
    "page's `django_language` cookie comes first). Codes never change.",
)
_CSRF_TOKEN = OpenApiParameter(
    "X-CSRFToken",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="With the session cookie only: the `csrftoken` cookie's value (`GET "
    "/auth/csrf`); without it, or wrong, the request is 403 `permission_denied`.",
)


class AutoSchema(_SpectacularAutoSchema):
    """Our operations' names, and the error answers of every operation.

    Names: nested `InputSerializer`/`OutputSerializer` classes are named after their view.
    `RegisterView.InputSerializer` becomes the component `RegisterRequest` (drf-spectacular
    adds "Request" to request bodies) and `MeView.OutputSerializer` becomes `Me`, so one
    view's serializers never collide with another's in the OpenAPI schema.

    Errors: every operation lists every error status it can answer, each with the shared
    `Error` body and the codes it may carry. Those that follow from the view's settings
    (credentials, CSRF, throttles, a body, parameters) are added here; the view declares the
    rest with `errors(...)`.
    """

    def get_operation_id(self) -> str:
        """`<view name in snake case>_<method>`: unique, because each view is one resource."""
        name = type(self.view).__name__.removesuffix("View")
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        return f"{snake}_{self.method.lower()}"

    def get_override_parameters(self) -> list[Any]:
        extra = [_ACCEPT_LANGUAGE]
        if self._takes_session() and self.method not in permissions.SAFE_METHODS:
            extra.append(_CSRF_TOKEN)
        return [*super().get_override_parameters(), *extra]

    def _takes_session(self) -> bool:
        """Whether the view reads the session cookie (DRF's check of CSRF with it)."""
        return any(
            issubclass(cls, SessionAuthentication) for cls in self.view.authentication_classes
        )

    def _implied_error_codes(self, operation_parameters: list[dict[str, Any]]) -> list[str]:
        """The codes an operation answers by its view's settings alone."""
        codes = ["not_acceptable", "server_error"]
        if self.view.authentication_classes:
            codes.append("authentication_failed")  # a bad token is refused everywhere
        if not all(isinstance(p, permissions.AllowAny) for p in self.view.get_permissions()):
            codes.append("not_authenticated")
        if self._takes_session() and self.method not in permissions.SAFE_METHODS:
            codes.append("permission_denied")
        locations = {p["in"] for p in operation_parameters}
        if "path" in locations:
            codes.append("not_found")
        if "query" in locations:
            codes.append("invalid")
        if any(p["name"] == "page" for p in operation_parameters):
            codes.append("not_found")
        if self._get_request_body():
            codes += ["invalid", "request_too_large", "unsupported_media_type"]
        if self.view.get_throttles():
            codes.append("throttled")
        return codes

    def _get_request_body(self, direction: Direction = "request") -> Any:
        body = super()._get_request_body(direction)
        if body and self.method != "PATCH":
            # Every POST body of ours has a field it cannot do without, the alternatives of a
            # `oneOf` too (whose required fields drf-spectacular does not see); a PATCH may
            # leave every field out.
            body["required"] = True
        return body

    def _get_response_bodies(self, direction: Direction = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        declared = self.get_response_serializers()
        codes: dict[str, list[str]] = {}
        if isinstance(declared, dict):
            for status, declared_response in declared.items():
                if isinstance(declared_response, ErrorResponse):
                    codes.setdefault(str(status), []).extend(declared_response.codes)
        for code in self._implied_error_codes(self._get_parameters()):
            codes.setdefault(str(ERROR_CODES[code][0]), []).append(code)
        error_ref = self.resolve_serializer(ErrorSerializer, "response").ref
        for status, listed in codes.items():
            unique = list(dict.fromkeys(listed))
            response: dict[str, Any] = {
                "description": "; ".join(f"`{c}`: {ERROR_CODES[c][1]}" for c in unique),
                "content": {"application/json": {"schema": error_ref}},
                "x-error-codes": unique,
            }
            if status in _RETRY_STATUSES:
                response["headers"] = _RETRY_AFTER
            elif status == "401":
                response["headers"] = _WWW_AUTHENTICATE
            responses[status] = response
        return dict(sorted(responses.items()))

    def get_serializer_name(self, serializer: Any, direction: Direction) -> str:
        cls = type(serializer)
        owner, _, name = cls.__qualname__.rpartition(".")
        if owner.endswith("View") and name in ("InputSerializer", "OutputSerializer"):
            return owner.removesuffix("View")
        return super().get_serializer_name(serializer, direction)


def closed_alternatives(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: each alternative of a `oneOf` body takes no field but its own.

    The server refuses a field of another alternative (a `draw` with a `from`, a deal code
    with a `draw`); the schema says so, which also keeps the alternatives apart."""
    schemas = result.get("components", {}).get("schemas", {})
    for schema in list(schemas.values()):
        for alternative in schema.get("oneOf", []):
            ref = alternative.get("$ref", "")
            if ref.startswith("#/components/schemas/"):
                schemas[ref.rsplit("/", 1)[1]]["additionalProperties"] = False
    return result


def paginated(item: Any, name: str) -> Any:
    """Schema of a page of `item` serializers, as `config.pagination.paginated_response`
    sends it."""
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
