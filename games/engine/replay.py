"""Rebuild a game from its deal and its action log (as logged: undos, resign and automatic
actions included).

>>> r = replay("KL1-D1N-AAAAAAG", ["draw", "undo"])
>>> r.outcome.moves, r.scores
(2, [0, 0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .actions import Action, Auto, DoubleTap, Draw, Move, Recycle, Resign, Tap, Undo
from .cards import CARDS, Card
from .codes import DealCode
from .deal import Deal
from .errors import IllegalMoveError, NotationError, ReplayError
from .jsonio import auto_from_dict
from .notation import format_action, parse_action
from .rules import Rules
from .state import GameState, RawPosition

__all__ = [
    "Outcome",
    "ReplayResult",
    "Start",
    "face_up_cards",
    "initial_state",
    "log_action",
    "net_line",
    "replay",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game stands after its log."""

    status: str
    won: bool
    score: int | None
    score_display: str
    moves: int
    undos: int
    foundations: int


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The final state, the score after every log entry, and the outcome; with
    ``track_revealed``, also the cards each entry turned face up (see :func:`replay`)."""

    state: GameState
    scores: list[int | None]
    outcome: Outcome
    revealed: list[tuple[Card, ...]] | None = None


def face_up_cards(position: RawPosition) -> list[int]:
    """Every card a player sees in a position (waste bottom first, foundations, then the
    face-up part of each column), as card indices.

    >>> from .cards import CARD_NAMES
    >>> [CARD_NAMES[x] for x in face_up_cards(GameState.from_code("KL1-D1N-AAAAAAG").raw())]
    ['AD', 'JC', 'KD', '10C', '9D', '3S', 'AH']
    """
    tab, down, found, _, waste = position
    seen = list(waste)
    seen += [s * 13 + r for s in range(4) for r in range(found[s])]
    for c in range(7):
        seen += tab[c][down[c] :]
    return seen


_ACTION_TYPES = frozenset({Move, Draw, Recycle, Undo, Resign, Tap, DoubleTap, Auto})


Start = DealCode | str | tuple[Deal, Rules] | GameState


def initial_state(start: Start) -> GameState:
    """A fresh state from a code, ``(deal, rules)``, or a ``GameState`` (which is copied).

    :raises DealCodeError: a malformed code.
    """
    if isinstance(start, GameState):
        return start.copy()
    if isinstance(start, tuple):
        return GameState.new(*start)
    return GameState.from_code(start)


def log_action(item: Action | str | Mapping[str, Any]) -> Action:
    """One log entry as an action: an action, a notation line, or an API JSON dict.

    :raises NotationError: a malformed entry.
    """
    if isinstance(item, str):
        return parse_action(item)
    if isinstance(item, Mapping):
        return auto_from_dict(dict(item))
    return item


def net_line(log: Iterable[str]) -> list[str]:
    """The entries of a log that stand: each undo takes out the action it reverts, with the
    automatic moves that action set off (entries starting with ``*``); the undos go too.

    What a game comes to whatever was tried and taken back, so that a verdict on the line
    of play cannot be changed by padding it with undone actions.

    >>> net_line(["draw", "undo", "t1-f1", "draw", "undo", "draw"])
    ['t1-f1', 'draw']
    """
    kept: list[list[str]] = []
    for entry in log:
        if entry == "undo":
            if kept:
                kept.pop()
        elif entry.startswith("*") and kept:
            kept[-1].append(entry)
        else:
            kept.append([entry])
    return [entry for group in kept for entry in group]


def replay(
    start: Start,
    actions: Iterable[Action | str | Mapping[str, Any]],
    *,
    track_revealed: bool = False,
) -> ReplayResult:
    """Replay a log from the deal; entries are actions, notation lines or JSON dicts.

    ``start`` is a code, ``(deal, rules)``, or a ``GameState`` to start from (it is copied).

    With ``track_revealed``, the result's ``revealed`` lists per entry the cards it turned
    face up: drawn, flipped, or brought back into view by an undo. An action's automatic
    moves are counted with it, so their own entries reveal nothing. This is all a player can
    have seen of a deal besides the starting position's face-up cards.

    Automatic actions must appear right after the action that set them off, exactly as the
    engine plays them.

    :raises ReplayError: an entry the rules refuse, a malformed entry, or automatic actions
        that differ from the engine's (``index`` tells which entry).
    :raises DealCodeError: a malformed code.
    """
    state = initial_state(start)
    scores: list[int | None] = []
    revealed: list[tuple[Card, ...]] | None = [] if track_revealed else None
    seen = set(face_up_cards(state.raw())) if track_revealed else set()
    pending: list[Action] = []
    auto_scores: list[int | None] = []
    apply = state.apply
    i = -1
    for i, item in enumerate(actions):
        if type(item) in _ACTION_TYPES:
            a: Action = item  # type: ignore[assignment]
        else:
            try:
                a = log_action(item)
            except NotationError as e:
                raise ReplayError(i, str(e)) from None
        if pending:
            want = pending.pop(0)
            if a != want:
                raise ReplayError(
                    i,
                    f"expected the automatic action {format_action(want)}, "
                    f"found {format_action(a)}",
                )
            scores.append(auto_scores.pop(0))
            if revealed is not None:
                revealed.append(())
            continue
        if isinstance(a, Auto):
            raise ReplayError(i, f"unexpected automatic action {format_action(a)}")
        try:
            rec = apply(a)
        except IllegalMoveError as e:
            raise ReplayError(i, str(e), e.reason, **e.details) from None
        scores.append(rec.score)
        if revealed is not None:
            now = face_up_cards(state.raw())
            revealed.append(tuple(CARDS[x] for x in now if x not in seen))
            seen = set(now)
        if rec.auto:
            pending = [x.action for x in rec.auto]
            auto_scores = [x.score for x in rec.auto]
    if pending:
        raise ReplayError(
            i + 1, f"the log ends before the automatic action {format_action(pending[0])}"
        )
    return ReplayResult(
        state,
        scores,
        Outcome(
            state.status,
            state.is_won,
            state.score,
            state.score_display,
            state.moves,
            state.undos,
            state.foundation_count,
        ),
        revealed,
    )
