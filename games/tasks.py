"""Celery tasks. Each takes ids (or a date and a mode), calls one service, and is
idempotent: a repeated run changes nothing, which makes `acks_late` safe."""

from __future__ import annotations

from datetime import date

from celery import shared_task
from django.utils import timezone

from games import services as game_services
from games.daily import clock, services
from games.models import DailyDeal


@shared_task(acks_late=True, soft_time_limit=120, time_limit=150)
def rank_daily(day: str, mode: str) -> int:
    """Rebuild one board's rank snapshot; returns the number of entries."""
    daily = DailyDeal.objects.filter(date=date.fromisoformat(day), mode=mode).first()
    return services.daily_rank(daily_id=daily.pk) if daily is not None else 0


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
def rank_open_boards() -> int:
    """Every minute while boards are open: re-rank the boards that are not final."""
    boards = DailyDeal.objects.filter(
        finalized_at__isnull=True, date__lte=clock.today(timezone.now())
    )
    return sum(services.daily_rank(daily_id=pk) for pk in boards.values_list("pk", flat=True))


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def ensure_daily_deals() -> int:
    """Create today's and tomorrow's daily deals (each proven winnable by the solver)."""
    return len(services.daily_ensure())


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
def close_due_boards() -> int:
    """Make final every board whose grace hour has passed; returns how many closed now."""
    return services.daily_close_due()


@shared_task(acks_late=True)
def check_game_integrity(game_id: int) -> str:
    """Replay a finished ranked game and check its timing; returns the flag reason or ""."""
    return services.game_integrity_check(game_id=game_id)


@shared_task(acks_late=True, soft_time_limit=120, time_limit=150)
def analyse_game(game_id: int) -> str | None:
    """Find a lost game's point of no return and store it; returns the analysis status."""
    analysis = game_services.game_analyse(game_id=game_id)
    return str(analysis["status"]) if analysis else None
