"""The daily calendar (`GET /api/v1/daily/calendar`): a month of dailies with the caller's
results, streaks, practice codes once final, and clear errors for a bad month."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.daily.services import attempts as daily_attempts
from games.daily.services import deals as daily_deals
from games.daily.services import ratings
from games.models import Game
from tests.games.daily.conftest import at

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)


def _client(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def october(make_user: Any, play_board: Any, clock: Any) -> dict[str, Any]:
    """Me and a rival: I win Oct 1, lose Oct 2, skip Oct 3 (the rival plays it), then on Oct 31
    I am still playing today's board; D3N boards exist but I played none."""
    me, token = make_user("me")
    rival, _ = make_user("rival")
    play_board(START, [(me, True, 600), (rival, False, 100)])
    play_board(START + timedelta(days=1), [(rival, True, 500), (me, False, 200)])
    play_board(START + timedelta(days=2), [(rival, True, 500)])
    ratings.ratings_update(draw=1)
    today = date(2026, 10, 31)
    clock(at(today, 9))
    for mode in ("D1N", "D3N"):
        daily_deals.daily_deal_get_or_create(day=today, mode=mode)
    daily_attempts.daily_start(user=me, day=today, mode="D1N")
    return {"token": token, "today": today}


def _day(body: dict[str, Any], day: date) -> dict[str, dict[str, Any]]:
    [entry] = [d for d in body["days"] if d["date"] == day.isoformat()]
    return {c["mode"]: c for c in entry["challenges"]}


def test_a_player_sees_each_days_result_rank_and_rating(october):
    body = _client(october["token"]).get("/api/v1/daily/calendar?month=2026-10").json()
    assert body["month"] == "2026-10" and body["next"] is None and body["previous"] is None
    assert [d["date"] for d in body["days"]] == [
        "2026-10-01", "2026-10-02", "2026-10-03", "2026-10-31",
    ]  # fmt: skip
    won = _day(body, START)["D1N"]["mine"]
    assert (won["result"], won["rank"], won["score"]) == ("won", 1, 600)
    assert won["rating"]["change"] > 0 and won["moves"] == 100
    lost = _day(body, START + timedelta(days=1))["D1N"]["mine"]
    assert (lost["result"], lost["rank"]) == ("lost", 2) and lost["rating"]["change"] < 0
    assert _day(body, START + timedelta(days=2))["D1N"]["mine"] is None
    today = _day(body, october["today"])
    assert today["D1N"]["mine"]["result"] == "playing" and today["D1N"]["mine"]["rank"] is None
    assert today["D3N"]["mine"] is None
    assert body["streaks"]["D1N"] == {"current": 0, "longest": 1}


def test_codes_only_for_final_boards_and_they_can_be_practised(october):
    body = _client(october["token"]).get("/api/v1/daily/calendar").json()
    assert body["month"] == "2026-10"
    final = _day(body, START)["D1N"]
    assert final["final"] is True and final["code"].startswith("KL1-D1N-")
    open_today = _day(body, october["today"])
    assert all("code" not in c and c["final"] is False for c in open_today.values())
    practice = _client(october["token"]).post("/api/v1/games", {"code": final["code"]}, "json")
    assert practice.status_code == 201
    game = Game.objects.get(pk=practice.json()["id"])
    assert game.kind == Game.Kind.CASUAL and game.daily_id is None


def test_a_guest_sees_the_calendar_without_results(october):
    body = _client().get("/api/v1/daily/calendar?month=2026-10").json()
    assert body["streaks"] is None
    assert all(c["mine"] is None for d in body["days"] for c in d["challenges"])
    assert _day(body, START)["D1N"]["code"].startswith("KL1-D1N-")


def test_previous_and_next_months(october, clock):
    clock(at(date(2026, 12, 2), 9))
    body = _client().get("/api/v1/daily/calendar?month=2026-11").json()
    assert (body["previous"], body["next"], body["days"]) == ("2026-10", "2026-12", [])


@pytest.mark.parametrize(
    ("month", "status"),
    [
        ("2026-13", 400),
        ("", 400),
        ("2026-1", 400),
        ("october", 400),
        ("0000-01", 400),
        ("2026-09", 404),  # before the first daily
        ("2026-11", 404),  # after this month
        ("9999-12", 404),
    ],
)
def test_a_bad_month_gets_a_clear_error(october, month, status):
    response = _client().get(f"/api/v1/daily/calendar?month={month}")
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == ("invalid" if status == 400 else "not_found")
    if status == 400:
        assert "month" in error["fields"]
