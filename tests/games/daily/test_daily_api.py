"""The daily challenge over the API: deals, commitments, one ranked attempt, the calendar."""

from __future__ import annotations

import hashlib

import pytest

from games import engine
from games.engine import solver
from games.models import DailyDeal, Game
from tests.games.daily.conftest import DAY, NEXT, at

pytestmark = pytest.mark.django_db


def _start(client, day=DAY, mode="D1N"):
    return client.post(f"/api/v1/daily/{day.isoformat()}/{mode}/start", format="json")


def test_today_creates_proven_winnable_deals_with_commitments(clock, api_client):
    clock(at(DAY, 9))
    body = api_client.get("/api/v1/daily").json()
    assert body["date"] == "2026-11-30"
    assert body["closes_at"] == "2026-12-01T00:00:00Z"
    assert [c["mode"] for c in body["challenges"]] == ["D1N", "D3N"]
    for challenge in body["challenges"]:
        daily = DailyDeal.objects.get(date=DAY, mode=challenge["mode"])
        code = str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
        assert (
            challenge["commitment"] == hashlib.sha256(f"{code}|{daily.salt}".encode()).hexdigest()
        )
        assert "code" not in challenge and "salt" not in challenge
        assert challenge["my_game"] is None and challenge["players"] == 0
        # Proven winnable: the solver's line wins, and its length is the par.
        verdict = solver.solve(engine.GameState.from_code(code), budget_s=10)
        assert isinstance(verdict, solver.Solved)
        assert challenge["par"] == daily.par > 0
    # Idempotent: asking again creates nothing new.
    api_client.get("/api/v1/daily")
    assert DailyDeal.objects.filter(date=DAY).count() == 2


def test_deal_numbers_are_keyed_and_not_predictable(clock, settings):
    from games.daily.services.deals import daily_first_candidate

    first = daily_first_candidate(day=DAY, mode="D1N")
    assert first != daily_first_candidate(day=DAY, mode="D3N")
    settings.DAILY_SECRET = "another secret"
    assert first != daily_first_candidate(day=DAY, mode="D1N")


def test_one_ranked_attempt(clock, auth_client):
    clock(at(DAY, 10))
    created = _start(auth_client)
    assert created.status_code == 201
    game = created.json()
    assert game["kind"] == "daily" and game["code"] is None  # the open deal's code stays secret
    again = _start(auth_client)
    assert again.status_code == 200 and again.json()["id"] == game["id"]  # reload: same game
    hint = auth_client.get(f"/api/v1/games/{game['id']}/hint")
    assert hint.status_code == 403 and hint.json()["error"]["code"] == "permission_denied"
    resign = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "resign"}, format="json"
    )
    assert resign.status_code == 200
    second = _start(auth_client)
    assert second.status_code == 409 and second.json()["error"]["code"] == "already_played"
    assert Game.objects.filter(user=auth_client.user).count() == 1
    mine = auth_client.get("/api/v1/daily").json()["challenges"][0]["my_game"]
    assert mine["id"] == game["id"] and mine["status"] == "resigned"


def test_game_started_at_2359_and_finished_at_0030_counts(clock, auth_client, api_client):
    from games.tasks import rank_daily

    clock(at(DAY, 23, 59))
    game = _start(auth_client).json()
    clock(at(NEXT, 0, 30))
    moved = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "resign"}, format="json"
    )
    assert moved.status_code == 200
    rank_daily(DAY.isoformat(), "D1N")  # as the worker does once the commit has sent it
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert board["count"] == 1 and board["entries"][0]["game"] == game["id"]
    assert board["final"] is False


def test_start_after_midnight_for_the_closed_day_is_404(clock, auth_client):
    clock(at(DAY, 12))
    auth_client.get("/api/v1/daily")
    clock(at(NEXT, 0, 0, 1))
    response = _start(auth_client)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert not Game.objects.exists()


def test_board_is_final_at_0100_with_code_and_salt(clock, auth_client, api_client):
    clock(at(DAY, 22))
    game = _start(auth_client).json()  # still playing when the grace hour ends
    clock(at(NEXT, 0, 59, 59))
    day = api_client.get(f"/api/v1/daily/{DAY.isoformat()}").json()
    assert all(not c["final"] and "code" not in c for c in day["challenges"])
    clock(at(NEXT, 1))
    day = api_client.get(f"/api/v1/daily/{DAY.isoformat()}").json()
    challenge = day["challenges"][0]
    assert challenge["final"] is True
    assert (
        hashlib.sha256(f"{challenge['code']}|{challenge['salt']}".encode()).hexdigest()
        == (challenge["commitment"])
    )
    # The game still open was recorded as it stood, and the board lists it.
    stored = Game.objects.get(pk=game["id"])
    assert stored.status == "resigned"
    assert list(stored.actions.values_list("notation", flat=True)) == ["resign"]
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert board["final"] is True and board["count"] == 1
    # Once final, the code is public and anyone may play it casually; its game shows the code.
    assert auth_client.get(f"/api/v1/games/{game['id']}").json()["code"] == challenge["code"]
    casual = auth_client.post("/api/v1/games", {"code": challenge["code"]}, format="json")
    assert casual.status_code == 201


def test_actions_after_the_grace_hour_are_refused(clock, auth_client):
    clock(at(DAY, 23))
    game = _start(auth_client).json()
    clock(at(NEXT, 1, 0, 1))
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "game_over"
    assert not Game.objects.get(pk=game["id"]).actions.exists()


def test_a_daily_move_reads_its_board_with_the_game(clock, auth_client, sql_sent):
    clock(at(DAY, 10))
    game = _start(auth_client).json()
    with sql_sent() as sent:
        response = auth_client.post(
            f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
        )
    assert response.status_code == 200
    reads = [s for s in sent if s.startswith("SELECT")]
    assert len(reads) == 1 and "games_dailydeal" in reads[0], sent  # one read: game, deal, board


def test_open_daily_code_cannot_be_played_casually(daily, auth_client):
    code = str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
    response = auth_client.post("/api/v1/games", {"code": code}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "daily_deal_open"
    assert not Game.objects.exists()


BAD = {
    "unknown mode": ("/api/v1/daily/2026-11-30/D2X/start", "post", 404),
    "mode not configured": ("/api/v1/daily/2026-11-30/D3V/start", "post", 404),
    "malformed date": ("/api/v1/daily/2026-13-45/D1N/start", "post", 400),
    "future date": ("/api/v1/daily/2026-12-01/D1N/start", "post", 404),
    "past date": ("/api/v1/daily/2026-11-29/D1N/start", "post", 404),
    "future day": ("/api/v1/daily/2026-12-01", "get", 404),
    "malformed day": ("/api/v1/daily/yesterday", "get", 400),
    # The schema's `format: date` is YYYY-MM-DD; Python's fromisoformat took these too.
    "a date without dashes": ("/api/v1/daily/20261130", "get", 400),
    "a week date": ("/api/v1/daily/2026-W48-1", "get", 400),
    "day without challenges": ("/api/v1/daily/2020-01-01", "get", 404),
    "board of unknown mode": ("/api/v1/leaderboards/daily/2026-11-30/D9Q", "get", 404),
    "malformed page": ("/api/v1/leaderboards/daily/2026-11-30/D1N?page=abc", "get", 400),
    "zero page": ("/api/v1/leaderboards/daily/2026-11-30/D1N?page=0", "get", 400),
    "page past the end": ("/api/v1/leaderboards/daily/2026-11-30/D1N?page=2", "get", 404),
    "around someone else": ("/api/v1/leaderboards/daily/2026-11-30/D1N?around=you", "get", 400),
    "streaks of unknown mode": ("/api/v1/leaderboards/streaks?mode=XYZ", "get", 404),
}


@pytest.mark.parametrize(("path", "method", "status"), BAD.values(), ids=BAD.keys())
def test_bad_input(daily, auth_client, path, method, status):
    response = getattr(auth_client, method)(path, format="json")
    assert response.status_code == status, response.content
    assert set(response.json()) == {"error"}
    assert not Game.objects.exists()
