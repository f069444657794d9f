"""The API's error format, and every path to it.

Every 4xx/5xx body is `{"error": {"code": "<snake_case>", "message": "<text>", ...}}` (the
API spec's error format), whether the error came from a service (`ApplicationError` and its
kin, which each app's `errors.py` specialises), from DRF or from Django.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext
from rest_framework import exceptions, renderers, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

logger = logging.getLogger("config.errors")


# Every `error.code` the API answers, with its status and what it means: the schema's enum
# (`config.schema`), checked against docs/api.md and against every error class by the tests.
ERROR_CODES: dict[str, tuple[int, str]] = {
    "invalid": (400, "malformed input; `fields` holds each field's messages"),
    "not_authenticated": (401, "no credentials"),
    "authentication_failed": (401, "a token or session that is expired, revoked or unknown"),
    "invalid_credentials": (401, "a wrong username or password"),
    "permission_denied": (403, "not allowed (with the session cookie: no or a wrong X-CSRFToken)"),
    "account_required": (403, "a guest asked for what only an account has"),
    "email_unverified": (403, "ranked play needs a verified e-mail address"),
    "not_found": (404, "no such resource, or one the caller may not see"),
    "method_not_allowed": (405, "a method the endpoint does not take (with an `Allow` header)"),
    "not_acceptable": (406, "the `Accept` header takes no format the endpoint answers in"),
    "seq_mismatch": (409, "a stale `seq`; `expected` is the log's length"),
    "game_over": (409, "the game is over, or its ranked attempt's grace hour has passed"),
    "already_played": (409, "the ranked attempt is finished; `game` is its id"),
    "daily_deal_open": (409, "the deal (or the reported entry) is an open daily challenge's"),
    "email_taken": (409, "another account verified the mailbox first, or plays ranked with it"),
    "follow_refused": (409, "a follow of oneself, or past the limit of players one may follow"),
    "report_refused": (409, "a report of one's own entry"),
    "already_reported": (409, "the caller has reported this entry already"),
    "request_too_large": (413, "a body over 256 KiB"),
    "unsupported_media_type": (415, "a body that is not JSON"),
    "illegal_move": (422, "the rules refuse the action; `reason` and `details` say why"),
    "throttled": (
        429,
        "too many requests (or busy refusals), or no e-mail sent by a mailbox's limits: wait "
        "`retry_after` seconds (the `Retry-After` header)",
    ),
    "server_error": (500, "a fault on the server's side"),
    "replay_mismatch": (500, "the server's replay of a log disagrees with its position: a fault"),
    "unavailable": (503, "busy or away for a moment: wait `retry_after` seconds"),
}


class ApplicationError(Exception):
    """A business-rule error raised by a service; the exception handler renders it.

    Subclasses set `status_code` and `code`; `extra` adds fields to the error body.
    """

    status_code: int = status.HTTP_400_BAD_REQUEST
    code: str = "invalid"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class NotFoundError(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"


class ConflictError(ApplicationError):
    status_code = status.HTTP_409_CONFLICT
    code = "conflict"


class ForbiddenError(ApplicationError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "permission_denied"


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """Build the spec's error object."""
    return {"error": {"code": code, "message": message, **extra}}


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _first_message(value)
            return text if key in ("non_field_errors", "detail") else f"{key}: {text}"
        return gettext("Invalid input.")
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else gettext("Invalid input.")
    return str(detail)


def _field_errors(detail: Any) -> dict[str, Any]:
    """Flatten DRF's nested validation detail to plain strings per field."""
    if isinstance(detail, dict):
        return {str(k): _field_errors(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_field_errors(v) for v in detail]  # type: ignore[return-value]
    return str(detail)  # type: ignore[return-value]


_DRF_CODES = {
    exceptions.ParseError: "invalid",
    exceptions.ValidationError: "invalid",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """Render every exception raised in a DRF view in the spec's error format, as JSON even
    where the view's own renderer is another (the schema's YAML, a text export)."""
    request = context.get("request")
    if request is not None and not isinstance(
        getattr(request, "accepted_renderer", None), renderers.JSONRenderer
    ):
        request.accepted_renderer = renderers.JSONRenderer()
        request.accepted_media_type = renderers.JSONRenderer.media_type
    return _error_response(exc, context)


def _error_response(exc: Exception, context: dict[str, Any]) -> Response:
    headers: dict[str, str] = {}
    if isinstance(exc, RequestDataTooBig):
        set_rollback()
        return Response(
            error_body("request_too_large", gettext("The request body is too large.")),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, ApplicationError):
        set_rollback()
        if "retry_after" in exc.extra:  # a service's own 429 or 503, as DRF's throttles say it
            headers["Retry-After"] = str(exc.extra["retry_after"])
        return Response(
            error_body(exc.code, exc.message, **exc.extra), status=exc.status_code, headers=headers
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, exceptions.PermissionDenied) and str(exc.detail).startswith("CSRF Fail"):
        # DRF's session check writes "CSRF Failed: <Django's reason>", untranslated.
        exc = exceptions.PermissionDenied(_csrf_message())

    if isinstance(exc, exceptions.APIException):
        set_rollback()
        code = next((c for t, c in _DRF_CODES.items() if isinstance(exc, t)), None)
        code = code or str(exc.default_code)
        extra: dict[str, Any] = {}
        if isinstance(exc, exceptions.ValidationError):
            extra["fields"] = _field_errors(exc.detail)
        wait = getattr(exc, "wait", None)  # Throttled's, which its stubs leave out
        if isinstance(exc, exceptions.Throttled) and wait is not None:
            extra["retry_after"] = int(wait)
            headers["Retry-After"] = str(int(wait))
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        return Response(
            error_body(code, _first_message(exc.detail), **extra),
            status=exc.status_code,
            headers=headers,
        )

    # An unexpected error: log it with its traceback and answer in the error format.
    set_rollback()
    logger.error("Unhandled error in %s", context.get("view"), exc_info=exc)
    return Response(
        error_body("server_error", gettext("Something went wrong on our side. Please try again.")),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


class MethodFirstMiddleware:
    """A method a DRF view does not take is 405 before anything else: DRF itself checks the
    credentials, the permissions and the throttles first, so a DELETE on a POST endpoint was
    a 401 without a token, and a 429 when throttled."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> Any:
        cls = getattr(view_func, "cls", None)  # a DRF view's as_view() keeps its class
        method = (request.method or "").lower()
        if cls is None or (method in cls.http_method_names and hasattr(cls, method)):
            return None
        allowed = cls(**getattr(view_func, "initkwargs", {})).allowed_methods
        detail = exceptions.MethodNotAllowed(request.method or "").detail
        response = JsonResponse(error_body("method_not_allowed", str(detail)), status=405)
        response["Allow"] = ", ".join(allowed)
        return response


# --- Django-level handlers: errors raised outside DRF views -------------------------------


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _django_error(request: HttpRequest, code: str, message: str, status_code: int) -> Any:
    if _wants_json(request):
        return JsonResponse(error_body(code, message), status=status_code)
    from django.shortcuts import render

    return render(
        request,
        "frontend/error.html",
        {"status": status_code, "message": message},
        status=status_code,
    )


def handler400(request: HttpRequest, exception: Exception | None = None) -> Any:
    return _django_error(request, "invalid", gettext("Bad request."), 400)


def handler403(request: HttpRequest, exception: Exception | None = None) -> Any:
    return _django_error(request, "permission_denied", gettext("You may not do that."), 403)


def handler404(request: HttpRequest, exception: Exception | None = None) -> Any:
    return _django_error(request, "not_found", gettext("Not found."), 404)


def handler500(request: HttpRequest) -> Any:
    return _django_error(
        request, "server_error", gettext("Something went wrong on our side. Please try again."), 500
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> Any:
    """CSRF_FAILURE_VIEW: a refused form post, in the error format on API paths."""
    # Django's `reason` is a developer's text, in English: it stays out of the message.
    return _django_error(request, "csrf_failed", _csrf_message(), 403)


def _csrf_message() -> str:
    return gettext("The form's security check failed (CSRF): reload the page and try again.")
