"""Klondike solver, hints and post-game analysis ("thoughtful" Klondike: every card is known).

>>> from games.engine import GameState
>>> v = solve(GameState.from_code("KL1-D1N-AAAAAAG"), budget_s=5)
>>> type(v).__name__ in ("Solved", "Unwinnable", "Unknown")
True

How it works (docs/solver.md has the long version):

* A compact internal position: 7 columns as ``bytes`` (first byte ``100 + face-down count``,
  then the cards bottom first, engine ints), the *talon* (waste bottom..top then stock in draw
  order) as ``bytes`` with ``pos`` = how many of its cards are on the waste, passes used, and
  the foundation counts.
* Stock moves are macros: "draw (and recycle if needed) until card X is on the waste, then play
  it". For a talon of ``L`` cards and ``pos`` cards on the waste, the reachable waste sizes are
  ``pos`` itself, ``pos + k*draw`` and ``L``; after one recycle ``k*draw`` and ``L``. Reaching a
  card without a recycle dominates reaching it with one (same position, fewer passes used), so a
  card gives one child at most. In draw 1 with unlimited passes every talon card is reachable at
  any time, so the talon is kept as a sorted set.
* Depth-first search with a transposition table keyed on the sorted columns (column order does
  not matter), the talon, and - only where it changes what is reachable - ``pos`` and the passes.
* Sound cuts: safe foundation moves are played automatically (see ``_safe``); a king that
  lies at the bottom of its column never moves to an empty column; a column is emptied only
  when a king can move in next; a partial run move only when the next move can use the card
  it leaves; with the talon as a set, a talon card goes to a column only as the start of a
  chain that a face-up card or a foundation top can end (``_down_useful``). Dead positions,
  where some column card can never leave the card it lies on, are cut at once (``_stuck``).
* Fast cuts, for wins only: a foundation return only when the next move uses the card
  (``_return_useful``), a talon card up only when a chain to a column top follows
  (``_up_useful``). They can cut every winning line, so the searches that use them prove
  nothing by running dry: then a search with the sound cuts only takes over, and only its
  running dry is ``Unwinnable`` (see ``_schedule``).
* For draw 3 or a pass limit, a third search runs the relaxed game where the talon is a set
  (draw 1, unlimited passes), with the sound cuts: it allows every real move and more, so its
  loss is a proof.
* Solutions are expanded into engine actions (Draw/Recycle/Move) and replayed through the
  engine before they are returned, so a ``Solved`` verdict is always a checked win.
"""

from __future__ import annotations

import argparse
import functools
import heapq
import os
import statistics
import sys
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from .actions import (
    DRAW,
    FOUNDATIONS,
    RECYCLE,
    Action,
    Auto,
    Draw,
    Move,
    PlainAction,
    Recycle,
    Resign,
    Undo,
)
from .codes import DealCode
from .deal import Deal
from .errors import IllegalMoveError
from .notation import format_action
from .replay import log_action
from .rules import Rules
from .state import GameState

__all__ = [
    "Analysis",
    "Hint",
    "Solved",
    "Unknown",
    "Unwinnable",
    "Verdict",
    "analyse",
    "hint",
    "main_solve",
    "solve",
]


# -- verdicts ---------------------------------------------------------------------------------


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


# -- card tables --------------------------------------------------------------------------------

_PARENTS: Final = tuple(
    ()
    if c % 13 == 12
    else tuple(s * 13 + c % 13 + 1 for s in range(4) if (s in (1, 2)) != (c // 13 in (1, 2)))
    for c in range(52)
)
"""The two cards a card may be put on in a column (none for a king)."""
_OPP: Final = ((1, 2), (0, 3), (0, 3), (1, 2))
"""The suits of the other colour."""
_MATE: Final = (3, 2, 1, 0)
"""The other suit of the same colour."""
_DOWN0: Final = 100
"""A column's first byte is ``_DOWN0 + face-down count``; cards are 0..51."""
_EMPTY: Final = bytes((_DOWN0,))
_UNLIMITED: Final = 1 << 30
_SHARED = True

# Macro moves: (kind, a, b, c).
_COL_COL: Final = 0  # (0, src column, count, dst column)
_COL_F: Final = 1  # (1, column, 0, 0)
_TALON: Final = 2  # (2, card, dst column or -1 for its foundation, 0)
_RETURN: Final = 3  # (3, suit, dst column, 0)

_Macro: TypeAlias = tuple[int, int, int, int]
_Cols: TypeAlias = tuple[bytes, ...]
# (columns, talon, pos, passes used, foundations)
_Pos: TypeAlias = tuple[_Cols, bytes, int, int, tuple[int, ...]]


class _OutOfBudget(Exception):
    pass


# -- the search -------------------------------------------------------------------------------


class _Solver:
    """One search over one start position. Not thread-safe; cheap to build."""

    def __init__(
        self,
        state: GameState,
        *,
        stuck_check: bool = True,
        relax: bool = False,
        sound: bool | None = None,
    ) -> None:
        """``relax``: search the relaxed game where the talon is a set (draw 1, unlimited
        passes) instead: it allows every move of the real one and more, so a proof that the
        relaxed game is lost is a proof for the real one (a win proves nothing).

        ``sound``: generate moves with the proven cuts only, so that running dry is a proof
        of a loss; otherwise also with the fast cuts (:func:`_return_useful` for foundation
        returns, and for the foundation cards that may end a talon chain; :func:`_up_useful`),
        which find wins sooner but may cut every winning line. Default: sound for the relaxed
        game (it only ever proves losses), fast otherwise."""
        rules = state.rules
        self.state = state
        self.relax = relax
        self.stuck_check = stuck_check
        self.sound = relax if sound is None else sound
        self._twin: _Solver | None = None
        self.shared = _SHARED
        self._shared: tuple[set[bytes], dict[bytes, int] | None] | None = None
        self.draw = 1 if relax else rules.draw
        self.returns = rules.foundation_return
        mr = None if relax else rules.max_recycles
        self.recycles = _UNLIMITED if mr is None else mr
        self.unlimited = mr is None
        # Draw 1 with unlimited passes: every talon card is reachable at any time.
        self.talon_is_set = self.unlimited and self.draw == 1
        self.nodes = 0
        raw = state.raw()
        cols = tuple(
            bytes((_DOWN0 + d,)) + bytes(col) for col, d in zip(raw.tableau, raw.down, strict=True)
        )
        talon = bytes(raw.waste) + bytes(reversed(raw.stock))
        pos = len(raw.waste)
        if self.talon_is_set:
            talon, pos = bytes(sorted(talon)), 0
        self.start: _Pos = (cols, talon, pos, state.passes_used, tuple(raw.foundations))

    # -- helpers ----------------------------------------------------------------------------

    def sound_twin(self) -> _Solver:
        """A solver of the same position and game with the sound cuts only (made once)."""
        if self.sound:
            return self
        if self._twin is None:
            self._twin = _Solver(
                self.state, stuck_check=self.stuck_check, relax=self.relax, sound=True
            )
        return self._twin

    def _safe(self, x: int, found: Sequence[int]) -> bool:
        """Can card ``x`` (next on its foundation) go up without losing any win?

        Aces and twos: nothing needs them in a column. Otherwise both cards one rank lower of
        the other colour must be up (nothing left that could go on ``x``); with foundation
        return also the other same-colour suit two ranks lower, so that no chain of cards
        taken back could ever want ``x`` as a base.
        """
        r = x % 13 + 1
        if r <= 2:
            return True
        o1, o2 = _OPP[x // 13]
        if found[o1] < r - 1 or found[o2] < r - 1:
            return False
        return not (self.returns and found[_MATE[x // 13]] < r - 2)

    def _key(self, p: _Pos) -> bytes:
        cols, talon, pos, passes, _ = p
        if self.unlimited:
            if self.draw == 1:
                tail = b""
            else:
                n = len(talon)
                tail = bytes((0 if pos % 3 == 0 or pos == n else pos,))
        else:
            tail = bytes((pos, passes))
        return b"".join(sorted(cols)) + b"\xff" + talon + b"\xfe" + tail

    def _tables(self, p0: _Pos, own: bool = False) -> tuple[set[bytes], dict[bytes, int] | None]:
        """The transposition tables of a search: shared by the searches of one solver when
        ``shared`` (then a proof needs every search exhausted), else (or when ``own``)
        fresh."""
        shared = self.shared and not own
        if shared and self._shared is not None:
            return self._shared
        seen = {self._key(p0)}
        t = (seen, self._by_pos(seen))
        if shared:
            self._shared = t
        return t

    def _by_pos(self, seen: set[bytes]) -> dict[bytes, int] | None:
        """Draw 3 with unlimited passes: the keys without their waste-size byte, each with
        the bit set of the waste sizes seen, seeded with ``seen`` (see :func:`_waste_seen`)."""
        if not self.unlimited or self.draw == 1:
            return None
        out: dict[bytes, int] = {}
        for k in seen:
            out[k[:-1]] = out.get(k[:-1], 0) | 1 << k[-1]
        return out

    def _won(self, p: _Pos) -> bool:
        cols, talon, _, _, found = p
        if sum(found) == 52:
            return True
        for col in cols:
            if col[0] != _DOWN0:
                return False
        # Every card face up: with the talon gone (or all of it always reachable) the smallest
        # card still needed is always on top of a column or in the talon, so it finishes.
        return not talon or self.talon_is_set

    def _reach(self, talon: bytes, pos: int, passes: int) -> list[tuple[int, int]]:
        """(talon index, recycles needed) of every card that can become the waste top."""
        n = len(talon)
        if not n:
            return []
        if self.talon_is_set:
            return [(i, 0) for i in range(n)]
        d = self.draw
        out: list[tuple[int, int]] = []
        seen: set[int] = set()
        if pos:
            out.append((pos - 1, 0))
            seen.add(pos - 1)
        k = pos + d
        while k < n:
            out.append((k - 1, 0))
            seen.add(k - 1)
            k += d
        if n > pos and n - 1 not in seen:
            out.append((n - 1, 0))
            seen.add(n - 1)
        if passes < self.recycles:
            k = d
            while k < n:
                if k - 1 not in seen:
                    out.append((k - 1, 1))
                    seen.add(k - 1)
                k += d
            if n - 1 not in seen:
                out.append((n - 1, 1))
        return out

    def _auto(
        self, cols: list[bytes], talon: bytes, pos: int, found: list[int], autos: list[_Macro]
    ) -> tuple[bytes, int]:
        """Play safe foundation moves (columns; the waste top in draw 1; any talon card when
        the talon is a set) until none is left."""
        safe = self._safe
        draw1 = self.draw == 1
        talon_set = self.talon_is_set
        while True:
            f0, f1, f2, f3 = found
            need = (
                f0 if f0 < 13 else -1,
                13 + f1 if f1 < 13 else -1,
                26 + f2 if f2 < 13 else -1,
                39 + f3 if f3 < 13 else -1,
            )
            for c in range(7):
                col = cols[c]
                if len(col) > 1 and col[-1] in need and safe(col[-1], found):
                    x = col[-1]
                    found[x // 13] += 1
                    cols[c] = _pop(col, 1)
                    autos.append((_COL_F, c, 0, 0))
                    break
            else:
                if not (draw1 and talon):
                    return talon, pos
                if talon_set:
                    for x in need:
                        if x >= 0 and x in talon and safe(x, found):
                            i = talon.index(x)
                            found[x // 13] += 1
                            talon = talon[:i] + talon[i + 1 :]
                            autos.append((_TALON, x, -1, 0))
                            break
                    else:
                        return talon, pos
                elif pos and talon[pos - 1] in need and safe(talon[pos - 1], found):
                    x = talon[pos - 1]
                    found[x // 13] += 1
                    talon = talon[: pos - 1] + talon[pos:]
                    pos -= 1
                    autos.append((_TALON, x, -1, 0))
                else:
                    return talon, pos

    # -- move generation ---------------------------------------------------------------------

    def _moves(self, p: _Pos, talon_first: bool = False) -> list[_Macro]:
        """The moves worth trying from ``p``, best first (see docs/solver.md, "Move order");
        ``talon_first``: the talon's moves before those that turn a card up."""
        cols, talon, pos, passes, found = p
        where: dict[int, int] = {}
        empty = -1
        for c in range(7):
            col = cols[c]
            if len(col) > 1:
                where[col[-1]] = c
            elif empty < 0:
                empty = c
        reach = self._reach(talon, pos, passes)
        reach_cards = {talon[i] for i, _ in reach}

        f_flip: list[_Macro] = []
        flips: list[tuple[int, _Macro]] = []
        f_other: list[_Macro] = []
        talon_moves: list[_Macro] = []
        emptying: list[_Macro] = []
        partial: list[_Macro] = []
        returns: list[_Macro] = []
        king_now = -1  # -1: not computed yet, 0/1 afterwards
        faceup: set[int] | None = None
        sound = self.sound
        lazy = self.talon_is_set
        tops: set[int] = set()
        ftops: set[int] = set()
        if lazy:
            # Draw 1, unlimited passes: a talon card can wait in the talon until the move
            # that needs it, so play it to a column only as the start of a chain of talon
            # cards that ends at a card that can follow from the tableau or a foundation
            # (_down_useful); unsound only: to its foundation only when a chain ending at a
            # column top can follow (_up_useful).
            if not sound:
                tops = set(where)
            faceup = _faceup(cols)
            if self.returns:
                # Foundation tops that could come back onto a talon card: any of them, or
                # (unsound) those whose return is useful by itself.
                for s, f in enumerate(found):
                    x = s * 13 + f - 1
                    if f and (sound or _return_useful(x, found, cols, faceup, reach_cards, where)):
                        ftops.add(x)

        for c in range(7):
            col = cols[c]
            n = len(col) - 1
            if n <= 0:
                continue
            down = col[0] - _DOWN0
            top = col[-1]
            if found[top // 13] == top % 13:
                if n - 1 == down and down > 0:
                    f_flip.append((_COL_F, c, 0, 0))
                else:
                    f_other.append((_COL_F, c, 0, 0))
            for k in range(down, n):
                x = col[k + 1]
                cnt = n - k
                if x % 13 == 12:
                    # A king at the bottom of its column never needs another empty column.
                    if empty >= 0 and k > 0:
                        flips.append((down, (_COL_COL, c, cnt, empty)))
                    continue
                for par in _PARENTS[x]:
                    d = where.get(par)
                    if d is None:
                        continue
                    m = (_COL_COL, c, cnt, d)
                    if k == down:
                        if down:
                            flips.append((down, m))
                            continue
                        # Emptying a column only pays when a king moves in right after.
                        if king_now < 0:
                            king_now = int(self._king_ready(cols, reach_cards, found))
                        if king_now:
                            emptying.append(m)
                        continue
                    # A partial run move (x leaves y for its twin y'): only worth it when the
                    # next move uses y - y up to its foundation, or the twin of x onto y.
                    # (Moving y on can always be done first, with the run still on it.)
                    y = col[k]
                    if found[y // 13] == y % 13:
                        partial.append(m)
                        continue
                    tw = _MATE[x // 13] * 13 + x % 13
                    if faceup is None:
                        faceup = _faceup(cols)
                    if tw in faceup:
                        # A twin at the bottom of a column would empty it: a king must be
                        # ready to move in (see emptying moves).
                        if not _at_bottom(cols, tw):
                            partial.append(m)
                            continue
                        if king_now < 0:
                            king_now = int(self._king_ready(cols, reach_cards, found))
                        if king_now:
                            partial.append(m)
                    elif tw in reach_cards:
                        if not lazy or _down_useful(tw, reach_cards, faceup, ftops):
                            partial.append(m)
                    elif (
                        self.returns
                        and found[tw // 13] == tw % 13 + 1
                        and (sound or _return_useful(tw, found, cols, faceup, reach_cards, where))
                    ):
                        partial.append(m)

        for i, _rec in reach:
            x = talon[i]
            if found[x // 13] == x % 13 and (not lazy or sound or _up_useful(x, reach_cards, tops)):
                f_other.append((_TALON, x, -1, 0))
            if lazy and faceup is not None and not _down_useful(x, reach_cards, faceup, ftops):
                continue
            talon_moves.extend((_TALON, x, d, 0) for d in _destinations(x, empty, where))

        if self.returns:
            for s in range(4):
                k = found[s]
                if not k:
                    continue
                x = s * 13 + k - 1
                if not sound:
                    if faceup is None:
                        faceup = _faceup(cols)
                    if not _return_useful(x, found, cols, faceup, reach_cards, where):
                        continue
                returns.extend((_RETURN, s, d, 0) for d in _destinations(x, empty, where))

        flips.sort(key=_first, reverse=True)
        out = f_flip
        if talon_first:
            out.extend(f_other)
            out.extend(talon_moves)
            out.extend(m for _, m in flips)
        else:
            out.extend(m for _, m in flips)
            out.extend(f_other)
            out.extend(talon_moves)
        out.extend(emptying)
        out.extend(partial)
        out.extend(returns)
        return out

    def _king_ready(self, cols: _Cols, reach_cards: set[int], found: Sequence[int]) -> bool:
        """Could a king move into an empty column right now (from above other cards in a
        column, from the talon, or back from a foundation)?"""
        for s in range(4):
            k = s * 13 + 12
            if found[s] == 13:
                if self.returns:
                    return True
            elif k in reach_cards:
                return True
        for col in cols:
            for k in (12, 25, 38, 51):
                i = col.find(k)
                if i > 1 and i > col[0] - _DOWN0:
                    return True
        return False

    def _apply(self, p: _Pos, m: _Macro, autos: list[_Macro]) -> _Pos:
        cols_t, talon, pos, passes, found_t = p
        cols = list(cols_t)
        found = list(found_t)
        kind = m[0]
        if kind == _COL_COL:
            _, c, cnt, d = m
            src = cols[c]
            cols[d] = cols[d] + src[-cnt:]
            rest = cols[c] = _pop(src, cnt)
            # The position was closed under the automatic moves and no foundation changed:
            # only the card turned up or uncovered can go up now.
            x = rest[-1]
            if len(rest) == 1 or found_t[x // 13] != x % 13 or not self._safe(x, found_t):
                return (tuple(cols), talon, pos, passes, found_t)
        elif kind == _COL_F:
            c = m[1]
            x = cols[c][-1]
            found[x // 13] += 1
            cols[c] = _pop(cols[c], 1)
        elif kind == _TALON:
            _, x, d, _ = m
            i = talon.index(x)
            if not self.talon_is_set:
                if not (
                    i == pos - 1
                    or (i >= pos and ((i + 1 - pos) % self.draw == 0 or i == len(talon) - 1))
                ):
                    passes += 1
                pos = i
            talon = talon[:i] + talon[i + 1 :]
            if d < 0:
                found[x // 13] += 1
            else:
                cols[d] = cols[d] + bytes((x,))
        else:
            _, s, d, _ = m
            found[s] -= 1
            cols[d] = cols[d] + bytes((s * 13 + found[s],))
        talon, pos = self._auto(cols, talon, pos, found, autos)
        return (tuple(cols), talon, pos, passes, tuple(found))

    # -- driver ------------------------------------------------------------------------------

    def _start(self) -> tuple[_Pos, list[_Macro]]:
        autos: list[_Macro] = []
        cols = list(self.start[0])
        found = list(self.start[4])
        talon, pos = self._auto(cols, self.start[1], self.start[2], found, autos)
        return (tuple(cols), talon, pos, self.start[3], tuple(found)), autos

    def dfs(
        self, *, talon_first: bool = False, own_table: bool = False
    ) -> Generator[None, None, list[_Macro] | None]:
        """Depth-first search in move order. A generator that yields every 256 positions
        (so a scheduler can switch searches) and returns a winning macro line (auto moves
        included), or None when the space is exhausted: a proof. ``talon_first`` and
        ``own_table`` as for :meth:`best_first` (the talon's moves tried first)."""
        p0, autos = self._start()
        if self._won(p0):
            return autos
        order0: list[int] = []
        if self.stuck_check and _stuck(p0[0], p0[4], self.returns, (), order0):
            return None
        seen, by_pos = self._tables(p0, own_table)
        head = autos
        # (position, its moves, the order of the dead-position check that let it through
        # and whether it is known to pass that check)
        frames: list[tuple[_Pos, list[_Macro], list[int], bool]] = [
            (p0, self._moves(p0, talon_first), order0, True)
        ]
        idx = [0]
        path: list[list[_Macro]] = []
        apply = self._apply
        key = self._key
        won = self._won
        moves = functools.partial(self._moves, talon_first=talon_first)
        stuck = _stuck
        returns = self.returns
        check = self.stuck_check
        nodes = 0
        while frames:
            p, ms, order, known = frames[-1]
            i = idx[-1]
            if i >= len(ms):
                frames.pop()
                idx.pop()
                if path:
                    path.pop()
                continue
            idx[-1] = i + 1
            step: list[_Macro] = [ms[i]]
            child = apply(p, ms[i], step)
            k = key(child)
            if k in seen:
                continue
            prev = 0  # what the dead-position check said of this position's other waste sizes
            if by_pos is not None:
                prev = _waste_seen(by_pos, k)
                if prev < 0:
                    continue  # the same position with a smaller waste size was seen
            seen.add(k)
            nodes += 1
            if won(child):
                self.nodes += nodes & 255
                out = list(head)
                for s in path:
                    out.extend(s)
                out.extend(step)
                return out
            if nodes & 255 == 0:
                self.nodes += 256
                yield
            if check:
                if ms[i][0] == _COL_F:
                    known = False  # not checked (see _stays_open)
                elif not (known and _stays_open(p, child, ms[i], returns)):
                    # The check does not depend on the talon's waste size: its answer for
                    # another size of the same position stands.
                    if prev & _DEAD:
                        continue
                    if not prev & _ALIVE:
                        new_order: list[int] = []
                        dead = stuck(child[0], child[4], returns, order, new_order)
                        if by_pos is not None:
                            by_pos[k[:-1]] |= _DEAD if dead else _ALIVE
                        if dead:
                            continue
                        order = new_order
                    known = True
            path.append(step)
            frames.append((child, moves(child), order, known))
            idx.append(0)
        self.nodes += nodes & 255
        return None

    def best_first(
        self, *, talon_first: bool = False, own_table: bool = False
    ) -> Generator[None, None, list[_Macro] | None]:
        """Like :meth:`dfs`, but always expands the open position with the fewest face-down
        cards, then the most cards on the foundations; just as complete. ``talon_first``: the
        fewest talon cards before all that (in draw 3 it wins other deals than the plain
        order, see :data:`_PHASES_RELAXED`). ``own_table``: not sharing the solver's tables
        (running dry is then a proof by itself)."""
        p0, autos = self._start()
        if self._won(p0):
            return autos
        order0: list[int] = []
        if self.stuck_check and _stuck(p0[0], p0[4], self.returns, (), order0):
            return None
        seen, by_pos = self._tables(p0, own_table)
        _Link = tuple[Any, list[_Macro]] | None
        # (priority, tie-break, position, line, check: _KNOWN / _CHECK / _UNCHECKED, the
        # parent's check order)
        heap: list[tuple[int, int, _Pos, _Link, int, list[int]]] = [
            (0, 0, p0, None, _KNOWN, order0)
        ]
        apply = self._apply
        key = self._key
        won = self._won
        moves = self._moves
        push = heapq.heappush
        pop = heapq.heappop
        stuck = _stuck
        returns = self.returns
        check = self.stuck_check
        nodes = 0
        tick = 0
        talon_weight = 32 if talon_first else 0  # face-down counts stay below 32
        while heap:
            _, _, p, link, status, order = pop(heap)
            # Checked when taken, not when made: most positions on the heap never are.
            if status == _CHECK:
                new_order: list[int] = []
                if stuck(p[0], p[4], returns, order, new_order):
                    continue
                order = new_order
                status = _KNOWN
            for m in moves(p):
                step: list[_Macro] = [m]
                child = apply(p, m, step)
                k = key(child)
                if k in seen:
                    continue
                if by_pos is not None and _waste_seen(by_pos, k) < 0:
                    continue  # the same position with a smaller waste size was seen
                seen.add(k)
                nodes += 1
                node: _Link = (link, step)
                if won(child):
                    self.nodes += nodes & 255
                    steps: list[list[_Macro]] = []
                    while node is not None:
                        steps.append(node[1])
                        node = node[0]
                    out = list(autos)
                    for st in reversed(steps):
                        out.extend(st)
                    return out
                if nodes & 255 == 0:
                    self.nodes += 256
                    yield
                hidden = 0
                for col in child[0]:
                    hidden += col[0]
                tick -= 1
                push(
                    heap,
                    (
                        (len(child[1]) * talon_weight + hidden - 700) * 64 - sum(child[4]),
                        tick,
                        child,
                        node,
                        _UNCHECKED
                        if not check or m[0] == _COL_F
                        else _KNOWN
                        if status == _KNOWN and _stays_open(p, child, m, returns)
                        else _CHECK,
                        order,
                    ),
                )
        self.nodes += nodes & 255
        return None


_SMALLER: Final = tuple(sum(1 << p for p in range(1, q) if p % 3 == q % 3) for q in range(64))
"""For a waste size ``q`` other than "0" (as in the key): the smaller ones whose position
dominates it, ``q - 3``, ``q - 6``... ("0", the talon as after a recycle, is dominated by
any)."""


def _destinations(x: int, empty: int, where: dict[int, int]) -> list[int]:
    """The columns card `x` may be placed on: the first empty one (`empty`, -1 for none) for a
    king, else those whose top card (`where`: top card -> column) is one of its `_PARENTS`."""
    if x % 13 == 12:
        return [empty] if empty >= 0 else []
    return [d for par in _PARENTS[x] if (d := where.get(par)) is not None]


def _waste_seen(by_pos: dict[bytes, int], k: bytes) -> int:
    """Draw 3, unlimited passes: -1 when the position of key ``k`` is dominated by one seen,
    else (recording it) the bits its position had before: its waste sizes seen, and
    ``_ALIVE`` / ``_DEAD`` once the dead-position check has judged it.

    From waste size ``p`` the draws reach ``p + 3``, ``p + 6``... and the end, and a recycle
    reaches "0"; the K+ moves from ``p`` include every move from those (the same card
    played, the same position after it). So once a position is seen with waste
    size ``p``, the same position with a size reached from ``p`` adds nothing: every seen
    position is expanded (or dead, which does not depend on the talon)."""
    base = k[:-1]
    q = k[-1]
    seen = by_pos.get(base, 0)
    if q == 0:
        if seen:
            return -1
    elif seen & _SMALLER[q]:
        return -1
    by_pos[base] = seen | 1 << q
    return seen


_ALIVE: Final = 1 << 30
"""In :func:`_waste_seen`'s bits (waste sizes stay below 25): passed the dead-position check."""
_DEAD: Final = 1 << 31
"""... and failed it."""


_KNOWN: Final = 0
_CHECK: Final = 1
_UNCHECKED: Final = 2


def _stays_open(p: _Pos, child: _Pos, m: _Macro, returns: bool) -> bool:
    """Does ``child`` pass :func:`_stuck` because ``p`` does?  True when the card the move
    put onto another card can leave it at once in the child: its other parent serves
    whatever the rest does (:func:`_serves_now`), or it is the top itself and every lower
    card of its suit is on its foundation, in the talon or on a column top; or when it went
    into an empty column.

    Then every derivation of the fixpoint in ``p`` still holds in ``child``: the card under
    its old place, and the card it now covers, are uncovered from the start; a card from
    the talon is now a column top; the automatic foundation moves are safe ones, whose
    cards no card left in a column needs (both cards that could go on them are up).
    """
    kind = m[0]
    if kind == _COL_COL:
        q = p[0][m[1]][-m[2]]
        d = m[3]
    elif kind == _TALON and m[2] >= 0:
        q, d = m[1], m[2]
    else:
        return False
    cols = child[0]
    col = cols[d]
    i = col.find(q, 1)
    if i < 1:
        return False  # the automatic moves took it up: check
    if i == 1:
        return True  # a king into an empty column
    par = col[i - 1]
    covered = b"".join([c[1:-1] for c in cols])
    tops = bytes([c[-1] for c in cols if len(c) > 1])
    found = child[4]
    for tw in _PARENTS[q]:
        if tw != par and _serves_now(tw, covered, tops, found, returns):
            return True
    if i != len(col) - 1:
        return False
    s = q // 13
    return all(z not in covered for z in range(s * 13 + found[s], q))


def _serves_now(p: int, covered: bytes, tops: bytes, found: Sequence[int], returns: bool) -> bool:
    """Does ``p`` serve (see :func:`_serve`) whatever the other cards do: a column top, or a
    talon / foundation card whose parents lead to one, or to a king, through talon and
    foundation cards only?"""
    if p in tops:
        return True
    if p in covered or (not returns and found[p // 13] > p % 13):
        return False
    if p % 13 == 12:
        return True
    return any(_serves_now(x, covered, tops, found, returns) for x in _PARENTS[p])


def _stuck(
    cols: _Cols,
    found: Sequence[int],
    returns: bool,
    hint: Sequence[int] = (),
    order: list[int] | None = None,
) -> bool:
    """Is some column card unable ever to leave the card it lies on?  (Then the position is
    lost: in a win every card leaves its support by a move of its own.)

    A least fixpoint over "card q can leave its support by a move of its own" (``free``):

    * to its foundation: q is uncovered (the card on q can leave) and every lower card of its
      suit can reach the foundation (it is there, in the talon, or uncovered in a column);
    * onto a parent p other than its support: p can become a column top (``serve``: p is
      uncovered in a column; from the talon or a foundation - return allowed - only onto a
      parent of its own that serves, or a king into an empty column);
    * a king into an empty column (always assumed possible);
    * a face-down q must be uncovered first, whatever the route.

    Everything else is assumed possible (the talon is fully reachable, empty columns appear),
    so the fixpoint over-approximates: whatever a real line of play does, it derives, by
    induction over the moves of that line. A card it cannot derive never leaves: lost.

    The cards are tried in passes until one adds nothing; ``hint`` (the order in which the
    cards were derived in the parent position, filled into ``order``) only saves passes.
    """
    above = [-1] * 52  # the card lying on a column card (-1: a top, or not in a column)
    sup = [-1] * 52  # the card a column card lies on (-1: the column's bottom card)
    incol = bytearray(52)
    flag = bytearray(52)  # 1: a face-up card with a support, 2: a face-down one
    pending: list[int] = []
    for col in cols:
        n = len(col)
        if n <= 1:
            continue
        down = col[0] - _DOWN0
        x = col[n - 1]
        incol[x] = 1
        # top first, face-down ones flagged by a negative entry (-1 - card)
        for i in range(n - 2, 0, -1):
            y = col[i]
            incol[y] = 1
            sup[x] = y
            above[y] = x
            if i >= down:
                pending.append(x)
                flag[x] = 1
            else:
                pending.append(-1 - x)
                flag[x] = 2
            x = y
    if not pending:
        return False
    if hint:
        rest = pending
        pending = []
        for x in hint:
            f = flag[x]
            if f:
                pending.append(x if f == 1 else -1 - x)
                flag[x] = 0
        for e in rest:
            if flag[e if e >= 0 else -1 - e]:
                pending.append(e)
    free = bytearray(52)
    served = bytearray(52)  # 1: can become a column top (once true, true for good)
    parents = _PARENTS
    # fmax[s]: a card of suit s up to this rank has every lower card of its suit able to
    # reach the foundation (on it, in the talon, or uncovered in a column); the card of that
    # rank (if below 13) is the one that stops it. Kept up to date as cards are derived, so
    # that a pass sees what the cards before it derived.
    fmax = [_blocker(s * 13 + found[s], s * 13 + 13, incol, above, free) - s * 13 for s in range(4)]
    while True:
        failed = bytearray(52)  # talon / foundation cards found unable to serve this pass
        left: list[int] = []
        # Another pass can only help when a card was freed after some card (or some talon or
        # foundation card's serving) failed.
        again = False
        for e in pending:
            q = e if e >= 0 else -1 - e
            a = above[q]
            acc = a < 0 or free[a]
            if e < 0 and not acc:
                left.append(e)  # face down and still covered
                continue
            r = q % 13
            if not (r == 12 or (acc and r <= fmax[q // 13])):
                sq = sup[q]
                for par in parents[q]:
                    if par == sq:
                        continue
                    if incol[par]:
                        a = above[par]
                        if a < 0 or free[a]:
                            break
                    elif served[par] or (
                        not failed[par]
                        and _serve(par, above, incol, free, found, returns, served, failed)
                    ):
                        break
                else:
                    left.append(e)
                    continue
            # q leaves: to its foundation (a king: into an empty column), or onto a parent
            free[q] = 1
            if not again and (left or 1 in failed):
                again = True  # something judged before may judge otherwise now
            if order is not None:
                order.append(q)
            y = sup[q]
            if y >= 0:
                s = y // 13
                if fmax[s] == y % 13:
                    # y stopped its suit's reach: it goes further now.
                    fmax[s] = _blocker(y + 1, s * 13 + 13, incol, above, free) - s * 13
        if not left:
            return False
        if not again:
            return True
        pending = left


def _blocker(lo: int, hi: int, incol: bytearray, above: list[int], free: bytearray) -> int:
    """The first of cards ``lo..hi-1`` (one suit, rising) that lies in a column under a card
    that cannot leave it yet (so it cannot go up), or ``hi``."""
    for z in range(lo, hi):
        if incol[z]:
            a = above[z]
            if a >= 0 and not free[a]:
                return z
    return hi


def _serve(
    p: int,
    above: list[int],
    incol: bytearray,
    free: bytearray,
    found: Sequence[int],
    returns: bool,
    served: bytearray,
    failed: bytearray,
) -> bool:
    """Can ``p`` become a column top (so that a card can go on it)?  ``served`` remembers the
    cards found able to (for good: ``free`` only grows), ``failed`` those found unable in this
    pass."""
    if incol[p]:
        a = above[p]
        return a < 0 or bool(free[a])
    if served[p]:
        return True
    if failed[p]:
        return False
    # In the talon or on a foundation: it must go onto a column first.
    if not returns and found[p // 13] > p % 13:
        ok = False
    elif p % 13 == 12:
        ok = True
    else:
        ok = False
        for q in _PARENTS[p]:
            if _serve(q, above, incol, free, found, returns, served, failed):
                ok = True
                break
    if ok:
        served[p] = 1
    else:
        failed[p] = 1
    return ok


def _up_useful(x: int, talon: set[int], tops: set[int]) -> bool:
    """Is there a chain x+1, x+2 ... through the talon that ends at a column top?  (Fast
    search only: not proven.)"""
    while x % 13 != 12:
        x += 1
        if x in tops:
            return True
        if x not in talon:
            return False
    return False


def _down_useful(x: int, talon: set[int], faceup: set[int], ftops: set[int]) -> bool:
    """Can something end up on ``x`` from the tableau (directly or through talon cards), or
    come back onto it from a foundation (``ftops``: foundation tops, empty without return)?

    A sound cut with every foundation top in ``ftops`` (docs/solver.md, "the chain rule");
    the fast search passes only those whose return is useful by itself."""
    if x % 13 == 0:
        return False
    for s in _OPP[x // 13]:
        y = s * 13 + x % 13 - 1
        if y in faceup or y in ftops:
            return True
        if y in talon and _down_useful(y, talon, faceup, ftops):
            return True
    return False


def _return_useful(
    x: int,
    found: Sequence[int],
    cols: _Cols,
    faceup: set[int],
    talon: set[int],
    where: dict[int, int],
) -> bool:
    """Fast search only, not sound (a win may need two suits taken back in turn, issue #22).

    Taking ``x`` back from its foundation pays only when the next move uses it: a card
    one rank lower of the other colour goes on it (from the tableau, the talon, or itself
    taken back for a use of its own), or the card under ``x`` comes back in turn. A column
    card that lies on ``x``'s twin counts only when that move may be made too: the twin it
    leaves goes up, or the card's own twin can come onto it."""
    r = x % 13
    if r == 0:
        return False
    for s in _OPP[x // 13]:
        y = s * 13 + r - 1
        if y in talon:
            return True
        if y in faceup:
            # When y lies on x's twin z, moving it leaves z (a partial run move), which the
            # next move must use in turn: z up, or y's twin onto z.
            z = _MATE[x // 13] * 13 + r
            if z not in faceup or found[z // 13] == r or not _lies_on(cols, y, z):
                return True
            tw = _MATE[s] * 13 + r - 1
            if tw in faceup or tw in talon or found[tw // 13] == r:
                return True
        if found[s] == r and _return_useful(y, found, cols, faceup, talon, where):
            return True
    below = x - 1
    if any(p in where for p in _PARENTS[below]):
        lower = list(found)
        lower[x // 13] -= 1
        return _return_useful(below, lower, cols, faceup, talon, where)
    return False


def _lies_on(cols: _Cols, x: int, y: int) -> bool:
    """Does column card ``x`` lie on card ``y``?"""
    for col in cols:
        i = col.find(x, 2)
        if i > 1:
            return col[i - 1] == y
    return False


def _at_bottom(cols: _Cols, x: int) -> bool:
    """Is face-up card ``x`` the bottom card of its column?"""
    return any(len(col) > 1 and col[1] == x for col in cols)


def _faceup(cols: _Cols) -> set[int]:
    out: set[int] = set()
    for col in cols:
        out.update(col[col[0] - _DOWN0 + 1 :])
    return out


def _first(t: tuple[int, _Macro]) -> int:
    return t[0]


def _pop(col: bytes, n: int) -> bytes:
    """The column without its top ``n`` cards, turning up the new top card if face down."""
    rest = col[:-n]
    d = rest[0] - _DOWN0
    if d and len(rest) - 1 == d:
        return bytes((_DOWN0 + d - 1,)) + rest[1:]
    return rest


# -- engine actions ---------------------------------------------------------------------------


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


# -- public API -------------------------------------------------------------------------------


def solve(
    state: GameState, *, budget_s: float = 10.0, max_nodes: int | None = None, workers: int = 1
) -> Verdict:
    """Decide whether ``state`` can still be won, with a winning line when it can.

    >>> v = solve(GameState.from_code("KL1-D1N-AAAAAAG"), budget_s=5)
    >>> isinstance(v, Solved) and replay_wins(GameState.from_code("KL1-D1N-AAAAAAG"), v.actions)
    True

    ``budget_s`` bounds the wall time and ``max_nodes`` the positions searched (per process);
    when either runs out the answer is :class:`Unknown`. The state itself is not changed.
    ``workers=2``: a position still undecided after a twentieth of the budget gets a second
    process (a second core) running other searches (:data:`_HELPER_PHASES`); the first
    verdict of either stands. Ignored where a process cannot be forked (no ``fork`` start
    method, or inside a daemonic process such as a ``multiprocessing.Pool`` worker).

    :raises SolverError: a found line failed the engine check (a bug, never expected).
    """
    return _verdict(state, budget_s=budget_s, max_nodes=max_nodes, workers=workers)


def _verdict(
    state: GameState,
    *,
    budget_s: float,
    max_nodes: int | None,
    stuck_check: bool = True,
    workers: int = 1,
) -> Verdict:
    """:func:`solve`, with the dead-position check (:func:`_stuck`) optional (for tests)."""
    t0 = time.perf_counter()
    if state.is_won:
        return Solved([], 0, 0.0)
    if state.is_over:
        return Unwinnable(0, 0.0)
    s, relaxed = _solvers(state, stuck_check)
    helper = None
    if workers > 1 and _Helper.possible():
        helper = _Helper(state, t0, budget_s, max_nodes, stuck_check)
    try:
        line = _schedule(s, t0, budget_s, max_nodes, relaxed, helper=helper)
    except _OutOfBudget:
        return Unknown(_nodes(s, relaxed, helper), time.perf_counter() - t0)
    finally:
        if helper is not None:
            helper.close()
    if line is None:
        return Unwinnable(_nodes(s, relaxed, helper), time.perf_counter() - t0)
    actions = _expand(state, line)
    return Solved(actions, _nodes(s, relaxed, helper), time.perf_counter() - t0)


def _solvers(state: GameState, stuck_check: bool) -> tuple[_Solver, _Solver | None]:
    """The real search, and the relaxed one when the talon is not a set (draw 3 or a pass
    limit; see :class:`_Solver`)."""
    s = _Solver(state, stuck_check=stuck_check)
    if s.talon_is_set:
        return s, None
    return s, _Solver(state, stuck_check=stuck_check, relax=True)


def _nodes(s: _Solver, relaxed: _Solver | None, helper: _Helper | None = None) -> int:
    n = s.nodes + (relaxed.nodes if relaxed is not None else 0)
    if s._twin is not None:
        n += s._twin.nodes
    return n + (helper.nodes if helper is not None else 0)


_DFS: Final = 0
_BEST: Final = 1
_RELAXED: Final = 2
_BEST_TALON: Final = 3
_BEST_ALONE: Final = 4
_DFS_TALON_ALONE: Final = 5
_BEST_TALON_ALONE: Final = 6
_SOUND: Final = 7
"""The search with the sound cuts only that takes over when the cut space is exhausted (see
:func:`_schedule`)."""
_PHASES: Final = ((_DFS, 0.15), (_BEST, 0.5), (_DFS, 1.0))
"""(search, share of the budget it may use until): depth-first first (most deals fall
fast), then best-first (rescues the deals where an early choice sends depth-first astray),
then depth-first again, resumed where it stopped."""
_PHASES_RELAXED: Final = (
    (_DFS, 0.1),
    (_RELAXED, 0.2),
    (_BEST_ALONE, 0.22),
    (_DFS_TALON_ALONE, 0.24),
    (_BEST_TALON, 0.7),
    (_DFS, 0.9),
    (_RELAXED, 1.0),
)
"""The same when the talon is not a set (draw 3 or a pass limit), with turns for the
depth-first search of the relaxed game (its proofs of a loss come much cheaper), and orders
that play the talon off early (in draw 3 a card's turn on the waste top depends on the cards
before it): the best-first search that empties the talon first shares the table with
depth-first; the plain best-first order and a depth-first search that tries the talon's moves
first, which win their deals within a few thousand positions when they win them at all, get
short turns with tables of their own (sharing, they would find most of the positions they
want already owned by the others)."""


def _schedule(
    s: _Solver,
    t0: float,
    budget_s: float,
    max_nodes: int | None,
    relaxed: _Solver | None = None,
    *,
    helper: _Helper | None = None,
    phases: Sequence[tuple[int, float]] | None = None,
) -> list[_Macro] | None:
    """Run the searches in turns; a win decides at once (except a win of the relaxed game,
    which decides nothing: that search just stops), and so does a search with the sound cuts
    only (the relaxed game's) running dry. ``phases`` default to :data:`_PHASES` or
    :data:`_PHASES_RELAXED`; a ``helper``'s verdict, polled between turns, decides too.

    ``s`` searches with the cuts that may lose every winning line (see :class:`_Solver`):
    when its space is exhausted (a search with a table of its own, or every search sharing
    the table, ran dry), no search over it can win any more, and nothing is proven. The
    searches over it stop, and a search of ``s``'s sound twin (the same order; depth-first
    for the shared ones) takes their turns: its running dry is the proof.

    :raises _OutOfBudget: no verdict in time.
    """
    if phases is None:
        phases = _PHASES_RELAXED if relaxed is not None else _PHASES
    makers: dict[int, Callable[[], Generator[None, None, list[_Macro] | None]]] = {
        _DFS: s.dfs,
        _BEST: s.best_first,
        _BEST_TALON: functools.partial(s.best_first, talon_first=True),
        _BEST_ALONE: functools.partial(s.best_first, own_table=True),
        _DFS_TALON_ALONE: functools.partial(s.dfs, talon_first=True, own_table=True),
        _BEST_TALON_ALONE: functools.partial(s.best_first, talon_first=True, own_table=True),
    }
    if relaxed is not None:
        makers[_RELAXED] = relaxed.dfs
    searches = {which: makers[which]() for which, _ in phases}
    shared = {_DFS, _BEST, _BEST_TALON} if s.shared else set()
    limit = max_nodes if max_nodes is not None else _UNLIMITED
    clock = time.perf_counter
    for which, share in phases:
        until = t0 + budget_s * share
        node_until = limit * share
        while True:
            gen = searches.get(which)
            if gen is None:  # finished without deciding: another search takes the turn
                which = next(w for w in searches if w != _RELAXED)
                gen = searches[which]
            try:
                while clock() < until and _nodes(s, relaxed) < node_until:
                    next(gen)
                    if helper is not None:
                        decided = helper.poll()
                        if decided is not None:
                            return decided[0]
                break
            except StopIteration as stop:
                result: list[_Macro] | None = stop.value
                del searches[which]
                if result is not None:
                    if which == _RELAXED:
                        continue  # the relaxed game is won: no information
                    return result
                # Shared tables: a search that runs dry has expanded what it saw; the
                # space is exhausted when every search sharing them has.
                if which in shared and shared & searches.keys():
                    continue
                if which in (_RELAXED, _SOUND) or s.sound:
                    return None  # a proof: the relaxed game or the sound space is exhausted
                searches = {w: g for w, g in searches.items() if w == _RELAXED}
                searches[_SOUND] = _sound_search(s, which)
                s._shared = None  # (the memory of the fast tables goes to the sound one)
    raise _OutOfBudget


def _sound_search(s: _Solver, which: int) -> Generator[None, None, list[_Macro] | None]:
    """The search of ``s``'s sound twin that takes over from search ``which`` of ``s``."""
    twin = s.sound_twin()
    if which == _BEST_ALONE:
        return twin.best_first(own_table=True)
    if which == _BEST_TALON_ALONE:
        return twin.best_first(talon_first=True, own_table=True)
    return twin.dfs(talon_first=which == _DFS_TALON_ALONE, own_table=True)


_HELPER_AFTER: Final = 0.05
"""The share of the budget after which an undecided position gets its helper process (most
positions are decided well before: no process for them)."""
_HELPER_PHASES: Final = ((_DFS_TALON_ALONE, 0.5), (_BEST_TALON_ALONE, 1.0))
_HELPER_PHASES_RELAXED: Final = (
    (_BEST_ALONE, 0.15),
    (_DFS_TALON_ALONE, 0.3),
    (_RELAXED, 0.8),
    (_DFS_TALON_ALONE, 1.0),
)
"""What the helper process runs (shares of the time it has): searches with tables of their
own, so that any of them running dry is a proof by itself, in turns the main process cannot
give them. In draw 3: the plain best-first and the talon-first depth-first orders (which win
their deals within a few seconds when they win them at all; the main process gives them 0.2 s
each), then the relaxed game, whose proofs of a loss take 2-8 s in the deals the main process
leaves undecided (it gives them 2 s). In draw 1 the talon-first orders the main process does
not run."""


class _Helper:
    """A second process searching the same position with :data:`_HELPER_PHASES` from
    ``_HELPER_AFTER`` of the budget to its end; the main search polls it between turns."""

    def __init__(
        self, state: GameState, t0: float, budget_s: float, max_nodes: int | None, check: bool
    ) -> None:
        self.state = state
        self.start_at = t0 + budget_s * _HELPER_AFTER
        self.deadline = t0 + budget_s
        self.max_nodes = max_nodes
        self.check = check
        self.nodes = 0
        self.proc: Any = None
        self.conn: Any = None
        self.done = False

    @staticmethod
    def possible() -> bool:
        """Can this process fork a helper? (Daemonic processes may not have children.)"""
        import multiprocessing

        return (
            "fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon
        )

    def poll(self) -> tuple[list[_Macro] | None] | None:
        """Start the helper when its time has come; its verdict once it has one: ``(line,)``
        for a win, ``(None,)`` for a proof of a loss, else ``None``."""
        if self.done:
            return None
        if self.proc is None:
            if time.perf_counter() >= self.start_at:
                self._launch()
            return None
        if not self.conn.poll():
            return None
        try:
            decided, line, self.nodes = self.conn.recv()
        except EOFError:  # the helper ended without a word (killed, out of memory): no verdict
            decided, line = False, None
        self.close()
        if decided:
            return (line,)
        return None

    def _launch(self) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_helper_main,
            args=(child, self.state, self.deadline - time.perf_counter(), self.max_nodes),
            kwargs={"stuck_check": self.check},
            daemon=True,
        )
        self.proc.start()
        child.close()

    def close(self) -> None:
        """Stop the helper (it may still be searching) and free its process."""
        self.done = True
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.conn.close()
            self.proc = None


def _helper_main(
    conn: Any, state: GameState, budget_s: float, max_nodes: int | None, *, stuck_check: bool
) -> None:
    """The helper process: run the helper's searches, send ``(decided, line, nodes)``."""
    t0 = time.perf_counter()
    s, relaxed = _solvers(state, stuck_check)
    phases = _HELPER_PHASES_RELAXED if relaxed is not None else _HELPER_PHASES
    try:
        line = _schedule(s, t0, budget_s, max_nodes, relaxed, phases=phases)
    except _OutOfBudget:
        conn.send((False, None, _nodes(s, relaxed)))
    else:
        conn.send((True, line, _nodes(s, relaxed)))
    conn.close()


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


# -- hints ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested next action; ``source`` says where it comes from.

    ``"solver"``: the first action of a winning line. ``"heuristic"``: no line within the
    budget (or the deal is lost), so a productive move by simple rules. ``"none"``: nothing
    productive is left (``action`` is None) - never a suggestion to cycle the stock forever.
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


def hint(state: GameState, *, budget_s: float = 0.5, line: Sequence[PlainAction] = ()) -> Hint:
    """The next action to play from ``state``.

    ``line``: the winning line of an earlier hint in the same game (``Hint.line``). When the
    player has since played its first action, or nothing, and the rest of it (or all of it)
    still replays to a win from ``state``, the hint continues that line: at once, and
    consistent with the hint before, instead of searching again and perhaps switching to
    another solution.

    >>> h = hint(GameState.from_code("KL1-D1N-AAAAAAG"))
    >>> h.source in ("solver", "heuristic")
    True
    """
    if state.is_over:
        return Hint(None, "none", "the game is over")
    for rest in (tuple(line[1:]), tuple(line)):
        if rest and replay_wins(state, rest):
            return Hint(rest[0], "solver", "leads to a win", rest)
    v = solve(state, budget_s=budget_s)
    if isinstance(v, Solved) and v.actions:
        return Hint(v.actions[0], "solver", "leads to a win", tuple(v.actions))
    lost = isinstance(v, Unwinnable)
    a, why = _heuristic(state)
    if a is None:
        return Hint(None, "none", "the deal can no longer be won" if lost else why)
    if lost:
        why += " (the deal can no longer be won)"
    return Hint(a, "heuristic", why)


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
        s = _Solver(state)
        s.talon_is_set = False
        cols, talon, pos, passes, _ = s.start
        tops = {col[-1] for col in cols if len(col) > 1}
        empty = any(len(col) == 1 for col in cols)
        for i, _rec in s._reach(talon, pos, passes):
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
    from .cards import CARD_NAMES

    return CARD_NAMES[x]


# -- post-game analysis -----------------------------------------------------------------------


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


# -- command line -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One deal of a batch run."""

    number: int
    verdict: str
    elapsed_s: float
    nodes: int
    length: int


def _batch_one(job: tuple[int, int, str, float, int]) -> BatchRow:
    number, draw, preset, budget, workers = job
    g = GameState.new(Deal.from_number(number), Rules.from_preset(draw, preset))
    t0 = time.perf_counter()
    v = solve(g, budget_s=budget, workers=workers)
    dt = time.perf_counter() - t0
    n = len(v.actions) if isinstance(v, Solved) else 0
    if isinstance(v, Solved) and not replay_wins(g, v.actions):
        raise SolverError(f"deal {number}: the solution does not replay to a win")
    return BatchRow(number, v.verdict, dt, v.nodes, n)


def batch(
    numbers: Iterable[int],
    *,
    draw: int,
    preset: str,
    budget_s: float,
    jobs: int | None = None,
    workers: int = 1,
) -> list[BatchRow]:
    """Solve many deals, rows in deal order: ``jobs`` deals at a time, one process each (by
    default one per core), or with ``workers`` > 1 one deal at a time, each with up to
    ``workers`` processes (see :func:`solve`)."""
    work = [(n, draw, preset, budget_s, workers) for n in numbers]
    jobs = 1 if workers > 1 else jobs or os.cpu_count() or 1
    if jobs <= 1:
        return [_batch_one(w) for w in work]
    import multiprocessing

    with multiprocessing.Pool(jobs) as pool:
        rows = list(pool.imap_unordered(_batch_one, work, chunksize=1))
    rows.sort(key=lambda r: r.number)
    return rows


def _pct(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summarize(rows: Sequence[BatchRow]) -> dict[str, float]:
    """Shares and time percentiles of a batch."""
    n = len(rows) or 1
    times = [r.elapsed_s for r in rows]
    won = [r.elapsed_s for r in rows if r.verdict == "solved"]
    return {
        "deals": len(rows),
        "solved": sum(r.verdict == "solved" for r in rows) / n,
        "unwinnable": sum(r.verdict == "unwinnable" for r in rows) / n,
        "unknown": sum(r.verdict == "unknown" for r in rows) / n,
        "median_s": statistics.median(times) if times else float("nan"),
        "p95_s": _pct(times, 0.95),
        "median_won_s": statistics.median(won) if won else float("nan"),
        "p95_won_s": _pct(won, 0.95),
    }


def format_summary(label: str, s: Mapping[str, float]) -> str:
    """One table row: label, deals, shares, median and p95 times."""
    return (
        f"| {label} | {int(s['deals'])} | {100 * s['solved']:.1f} % | "
        f"{100 * s['unwinnable']:.1f} % | {100 * s['unknown']:.1f} % | "
        f"{s['median_s']:.3f} s | {s['p95_s']:.2f} s | {s['median_won_s']:.3f} s | "
        f"{s['p95_won_s']:.2f} s |"
    )


SUMMARY_HEADER = (
    "| run | deals | solved | unwinnable | unknown | median | p95 | median (won) | p95 (won) |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main_solve(argv: list[str]) -> int:
    """``solve CODE [--budget S] [--moves] [--workers N]`` or
    ``solve --batch FROM TO --preset N --draw 1 [--budget S] [--jobs N] [--workers N]``.

    Returns the exit status (0 done, 2 bad arguments).
    """
    if argv and argv[0] == "solve":
        argv = argv[1:]
    ap = argparse.ArgumentParser(prog="python -m games.engine solve", description=__doc__)
    ap.add_argument("code", nargs="?", help="a deal code, e.g. KL1-D1N-AAAAAAG")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per deal")
    ap.add_argument("--moves", action="store_true", help="print the winning line")
    ap.add_argument("--batch", nargs=2, type=int, metavar=("FROM", "TO"))
    ap.add_argument("--preset", default="N")
    ap.add_argument("--draw", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="deals at a time (default: cores)")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes per deal (default: 2 for one code, 1 in a batch; a batch with more "
        "runs one deal at a time)",
    )
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    if args.batch:
        a, b = args.batch
        try:
            Rules.from_preset(args.draw, args.preset)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        rows = batch(
            range(a, b + 1),
            draw=args.draw,
            preset=args.preset.upper(),
            budget_s=args.budget,
            jobs=args.jobs,
            workers=args.workers or 1,
        )
        label = f"D{args.draw}{args.preset.upper()} {a}-{b} @{args.budget:g}s"
        print(SUMMARY_HEADER)
        print(format_summary(label, summarize(rows)))
        print(f"wall time {time.perf_counter() - t0:.1f} s")
        return 0
    if not args.code:
        print("error: give a deal code or --batch FROM TO", file=sys.stderr)
        return 2
    try:
        code = DealCode.parse(args.code)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    g = GameState.from_code(code)
    v = solve(g, budget_s=args.budget, workers=args.workers or min(2, os.cpu_count() or 1))
    if isinstance(v, Solved):
        print(f"{code}: solved, {len(v.actions)} actions, {v.nodes} nodes, {v.elapsed_s:.2f} s")
        if args.moves:
            print(" ".join(format_action(x) for x in v.actions))
    elif isinstance(v, Unwinnable):
        print(f"{code}: unwinnable (proven), {v.nodes} nodes, {v.elapsed_s:.2f} s")
    else:
        print(
            f"{code}: unknown (budget {args.budget:g} s ran out), {v.nodes} nodes, "
            f"{v.elapsed_s:.2f} s"
        )
    return 0
