"""Perft-style regression counts: legal action sequences to depth N from fixed deals.

Any change to move generation changes these numbers at once. Regenerate only after checking
that the change is intended (and say why in the commit).
"""

from __future__ import annotations

import pytest

from games.engine import GameState

PERFT = {
    "KL1-D1N-AAAAAAA": [3, 7, 13, 21, 31],
    "KL1-D1N-AAAAAAG": [4, 15, 52, 170, 539],
    "KL1-D3N-AAAAAAG": [4, 16, 62, 227, 768],
    "KL1-D3V-ZZZZZZZ": [4, 14, 53, 212, 780],
    "KL1-D1C-BCDEFGH": [5, 22, 86, 298, 882],
    "KL1-D3R-QQQQQQQ": [5, 25, 126, 630, 3095],
}


def perft(g: GameState, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for m in g.legal_moves():
        c = g.copy()
        c.apply(m)
        total += perft(c, depth - 1)
    return total


@pytest.mark.parametrize("code", sorted(PERFT))
def test_perft(code: str) -> None:
    g = GameState.from_code(code)
    assert [perft(g, d) for d in range(1, 6)] == PERFT[code]
