"""games/engine/solver/hints.py: a player who follows the hints from the deal wins it, in every
preset (issue #22).

For each of the eight presets, the first 50 deals by number that the solver proves winnable
within 5 000 positions (``bench/hint_follow.py --list --prove 600 --prove-nodes 5000``
printed the lists). The first hint of each game searches with that same bound in positions,
not seconds, so the search is the same on any machine, however busy; every later hint
continues the kept line without a search. The server's budget (0.5 s), the deals that take
longer, and the hints of a player who left the line are measured by the benchmark
``bench/hint_follow.py`` (docs/benchmarks.md).
"""

from __future__ import annotations

import pytest

from games.engine import DealCode, GameState, PlainAction
from games.engine.solver import hint

PROVEN = {
    "D1N": (
        "0 1 2 3 4 5 6 7 8 9 10 11 13 14 15 16 17 18 19 20 22 23 24 26 27 28 29 30 31 32 "
        "33 34 35 36 37 38 40 41 42 43 44 46 47 48 49 50 51 52 53 54"
    ),
    "D3N": (
        "3 5 6 8 9 10 11 12 14 15 16 17 18 19 20 22 24 26 27 28 29 30 31 32 33 35 36 37 38 "
        "41 44 46 47 48 52 53 54 55 60 61 63 64 67 69 70 72 73 74 75 76"
    ),
    "D1V": (
        "2 3 5 9 18 19 22 26 33 35 65 74 75 78 79 83 101 113 115 125 133 143 144 154 155 "
        "162 170 207 212 216 230 261 262 273 277 296 307 318 325 326 351 352 359 369 371 "
        "377 400 403 404 409"
    ),
    "D3V": (
        "15 22 172 245 250 273 509 527 553 637 691 745 771 892 912 1006 1043 1063 1115 1182 "
        "1251 1272 1276 1339 1350 1387 1398 1532 1612 1648 1761 1812 1819 1838 1857 1958 "
        "1985 1997 2045 2054 2067 2105 2156 2170 2188 2313 2318 2344 2406 2491"
    ),
    "D1C": (
        "3 5 9 18 19 22 26 28 33 35 37 55 65 74 75 77 78 79 83 91 95 101 113 115 125 133 "
        "143 144 154 155 162 170 172 193 207 212 216 230 254 261 262 273 277 296 307 318 "
        "325 326 351 352"
    ),
    "D3C": (
        "3 6 9 11 12 13 14 15 16 19 22 24 27 28 29 38 41 44 45 47 48 50 61 67 69 72 74 76 "
        "77 78 79 81 83 87 93 94 95 96 99 100 112 113 115 117 123 125 130 133 136 141"
    ),
    "D1R": (
        "0 1 2 3 4 5 6 7 8 9 10 11 13 14 15 16 17 18 19 20 22 23 24 26 27 28 29 30 31 32 "
        "33 34 35 36 37 38 40 41 42 43 44 46 47 48 49 50 51 52 53 54"
    ),
    "D3R": (
        "3 5 6 8 9 10 11 12 14 15 16 17 18 19 20 22 24 26 27 28 29 30 31 32 33 35 36 37 38 "
        "41 44 46 47 48 52 53 54 55 60 61 63 64 67 69 70 72 73 74 75 76"
    ),
}
"""Per preset, the deal numbers: the first 50 the solver proves winnable within 5 000
positions."""
PROOF_NODES = 5000


@pytest.mark.parametrize(
    "code",
    [
        str(DealCode(int(mode[1]), mode[2], int(n)))
        for mode, ns in PROVEN.items()
        for n in ns.split()
    ],
)
def test_following_the_hints_wins_the_deal(code: str) -> None:
    g = GameState.from_code(code)
    line: tuple[PlainAction, ...] = ()
    for _ in range(600):
        if g.is_won:
            break
        h = hint(g, budget_s=600, max_nodes=PROOF_NODES, line=line)
        # The first hint finds a line; every later one continues it without a search.
        assert h.source == "solver" and h.action is not None, (code, h)
        g.apply(h.action)
        line = h.line
    assert g.is_won, code


def test_every_preset_has_its_50_deals() -> None:
    assert sorted(PROVEN) == sorted(f"D{d}{p}" for d in (1, 3) for p in "NVCR")
    assert all(len(set(ns.split())) == 50 for ns in PROVEN.values())
