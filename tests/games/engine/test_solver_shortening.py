"""games/engine/solver/shortening.py: the shortest winning line found within a fixed number of
positions (a daily deal's par)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import DRAW, RECYCLE, GameState, PlainAction, parse_action
from games.engine.solver import Solved, replay_wins, shorten, solve
from games.engine.solver.shortening import cut_cycles, greedy_line

from .conftest import make_position

# Deals the solver wins within a few thousand positions, a mode each kind: draw 1 and 3,
# unlimited passes, a pass limit (V, C) and the automatic finish (R).
CODES = (
    "KL1-D1N-AAAAAAC",
    "KL1-D3N-AAAAAAD",
    "KL1-D1V-AAAAAAC",
    "KL1-D3C-AAAAAAD",
    "KL1-D1R-AAAAAAB",
)
NODES = 40_000  # positions a shortening here may search (a fraction of the daily's)


@functools.cache
def solver_line(code: str) -> tuple[PlainAction, ...]:
    """The solver's winning line, under a bound in positions: the same on any machine."""
    verdict = solve(GameState.from_code(code), budget_s=120, max_nodes=20_000)
    assert isinstance(verdict, Solved)
    return tuple(verdict.actions)


@pytest.mark.parametrize("code", CODES)
def test_the_shortened_line_wins_and_is_never_longer(code: str) -> None:
    state = GameState.from_code(code)
    line = solver_line(code)
    short = shorten(state, line, max_nodes=NODES)
    assert replay_wins(state, short) and len(short) <= len(line)
    assert shorten(state, line, max_nodes=NODES) == short  # a bound in positions: the same


def test_a_draw_1_line_gets_much_shorter() -> None:
    # The solver keeps a draw-1 talon as a set: its line draws through the stock again for
    # every card it takes in its own order.
    state = GameState.from_code(CODES[0])
    line = solver_line(CODES[0])
    assert len(shorten(state, line, max_nodes=NODES)) < len(line) * 2 // 3


def test_a_greedy_players_win_is_never_shorter_than_par() -> None:
    for code in CODES:
        state = GameState.from_code(code)
        greedy = greedy_line(state)
        assert greedy is None or replay_wins(state, greedy)
        if greedy is not None:
            assert len(shorten(state, solver_line(code), max_nodes=NODES)) <= len(greedy)


def test_a_line_that_does_not_win_is_refused() -> None:
    state = GameState.from_code(CODES[0])
    with pytest.raises(ValueError, match="does not win"):
        shorten(state, solver_line(CODES[0])[:-1])


def test_a_card_moved_away_and_back_is_cut() -> None:
    # Spades to the queen, hearts to the jack, diamonds done, clubs to the queen: KS QH in t1,
    # KC in t2, KH in the stock.
    state = make_position([["KS", "QH"], ["KC"]], foundations=(12, 11, 13, 12))
    line = [parse_action(a) for a in ("t1-f2", "draw", "waste-f2", "t1-f1", "t2-f4")]
    detour = [parse_action(a) for a in ("t1-t2", "t2-t1")]  # QH onto KC and back
    assert replay_wins(state, detour + line)
    assert shorten(state, detour + line, max_nodes=0) == line


def test_a_pass_through_the_stock_that_moves_nothing_is_cut() -> None:
    state = GameState.from_code(CODES[0])
    line = list(solver_line(CODES[0]))
    padded = [DRAW] * 24 + [RECYCLE] + line  # the whole stock drawn and turned over
    assert replay_wins(state, padded)
    cut = shorten(state, padded, max_nodes=0)
    assert replay_wins(state, cut) and len(cut) <= len(line)


def _waste_round_trip(state: GameState) -> list[PlainAction]:
    """Draw 1: draw the rest of the stock, recycle and draw back to the same waste: the same
    position (one more pass used)."""
    raw = state.raw()
    if not raw.stock and not raw.waste:
        return []
    return [DRAW] * len(raw.stock) + [RECYCLE] + [DRAW] * len(raw.waste)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code=st.sampled_from(["KL1-D1N-AAAAAAA", "KL1-D1N-AAAAAAB", "KL1-D1N-AAAAAAG"]),
    points=st.lists(st.floats(0.0, 0.99), min_size=1, max_size=3),
)
def test_round_trips_anywhere_in_a_line_are_cut_and_the_line_still_wins(
    code: str, points: list[float]
) -> None:
    state = GameState.from_code(code)
    line = list(solver_line(code))
    padded: list[PlainAction] = []
    at = state.copy()
    cuts = sorted(int(p * len(line)) for p in points)
    for i, action in enumerate(line):
        for _ in range(cuts.count(i)):
            trip = _waste_round_trip(at)
            for a in trip:
                at.apply(a)
            padded += trip
        padded.append(action)
        at.apply(action)
    assert replay_wins(state, padded)
    cut = cut_cycles(state, padded)
    assert replay_wins(state, cut)
    assert len(cut) <= len(cut_cycles(state, line)) <= len(line)
    short = shorten(state, padded, max_nodes=3_000)
    assert replay_wins(state, short) and len(short) <= len(cut)
