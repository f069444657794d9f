"""A long-lived, random browser id in a cookie: with it the integrity check can tell that two
accounts' ranked attempts came from one browser (`games.models.AttemptOrigin`).

Django's session key changes at every sign-in, so it cannot tell that; this cookie can, until
the player clears their cookies. It carries nothing but a random id.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

BROWSER_COOKIE = "kd_browser"
BROWSER_COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers accept


def browser_id(request: HttpRequest) -> str:
    """The request's browser id, or "" when it has none (a script, or a first visit)."""
    value = request.COOKIES.get(BROWSER_COOKIE, "")
    return value if len(value) == 32 and value.isalnum() else ""


class BrowserIdMiddleware:
    """Give a browser its id on the first page it loads (not on API calls: scripts that keep
    no cookies would get a new one on every request)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not browser_id(request) and not request.path.startswith("/api/"):
            response.set_cookie(
                BROWSER_COOKIE,
                secrets.token_hex(16),
                max_age=BROWSER_COOKIE_MAX_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
