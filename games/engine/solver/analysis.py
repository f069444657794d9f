"""Post-game analysis: the point of no return of a played game, by a binary search of
solver verdicts over the positions it went through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..actions import Action, Auto, PlainAction, Resign, Undo
from ..deal import Deal
from ..notation import format_action
from ..replay import log_action
from ..rules import Rules
from ..state import GameState
from .schedule import solve
from .verdicts import Solved, Unknown, Unwinnable, Verdict


@dataclass(frozen=True, slots=True)
class Analysis:
    """Where a game went wrong.

    ``status``:

    * ``"won"``: the game was won.
    * ``"still_winnable"``: the last position reached can still be won (``winning_line``).
    * ``"point_of_no_return"``: ``point_of_no_return`` is the index in the original log of
      the action after which the deal could no longer be won (``notation`` is that action);
      ``winning_line`` wins from the position just before it.
    * ``"unwinnable_from_start"``: no play wins this deal.
    * ``"inconclusive"``: the solver ran out of budget on a position that mattered; the known
      bounds are in ``last_winnable`` / ``first_lost`` (effective-line indices) and nothing is
      claimed beyond them.
    """

    status: Literal[
        "won", "still_winnable", "point_of_no_return", "unwinnable_from_start", "inconclusive"
    ]
    point_of_no_return: int | None
    notation: str | None
    winning_line: list[PlainAction]
    winning_line_after: int | None
    effective_actions: int
    solver_calls: int
    message: str
    last_winnable: int | None = None
    first_lost: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON for the API; actions in notation."""
        return {
            "status": self.status,
            "point_of_no_return": self.point_of_no_return,
            "notation": self.notation,
            "winning_line": [format_action(a) for a in self.winning_line],
            "winning_line_after": self.winning_line_after,
            "effective_actions": self.effective_actions,
            "solver_calls": self.solver_calls,
            "message": self.message,
        }


def effective_line(
    deal: Deal, rules: Rules, actions: Sequence[Action | str | Mapping[str, Any]]
) -> list[tuple[GameState, int]]:
    """The positions the game actually went through, undos resolved: ``(state, i)`` pairs,
    ``i`` the index in ``actions`` of the action that led there (-1 for the deal).

    :raises IllegalMoveError, NotationError: a log the engine refuses.
    """
    g = GameState.new(deal, rules)
    line: list[tuple[GameState, int]] = [(g.copy(), -1)]
    for i, item in enumerate(actions):
        a = log_action(item)
        if isinstance(a, Auto):
            continue  # the engine plays it itself, with the action that set it off
        if isinstance(a, Resign):
            break
        if isinstance(a, Undo):
            g.undo()
            if len(line) > 1:
                line.pop()
            continue
        g.apply(a)
        line.append((g.copy(), i))
        if g.is_over:
            break
    return line


def analyse(
    deal: Deal,
    rules: Rules,
    actions: Sequence[Action | str | Mapping[str, Any]],
    *,
    budget_s_per_position: float = 5.0,
) -> Analysis:
    """Find the point of no return of a played game.

    Winnability never comes back along a line of play, so a binary search over the effective
    line (undos resolved) finds the first action after which no win is left.

    >>> a = analyse(Deal.from_number(6), Rules(), ["draw", "undo"], budget_s_per_position=2)
    >>> a.status in ("still_winnable", "unwinnable_from_start", "inconclusive")
    True

    :raises IllegalMoveError, NotationError: a log the engine refuses.
    """
    line = effective_line(deal, rules, actions)
    n = len(line)
    calls = 0
    verdicts: dict[int, Verdict] = {}

    def probe(j: int) -> Verdict:
        nonlocal calls
        if j not in verdicts:
            calls += 1
            verdicts[j] = solve(line[j][0], budget_s=budget_s_per_position)
        return verdicts[j]

    def notation(j: int) -> str:
        return format_action(log_action(actions[line[j][1]]))

    if line[-1][0].is_won:
        return Analysis("won", None, None, [], None, n - 1, 0, "the game was won")
    last = probe(n - 1)
    if isinstance(last, Solved):
        return Analysis(
            "still_winnable",
            None,
            None,
            last.actions,
            line[-1][1],
            n - 1,
            calls,
            "the last position reached can still be won",
        )
    first = probe(0)
    if isinstance(first, Unwinnable):
        return Analysis(
            "unwinnable_from_start",
            None,
            None,
            [],
            None,
            n - 1,
            calls,
            "no play wins this deal: there is no point of no return",
        )
    if not isinstance(first, Solved):
        return Analysis(
            "inconclusive",
            None,
            None,
            [],
            None,
            n - 1,
            calls,
            "the solver could not decide the deal within its budget",
        )
    lo, hi = 0, n - 1  # lo winnable; hi lost or unknown
    hi_known = not isinstance(last, Unknown)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        v = probe(mid)
        if isinstance(v, Solved):
            lo = mid
        elif isinstance(v, Unwinnable):
            hi, hi_known = mid, True
        else:
            # An unknown in the middle: try the rest of the window before giving up.
            hi_known = False
            break
    good = verdicts[lo]
    assert isinstance(good, Solved)
    if hi - lo == 1 and hi_known:
        return Analysis(
            "point_of_no_return",
            line[hi][1],
            notation(hi),
            good.actions,
            line[lo][1],
            n - 1,
            calls,
            f"after {notation(hi)} (action {line[hi][1]}) the deal can no longer be won",
            lo,
            hi,
        )
    return Analysis(
        "inconclusive",
        None,
        None,
        good.actions,
        line[lo][1],
        n - 1,
        calls,
        "the solver could not decide every position it needed within its budget",
        lo,
        hi if hi_known else None,
    )
