"""Huge, negative and malformed numbers in every query parameter and number-like path segment
of every GET route, API and pages: a 4xx (or the page as if the parameter were absent), never
a 500. `/daily/calendar?month=99999999999999999999-1` was one (an OverflowError in `date`)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.services import game_start

pytestmark = pytest.mark.django_db

# Every query parameter a GET route reads: the schema's, and the pages' (frontend/).
QUERY = (
    "month", "page", "around", "step", "mine", "following", "mode", "board", "next", "lang",
    "cursor", "day", "seq", "id", "draw",
)  # fmt: skip
# Routes that are not the player's (the admin, the scraper's, Django's language switch) or
# not a read of the database (the schema and its viewer).
SKIPPED = ("admin/", "metrics", "i18n/", "api/v1/schema/", "api/v1/docs/")

MALFORMED = (
    "99999999999999999999-1", "-1", "0", "-0", "1e308", "nan", "inf", "1_000", " 7 ", "0x10",
    "١٢", "--1", "2026-00", "2026-13", "0-1", "10000-01", "9" * 5000, "", "1.5",
)  # fmt: skip
_HUGE = st.integers(min_value=10**18, max_value=10**40)
_NUMBER = st.one_of(
    _HUGE, _HUGE.map(lambda n: -n), st.integers(min_value=-(10**6), max_value=-1),
    st.integers(min_value=2**31 - 2, max_value=2**63 + 2),
)  # fmt: skip
BAD = st.one_of(
    _NUMBER.map(str),
    st.tuples(_NUMBER, _NUMBER).map(lambda p: f"{p[0]}-{p[1]}"),
    st.tuples(_NUMBER, st.integers(-99, 99)).map(lambda p: f"{p[0]}-{p[1]:02d}"),
    st.tuples(st.integers(-99, 99), _NUMBER).map(lambda p: f"2026-{p[0]}-{p[1]}"),
    st.sampled_from(MALFORMED),
    st.text(alphabet="0123456789-+_. e", max_size=30),
)


def _routes(patterns: list[Any] | None = None, prefix: str = "") -> list[tuple[str, Any]]:
    """Every route's path as written (`play/<int:game_id>`), with its pattern."""
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and "^" not in route and not route.startswith(SKIPPED):
            found.append((route, entry))
    return found


ROUTES = sorted(route for route, _ in _routes())


@pytest.fixture
def world(make_user: Any) -> dict[str, Any]:
    from rest_framework.test import APIClient

    user, key = make_user("numbers")
    game = game_start(user=user, code="KL1-D1N-AAAAAAG")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.raise_request_exception = False
    return {"client": client, "game_id": game.pk, "username": user.username}


def _path(route: str, world: dict[str, Any], bad: str, where: str | None) -> str:
    """The route with its path parameters filled in: each a real value, but `where` is `bad`."""

    sample = {"game_id": str(world["game_id"]), "username": world["username"],
              "day": "2026-01-05", "mode": "D1N", "draw": "1", "lang": "en"}  # fmt: skip

    def fill(match: re.Match[str]) -> str:
        name = match[2]
        return bad if name == where else sample.get(name, "x")

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)


def test_every_get_route_is_covered():
    assert "daily/calendar" in ROUTES and "api/v1/daily/calendar" in ROUTES
    assert "api/v1/leaderboards/ratings/<int:draw>" in ROUTES and len(ROUTES) > 30


@pytest.mark.parametrize("route", ROUTES)
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=st.fixed_dictionaries({}, optional={name: BAD for name in QUERY}), bad=BAD,
       in_path=st.booleans())  # fmt: skip
def test_no_number_makes_a_500(world, route, query, bad, in_path):
    cache.clear()  # no throttle stands in for the answer
    params = re.findall(r"<(?:\w+:)?(\w+)>", route)
    where = params[len(bad) % len(params)] if in_path and params else None
    path = _path(route, world, bad.replace("/", "").strip() or "0", where)
    response = world["client"].get(path, query)
    assert response.status_code < 500 or response.status_code == 503, (path, query)
    if route.startswith("api/") and response.status_code >= 400:
        assert "code" in response.json()["error"], (path, query)


def test_a_month_past_any_calendar_is_refused_not_a_500(world):
    client = world["client"]
    for month in ("99999999999999999999-1", "1-99999999999999999999", "-5-1", "0-1"):
        page = client.get("/daily/calendar", {"month": month})
        assert page.status_code == 400, (month, page.status_code)
        assert b"<html" in page.content.lower()
        api = client.get("/api/v1/daily/calendar", {"month": month})
        assert api.status_code == 400 and api.json()["error"]["code"] == "invalid", month
