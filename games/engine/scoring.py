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

from .actions import Action, Auto, Move, Recycle, Undo
from .errors import IllegalMoveError, NotationError, ReplayError
from .replay import Start, initial_state, log_action

__all__ = ["leaderboard_score"]


def leaderboard_score(
    start: Start, actions: Iterable[Action | str | Mapping[str, Any]]
) -> int | None:
    """Replay a log and return its leaderboard score (None for presets without a score).

    Undone actions are undone here too: only the line of play that stands counts.

    :raises ReplayError: an entry the rules refuse (``index`` tells which).
    """
    state = initial_state(start)
    if state.score is None:
        return None
    floored = state.rules.scoring == "normal"
    # Kept step by step: a recycle's floor may already have swallowed pumped points, so the
    # repeats cannot just come off the final score.
    shadow = state.score
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
        before = state.score
        try:
            applied = state.apply(action)
        except IllegalMoveError as exc:
            raise ReplayError(i, str(exc), exc.reason, **exc.details) from None
        if isinstance(action, Undo):
            shadow, returned = history.pop()
            continue
        history.append((shadow, returned))
        for step in (applied, *applied.auto):
            assert before is not None and step.score is not None  # a scored preset
            plain = step.action.action if isinstance(step.action, Auto) else step.action
            repeat, returned = _foundation_traffic(plain, counts, returned)
            if floored and isinstance(plain, Recycle):
                shadow = max(shadow - 100, 0)  # the engine floors against its own, pumped score
            elif not repeat:
                shadow += step.score - before
            before = step.score
    return shadow


def _foundation_traffic(
    move: Action, counts: list[int], returned: frozenset[int]
) -> tuple[bool, frozenset[int]]:
    """Follow one step's card to or from a foundation (`counts` tracks the foundations):
    whether it places a card returned before, and the returned cards after it."""
    if not isinstance(move, Move):
        return False, returned
    if move.dst.startswith("f"):
        suit = int(move.dst[1]) - 1
        counts[suit] += 1
        return suit * 13 + counts[suit] - 1 in returned, returned
    if move.src.startswith("f"):
        suit = int(move.src[1]) - 1
        counts[suit] -= 1
        return False, returned | {suit * 13 + counts[suit]}
    return False, returned
