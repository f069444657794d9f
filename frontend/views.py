"""The pages. They only render templates; everything they show comes from the public API,
called by the page's own scripts (so the page is exactly as capable as any other client)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie


def _page(template: str, nav: str = "", **context: object) -> Callable[..., HttpResponse]:
    """A view rendering `template`; the CSRF cookie is set so the page's first POST works."""

    @ensure_csrf_cookie
    def view(request: HttpRequest, **kwargs: object) -> HttpResponse:
        return render(request, f"frontend/{template}", {"nav": nav, **context, **kwargs})

    return view


landing = _page("landing.html")
signin = _page("auth.html", mode="signin")
signup = _page("auth.html", mode="signup")
# The link of a reset e-mail opens the second page; its uid and token go to the page's script.
password_reset = _page("password_reset.html", mode="request")
password_reset_confirm = _page("password_reset.html", mode="confirm")
play = _page("play.html", "play")
daily = _page("daily.html", "daily", modes=settings.DAILY_MODES)
leaderboards = _page("leaderboards.html", "leaderboards")
replay = _page("replay.html")
profile = _page("profile.html", "profile")
rules = _page("rules.html", "rules")
