"""The leaderboard score does not pay twice for a card returned from a foundation."""

from __future__ import annotations

import pytest

from games.engine import ReplayError, leaderboard_score, replay

# KL1-D1N-AAAAAAK: t1 holds the AS alone, and f1-t7 can take it back onto the 2H of t7.
CODE = "KL1-D1N-AAAAAAK"
PUMP = ["t1-f1", "f1-t7", "t7-f1"]


def test_a_returned_card_earns_nothing_when_placed_again() -> None:
    assert replay(CODE, PUMP).outcome.score == 20  # the rules pay every placement (§7)
    assert leaderboard_score(CODE, PUMP) == 10


def test_cycling_many_times_earns_nothing_more() -> None:
    log = ["t1-f1"] + ["f1-t7", "t7-f1"] * 5
    assert replay(CODE, log).outcome.score == 60
    assert leaderboard_score(CODE, log) == 10


def test_undo_takes_back_the_return_too() -> None:
    # The return is undone, so the card was never returned on the line that stands.
    assert leaderboard_score(CODE, ["t1-f1", "f1-t7", "undo", "undo", "t1-f1"]) == 10
    assert leaderboard_score(CODE, [*PUMP, "undo", "t7-f1"]) == 10


def test_equals_the_game_score_without_returns() -> None:
    log = ["t1-f1", "draw", "draw", "undo"]
    assert leaderboard_score(CODE, log) == replay(CODE, log).outcome.score


def test_vegas_dollars() -> None:
    code = "KL1-D1V-AAAAAAK"
    assert replay(code, PUMP).outcome.score == -42
    assert leaderboard_score(code, PUMP) == -47


def test_no_score_presets() -> None:
    assert leaderboard_score("KL1-D1C-AAAAAAK", ["t1-f1"]) is None


def test_illegal_entry_names_its_index() -> None:
    with pytest.raises(ReplayError, match="action 1"):
        leaderboard_score(CODE, ["t1-f1", "f1-t2"])
