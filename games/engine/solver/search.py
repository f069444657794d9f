"""The searches (:class:`_Solver`): depth-first and best-first over :class:`_Game`'s moves,
with transposition tables and the dead-position check; generators that yield every 256
positions, so that :mod:`.schedule` can take turns between them."""

from __future__ import annotations

import heapq
from collections.abc import Generator
from typing import Any, Final

from ..state import GameState
from .moves import _Game
from .positions import _COL_F, _Macro, _Pos
from .pruning import _stays_open, _stuck

_SHARED = True


class _Solver(_Game):
    """One search over one start position. Not thread-safe; cheap to build."""

    def __init__(
        self,
        state: GameState,
        *,
        stuck_check: bool = True,
        relax: bool = False,
        sound: bool | None = None,
    ) -> None:
        """``relax`` and ``sound`` as for :class:`_Game`; ``stuck_check``: cut the dead
        positions (:func:`_stuck`; off for tests)."""
        super().__init__(state, relax=relax, sound=sound)
        self.stuck_check = stuck_check
        self._twin: _Solver | None = None
        self.shared = _SHARED
        self._shared: tuple[set[bytes], dict[bytes, int] | None] | None = None
        self.nodes = 0
        # _dominating by (passes used, talon size, waste size), 0 until asked for
        self._reaching: list[int] = [] if self.unlimited else [0] * ((self.recycles + 1) * 625)

    # -- tables -----------------------------------------------------------------------------

    def sound_twin(self) -> _Solver:
        """A solver of the same position and game with the sound cuts only (made once)."""
        if self.sound:
            return self
        if self._twin is None:
            self._twin = _Solver(
                self.state, stuck_check=self.stuck_check, relax=self.relax, sound=True
            )
        return self._twin

    def _key(self, p: _Pos) -> bytes:
        """The key of ``p`` in the search's tables: its columns in order, its talon and an end
        mark. Its waste size and passes used are not in it: where they matter (but where the
        talon is a set) the table by position (:meth:`_by_pos`) holds them as bits of its
        entry."""
        parts = sorted(p[0])
        parts.append(b"\xff")
        parts.append(p[1])
        parts.append(b"\xfe")
        return b"".join(parts)

    def _dominated(self, by_pos: dict[bytes, int], base: bytes, p: _Pos) -> int:
        """-1 when ``p`` (``base``: its :meth:`_key`) is dominated by a position seen
        (:func:`_waste_seen` with unlimited passes, :func:`_pass_dominated` under a limit);
        else, recording it, the dead-position check's answers kept for its other waste sizes
        (unlimited passes only; 0 under a limit, where the check reads the pile)."""
        _, talon, pos, passes, _ = p
        n = len(talon)
        if self.unlimited:
            return _waste_seen(by_pos, base, _waste_mark(p))
        # (a table by passes, talon size and waste size: a call costs less than a cache's)
        i = (passes * 25 + n) * 25 + pos
        bits = self._reaching[i]
        if not bits:
            bits = self._reaching[i] = _dominating(pos, passes, n, self.draw)
        return -1 if _pass_dominated(by_pos, base, passes * 64 + pos, bits) else 0

    def _tables(self, p0: _Pos, own: bool = False) -> tuple[set[bytes], dict[bytes, int] | None]:
        """The transposition tables of a search: shared by the searches of one solver when
        ``shared`` (then a proof needs every search exhausted), else (or when ``own``)
        fresh. The keys seen, and (but for draw 1 with unlimited passes) the keys by position
        (:meth:`_by_pos`), which then stand alone: a position seen before is one its own
        entry dominates, so only the start key is in the first."""
        shared = self.shared and not own
        if shared and self._shared is not None:
            return self._shared
        key = self._key(p0)
        by_pos = self._by_pos()
        if by_pos is not None:
            self._dominated(by_pos, key, p0)  # (recording the start)
        t = ({key}, by_pos)
        if shared:
            self._shared = t
        return t

    def _by_pos(self) -> dict[bytes, int] | None:
        """A new table by position, empty: keyed by :meth:`_key`, each with the bit set of
        the waste sizes seen (draw 3 with unlimited passes, see :func:`_waste_seen`) or of
        the (waste size, passes used) pairs seen (under a pass limit, see
        :func:`_pass_dominated`), filled by :meth:`_dominated`. None in draw 1 with
        unlimited passes, whose key holds neither."""
        return None if self.talon_is_set else {}

    # -- searches ---------------------------------------------------------------------------

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
        if self.stuck_check and _stuck(
            p0[0], p0[4], self.returns, (), order0, self._pile(p0), self._stock(p0), self.draw
        ):
            return None
        seen, by_pos = self._tables(p0, own_table)
        unlimited = self.unlimited
        draw = self.draw
        head = autos
        # (position, its moves, the order of the dead-position check that let it through
        # and whether it is known to pass that check)
        frames: list[tuple[_Pos, list[_Macro], list[int], bool]] = [
            (p0, self._moves(p0, talon_first), order0, True)
        ]
        idx = [0]
        path: list[list[_Macro]] = []
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
            child = self._apply(p, ms[i], step)
            prev = 0  # what the dead-position check said of this position's other waste sizes
            base = b""
            if by_pos is None:
                k = self._key(child)
                if k in seen:
                    continue
                seen.add(k)
            else:
                base = self._key(child)
                prev = self._dominated(by_pos, base, child)
                if prev < 0:
                    continue  # seen, or seen where it can reach more
            nodes += 1
            if self._won(child):
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
                pile = self._pile(child)
                if ms[i][0] == _COL_F:
                    known = False  # not checked (see _stays_open)
                elif not (known and _stays_open(p, child, ms[i], returns, pile, self._pile(p))):
                    # The check does not depend on the talon's waste size: its answer for
                    # another size of the same position stands.
                    if prev & _DEAD:
                        continue
                    if not prev & _ALIVE:
                        new_order: list[int] = []
                        dead = _stuck(
                            child[0],
                            child[4],
                            returns,
                            order,
                            new_order,
                            pile,
                            self._stock(child),
                            draw,
                        )
                        if by_pos is not None and unlimited:
                            by_pos[base] |= _DEAD if dead else _ALIVE
                        if dead:
                            continue
                        order = new_order
                    known = True
            path.append(step)
            frames.append((child, self._moves(child, talon_first), order, known))
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
        if self.stuck_check and _stuck(
            p0[0], p0[4], self.returns, (), order0, self._pile(p0), self._stock(p0), self.draw
        ):
            return None
        seen, by_pos = self._tables(p0, own_table)
        draw = self.draw
        _Link = tuple[Any, list[_Macro]] | None
        # (priority, tie-break, position, line, check: _KNOWN / _CHECK / _UNCHECKED, the
        # parent's check order)
        heap: list[tuple[int, int, _Pos, _Link, int, list[int]]] = [
            (0, 0, p0, None, _KNOWN, order0)
        ]
        returns = self.returns
        check = self.stuck_check
        nodes = 0
        tick = 0
        talon_weight = 32 if talon_first else 0  # face-down counts stay below 32
        while heap:
            _, _, p, link, status, order = heapq.heappop(heap)
            # Checked when taken, not when made: most positions on the heap never are.
            if status == _CHECK:
                new_order: list[int] = []
                if _stuck(
                    p[0], p[4], returns, order, new_order, self._pile(p), self._stock(p), draw
                ):
                    continue
                order = new_order
                status = _KNOWN
            for m in self._moves(p):
                step: list[_Macro] = [m]
                child = self._apply(p, m, step)
                if by_pos is None:
                    k = self._key(child)
                    if k in seen:
                        continue
                    seen.add(k)
                elif self._dominated(by_pos, self._key(child), child) < 0:
                    continue  # seen, or seen where it can reach more
                nodes += 1
                node: _Link = (link, step)
                if self._won(child):
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
                heapq.heappush(
                    heap,
                    (
                        (len(child[1]) * talon_weight + hidden - 700) * 64 - sum(child[4]),
                        tick,
                        child,
                        node,
                        _UNCHECKED
                        if not check or m[0] == _COL_F
                        else _KNOWN
                        if status == _KNOWN
                        and _stays_open(p, child, m, returns, self._pile(child), self._pile(p))
                        else _CHECK,
                        order,
                    ),
                )
        self.nodes += nodes & 255
        return None


def _waste_mark(p: _Pos) -> int:
    """Draw 3, unlimited passes: the waste size of ``p`` as the table by position holds it,
    0 for the talon as after a recycle (a size the draws reach from there)."""
    pos = p[2]
    return 0 if pos % 3 == 0 or pos == len(p[1]) else pos


_REACHING: Final = tuple(sum(1 << p for p in range(1, q + 1) if p % 3 == q % 3) for q in range(64))
"""For a waste size ``q`` other than "0" (as :func:`_waste_mark` gives it): the sizes whose
position dominates it, ``q`` itself, ``q - 3``, ``q - 6``... ("0", the talon as after a
recycle, is dominated by any)."""


def _waste_seen(by_pos: dict[bytes, int], base: bytes, q: int) -> int:
    """Draw 3, unlimited passes: -1 when the position of ``base`` (:meth:`_Solver._key`) and
    waste size ``q`` (as :func:`_waste_mark` gives it) is dominated by one seen,
    else (recording it) the bits its position had before: its waste sizes seen, and
    ``_ALIVE`` / ``_DEAD`` once the dead-position check has judged it.

    From waste size ``p`` the draws reach ``p + 3``, ``p + 6``... and the end, and a recycle
    reaches "0"; the K+ moves from ``p`` include every move from those (the same card
    played, the same position after it). So once a position is seen with waste
    size ``p``, the same position with a size reached from ``p`` adds nothing: every seen
    position is expanded (or dead, which does not depend on the talon)."""
    seen = by_pos.get(base, 0)
    if q == 0:
        if seen:
            return -1
    elif seen & _REACHING[q]:
        return -1
    by_pos[base] = seen | 1 << q
    return seen


def _pass_dominated(by_pos: dict[bytes, int], base: bytes, bit: int, dominating: int) -> bool:
    """Under a pass limit: is the position of ``base`` (:meth:`_Solver._key`) with the
    waste size and passes used of ``bit`` (waste size + 64 * passes used) dominated by one
    seen, the same columns and talon with a waste size and passes used from which it can be
    reached (``dominating``: their bits, :func:`_dominating`)? Else it is recorded.

    The position seen is expanded (or dead, and then so is this one: its pile, if any, is a
    part of this one's, and fewer passes used leave none), and it reaches this one, so
    everything this one reaches: nothing is lost (docs/solver.md, "Waste size dominance
    under a pass limit")."""
    got = by_pos.get(base, 0)
    if got & dominating:
        return True
    by_pos[base] = got | 1 << bit
    return False


def _dominating(p: int, passes: int, n: int, draw: int) -> int:
    """The bits (waste size ``q`` + 64 * passes used) of the positions that reach waste size
    ``p`` after ``passes`` passes with the same talon of ``n`` cards and nothing played (or
    with passes to spare): with at most as many passes used, ``p``, ``p - draw``,
    ``p - 2 * draw``... (any when ``p`` is the end); with fewer, any waste size when ``p``
    can be drawn to after a recycle (a multiple of ``draw``)."""
    bits = 0
    for used in range(passes + 1):
        for q in range(n + 1):
            if (q <= p and (p - q) % draw == 0) or p == n or (used < passes and p % draw == 0):
                bits |= 1 << (used * 64 + q)
    return bits


_ALIVE: Final = 1 << 30
"""In :func:`_waste_seen`'s bits (waste sizes stay below 25): passed the dead-position check."""
_DEAD: Final = 1 << 31
"""... and failed it."""


_KNOWN: Final = 0
_CHECK: Final = 1
_UNCHECKED: Final = 2
