"""The search schedule: :func:`solve` runs the searches of :mod:`.search` in turns on a
budget of time or positions, with the sound search taking over where the fast cuts ran dry,
and (``workers=2``) a helper process with searches of its own."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Any, Final

from ..state import GameState
from .positions import _UNLIMITED, _Macro
from .search import _Solver
from .verdicts import Solved, Unknown, Unwinnable, Verdict, _expand


class _OutOfBudget(Exception):
    """The budget (time or positions) ran out before a verdict."""


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
    """The real search, and the relaxed one in draw 3 with unlimited passes (see
    :class:`_Solver`). Under a pass limit the relaxed game (draw 1, unlimited passes) is
    so much bigger a game that it decided none of deals 0-199 of D1V, D1C, D3V and D3C at
    10 s (2026-12-02): its turns go to the real searches (:data:`_PHASES_LIMITED`)."""
    s = _Solver(state, stuck_check=stuck_check)
    if s.talon_is_set or not s.unlimited:
        return s, None
    return s, _Solver(state, stuck_check=stuck_check, relax=True)


def _phases(s: _Solver, relaxed: _Solver | None, *, helper: bool = False) -> _Phases:
    """The turns of the main process (or of the ``helper``) for ``s``'s game."""
    if not s.unlimited:
        return _HELPER_PHASES_LIMITED if helper else _PHASES_LIMITED
    if relaxed is not None:
        return _HELPER_PHASES_RELAXED if helper else _PHASES_RELAXED
    return _HELPER_PHASES if helper else _PHASES


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
_SOUND_ALONE: Final = 8
"""A depth-first search with the sound cuts only and a table of its own, from the start: it
wins the deals whose every win the fast cuts cut, often in a few hundred positions, where the
fast searches would first have to exhaust their space; and when that space is exhausted it is
the sound search that takes over, from where it is. Under a pass limit, where the searches
use the sound cuts anyway, it has no turns."""
_Phases = Sequence[tuple[int, float]]
"""(search, share of the budget it may use until), in turn order."""
_PHASES: Final = ((_DFS, 0.1), (_SOUND_ALONE, 0.2), (_BEST, 0.5), (_DFS, 1.0))
"""(search, share of the budget it may use until): depth-first first (most deals fall
fast), a turn for the sound cuts, then best-first (rescues the deals where an early choice
sends depth-first astray), then depth-first again, resumed where it stopped."""
_PHASES_RELAXED: Final = (
    (_DFS, 0.1),
    (_RELAXED, 0.2),
    (_BEST_ALONE, 0.22),
    (_DFS_TALON_ALONE, 0.28),
    (_BEST_TALON, 0.7),
    (_DFS, 0.9),
    (_RELAXED, 1.0),
)
"""The same in draw 3 (unlimited passes), with turns for the
depth-first search of the relaxed game (its proofs of a loss come much cheaper), and orders
that play the talon off early (in draw 3 a card's turn on the waste top depends on the cards
before it): the best-first search that empties the talon first shares the table with
depth-first; the plain best-first order and a depth-first search that tries the talon's moves
first, which win their deals within a few thousand positions when they win them at all, get
short turns with tables of their own (sharing, they would find most of the positions they
want already owned by the others)."""
_PHASES_LIMITED: Final = (
    (_DFS, 0.002),
    (_BEST_ALONE, 0.004),
    (_DFS_TALON_ALONE, 0.006),
    (_DFS, 0.012),
    (_BEST_ALONE, 0.018),
    (_DFS_TALON_ALONE, 0.024),
    (_DFS, 0.1),
    (_BEST_ALONE, 0.12),
    (_DFS_TALON_ALONE, 0.14),
    (_BEST_TALON, 0.6),
    (_DFS, 1.0),
)
"""Under a pass limit: the orders of :data:`_PHASES_RELAXED` without the relaxed game (see
:func:`_solvers`), its two turns shared out among them, and the three short orders first in
two rounds of short turns: in one pass each of them wins deals in a few hundred positions
that the others take tens of thousands for (docs/solver.md, "Several searches, one budget").
All the searches use the sound cuts there, so a proof is either search sharing the table
running dry after the other (how the turns split between the two then does not matter) or a
search with a table of its own running dry."""


def _schedule(
    s: _Solver,
    t0: float,
    budget_s: float,
    max_nodes: int | None,
    relaxed: _Solver | None = None,
    *,
    helper: _Helper | None = None,
    phases: _Phases | None = None,
) -> list[_Macro] | None:
    """Run the searches in turns; a win decides at once (except a win of the relaxed game,
    which decides nothing: that search just stops), and so does a search with the sound cuts
    only (the relaxed game's) running dry. ``phases`` default to those of :func:`_phases`;
    a ``helper``'s verdict, polled between turns, decides too.

    ``s`` searches with the cuts that may lose every winning line (see :class:`_Solver`):
    when its space is exhausted (a search with a table of its own, or every search sharing
    the table, ran dry), no search over it can win any more, and nothing is proven. The
    searches over it stop, and a search of ``s``'s sound twin (the one that had early turns,
    if any; else the same order, depth-first for the shared ones) takes their turns: its
    running dry is the proof.

    :raises _OutOfBudget: no verdict in time.
    """
    if phases is None:
        phases = _phases(s, relaxed)
    if s.sound:  # (the turns of a search dropped go to the next one)
        phases = [(which, share) for which, share in phases if which != _SOUND_ALONE]
    makers: dict[int, Callable[[], Generator[None, None, list[_Macro] | None]]] = {
        _DFS: s.dfs,
        _BEST: s.best_first,
        _BEST_TALON: functools.partial(s.best_first, talon_first=True),
        _BEST_ALONE: functools.partial(s.best_first, own_table=True),
        _DFS_TALON_ALONE: functools.partial(s.dfs, talon_first=True, own_table=True),
        _BEST_TALON_ALONE: functools.partial(s.best_first, talon_first=True, own_table=True),
        _SOUND_ALONE: functools.partial(_sound_search, s, _DFS),
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
                which = _successor(searches, shared)
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
                if which in (_RELAXED, _SOUND, _SOUND_ALONE) or s.sound:
                    return None  # a proof: the relaxed game or the sound space is exhausted
                early = searches.get(_SOUND_ALONE)
                searches = {w: g for w, g in searches.items() if w == _RELAXED}
                # The sound depth-first search that had early turns goes on from where it is.
                searches[_SOUND] = early if early is not None else _sound_search(s, which)
                s._shared = None  # (the memory of the fast tables goes to the sound one)
    raise _OutOfBudget


def _successor(searches: Iterable[int], shared: set[int]) -> int:
    """The search that takes the turn of one that finished without deciding: one sharing
    the tables if any is left, else the first left but the relaxed game's.

    A search that ran dry over the shared tables has expanded every position it reached
    there, so the others sharing them finish with little more work (one that has not started
    finds the start's children all seen), and that finish is the proof or the end of the cut
    space; a search with a table of its own would search that space all over again."""
    for which in searches:
        if which in shared:
            return which
    return next(w for w in searches if w != _RELAXED)


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
and 0.6 s), then the relaxed game, whose proofs of a loss take 2-8 s in the deals the main process
leaves undecided (it gives them 2 s). In draw 1 the talon-first orders the main process does
not run."""
_HELPER_PHASES_LIMITED: Final = ((_BEST_ALONE, 0.4), (_DFS_TALON_ALONE, 1.0))
"""Under a pass limit: the orders the main process gives short turns, each with a table of
its own (every search uses the sound cuts there, so each running dry is a proof)."""


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
    try:
        line = _schedule(
            s, t0, budget_s, max_nodes, relaxed, phases=_phases(s, relaxed, helper=True)
        )
    except _OutOfBudget:
        conn.send((False, None, _nodes(s, relaxed)))
    else:
        conn.send((True, line, _nodes(s, relaxed)))
    conn.close()
