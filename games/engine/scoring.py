"""The leaderboard score: the game's score, except that a card returned from a foundation
earns nothing the next time it is placed there (api.md, "Ranking").

The in-game score follows the rules exactly (rules §7 pays every placement); the leaderboard
must not be pumped by cycling one card between a foundation and a column.

>>> leaderboard_score("KL1-D1N-AAAAAAK", ["t1-f1", "f1-t7", "t7-f1"])
10
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .actions import Action, Auto, Move, Undo
from .errors import IllegalMoveError, NotationError, ReplayError
from .replay import Start, initial_state, log_action
from .state import Applied

__all__ = ["leaderboard_score"]

_UNPAID_POINTS = {"normal": 10, "vegas": 5}


def leaderboard_score(
    start: Start, actions: Iterable[Action | str | Mapping[str, Any]]
) -> int | None:
    """Replay a log and return its leaderboard score (None for presets without a score).

    Undone actions are undone here too: only the line of play that stands counts.

    :raises ReplayError: an entry the rules refuse (``index`` tells which).
    """
    state = initial_state(start)
    unpaid_per_card = _UNPAID_POINTS.get(state.rules.scoring)
    if unpaid_per_card is None:
        return None
    repeats = 0
    returned: frozenset[int] = frozenset()
    history: list[tuple[int, frozenset[int]]] = []
    for i, item in enumerate(actions):
        try:
            action = log_action(item)
        except NotationError as exc:
            raise ReplayError(i, str(exc)) from None
        if isinstance(action, Auto):
            continue  # played, and counted below, with the action that set it off
        counts = list(state.raw().foundations)
        try:
            applied = state.apply(action)
        except IllegalMoveError as exc:
            raise ReplayError(i, str(exc)) from None
        if isinstance(action, Undo):
            repeats, returned = history.pop()
            continue
        history.append((repeats, returned))
        for step in (applied, *applied.auto):
            repeats, returned = _foundation_traffic(step, counts, repeats, returned)
    score = state.score
    assert score is not None
    penalty = unpaid_per_card * repeats
    return max(0, score - penalty) if state.rules.scoring == "normal" else score - penalty


def _foundation_traffic(
    step: Applied, counts: list[int], repeats: int, returned: frozenset[int]
) -> tuple[int, frozenset[int]]:
    """Follow one step's card to or from a foundation; `counts` tracks the foundations."""
    move = step.action.action if isinstance(step.action, Auto) else step.action
    if not isinstance(move, Move):
        return repeats, returned
    if move.dst.startswith("f"):
        suit = int(move.dst[1]) - 1
        counts[suit] += 1
        card = suit * 13 + counts[suit] - 1
        return (repeats + 1 if card in returned else repeats), returned
    if move.src.startswith("f"):
        suit = int(move.src[1]) - 1
        card = suit * 13 + counts[suit] - 1
        counts[suit] -= 1
        return repeats, returned | {card}
    return repeats, returned
