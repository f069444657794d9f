"""JSON views of a position: the public one the API sends, and the full one for replays and
the solver.

>>> from .state import GameState
>>> public_view(GameState.from_code("KL1-D1N-AAAAAAG"))["tableau"][1]
[None, 'JC']
>>> legal_view(GameState.from_code("KL1-D1N-AAAAAAG"))["moves"]["t1"]
{'f3': 1}
"""

from __future__ import annotations

from typing import Any

from .actions import Draw, Move
from .cards import CARD_NAMES
from .rules import Rules
from .state import GameState

__all__ = ["from_full_view", "full_view", "legal_view", "public_view"]


def public_view(state: GameState) -> dict[str, Any]:
    """The api.md ``state`` object: face-down cards are ``null``, the stock only a count.

    Waste cards are listed bottom first (the last is playable); foundations A upwards.
    """
    tab, down, found, stock, waste = state.raw()
    return {
        "stock": len(stock),
        "waste": [CARD_NAMES[x] for x in waste],
        "foundations": [[CARD_NAMES[s * 13 + r] for r in range(found[s])] for s in range(4)],
        "tableau": [
            [None] * down[c] + [CARD_NAMES[x] for x in tab[c][down[c] :]] for c in range(7)
        ],
    }


def legal_view(state: GameState) -> dict[str, Any]:
    """The position's legal actions, compactly, for a client that checks a gesture before
    sending it: ``{"stock": "draw" | "recycle" | None, "moves": {from: {to: count}}}``.

    Targets are concrete piles (a move's ``"f"`` is one of ``f1``..``f4`` here). Between two
    piles at most one run fits, so one count per target says it all. It names only face-up
    cards' moves and counts the stock and waste already shows: nothing hidden.
    """
    stock: str | None = None
    moves: dict[str, dict[str, int]] = {}
    for action in state.legal_moves():
        if isinstance(action, Move):
            moves.setdefault(action.src, {})[action.dst] = action.count
        else:
            stock = "draw" if isinstance(action, Draw) else "recycle"
    return {"stock": stock, "moves": moves}


def full_view(state: GameState) -> dict[str, Any]:
    """Every card: ``{"stock": [draw order], "waste": [...], "foundations": [[...] x 4],
    "tableau": [{"down": [...], "up": [...]} x 7]}`` (columns bottom first).

    >>> from .state import GameState
    >>> full_view(GameState.from_code("KL1-D1N-AAAAAAG"))["tableau"][1]
    {'down': ['2H'], 'up': ['JC']}
    """
    tab, down, found, stock, waste = state.raw()
    return {
        "stock": [CARD_NAMES[x] for x in reversed(stock)],
        "waste": [CARD_NAMES[x] for x in waste],
        "foundations": [[CARD_NAMES[s * 13 + r] for r in range(found[s])] for s in range(4)],
        "tableau": [
            {
                "down": [CARD_NAMES[x] for x in tab[c][: down[c]]],
                "up": [CARD_NAMES[x] for x in tab[c][down[c] :]],
            }
            for c in range(7)
        ],
    }


def from_full_view(
    view: dict[str, Any],
    rules: Rules,
    *,
    score: int | None = None,
    moves: int = 0,
    passes_used: int = 0,
) -> GameState:
    """A game in the position of a :func:`full_view` dict.

    :raises ValueError: malformed view, bad foundations (not A upwards in suit), or the
        checks of :meth:`GameState.from_position`.
    """
    try:
        found = view["foundations"]
        counts = []
        for s, pile in enumerate(found):
            if [x.upper() for x in pile] != list(CARD_NAMES[s * 13 : s * 13 + len(pile)]):
                raise ValueError(f"f{s + 1} must hold its suit from A upwards")
            counts.append(len(pile))
        return GameState.from_position(
            rules,
            tableau=[col["up"] for col in view["tableau"]],
            hidden=[col["down"] for col in view["tableau"]],
            stock=view["stock"],
            waste=view["waste"],
            foundations=counts,
            score=score,
            moves=moves,
            passes_used=passes_used,
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"malformed full view: {e!r}") from None
