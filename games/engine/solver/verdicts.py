"""The verdicts of a search, and its macro line turned into the player's engine actions,
checked by replay (a ``Solved`` verdict is always a checked win)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ..actions import DRAW, FOUNDATIONS, RECYCLE, Draw, Move, PlainAction, Recycle
from ..errors import IllegalMoveError
from ..state import GameState
from .positions import _COL_COL, _COL_F, _RETURN, _Macro


@dataclass(frozen=True, slots=True)
class Solved:
    """The position can be won: ``actions`` (plain engine actions) win it from there.

    The list is exactly what a player would send: it stops when the game is won (with preset
    R's auto-finish, the cards the engine plays by itself are not in it).
    """

    actions: list[PlainAction]
    nodes: int
    elapsed_s: float
    verdict: Literal["solved"] = "solved"


@dataclass(frozen=True, slots=True)
class Unwinnable:
    """Proven: a search with sound cuts only (see :class:`_Solver`) exhausted its space."""

    nodes: int
    elapsed_s: float
    verdict: Literal["unwinnable"] = "unwinnable"


@dataclass(frozen=True, slots=True)
class Unknown:
    """The budget (time or nodes) ran out before a verdict."""

    nodes: int
    elapsed_s: float
    reason: str = "budget"
    verdict: Literal["unknown"] = "unknown"


Verdict: TypeAlias = Solved | Unwinnable | Unknown


class SolverError(RuntimeError):
    """A found line did not replay to a win through the engine (a solver bug)."""


def _col(c: int) -> str:
    return f"t{c + 1}"


def _expand(start: GameState, line: Iterable[_Macro]) -> list[PlainAction]:
    """Turn a macro line into the player's engine actions, checking each one on a copy."""
    g = start.copy()
    out: list[PlainAction] = []

    def play(a: PlainAction) -> None:
        rec = g.apply(a)
        assert isinstance(rec.action, Move | Draw | Recycle)
        out.append(rec.action)

    try:
        for kind, a, b, c in line:
            if g.is_won:
                break
            if kind == _COL_COL:
                play(Move(_col(a), _col(c), b))
            elif kind == _COL_F:
                top = g.raw().tableau[a][-1]
                play(Move(_col(a), FOUNDATIONS[top // 13]))
            elif kind == _RETURN:
                play(Move(FOUNDATIONS[a], _col(b)))
            else:
                for _ in range(200):
                    w = g.raw().waste
                    if (w and w[-1] == a) or g.is_won:
                        break  # (preset R: a draw may set off the auto-finish)
                    play(DRAW if g.raw().stock else RECYCLE)
                else:
                    raise SolverError(f"card {a} never reached the waste top")
                if not g.is_won:
                    play(Move("waste", FOUNDATIONS[a // 13] if b < 0 else _col(b)))
        _finish(g, play)
    except IllegalMoveError as e:
        raise SolverError(f"solution does not replay: {e}") from e
    if not g.is_won:
        raise SolverError("solution does not end in a win")
    return out


def _finish(g: GameState, play: Any) -> None:
    """Play every card up once all are face up (the search stops there)."""
    idle = 0
    while not g.is_won:
        raw = g.raw()
        found = raw.foundations
        done = False
        if raw.waste:
            x = raw.waste[-1]
            if found[x // 13] == x % 13:
                play(Move("waste", FOUNDATIONS[x // 13]))
                done = True
        if not done:
            for c, col in enumerate(raw.tableau):
                if col and found[col[-1] // 13] == col[-1] % 13:
                    play(Move(_col(c), FOUNDATIONS[col[-1] // 13]))
                    done = True
                    break
        if done:
            idle = 0
            continue
        idle += 1
        if idle > len(raw.stock) + len(raw.waste) + 2:
            raise SolverError("the finish got stuck")
        play(DRAW if raw.stock else RECYCLE)


def replay_wins(state: GameState, actions: Iterable[PlainAction]) -> bool:
    """True when ``actions`` applied to a copy of ``state`` win the game (and nothing is left
    over after the win)."""
    g = state.copy()
    for a in actions:
        if g.is_won:
            return False
        try:
            g.apply(a)
        except IllegalMoveError:
            return False
    return g.is_won
