"""Stats on `me` and on public profiles, computed from finished games."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Game
from games.services import game_start

pytestmark = pytest.mark.django_db


def _finish(game: Game, *, status: str, score: int | None, moves: int, elapsed_ms: int) -> None:
    Game.objects.filter(pk=game.pk).update(
        status=status,
        score=score,
        leaderboard_score=score,  # as a game's end sets it (no card cycled here)
        moves=moves,
        elapsed_ms=elapsed_ms,
        finished_at=game.started_at + timedelta(milliseconds=elapsed_ms),
    )


def test_stats_per_mode_and_overall(auth_client, api_client, django_assert_max_num_queries):
    user = auth_client.user
    won_fast = game_start(user=user, code="KL1-D1N-AAAAAAA")
    won_slow = game_start(user=user, code="KL1-D1N-AAAAAAB")
    lost = game_start(user=user, code="KL1-D3V-AAAAAAC")
    game_start(user=user, code="KL1-D1N-AAAAAAD")  # still playing: not counted
    _finish(won_fast, status="won", score=700, moves=120, elapsed_ms=90_000)
    _finish(won_slow, status="won", score=640, moves=150, elapsed_ms=300_000)
    _finish(lost, status="resigned", score=-37, moves=80, elapsed_ms=60_000)

    auth_client.get("/api/v1/me")  # warms the token cache
    with django_assert_max_num_queries(3):  # totals, per mode, streaks
        stats = auth_client.get("/api/v1/me").json()["stats"]
    assert stats["played"] == 3 and stats["won"] == 2
    assert stats["win_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert stats["best_score"] == 700
    assert stats["fewest_moves"] == 120
    assert stats["fastest_win_ms"] == 90_000
    assert stats["best_score_display"] == "700"
    assert stats["modes"]["D1N"] == {
        "played": 2, "won": 2, "win_rate": 1.0, "best_score": 700, "best_score_display": "700",
        "fewest_moves": 120, "fastest_win_ms": 90_000,
    }  # fmt: skip
    assert stats["modes"]["D3V"]["played"] == 1 and stats["modes"]["D3V"]["won"] == 0
    # Vegas dollars, as the rules write them: never shown as points.
    assert stats["modes"]["D3V"]["best_score"] == -37
    assert stats["modes"]["D3V"]["best_score_display"] == "-$37"

    public = api_client.get(f"/api/v1/users/{user.username}").json()["stats"]
    assert public == stats


def test_stats_are_zero_without_games(auth_client):
    stats = auth_client.get("/api/v1/me").json()["stats"]
    assert (stats["played"], stats["won"], stats["win_rate"]) == (0, 0, 0.0)
    assert stats["best_score"] is None and stats["modes"] == {}
    assert stats["best_score_display"] == ""
