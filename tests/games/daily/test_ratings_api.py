"""The ratings' endpoints: the rating leaderboard, a player's history, the profile, and the
rating changes on a final board (docs/api.md, "Ratings")."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.daily.selectors import PAGE_SIZE
from games.daily.services import ratings
from games.models import Rating
from tests.games.daily.conftest import SETTLING_BOARDS

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def rated(make_user: Any, play_board: Any, settle_fast: None) -> dict[str, Any]:
    """Three players over SETTLING_BOARDS boards (alpha first, then beta, then gamma), and
    a newcomer on the last one only: established ratings for the three."""
    names = ["alpha", "beta", "gamma", "newbie"]
    users = {name: make_user(name) for name in names}
    for k in range(SETTLING_BOARDS):
        field = [(users[n][0], n != "gamma", 500 - 100 * i) for i, n in enumerate(names[:3])]
        if k == SETTLING_BOARDS - 1:
            field.append((users["newbie"][0], False, 0))
        board = play_board(START + timedelta(days=k), field)
    ratings.ratings_update(draw=1)
    return {"users": users, "last": board}


def test_the_rating_leaderboard_lists_established_ratings_best_first(rated, api_client):
    body = api_client.get("/api/v1/leaderboards/ratings/1").json()
    assert [(e["rank"], e["user"]) for e in body["entries"]] == [
        (1, "alpha"), (2, "beta"), (3, "gamma"),
    ]  # fmt: skip
    assert body["count"] == 3 and body["pages"] == 1 and body["me"] is None
    first = body["entries"][0]
    assert first["rating"] > 1500 and 0 < first["deviation"] < 350
    assert first["boards"] == SETTLING_BOARDS and first["provisional"] is False
    assert body["updated_at"] is not None


def test_me_for_an_established_and_a_provisional_player(rated):
    _, key = rated["users"]["beta"]
    me = _client(key).get("/api/v1/leaderboards/ratings/1?around=me").json()["me"]
    assert (me["rank"], me["count"], me["percentile"], me["provisional"]) == (2, 3, 66.7, False)
    _, key = rated["users"]["newbie"]
    me = _client(key).get("/api/v1/leaderboards/ratings/1").json()["me"]
    assert me["rank"] is None and me["percentile"] is None
    assert me["provisional"] is True and me["boards"] == 1 and me["rating"] < 1500
    # The threshold is in the answer: a client needs no constant of its own.
    assert me["provisional_deviation"] == 280 and me["deviation"] > 280


def test_around_me_pages_to_the_callers_row(make_user, rated):
    for i in range(2 * PAGE_SIZE):
        user, _ = make_user(f"filler{i}")
        Rating.objects.create(user=user, draw=1, mu=5000 - i, sigma=80, boards=9, last_board=START)
    ratings._positions_number(1, day=START)
    _, key = rated["users"]["gamma"]
    body = _client(key).get("/api/v1/leaderboards/ratings/1?around=me").json()
    assert body["page"] == 3 and body["me"]["rank"] == 2 * PAGE_SIZE + 3
    assert body["entries"][-1]["user"] == "gamma"


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/leaderboards/ratings/2", 404, "not_found"),
        ("/api/v1/leaderboards/ratings/1?page=9", 404, "not_found"),
        ("/api/v1/leaderboards/ratings/1?page=0", 400, "invalid"),
        ("/api/v1/leaderboards/ratings/1?around=you", 400, "invalid"),
        ("/api/v1/leaderboards/ratings/99999999999999999999", 404, "not_found"),
        ("/api/v1/users/nobody/ratings/1", 404, "not_found"),
        ("/api/v1/users/alpha/ratings/7", 404, "not_found"),
    ],
)
def test_bad_input_gets_a_clear_error(rated, api_client, path, status, code):
    response = api_client.get(path)
    assert response.status_code == status and response.json()["error"]["code"] == code


def test_the_history_charts_every_board(rated, api_client):
    points = api_client.get("/api/v1/users/alpha/ratings/1").json()["points"]
    assert [p["date"] for p in points] == [
        (START + timedelta(days=k)).isoformat() for k in range(SETTLING_BOARDS)
    ]
    assert all(p["rank"] == 1 and p["change"] > 0 and p["mode"] == "D1N" for p in points)
    assert points[0]["rating"] == 1500 + points[0]["change"]
    assert api_client.get("/api/v1/users/newbie/ratings/3").json()["points"] == []


def test_the_profile_lists_the_players_ratings(rated, api_client):
    profile = api_client.get("/api/v1/users/alpha").json()
    assert [(r["draw"], r["rank"], r["provisional"]) for r in profile["ratings"]] == [(1, 1, False)]
    assert api_client.get("/api/v1/users/newbie").json()["ratings"][0]["rank"] is None


def test_a_final_board_shows_each_entrys_rating_change(rated, clock):
    board = rated["last"]
    _, key = rated["users"]["newbie"]
    client = _client(key)
    body = client.get(f"/api/v1/leaderboards/daily/{board.date}/D1N").json()
    changes = {e["user"]: e["rating"] for e in body["entries"]}
    assert changes["alpha"]["change"] > 0 > changes["newbie"]["change"]
    assert body["me"]["rating"] == changes["newbie"]
    day = client.get(f"/api/v1/daily/{board.date}").json()
    mine = next(c for c in day["challenges"] if c["mode"] == "D1N")["my_game"]
    assert mine["rating"] == changes["newbie"]


def test_nothing_is_rated_while_a_board_is_open(make_user, daily, finished_attempt, api_client):
    finished_attempt(daily, username="early", won=True, score=500, moves=90, elapsed_ms=1000)
    from games.daily.services import rankings

    rankings.daily_rank(daily_id=daily.pk)
    assert ratings.ratings_update(draw=1) == 0
    body = api_client.get(f"/api/v1/leaderboards/daily/{daily.date}/D1N").json()
    assert [e["rating"] for e in body["entries"]] == [None]


def test_below_an_entry_under_review_the_history_says_the_boards_rank(make_user, play_board):
    """The entry under review shows on the final board and counts for no rating: below it,
    the rating history's rank is the board's, as the calendar and `me` say (it was one less)."""
    from games.daily import integrity
    from games.models import Game

    ahead, _ = make_user("ahead")
    suspect, _ = make_user("suspect")
    below, key = make_user("below")
    board = play_board(START, [(ahead, True, 900), (suspect, True, 800), (below, True, 700)])
    flagged = Game.objects.get(daily=board, user=suspect)
    integrity.game_flag(game_id=flagged.pk, reasons=["shared browser"], conclusive=False)
    ratings.ratings_update(draw=1)
    client = _client(key)
    history = client.get("/api/v1/users/below/ratings/1").json()["points"]
    calendar = client.get(f"/api/v1/daily/calendar?month={START:%Y-%m}").json()
    mine = calendar["days"][0]["challenges"][0]["mine"]
    me = client.get(f"/api/v1/leaderboards/daily/{START}/D1N").json()["me"]
    assert history[0]["rank"] == mine["rank"] == me["rank"] == 3
    assert client.get("/api/v1/users/ahead/ratings/1").json()["points"][0]["rank"] == 1
    assert client.get("/api/v1/users/suspect/ratings/1").json()["points"] == []


def test_a_rating_comes_with_its_likely_band_and_percentile(rated, api_client):
    """Next to each rating, where the skill likely lies (two deviations either side), and on
    the profile its percentile among the draw's established ratings (none while provisional)."""
    from games.daily.selectors import BAND_DEVIATIONS

    board = api_client.get("/api/v1/leaderboards/ratings/1").json()
    for entry in board["entries"]:
        spread = BAND_DEVIATIONS * entry["deviation"]
        assert abs(entry["low"] - (entry["rating"] - spread)) <= 1
        assert abs(entry["high"] - (entry["rating"] + spread)) <= 1
        assert entry["low"] < entry["rating"] < entry["high"]
    percentiles = {
        name: api_client.get(f"/api/v1/users/{name}").json()["ratings"][0]["percentile"]
        for name in ("alpha", "beta", "gamma", "newbie")
    }
    assert percentiles == {"alpha": 100.0, "beta": 66.7, "gamma": 33.3, "newbie": None}
    _, key = rated["users"]["newbie"]
    me = _client(key).get("/api/v1/leaderboards/ratings/1").json()["me"]
    assert me["low"] < me["rating"] < me["high"]


def test_a_final_board_and_the_calendar_say_how_hard_it_was(rated, make_user, api_client):
    """Par, and the win rate among the entries that counted (one under review did not)."""
    from games.daily import integrity
    from games.models import Game

    board = rated["last"]  # alpha and beta won, gamma and newbie lost
    expected = {"par": board.par, "entries": 4, "wins": 2, "win_rate": 50.0}
    body = api_client.get(f"/api/v1/leaderboards/daily/{board.date}/D1N").json()
    assert body["difficulty"] == expected
    _, key = rated["users"]["gamma"]
    calendar = _client(key).get(f"/api/v1/daily/calendar?month={START:%Y-%m}").json()
    days = {d["date"]: d["challenges"][0] for d in calendar["days"]}
    assert days[board.date.isoformat()]["difficulty"] == expected
    following = _client(key).get(f"/api/v1/leaderboards/daily/{board.date}/D1N?following=1")
    assert following.json()["difficulty"] == expected

    alpha = Game.objects.get(daily=board, user=rated["users"]["alpha"][0])
    integrity.game_flag(game_id=alpha.pk, reasons=["shared browser"], conclusive=False)
    ratings.ratings_update(draw=1, since=board.date)
    body = api_client.get(f"/api/v1/leaderboards/daily/{board.date}/D1N").json()
    assert body["difficulty"] == {"par": board.par, "entries": 3, "wins": 1, "win_rate": 33.3}


def test_an_open_board_has_no_difficulty_yet(daily, finished_attempt, api_client):
    finished_attempt(daily, username="early", won=True, score=500, moves=90, elapsed_ms=1000)
    body = api_client.get(f"/api/v1/leaderboards/daily/{daily.date}/D1N").json()
    assert body["difficulty"] is None
    calendar = api_client.get(f"/api/v1/daily/calendar?month={daily.date:%Y-%m}").json()
    assert calendar["days"][-1]["challenges"][0]["difficulty"] is None
