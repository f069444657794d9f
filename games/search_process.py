"""Solver searches in a process of their own, below play's CPU priority.

A hint's search keeps a core busy for up to half a second. Run in the request's own process it
competes with moves as an equal; here it runs in a child process at nice 10, so the kernel
gives a move's few milliseconds of CPU first. The child is spawned (a clean interpreter that
loads only the engine, none of Django's state), once per server process, on first use.
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
_pool: tuple[int, ProcessPoolExecutor] | None = None  # (the pid that made it, the pool)


def hint(state: GameState, *, budget_s: float, line: Sequence[PlainAction] = ()) -> solver.Hint:
    """`solver.hint(state, budget_s=..., line=...)`, searched in the search process; when that
    process cannot answer, the hint without a search (the kept line, or a heuristic move)."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():  # none yet, or the parent's (a fork)
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(1, mp_context=context, initializer=os.nice, initargs=(NICENESS,))
        _pool = (os.getpid(), pool)
    work = snapshot.dumps(state, history=False)
    try:
        return _pool[1].submit(_search, work, budget_s, tuple(line)).result(budget_s + START_S)
    except Exception:  # a dead or stuck search process: the next search starts another
        logger.warning("the search process did not answer", exc_info=True)
        _pool[1].shutdown(wait=False, cancel_futures=True)
        _pool = None
        return solver.hint(state, budget_s=0, line=line)


def _search(work: bytes, budget_s: float, line: tuple[PlainAction, ...]) -> solver.Hint:
    """(In the search process.) The hint for a position's snapshot."""
    return solver.hint(snapshot.loads(work), budget_s=budget_s, line=line)


def shutdown() -> None:
    """Stop this server process's search process, if it has one (the next search starts
    another). A test calls it so that no child outlives it."""
    global _pool
    if _pool is not None:
        _pool[1].shutdown(wait=True, cancel_futures=True)
        _pool = None
