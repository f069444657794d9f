"""Login lockout: the parts django-axes calls (settings `AXES_*`), and how long a lock lasts.

django-axes counts failed logins in the database, per account and client address together,
and per client address (never per account alone: anyone could lock anyone out), and its
authentication backend (first in AUTHENTICATION_BACKENDS) refuses a locked login before any
password is hashed. `accounts.services.user_login` and the admin's login form both go through
`authenticate(request, ...)`, so both are counted and both are locked; `user_login` lets in a
device signed in to the account already.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_failure_limit
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext

from config.errors import error_body


def lockout_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the account a login names, in lower case.

    Usernames are unique regardless of case, so "Alice" and "ALICE" are one account and their
    failures count together (the API and the admin pass the name as typed).
    """
    source = credentials if credentials else getattr(request, "POST", {})
    username = source.get("username")
    return lockout_key(username=username) if isinstance(username, str) else None


def lockout_key(*, username: str) -> str:
    """The name under which django-axes counts an account's failures."""
    return username.lower()


def lockout_seconds_left(*, request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Seconds until this login is no longer locked out, at least 1.

    django-axes keeps one row per (account, address, user agent) with its failure count and
    the time of its last failure, and locks while the rows of the account and address, or of
    the address, younger than the cool-off hold `limit` failures or more. The lock ends when
    the row that brought the count to the limit, counting from the newest, grows older than
    the cool-off.
    """
    AxesProxyHandler.update_request(request)
    handler = AxesProxyHandler.get_implementation()
    cool_off: timedelta | None = get_cool_off(request)
    if cool_off is None:  # locked until an admin resets it; not how we configure it
        return 24 * 3600
    now = timezone.now()
    ends = now + cool_off
    get_user_attempts = getattr(handler, "get_user_attempts", None)  # the database handler
    if get_user_attempts is not None:
        limit = get_failure_limit(request, credentials)
        ends = now
        for attempts in get_user_attempts(request, credentials):
            total = 0
            rows = attempts.order_by("-attempt_time").values_list(
                "failures_since_start", "attempt_time"
            )
            for failures, attempt_time in rows:
                total += failures
                if total >= limit:
                    ends = max(ends, attempt_time + cool_off)
                    break
    return max(1, math.ceil((ends - now).total_seconds()))


def locked_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed logins for this account or from this address. "
        "Try again in %(minutes)s minute.",
        "Too many failed logins for this account or from this address. "
        "Try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the answer to a locked-out login, which AxesMiddleware puts in
    place of the login view's own.

    The API's login has already answered 429 `throttled` in the error format, with its
    `Retry-After` header (the service raises `LoginLockedError`); that answer stays. Anywhere
    else (the admin's login page) the site's error page says 429 and for how long.
    """
    if request.path.startswith("/api/") and getattr(original_response, "status_code", 0) == 429:
        return original_response  # type: ignore[return-value]
    seconds = lockout_seconds_left(request=request, credentials=credentials)
    message = locked_message(seconds)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            error_body("throttled", message, retry_after=seconds), status=429
        )
    else:
        response = render(
            request, "frontend/error.html", {"status": 429, "message": message}, status=429
        )
    response["Retry-After"] = str(seconds)
    return response
