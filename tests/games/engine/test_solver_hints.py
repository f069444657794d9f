"""games/engine/solver/hints.py: a player who follows the hints from the deal wins it, in every
preset (issue #22).

A small deterministic set: two proven-winnable deals per preset, each solved by the solver in
under 2 000 positions, so that a generous budget makes the test independent of the machine's
load. The issue's version (50 deals per preset, the server's budget, hint latency) is the
benchmark ``bench/hint_follow.py``, whose figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import pytest

from games.engine import GameState, PlainAction
from games.engine.solver import hint

DEALS = [
    "KL1-D1N-AAAAAAA",
    "KL1-D1N-AAAAAAB",
    "KL1-D3N-AAAAAAD",
    "KL1-D3N-AAAAAAF",
    "KL1-D1V-AAAAAAF",  # needed 0.6-1.0 s before the last pass's pile (issue #22)
    "KL1-D1V-AAAAAAT",
    "KL1-D3V-AAAAAAP",
    "KL1-D3V-AAAAAAW",
    "KL1-D1C-AAAAAAF",
    "KL1-D1C-AAAAAAT",
    "KL1-D3C-AAAAAAG",
    "KL1-D3C-AAAAAAP",
    "KL1-D1R-AAAAAAA",
    "KL1-D1R-AAAAAAB",
    "KL1-D3R-AAAAAAD",
    "KL1-D3R-AAAAAAF",
]


@pytest.mark.parametrize("code", DEALS)
def test_following_the_hints_wins_the_deal(code: str) -> None:
    g = GameState.from_code(code)
    line: tuple[PlainAction, ...] = ()
    for _ in range(600):
        if g.is_won:
            break
        h = hint(g, budget_s=30, line=line)
        # The first hint finds a line; every later one continues it without a search.
        assert h.source == "solver" and h.action is not None, (code, h)
        g.apply(h.action)
        line = h.line
    assert g.is_won, code
