"""Daily challenge writes: making a board final once its grace hour has passed."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games import clock
from games import services as game_services
from games.daily import live
from games.daily.services.origins import origins_purge
from games.daily.services.rankings import daily_rank
from games.daily.services.ratings import ratings_queue
from games.daily.services.streaks import streaks_settle
from games.models import (
    DailyDeal,
    Game,
)

logger = logging.getLogger("games.daily")


def daily_close(*, daily_id: int, now: datetime | None = None) -> bool:
    """Make a board final once its grace hour has passed: record games still open as they
    stand (resigned), rank, update streaks, publish code and salt, and have the rating job
    rate it.

    Idempotent: a final board is left alone. Returns whether this call finalized it.
    """
    now = now or timezone.now()
    with transaction.atomic():
        daily = DailyDeal.objects.select_for_update().filter(pk=daily_id).first()
        if daily is None or daily.is_final or not clock.is_due_final(daily.date, now):
            return False
        for game in Game.objects.filter(daily=daily, status=Game.Status.PLAYING):
            game_services.game_finish_as_it_stands(game_id=game.pk)
        # Final first, so that the last ranking leaves out the withheld and confirmed games.
        daily.finalized_at = now
        daily.save(update_fields=["finalized_at"])
        daily_rank(daily_id=daily.pk)
        streaks_settle(daily=daily)
        ratings_queue(daily.draw, None)
        origins_purge(now=now)
    transaction.on_commit(lambda: live.live_board_drop(daily_id=daily_id))
    logger.info("daily %s %s is final", daily.date, daily.mode)
    return True


def daily_close_due(*, now: datetime | None = None) -> int:
    """Close every board whose grace hour has passed (the beat task's work)."""
    now = now or timezone.now()
    cutoff = clock.today(now) - timedelta(days=1)
    due = DailyDeal.objects.filter(finalized_at__isnull=True, date__lte=cutoff)
    return sum(daily_close(daily_id=pk, now=now) for pk in due.values_list("pk", flat=True))
