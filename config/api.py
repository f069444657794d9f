"""API plumbing shared by every app: the error format, pagination and throttling.

Every 4xx/5xx body is `{"error": {"code": "<snake_case>", "message": "<text>", ...}}`
(the API spec's error format), whether the error came from a service, from DRF or from Django.
"""

from __future__ import annotations

import copy
import ipaddress
import logging
import threading
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext
from rest_framework import exceptions, renderers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.views import set_rollback

from config.cache import CACHE_ERRORS, cache_failed, cache_paused
from config.fields import PageNumberField
from config.memo import ProcessMemo

logger = logging.getLogger("config.api")


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
    "daily_deal_open": (409, "the deal is an open daily challenge's"),
    "email_taken": (409, "another account verified the address first"),
    "request_too_large": (413, "a body over 256 KiB"),
    "unsupported_media_type": (415, "a body that is not JSON"),
    "illegal_move": (422, "the rules refuse the action; `reason` and `details` say why"),
    "throttled": (429, "too many requests: wait `retry_after` seconds (the `Retry-After` header)"),
    "server_error": (500, "a fault on the server's side"),
    "replay_mismatch": (500, "the server's replay of a log disagrees with its position: a fault"),
    "unavailable": (503, "busy or away for a moment: wait `retry_after` seconds"),
}


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
        error_body("server_error", gettext("Something went wrong on our side. Please try again.")),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


class PagePagination(PageNumberPagination):
    """`?page=` pagination; a malformed page number is a 400, a page past the end a 404."""

    page_size_query_param = None

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None:
            try:
                PageNumberField().run_validation(raw)
            except exceptions.ValidationError as exc:
                raise exceptions.ValidationError({"page": exc.detail}) from None
        return super().paginate_queryset(queryset, request, view)


def client_address(request: Any) -> str | None:
    """The client's address, as the throttles count it: the connection's own address, or with
    `NUM_PROXIES` trusted proxies in front (the `TRUSTED_PROXIES` setting), the address the
    farthest of them saw. Never one a client merely wrote in a header. None when that is not
    an IP address."""
    ident = BaseThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address(ident))
    except ValueError:
        return None


class _ProcessThrottleCache:
    """The cache calls the throttles make (get, set, add, incr), answered from this process's
    memory: their counts while the shared cache cannot answer. Each process then counts
    alone, so a limit holds per server process (a degraded mode, for as long as Redis is
    away). Timeouts are not kept: DRF's history drops its old times itself, and a counter's
    key names its window; the least recently used entries go first."""

    def __init__(self) -> None:
        self._kept: ProcessMemo[str, Any] = ProcessMemo(max_entries=20_000)
        self._lock = threading.Lock()

    def get(self, key: str, default: Any = None) -> Any:
        value = self._kept.get(key)
        return default if value is None else copy.copy(value)  # DRF edits the list it reads

    def set(self, key: str, value: Any, timeout: float | None = None) -> None:
        self._kept.put(key, value)

    def add(self, key: str, value: Any, timeout: float | None = None) -> bool:
        with self._lock:
            if self._kept.get(key) is not None:
                return False
            self._kept.put(key, value)
            return True

    def incr(self, key: str, delta: int = 1) -> int:
        with self._lock:
            value = self._kept.get(key)
            if value is None:
                raise ValueError(f"Key {key!r} not found.")  # as Django's caches do
            self._kept.put(key, value + delta)
            return int(value + delta)


_process_throttle_cache = _ProcessThrottleCache()


class ScopedThrottle(ScopedRateThrottle):
    """Scoped throttle that reads its rates when asked, so settings overrides apply.

    While the shared cache cannot answer, it counts in this process's memory instead: the
    limit then holds per server process (`_ProcessThrottleCache`)."""

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        return rates.get(self.scope) if self.scope else None

    def allow_request(self, request: Any, view: Any) -> bool:
        if not cache_paused():
            try:
                return bool(super().allow_request(request, view))
            except CACHE_ERRORS:
                cache_failed(f"throttle {self.scope}")
        self.cache = _process_throttle_cache
        return bool(super().allow_request(request, view))


# Per client and window, in this process: [window, shared count when last added, not added yet].
_throttle_counts: ProcessMemo[str, list[int]] = ProcessMemo(max_entries=20_000)
_throttle_lock = threading.Lock()
# A client's requests are added to the shared counter in batches of up to a fiftieth of the
# rate (at most 16): a rate of 50/min or less is counted exactly.
THROTTLE_BATCH_SHARE = 50
THROTTLE_BATCH_MAX = 16


class CounterThrottle(ScopedThrottle):
    """A scoped throttle that counts requests per client and fixed window, in batches.

    DRF's throttle keeps the time of every request in the window and reads and rewrites that
    whole list in the cache on each request: two round trips and a list as long as the rate.
    This one keeps one counter per client and window in the shared cache (`incr` is atomic in
    Redis), and each process adds its requests to it in batches: a client's first request of
    a window here reads the shared count, and then every `batch` requests are added at once.
    So a move costs a cache round trip only now and then. The price: a client may get up to
    batch - 1 requests more per server process in a window, and across a window boundary up
    to twice the rate. It guards the hot moves endpoint against runaway clients; login and
    register, where exactness matters more than speed, keep DRF's sliding window.
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
        batch = max(1, min(THROTTLE_BATCH_MAX, self.num_requests // THROTTLE_BATCH_SHARE))
        with _throttle_lock:
            counts = _throttle_counts.get(client_key)
            if counts is None or counts[0] != window:
                counts = [window, 0, 0]
                _throttle_counts.put(client_key, counts)
            counts[2] += 1
            if counts[1] and counts[2] < batch:
                return counts[1] + counts[2] <= self.num_requests
            unsent, counts[2] = counts[2], 0
        shared = self._add(f"{client_key}_{window}", unsent)
        with _throttle_lock:
            counts[1] = max(counts[1], shared)
        return shared <= self.num_requests

    def _add(self, key: str, n: int) -> int:
        """Add `n` to the shared counter `key` of this window; returns its new value. While
        the shared cache cannot answer, the counter is this process's own."""
        if not cache_paused():
            try:
                return self._add_to(self.cache, key, n)
            except CACHE_ERRORS:
                cache_failed(f"throttle {self.scope}")
        return self._add_to(_process_throttle_cache, key, n)

    def _add_to(self, counters: Any, key: str, n: int) -> int:
        try:
            return int(counters.incr(key, n))
        except ValueError:  # the window's first requests; `add` settles a race for it
            return n if counters.add(key, n, self.duration + 1) else int(counters.incr(key, n))

    def wait(self) -> float:
        return max(0.0, self.window_end - self.now)


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
        detail = exceptions.MethodNotAllowed(request.method).detail
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


def paginated_response(*, request: Any, view: Any, queryset: Any, item: Any) -> Response:
    """A page of `queryset` in the `{count, next, previous, results}` shape, each row mapped
    through `item`.

    :raises ValidationError: a malformed page number.
    :raises NotFound: a page past the end.
    """
    paginator = PagePagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response([item(row) for row in page or []])
