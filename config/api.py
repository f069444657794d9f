"""API plumbing shared by every app: the error format, pagination and throttling.

Every 4xx/5xx body is `{"error": {"code": "<snake_case>", "message": "<text>", ...}}`
(the API spec's error format), whether the error came from a service, from DRF or from Django.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import set_rollback

logger = logging.getLogger("config.api")


class ApplicationError(Exception):
    """A business-rule error raised by a service; the exception handler renders it.

    Subclasses set `status_code` and `code`; `extra` adds fields to the error body.
    """

    status_code = status.HTTP_400_BAD_REQUEST
    code = "invalid"

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
        return "Invalid input."
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else "Invalid input."
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
    """Render every exception raised in a DRF view in the spec's error format."""
    headers: dict[str, str] = {}
    if isinstance(exc, ApplicationError):
        set_rollback()
        return Response(error_body(exc.code, exc.message, **exc.extra), status=exc.status_code)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    if isinstance(exc, exceptions.APIException):
        set_rollback()
        code = next((c for t, c in _DRF_CODES.items() if isinstance(exc, t)), None)
        code = code or str(exc.default_code)
        extra: dict[str, Any] = {}
        if isinstance(exc, exceptions.ValidationError):
            extra["fields"] = _field_errors(exc.detail)
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            extra["retry_after"] = int(exc.wait)
            headers["Retry-After"] = str(int(exc.wait))
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
        error_body("server_error", "Something went wrong on our side. Please try again."),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


class PagePagination(PageNumberPagination):
    """`?page=` pagination; a malformed page number is a 400, a page past the end a 404."""

    page_size_query_param = None

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and raw != "last" and not (raw.isascii() and raw.isdigit()):
            raise exceptions.ValidationError({"page": ["A page number is a positive integer."]})
        return super().paginate_queryset(queryset, request, view)


class ScopedThrottle(ScopedRateThrottle):
    """Scoped throttle that reads its rates when asked, so settings overrides apply."""

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        return rates.get(self.scope) if self.scope else None


class CounterThrottle(ScopedThrottle):
    """A scoped throttle that counts requests per fixed window: one cache round trip.

    DRF's throttle keeps the time of every request in the window and reads and rewrites that
    whole list in the cache on each request: two round trips and a list as long as the rate.
    This one increments one counter per client and window (`incr` is atomic in Redis). The
    price: across a window boundary a client may briefly get up to twice the rate. It guards
    the hot moves endpoint against runaway clients; login and register, where exactness
    matters more than speed, keep DRF's sliding window.
    """

    def allow_request(self, request: Any, view: Any) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        client_key = self.get_cache_key(request, view)
        if client_key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_end = (window + 1) * self.duration
        key = f"{client_key}_{window}"
        try:
            count = self.cache.incr(key)
        except ValueError:  # the window's first request; `add` settles a race for it
            count = 1 if self.cache.add(key, 1, self.duration + 1) else self.cache.incr(key)
        return count <= self.num_requests

    def wait(self) -> float:
        return max(0.0, self.window_end - self.now)


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
    return _django_error(request, "invalid", "Bad request.", 400)


def handler403(request: HttpRequest, exception: Exception | None = None) -> Any:
    return _django_error(request, "permission_denied", "You may not do that.", 403)


def handler404(request: HttpRequest, exception: Exception | None = None) -> Any:
    return _django_error(request, "not_found", "Not found.", 404)


def handler500(request: HttpRequest) -> Any:
    return _django_error(
        request, "server_error", "Something went wrong on our side. Please try again.", 500
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> Any:
    """CSRF_FAILURE_VIEW: a refused form post, in the error format on API paths."""
    return _django_error(
        request, "csrf_failed", f"CSRF check failed: {reason or 'missing token'}.", 403
    )


def paginated_response(*, request: Any, view: Any, queryset: Any, item: Any) -> Response:
    """A page of `queryset` in the `{count, next, previous, results}` shape, each row mapped
    through `item`.

    :raises ValidationError: a malformed page number.
    :raises NotFound: a page past the end.
    """
    paginator = PagePagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response([item(row) for row in page or []])
