"""The leaderboard score does not pay twice for a card returned from a foundation."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import GameState, Move, ReplayError, format_action, leaderboard_score, replay
from games.engine.solver import Solved, solve

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


def with_cycles(line: Sequence[str], cycles: Iterable[tuple[int, str]]) -> list[str]:
    """``line`` with each ``(i, "fX-tY")`` of ``cycles`` played just before action ``i`` and
    at once put back by ``tY-fX``."""
    before: defaultdict[int, list[str]] = defaultdict(list)
    for i, ret in cycles:
        src, dst = ret.split("-")
        before[i] += [ret, f"{dst}-{src}"]
    return [entry for i, action in enumerate(line) for entry in [*before[i], action]]


def paid(code: str, log: Sequence[str]) -> int:
    """Every point (or dollar) the game's score gained along ``log``."""
    scores = [GameState.from_code(code).score, *replay(code, log).scores]
    return sum(max(b - a, 0) for a, b in pairwise(s for s in scores if s is not None))


# A solver's won line for KL1-D3N-AAAAAAW, without foundation returns; action 25 recycles at
# 40 points, when f2-t5 is legal.
D3_CODE = "KL1-D3N-AAAAAAW"
D3_LOG = """
t4-t2 draw waste-t6 t5-t6 draw draw draw draw draw draw draw recycle draw waste-f2 draw
waste-f3 waste-f3 draw draw draw draw waste-t1 draw draw waste-t7 recycle draw waste-t7
t3-t7 draw draw waste-t3 waste-t4 t7-t4x4 waste-t3 draw draw waste-t4 t2-t4x2 t5-t2
t5-f1 t5-f1 draw recycle draw waste-f1 draw draw waste-t3 waste-t3 t7-t3 t7-t4 t7-f2
t7-t5 t7-f4 t2-f4 t2-f3 t7-f4 t4-f3 t6-t2x3 t6-t1 t6-t2 t4-t7x9 t6-t7 t6-f1 t3-t2x6
t2-f4 t5-f4 t4-f4 waste-f2 t7-f2 t2-f2 t7-f1 t5-f2 t2-f1 draw draw waste-f3 t7-f3 t2-f3
t7-f1 t2-f1 waste-f3 waste-t3 waste-t5 waste-t4 waste-f2 t7-f2 t2-f2 t7-f1 t7-f2 t3-f2
waste-t5 t4-t5x2 waste-t4 waste-f4 t1-f4 t1-f3 t1-f1 t6-f4 t2-f4 t5-f3 t2-f3 t5-f4 t2-f4
t7-f1 t3-f1 t5-f3 t4-f3 t7-f2 t2-f2 t5-f1 t7-f4
"""
D3_LINE = D3_LOG.split()


def test_cycles_swallowed_by_a_recycle_floor_are_not_taken_off_again() -> None:
    clean = replay(D3_CODE, D3_LINE).outcome
    assert clean.won and clean.score == 570
    log = with_cycles(D3_LINE, [(25, "f2-t5")] * 6)  # 40 + 6 x 10 = 100, then the recycle
    assert paid(D3_CODE, log) == paid(D3_CODE, D3_LINE) + 60  # the game paid the cycles ...
    assert replay(D3_CODE, log).outcome.score == 570  # ... and the recycle's floor took it all
    assert leaderboard_score(D3_CODE, log) == leaderboard_score(D3_CODE, D3_LINE) == 570


# Normal and Vegas, draw 1 and draw 3: deals the solver wins in well under a second.
WON_CODES = ["KL1-D1N-AAAAAAC", "KL1-D3N-AAAAAAF", "KL1-D1V-AAAAAAW", "KL1-D3V-AAAAAAP"]


@functools.cache
def won_line(code: str) -> tuple[tuple[str, ...], tuple[tuple[int, str], ...]]:
    """A solver's won line, and each ``(i, return)`` legal just before its action ``i``."""
    verdict = solve(GameState.from_code(code), budget_s=10)
    assert isinstance(verdict, Solved), f"{code}: {verdict}"
    state = GameState.from_code(code)
    returns: list[tuple[int, str]] = []
    for i, action in enumerate(verdict.actions):
        returns += [
            (i, format_action(m))
            for m in state.legal_moves()
            if isinstance(m, Move) and m.src.startswith("f")
        ]
        state.apply(action)
    return tuple(format_action(a) for a in verdict.actions), tuple(returns)


@pytest.mark.parametrize("code", WON_CODES)
@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_return_and_replace_cycles_never_change_the_leaderboard_score(
    code: str, data: st.DataObject
) -> None:
    line, returns = won_line(code)
    cycles = data.draw(st.lists(st.sampled_from(returns), min_size=1, max_size=20))
    log = with_cycles(line, cycles)
    per_placement = 10 if GameState.from_code(code).rules.scoring == "normal" else 5
    assert paid(code, log) == paid(code, line) + per_placement * len(cycles)
    assert leaderboard_score(code, log) == leaderboard_score(code, line)
