"""Evidence across days and modes (issue 50, item 2): a ranked win far above the account's own
record in the draw (its casual and past ranked games, its ranked wins against par, its rating)
is a sign for reviewers; it flags together with another sign (a link, or a second sign)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.daily import integrity
from games.models import Game
from tests.games.daily.test_fair_play import (
    _established,
    _flag,
    _human,
    _own_line,
    _resign_at_once,
    _start,
)

pytestmark = pytest.mark.django_db


def _client(key: str, **extra: Any) -> APIClient:
    client = APIClient(**extra)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _record(user: Any, *, games: int, won: int) -> None:
    """`games` finished casual games of draw 1 before today, `won` of them won."""
    from django.utils import timezone

    from games.services import game_start

    for i in range(games):
        game = game_start(user=user, code="KL1-D1N-AAAAAAK")
        finished = timezone.now() - timedelta(days=1, minutes=i)
        Game.objects.filter(pk=game.pk).update(
            status="won" if i < won else "resigned", finished_at=finished
        )


def test_a_win_far_above_the_accounts_record_is_a_sign_and_flags_with_a_link(
    daily, make_user, clock, monkeypatch
):
    _own_line(monkeypatch)
    user, key = make_user("sudden")
    _established(user)
    _record(user, games=12, won=0)
    _, scout_key = make_user("scout")
    client = _client(key, REMOTE_ADDR="203.0.113.80")
    game = _human(client, _start(client).json(), daily.solution.split(), clock)
    assert _flag(game) == ""  # one sign alone: for reviewers
    evidence = Game.objects.get(pk=game["id"]).flag_evidence
    assert evidence["signs"] == ["a win far above the account's record: 0 won of its 12 games"]
    assert evidence["record"]["games"] == 12
    # A scout that peeked from the same address, resigned later: the pair now flags.
    scout = _client(scout_key, REMOTE_ADDR="203.0.113.80")
    scout_game = _resign_at_once(scout)
    Game.objects.filter(pk=scout_game["id"]).update(started_at=daily.created_at)
    integrity.game_integrity_check(game_id=scout_game["id"])
    stored = Game.objects.get(pk=game["id"])
    assert "a win far above the account's record" in stored.flag_reason
    assert "same address as scout's attempt" in stored.flag_reason
    assert stored.under_review and not stored.flag_withheld


def test_a_win_within_the_accounts_record_is_no_sign(daily, make_user, clock, monkeypatch):
    _own_line(monkeypatch)
    user, key = make_user("steady")
    _established(user)
    _record(user, games=12, won=8)
    client = _client(key)
    game = _human(client, _start(client).json(), daily.solution.split(), clock)
    assert _flag(game) == ""
    assert Game.objects.get(pk=game["id"]).flag_evidence["signs"] == []


def test_two_signs_of_the_attempts_own_flag_together(daily, make_user, clock, monkeypatch):
    """A new account that lost its 12 casual games wins its first ranked game at par."""
    _own_line(monkeypatch)
    user, key = make_user("fresh")
    _record(user, games=12, won=0)
    client = _client(key)
    game = _human(client, _start(client).json(), daily.solution.split(), clock)
    reason = _flag(game)
    assert "a new account's first ranked game" in reason
    assert "a win far above the account's record" in reason
    assert not Game.objects.get(pk=game["id"]).flag_withheld


@pytest.mark.parametrize(
    "record, net_moves, expected",
    [
        ({"games": 9, "wins": 0}, 100, []),  # too few games to judge
        ({"games": 20, "wins": 2}, 100, []),  # a tenth won: within the record
        (
            {"games": 20, "wins": 1},
            130,
            ["a win far above the account's record: 1 won of its 20 games"],
        ),
        (
            {"ranked_wins": 3, "best_ranked_moves_to_par": 1.4},
            100,
            ["a win at par far above the account's ranked wins (the best took 1.40 x par)"],
        ),
        ({"ranked_wins": 3, "best_ranked_moves_to_par": 1.4}, 101, []),  # not at par
        ({"ranked_wins": 3, "best_ranked_moves_to_par": 1.2}, 100, []),
        ({"rating": 1250, "established": True}, 100, ["a win at par from a rating of 1250"]),
        ({"rating": 1250, "established": False}, 100, []),  # provisional
        ({"rating": 1450, "established": True}, 100, []),
    ],
)
def test_a_win_against_the_record(record, net_moves, expected):
    base = {
        "games": 0,
        "wins": 0,
        "ranked_wins": 0,
        "best_ranked_moves_to_par": None,
        "rating": None,
        "rated_boards": 0,
        "established": False,
    }
    assert integrity._above_record({**base, **record}, net_moves=net_moves, par=100) == expected
