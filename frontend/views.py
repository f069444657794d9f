"""The pages. They only render templates; everything they show comes from the public API,
called by the page's own scripts (so the page is exactly as capable as any other client)."""

from __future__ import annotations

import calendar as month_calendar
import re
from collections.abc import Callable
from datetime import date

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dates import WEEKDAYS, WEEKDAYS_ABBR
from django.utils.formats import get_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie

from games.daily.selectors import rating_draws
from games.daily.sharing import mode_name


def _page(template: str, nav: str = "", **context: object) -> Callable[..., HttpResponse]:
    """A view rendering `template`; the CSRF cookie is set so the page's first POST works."""

    @ensure_csrf_cookie
    def view(request: HttpRequest, **kwargs: object) -> HttpResponse:
        return render(request, f"frontend/{template}", {"nav": nav, **context, **kwargs})

    return view


def _auth_page(mode: str) -> Callable[..., HttpResponse]:
    """The sign-in or sign-up page. It sends the player back to `next` afterwards, if that is
    a page of this site (never an open redirect), else to the daily page."""

    @ensure_csrf_cookie
    def view(request: HttpRequest) -> HttpResponse:
        target = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            target = "/daily"
        return render(request, "frontend/auth.html", {"nav": "", "mode": mode, "next": target})

    return view


landing = _page("landing.html")
signin = _auth_page("signin")
signup = _auth_page("signup")
# The link of a reset e-mail opens the second page; its uid and token go to the page's script.
password_reset = _page("password_reset.html", mode="request")
password_reset_confirm = _page("password_reset.html", mode="confirm")
# The link of a verification e-mail; its script posts the uid and token when the player asks.
verify_email = _page("verify_email.html")
play = _page("play.html", "play")
daily = _page("daily.html", "daily", modes=settings.DAILY_MODES)
# The rating board's draws: a function, which the template calls as it renders.
_leaderboards = _page("leaderboards.html", "leaderboards", draws=rating_draws)


def leaderboards(request: HttpRequest) -> HttpResponse:
    """The daily boards, or the rating board (`?board=ratings`): one board a page, so that
    one's table never pushes the other down as it loads."""
    return _leaderboards(request, ratings=request.GET.get("board") == "ratings")


_daily_calendar = _page("calendar.html", "daily", modes=settings.DAILY_MODES)


# The months the API's calendar may name (games/daily/views.py): a year from 1000 on, 01 to 12.
_ISO_MONTH = re.compile("[1-9][0-9]{3}-(0[1-9]|1[0-2])")


def _month(text: str) -> date:
    """The month `YYYY-MM` asks for (the page's script then asks the API, which says when a
    month has no calendar), this UTC month when none is given; any other text is the site's
    400 page, as the API refuses it (a number past `date`'s years was a 500)."""
    if not text:
        return timezone.now().date().replace(day=1)
    if not _ISO_MONTH.fullmatch(text):
        raise BadRequest("month")
    return date.fromisoformat(f"{text}-01")


def daily_calendar(request: HttpRequest) -> HttpResponse:
    """A month of dailies (`?month=YYYY-MM`): its weeks drawn here, in the language's habit
    (its first weekday), so that the grid stands before the results arrive (no layout shift)."""
    month = _month(request.GET.get("month", ""))
    first_weekday = (int(get_format("FIRST_DAY_OF_WEEK")) - 1) % 7  # Django: 0 is Sunday
    weeks = month_calendar.Calendar(first_weekday).monthdatescalendar(month.year, month.month)
    order = [(first_weekday + k) % 7 for k in range(7)]
    # Each mode's mark in a day's cell is short: its draw, and its rules unless Normal ("1", "3V").
    modes = [
        (mode, mode_name(mode), mode[1] + mode[2].replace("N", "")) for mode in settings.DAILY_MODES
    ]
    return _daily_calendar(
        request,
        month=month,
        mode_marks=modes,
        weekdays=[(WEEKDAYS[d], WEEKDAYS_ABBR[d]) for d in order],
        weeks=[[day if day.month == month.month else None for day in week] for week in weeks],
    )


replay = _page("replay.html")
profile = _page("profile.html", "profile")
rules = _page("rules.html", "rules")
