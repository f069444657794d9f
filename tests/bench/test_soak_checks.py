"""bench/soak.py's judges: the stored logs against what the players were told
(bench/soak_checks.py `logs`), a final board against a ranking from scratch (`boards`), and
the failed requests per fault window (bench/soak.py `fault_figures`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import time_machine

from bench import soak_checks
from bench.soak import GRACE_S, STREAK, fault_figures
from games import engine
from games import services as game_services
from games.daily.services import attempts, deals
from games.models import Game

DAY = date(2026, 11, 30)


def _played(make_user: Callable[..., Any]) -> tuple[Game, list[str]]:
    """A casual game with three actions logged; returns it and its log."""
    user, _ = make_user()
    game = game_services.game_start(user=user, draw=1, preset="N")
    log = []
    for _ in range(3):
        state = game_services.game_state(game)
        action = state.legal_moves()[0]
        game, _ = game_services.game_action_apply(
            game_id=game.pk, user=user, seq=game.seq, action=action
        )
        log.append(engine.format_action(action))
    return game, log


def test_logs_count_lost_and_unknown_actions(make_user: Callable[..., Any]) -> None:
    game, log = _played(make_user)
    acked = [[i + 1, [n]] for i, n in enumerate(log)]
    seen = {"kind": "casual", "log": log, "acked": acked, "open": True}
    assert soak_checks.logs({str(game.pk): seen}) | {"failures": []} == {
        "games": 1,
        "acked_actions": 3,
        "lost": 0,
        "logs_differ": 0,
        "failures": [],
    }
    # An action answered 200 that the log does not hold at its seq is lost.
    wrong = {**seen, "acked": [*acked, [4, ["draw"]]], "log": [*log, "draw"]}
    result = soak_checks.logs({str(game.pk): wrong})
    assert (result["lost"], result["logs_differ"]) == (1, 1)
    # A stored entry the player never learned of differs, unless it is the one in flight.
    short = {**seen, "log": log[:2], "acked": acked[:2]}
    assert soak_checks.logs({str(game.pk): short})["logs_differ"] == 1
    in_flight = {**short, "pending": [log[2]]}
    assert soak_checks.logs({str(game.pk): in_flight})["logs_differ"] == 0


def test_boards_compare_a_final_board_with_a_ranking_from_scratch(
    make_user: Callable[..., Any],
) -> None:
    with time_machine.travel(datetime(2026, 11, 30, 12, tzinfo=UTC), tick=False):
        daily = deals.daily_deal_get_or_create(day=DAY, mode="D1N")
        for won, score in ((False, 40), (True, 10), (False, 40), (False, 5)):
            user, _ = make_user()
            game, _ = attempts.daily_start(user=user, day=DAY, mode="D1N")
            Game.objects.filter(pk=game.pk).update(
                status="won" if won else "resigned",
                leaderboard_score=score,
                moves=100,
                elapsed_ms=1000,
                finished_at=game.started_at + timedelta(seconds=1),
            )
        user, _ = make_user()
        attempts.daily_start(user=user, day=DAY, mode="D1N")  # left in play: resigned at close
    assert soak_checks.close(DAY) == {"closed": {"D1N": True}}
    board = soak_checks.boards(DAY)["D1N"]
    assert (board["final"], board["equal"], board["entries"], board["won"]) == (True, True, 5, 1)
    # A game changed after the board was ranked: the board no longer equals the scratch.
    Game.objects.filter(daily=daily, leaderboard_score=5).update(leaderboard_score=90)
    board = soak_checks.boards(DAY)["D1N"]
    assert not board["equal"] and board["first_difference"] is not None


def test_fault_figures_split_failures_by_window() -> None:
    fault = {"name": "f", "start": 100.0, "back": 102.0, "notes": {}}
    ok = [(90.0 + i * 0.1, 0.01, "move", 200, True) for i in range(STREAK)]
    inside = [(101.0, 0.01, "move", 502, False), (99.9, 0.2, "move", 0, False)]
    grace = [(102.0 + GRACE_S - 0.5, 0.01, "move", 500, False)]
    after = [(103.0 + i * 0.01, 0.01, "move", 200, True) for i in range(STREAK)]
    [figures] = fault_figures([*ok, *inside, *grace, *after], [fault])
    assert figures["errors_in_window"] == 3
    assert figures["errors_after_grace"] == 0
    assert figures["statuses"] == {502: 1, 0: 1, 500: 1}
    late = [(102.0 + GRACE_S + 1.0, 0.01, "move", 500, False)]
    [figures] = fault_figures([*ok, *inside, *late], [fault])
    assert figures["errors_after_grace"] == 1
