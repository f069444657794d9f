"""Solver searches in a process of their own, below play's CPU priority.

A hint's search keeps a core busy for up to half a second. Run in the request's own process it
competes with moves as an equal; here it runs in a child process at nice 10, so the kernel
gives a move's few milliseconds of CPU first. The child is spawned (a clean interpreter that
loads only the engine, none of Django's state), once per server process and lane, on first use:
a hint's search (lane "request") never waits behind a background search of seconds (lane
"background", `games.hints.hint_line_search`).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from games.engine import GameState, PlainAction, snapshot, solver

logger = logging.getLogger(__name__)

NICENESS = 10
# On top of the search's own budget: the child's start, the first time (imports: ~0.3 s).
START_S = 10.0
_pools: dict[str, tuple[int, ProcessPoolExecutor]] = {}  # lane: (the pid that made it, the pool)


def hint(
    state: GameState,
    *,
    budget_s: float,
    line: Sequence[PlainAction] = (),
    lane: str = "request",
) -> solver.Hint:
    """`solver.hint(state, budget_s=..., line=...)`, searched in the search process of `lane`;
    when that process cannot answer, the hint without a search (the kept line, or a heuristic
    move). A daemonic process (a Celery worker's) may start no process: it searches itself,
    at its own priority (the `analysis` worker runs niced)."""
    if multiprocessing.current_process().daemon:
        return solver.hint(state, budget_s=budget_s, line=line)
    made = _pools.get(lane)
    if made is None or made[0] != os.getpid():  # none yet, or the parent's (a fork)
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(1, mp_context=context, initializer=os.nice, initargs=(NICENESS,))
        made = _pools[lane] = (os.getpid(), pool)
    work = snapshot.dumps(state, history=False)
    try:
        return made[1].submit(_search, work, budget_s, tuple(line)).result(budget_s + START_S)
    except Exception:  # a dead or stuck search process: the next search starts another
        logger.warning("the search process did not answer", exc_info=True)
        made[1].shutdown(wait=False, cancel_futures=True)
        _pools.pop(lane, None)
        return solver.hint(state, budget_s=0, line=line)


def _search(work: bytes, budget_s: float, line: tuple[PlainAction, ...]) -> solver.Hint:
    """(In the search process.) The hint for a position's snapshot."""
    return solver.hint(snapshot.loads(work), budget_s=budget_s, line=line)


def shutdown() -> None:
    """Stop this server process's search processes, if it has any (the next search starts
    another). A test calls it so that no child outlives it."""
    while _pools:
        _, (_, pool) = _pools.popitem()
        pool.shutdown(wait=True, cancel_futures=True)
