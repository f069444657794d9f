"""Celery tasks. Each takes ids (or a date and a mode), calls one service, and is
idempotent: a repeated run changes nothing, which makes `acks_late` safe."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from config.cache import cache_add, cache_delete
from config.metrics import timed_job
from games import clock, hints, pool
from games import services as game_services
from games.daily import integrity
from games.daily.services import closing, deals, rankings, ratings
from games.models import DailyDeal, Game

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, soft_time_limit=120, time_limit=150)
@timed_job
def rank_daily(day: str, mode: str) -> int:
    """Rank one board anew (a new ranking generation); returns the number of entries."""
    # From here on, a game that ends may not be in this run's reading: it queues another.
    cache_delete(_rank_pending_key(day, mode))
    daily = DailyDeal.objects.filter(date=date.fromisoformat(day), mode=mode).first()
    return rankings.daily_rank(daily_id=daily.pk) if daily is not None else 0


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
@timed_job
def rank_open_boards() -> int:
    """Every minute while boards are open: re-rank the boards that are not final."""
    boards = DailyDeal.objects.filter(
        finalized_at__isnull=True, date__lte=clock.today(timezone.now())
    )
    return sum(rankings.daily_rank(daily_id=pk) for pk in boards.values_list("pk", flat=True))


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def ensure_daily_deals() -> int:
    """Create today's and tomorrow's daily deals (each proven winnable by the solver)."""
    return len(deals.daily_ensure())


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
@timed_job
def close_due_boards() -> int:
    """Make final every board whose grace hour has passed; returns how many closed now. Then
    rate every final board not rated yet: a rating run a lost message never started, or the
    rest of a review's (each run here starts no board after `CATCH_UP_BUDGET_S`, well inside
    this task's limit; the next minute goes on)."""
    closed = closing.daily_close_due()
    for draw in ratings.draws_unrated():
        ratings.ratings_update(draw=draw, budget_s=CATCH_UP_BUDGET_S)
    return closed


# Two draws, each a run of this plus one board (about 30 s at 100,000 entries): under 300 s.
CATCH_UP_BUDGET_S = 90


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
@timed_job
def rate_draw(draw: int, since: str | None = None) -> int:
    """Bring a draw's ratings up to date with its final boards, rating again every board from
    the day `since` on (ISO date); returns how many boards it rated. A run starts no board
    after `RATE_DRAW_BUDGET_S` and queues itself for the rest: a review a month back on big
    boards takes several runs, each well inside the time limit (each board commits alone)."""
    rated = ratings.ratings_update(
        draw=draw,
        since=date.fromisoformat(since) if since is not None else None,
        budget_s=RATE_DRAW_BUDGET_S,
    )
    if ratings.ratings_pending(draw):
        rate_draw.delay(draw)
    return rated


# Seconds after which a rating run starts no further board: a board of 100,000 entries takes
# about 30 s (docs/benchmarks.md), so a run ends well inside the 600 s soft limit.
RATE_DRAW_BUDGET_S = 300


@shared_task(acks_late=True)
def check_game_integrity(game_id: int) -> str:
    """Weigh a finished ranked attempt's evidence (games.daily.integrity); returns its flag reason
    or ""."""
    return integrity.game_integrity_check(game_id=game_id)


@shared_task(acks_late=True, soft_time_limit=120, time_limit=150)
def analyse_game(game_id: int) -> str | None:
    """Find a lost game's point of no return and store it; returns the analysis status."""
    analysis = game_services.game_analyse(game_id=game_id)
    return str(analysis["status"]) if analysis else None


# Seconds of solver time a fill of one mode's pool may take (the beat's fills all of them).
DEAL_POOL_FILL_S = 60


@shared_task(
    acks_late=True, soft_time_limit=DEAL_POOL_FILL_S + 30, time_limit=DEAL_POOL_FILL_S + 60
)
def fill_deal_pool(draw: int, preset: str) -> int:
    """Fill one mode's pool of proven-winnable deals (`games.pool.deal_pool_fill`); returns
    how many deals were added."""
    return pool.deal_pool_fill(draw=draw, preset=preset, seconds=DEAL_POOL_FILL_S)


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
def fill_deal_pools() -> int:
    """The beat's: top up every mode's pool, a share of the time each."""
    seconds = 240 / len(pool.POOL_MODES)
    return sum(
        pool.deal_pool_fill(draw=draw, preset=preset, seconds=seconds)
        for draw, preset in pool.POOL_MODES
    )


@shared_task(
    acks_late=True,
    soft_time_limit=settings.HINT_BACKGROUND_BUDGET_S + 30,
    time_limit=settings.HINT_BACKGROUND_BUDGET_S + 60,
)
def search_hint_line(game_id: int, position: str) -> str:
    """Search a hint's position again with a longer budget and keep the winning line it finds
    (`hints.hint_line_search`); returns what came of it."""
    return hints.hint_line_search(game_id=game_id, position=position)


# Embedded mode runs tasks eagerly, in the request that sends them. An analysis, a pool fill or
# a hint's background search takes seconds of solver time, so there it runs on this one
# background thread instead, one at a time.
_analysis_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis")


def _slow_queue(task: Any, *args: Any) -> None:
    """Run `task` once the transaction commits, never inside the request: on a worker's
    `analysis` queue (CELERY_TASK_ROUTES), behind nothing that ranks; in embedded mode, on
    this process's background thread."""
    if settings.EMBEDDED:
        transaction.on_commit(lambda: _analysis_thread.submit(_in_background, task, *args))
    else:
        task.delay_on_commit(*args)


def analysis_queue(game_id: int) -> None:
    """Analyse a lost game once the transaction commits, never inside the request
    (`_slow_queue`)."""
    _slow_queue(analyse_game, game_id)


# A fill of a mode's pool is queued at most once in this many seconds (`deal_pool_fill_queue`):
# every game dealt from a pool that runs low would otherwise queue one.
DEAL_POOL_FILL_QUEUED_S = DEAL_POOL_FILL_S


def deal_pool_fill_queue(draw: int, preset: str) -> None:
    """Fill a mode's pool outside the request (`pool.deal_pool_fill_queue`, connected in
    `games.apps`; `_slow_queue`). Best effort: a fill already queued lately is not queued
    again, and a cache that cannot answer queues it anyway."""
    if cache_add(f"deal-pool-fill:D{draw}{preset}", 1, DEAL_POOL_FILL_QUEUED_S) is False:
        return
    _slow_queue(fill_deal_pool, draw, preset)


def _in_background(task: Any, *args: Any) -> None:
    """Run a task on the background thread (embedded mode)."""
    try:
        task(*args)
    except Exception:  # a thread's error would go nowhere: log it
        logger.exception("the background task %s%r failed", task.name, args)
    finally:
        connection.close()  # this thread's own connection


# What the layers below have this layer queue, through their hooks (connected in `games.apps`).


# A queued ranking's marker outlives the wait of a run that never starts (its message lost with
# a killed worker), after which the next game to end queues one again; the beat's minute
# re-ranks every open board meanwhile.
RANK_PENDING_S = 120


def _rank_pending_key(day: str, mode: str) -> str:
    return f"rank-pending:{day}:{mode}"


def rank_queue(daily: DailyDeal) -> None:
    """Re-rank `daily`'s board once the transaction commits
    (`games.daily.services.attempts.rank_queue`), unless a run is queued already and has not
    started: that run reads the board when it starts, so it ranks this game too. Without this,
    every game that ends would queue a ranking of the whole board, N runs of N entries a day
    (docs/scaling.md). A cache that cannot answer queues it anyway."""
    day, mode = daily.date.isoformat(), daily.mode

    def queue() -> None:
        if cache_add(_rank_pending_key(day, mode), 1, RANK_PENDING_S) is False:
            return
        rank_daily.delay_after_commit(day, mode)

    transaction.on_commit(queue)


def ratings_queue(draw: int, since: date | None) -> None:
    """Rate a draw's final boards once the transaction commits, never inside the request
    (`games.daily.services.ratings.ratings_queue`; `_slow_queue`, but on the ranking queue)."""
    _slow_queue(rate_draw, draw, since.isoformat() if since is not None else None)


def integrity_check_queue(game_id: int) -> None:
    """Check a finished ranked game once the transaction commits
    (`games.daily.services.attempts.integrity_check_queue`)."""
    check_game_integrity.delay_on_commit(game_id)


def hint_line_search_queue(game_id: int, position: str) -> None:
    """Search a hint's position again outside the request (`hints.hint_line_search_queue`;
    `_slow_queue`)."""
    _slow_queue(search_hint_line, game_id, position)


def lost_game_analysis_queue(game: Game, log: list[str]) -> None:
    """`game_services.game_ended`'s receiver: queue the analysis of a game that ended lost
    (`analysis_queue`)."""
    if game.status != Game.Status.WON:
        analysis_queue(game.pk)
