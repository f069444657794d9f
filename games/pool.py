"""Where a casual game's random deal comes from: any deal number but an open daily's, or, for
"winnable deals only", one the solver has proven winnable, from a pool kept per mode.

The pool (`PooledDeal`) holds up to `DEAL_POOL_SIZE` proven-winnable deal numbers for each
mode (draw and preset). A Celery job on the `analysis` queue fills it (`games.tasks`), from the
beat and after a game takes a deal from it; in embedded mode the fill runs on the web process's
background thread instead. A game takes the oldest deal of its mode; with the pool empty, the
request tries a few candidates itself, each with a short solver budget, and falls back to an
unproven random deal, which the answer flags (`winnable: false`). A proven deal comes with its
proof, the solver's winning line, so that the game's first hint follows it without a search.

Nothing here may hand out an open daily's deal (its code, layout and solution are secret until
its board is final): every number is checked when it is drawn and again when it is taken,
since a daily may be created after its number entered the pool.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from config.env import VAR_DIR
from config.hooks import Hook
from config.slots import HostSlots
from games import engine
from games.engine import solver
from games.models import DailyDeal, PooledDeal

# Sends a fill of one mode's pool (draw, preset) to run outside the request: a task on the
# `analysis` queue, or embedded mode's background thread (`games.tasks.deal_pool_fill_queue`,
# connected in `games.apps`).
deal_pool_fill_queue: Hook[[int, str]] = Hook("games.pool.deal_pool_fill_queue")

# The modes a pool is kept for: every draw and preset a casual game may have.
POOL_MODES = tuple((draw, preset) for draw in (1, 3) for preset in ("N", "V", "C", "R"))
# A request with the pool empty tries candidates for this long in all, each for at most
# ON_DEMAND_BUDGET_S_PER_DEAL of solver time: a draw-1 deal is usually proven in hundredths of
# a second; a hard mode (Vegas's one pass) falls back to a random deal instead of waiting.
ON_DEMAND_BUDGET_S = 0.5
ON_DEMAND_BUDGET_S_PER_DEAL = 0.15
# The hint searches' slots (the same lock files): an on-demand solve is a search too, and
# waits for none; all taken, the request falls back at once.
_search_slots = HostSlots("solver-search", settings.SOLVER_SEARCHES_AT_ONCE, VAR_DIR / "locks")


def deal_number_is_open_daily(number: int) -> bool:
    """Whether a KL1 deal number is the deal of a daily board that is not final."""
    return DailyDeal.objects.filter(
        deal__scheme=1, deal__number=number, finalized_at__isnull=True
    ).exists()


def deal_number_random() -> int:
    """A random KL1 deal number that is no open daily's: a casual game has hints and a
    public replay, so it never runs on an open daily's deal."""
    number = secrets.randbelow(engine.MAX_NUMBER + 1)
    while deal_number_is_open_daily(number):
        number = secrets.randbelow(engine.MAX_NUMBER + 1)
    return number


@dataclass(frozen=True)
class ProvenDeal:
    """A deal number proven winnable under a mode's rules, and the proof: the solver's
    winning line in the engine's notation (`engine.format_actions`). The line stays on the
    server (it would give away face-down cards); "" for a deal pooled before lines were kept."""

    number: int
    line: str


def _proof(*, draw: int, preset: str, number: int, budget_s: float) -> str | None:
    """The winning line (notation) by which the solver proves the deal winnable under the
    mode's rules within `budget_s`, or None: no proof in time. The solver replayed its
    `Solved` line to a win through the engine before returning it."""
    state = engine.GameState.from_code(str(engine.DealCode(draw, preset, number)))
    verdict = solver.solve(state, budget_s=budget_s)
    return engine.format_actions(verdict.actions) if isinstance(verdict, solver.Solved) else None


def deal_pool_take(*, draw: int, preset: str) -> ProvenDeal | None:
    """Take the oldest proven-winnable deal of the mode out of its pool; None when the pool
    has none. A pooled number that has become an open daily's since is dropped."""
    while True:
        with transaction.atomic():
            row = (
                PooledDeal.objects.select_for_update(skip_locked=True)
                .filter(draw=draw, preset=preset)
                .order_by("id")
                .first()
            )
            if row is None:
                return None
            row.delete()
            if not deal_number_is_open_daily(row.number):
                return ProvenDeal(row.number, row.line)


def deal_prove_now(*, draw: int, preset: str) -> ProvenDeal | None:
    """A deal of the mode proven winnable now, within ON_DEMAND_BUDGET_S in all, or None:
    the budget ran out, or every solver slot of the host is busy. For a request that found
    the pool empty; holds no transaction."""
    with _search_slots.take() as got:
        if not got:
            return None
        deadline = time.monotonic() + ON_DEMAND_BUDGET_S
        while (left := deadline - time.monotonic()) > 0:
            number = deal_number_random()
            budget = min(ON_DEMAND_BUDGET_S_PER_DEAL, left)
            line = _proof(draw=draw, preset=preset, number=number, budget_s=budget)
            if line is not None:
                return ProvenDeal(number, line)
    return None


def deal_pool_fill(*, draw: int, preset: str, seconds: float) -> int:
    """Add proven-winnable deals, each with its winning line, to the mode's pool until it
    holds DEAL_POOL_SIZE or `seconds` have passed; returns how many were added. Idempotent: a
    full pool gets none.

    Each candidate gets DEAL_POOL_SOLVE_BUDGET_S of solver time; one the solver does not
    prove (unwinnable, or undecided in the budget) is passed over.
    """
    deadline = time.monotonic() + seconds
    added = 0
    mode = PooledDeal.objects.filter(draw=draw, preset=preset)
    while time.monotonic() < deadline and mode.count() < settings.DEAL_POOL_SIZE:
        number = deal_number_random()
        budget = settings.DEAL_POOL_SOLVE_BUDGET_S
        line = _proof(draw=draw, preset=preset, number=number, budget_s=budget)
        if line is not None:
            _, created = PooledDeal.objects.get_or_create(
                draw=draw, preset=preset, number=number, defaults={"line": line}
            )
            added += created
    return added


def deal_pool_low(*, draw: int, preset: str) -> bool:
    """Whether the mode's pool is below half full: time to queue a fill."""
    held = PooledDeal.objects.filter(draw=draw, preset=preset).count()
    return held < settings.DEAL_POOL_SIZE / 2
