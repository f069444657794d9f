"""Following views of a daily board and of the rating board (`?following=1`): only the caller
and the public players they follow, ranked among themselves, with their rank on the board."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Follow
from games.daily.services import ratings
from tests.games.daily.conftest import SETTLING_BOARDS

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)


@pytest.fixture
def field(make_user: Any, play_board: Any, settle_fast: None) -> dict[str, Any]:
    """Five players over SETTLING_BOARDS boards, best first: top, ann (me), mid, bob, low.
    Ann follows bob and top; top's profile is private."""
    names = ["top", "ann", "mid", "bob", "low"]
    users = {name: make_user(name) for name in names}
    for k in range(SETTLING_BOARDS):
        results = [(users[n][0], True, 900 - 100 * i) for i, n in enumerate(names)]
        board = play_board(START + timedelta(days=k), results)
    ratings.ratings_update(draw=1)
    ann = users["ann"][0]
    for name in ("bob", "top"):
        Follow.objects.create(follower=ann, followee=users[name][0])
    users["top"][0].__class__.objects.filter(username="top").update(profile_private=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {users['ann'][1]}")
    return {"client": client, "board": board, "top": users["top"][0]}


def test_a_daily_boards_following_view(field):
    board = field["board"]
    path = f"/api/v1/leaderboards/daily/{board.date}/D1N"
    body = field["client"].get(f"{path}?following=1").json()
    assert body["following"] is True and body["count"] == 2
    rows = [(e["user"], e["rank"], e["board_rank"]) for e in body["entries"]]
    assert rows == [("ann", 1, 2), ("bob", 2, 4)]  # top is private: not shown
    assert body["me"]["rank"] == 1 and body["me"]["source"] == "following"
    assert body["me"]["rating"] is not None
    whole = field["client"].get(path).json()
    assert whole["following"] is False and whole["count"] == 5
    assert "board_rank" not in whole["entries"][0]


def test_the_rating_boards_following_view(field):
    body = field["client"].get("/api/v1/leaderboards/ratings/1?following=1&around=me").json()
    assert body["following"] is True and body["count"] == 2
    assert [(e["user"], e["rank"], e["board_rank"]) for e in body["entries"]] == [
        ("ann", 1, 2),
        ("bob", 2, 4),
    ]
    assert body["me"]["rank"] == 1 and body["me"]["count"] == 2


def test_a_visitor_has_no_following_view(field):
    board = field["board"]
    for path in (
        f"/api/v1/leaderboards/daily/{board.date}/D1N?following=1",
        "/api/v1/leaderboards/ratings/1?following=1",
    ):
        response = APIClient().get(path)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "not_authenticated"
    bad = field["client"].get("/api/v1/leaderboards/ratings/1?following=perhaps")
    assert bad.status_code == 400 and "following" in bad.json()["error"]["fields"]


def test_a_private_profile_on_a_public_board_shows_its_name_and_rank_only(field):
    """A private profile's rating and rating change showed on every final board: its rating
    history could be rebuilt from them."""
    board = field["board"]
    for client in (field["client"], APIClient()):
        daily = client.get(f"/api/v1/leaderboards/daily/{board.date}/D1N").json()["entries"]
        top, mid = daily[0], daily[2]
        assert (top["user"], top["rank"], top["rating"]) == ("top", 1, None)
        assert mid["user"] == "mid" and mid["rating"] is not None  # a public one's shows
        rated = client.get("/api/v1/leaderboards/ratings/1").json()["entries"]
        top, mid = rated[0], rated[2]
        assert (top["user"], top["rank"]) == ("top", 1)
        assert (top["rating"], top["deviation"], top["low"], top["boards"]) == (None,) * 4
        assert mid["rating"] is not None and mid["boards"] == SETTLING_BOARDS
    own = APIClient()
    own.force_authenticate(field["top"])
    mine = own.get(f"/api/v1/leaderboards/daily/{board.date}/D1N").json()["entries"][0]
    assert mine["user"] == "top" and mine["rating"] is not None  # its player sees it whole
