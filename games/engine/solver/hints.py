"""Hints: the next action to play, from a winning line when the solver finds one within
the budget, else by simple rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..actions import DRAW, RECYCLE, Move, PlainAction
from ..notation import format_action
from ..state import GameState
from .moves import _Game
from .positions import _PARENTS
from .schedule import solve
from .verdicts import Solved, Unwinnable, replay_wins


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested next action; ``source`` says where it comes from.

    ``"solver"``: the first action of a winning line. ``"heuristic"``: no line within the
    budget (or the deal is lost), so a productive move by simple rules. ``"none"``: nothing
    productive is left (``action`` is None) - never a suggestion to cycle the stock forever.
    The ``reason`` of the last two ends with :data:`LOST` only when the solver proved the
    position lost, else with :data:`NO_LINE_YET`.
    """

    action: PlainAction | None
    source: Literal["solver", "heuristic", "none"]
    reason: str = ""
    line: tuple[PlainAction, ...] = ()
    """``"solver"``: the whole winning line, ``action`` first (for the next :func:`hint`)."""

    def to_dict(self) -> dict[str, Any]:
        """The API's ``hint`` object (the action in notation, or None)."""
        return {
            "action": None if self.action is None else format_action(self.action),
            "source": self.source,
            "reason": self.reason,
        }


def hint(
    state: GameState,
    *,
    budget_s: float = 0.5,
    line: Sequence[PlainAction] = (),
    max_nodes: int | None = None,
) -> Hint:
    """The next action to play from ``state``.

    ``line``: the winning line of an earlier hint in the same game (``Hint.line``). When the
    player has since played its first action, or nothing, and the rest of it (or all of it)
    still replays to a win from ``state``, the hint continues that line: at once, and
    consistent with the hint before, instead of searching again and perhaps switching to
    another solution. ``budget_s`` and ``max_nodes`` bound the search as for :func:`solve`
    (positions, unlike seconds, give the same search on any machine).

    >>> h = hint(GameState.from_code("KL1-D1N-AAAAAAG"))
    >>> h.source in ("solver", "heuristic")
    True
    """
    if state.is_over:
        return Hint(None, "none", "the game is over")
    rest = line_rest(state, line)
    if rest:
        return Hint(rest[0], "solver", "leads to a win", rest)
    v = solve(state, budget_s=budget_s, max_nodes=max_nodes)
    if isinstance(v, Solved) and v.actions:
        return Hint(v.actions[0], "solver", "leads to a win", tuple(v.actions))
    # Only a proof says the deal is lost; a search out of time found no line yet.
    verdict = LOST if isinstance(v, Unwinnable) else NO_LINE_YET
    a, why = _heuristic(state)
    if a is None:
        return Hint(None, "none", f"{why}; {verdict}")
    return Hint(a, "heuristic", f"{why} ({verdict})")


def line_rest(state: GameState, line: Sequence[PlainAction]) -> tuple[PlainAction, ...]:
    """What :func:`hint` continues of an earlier hint's ``line`` from ``state``: its rest after
    its first action (the player played it), else all of it (the player played nothing), when
    that still replays to a win; else ``()``."""
    for rest in (tuple(line[1:]), tuple(line)):
        if rest and replay_wins(state, rest):
            return rest
    return ()


LOST = "the deal can no longer be won"
"""A heuristic hint's reason says this only when the solver proved the position lost."""
NO_LINE_YET = "no line found yet"
"""... and this when its search ran out of time (or had none) without a verdict."""


def _heuristic(state: GameState) -> tuple[PlainAction | None, str]:
    """A productive legal action by simple rules, or None with the reason."""
    raw = state.raw()
    legal = state.legal_moves()
    moves = [m for m in legal if isinstance(m, Move)]
    found = raw.foundations
    for m in moves:
        if m.dst.startswith("f") and m.src != "waste":
            col = raw.tableau[int(m.src[1:]) - 1]
            return m, f"{_name(col[-1])} goes to its foundation"
    for m in moves:
        if m.dst.startswith("f") and m.src == "waste":
            return m, f"{_name(raw.waste[-1])} goes to its foundation"
    best: tuple[int, Move] | None = None
    for m in moves:
        if m.src.startswith("t") and m.dst.startswith("t"):
            c = int(m.src[1:]) - 1
            col, d = raw.tableau[c], raw.down[c]
            if len(col) - m.count == d and d > 0 and (best is None or d > best[0]):
                best = (d, m)
    if best is not None:
        return best[1], "turns a face-down card up"
    for m in moves:
        if m.src == "waste" and m.dst.startswith("t"):
            return m, f"plays {_name(raw.waste[-1])} from the waste"
    for m in moves:
        if m.src.startswith("t") and m.dst.startswith("t"):
            c = int(m.src[1:]) - 1
            col, d = raw.tableau[c], raw.down[c]
            k = len(col) - m.count
            if k == d and k > 0 and not raw.tableau[int(m.dst[1:]) - 1]:
                return m, "moves a king to the empty column"
    # Draw only when a card further in the stock (or after a recycle) can be played.
    if DRAW in legal or RECYCLE in legal:
        s = _Game(state)
        s.talon_is_set = False
        cols, talon, pos, passes, _ = s.start
        tops = {col[-1] for col in cols if len(col) > 1}
        empty = any(len(col) == 1 for col in cols)
        for i in s._reach(talon, pos, passes):
            if i == pos - 1:
                continue
            x = talon[i]
            if (
                found[x // 13] == x % 13
                or any(p in tops for p in _PARENTS[x])
                or (x % 13 == 12 and empty)
            ):
                a = DRAW if DRAW in legal else RECYCLE
                return a, f"{'draws' if a is DRAW else 'recycles'} towards {_name(x)}"
    return None, "no productive move is left"


def _name(x: int) -> str:
    from ..cards import CARD_NAMES

    return CARD_NAMES[x]
