"""Daily fixtures: a controlled clock, and finished ranked games made to order."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine

from games.daily.services import attempts as daily_attempts
from games.daily.services import closing as daily_closing
from games.daily.services import deals as daily_deals
from games.models import DailyDeal, Game

DAY = date(2026, 11, 30)
NEXT = date(2026, 12, 1)


def at(day: date, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    """An aware UTC datetime on `day`."""
    return datetime(day.year, day.month, day.day, hh, mm, ss, tzinfo=UTC)


@pytest.fixture
def clock() -> Any:
    """Travel to a UTC instant: `clock(at(DAY, 12))`; time stands still until moved again."""
    travellers: list[Any] = []

    def travel(when: datetime) -> None:
        while travellers:
            travellers.pop().stop()
        traveller = time_machine.travel(when, tick=False)
        traveller.start()
        travellers.append(traveller)

    yield travel
    while travellers:
        travellers.pop().stop()


@pytest.fixture
def daily(clock: Any, db: None) -> DailyDeal:
    """Today's D1N challenge, at noon of DAY."""
    clock(at(DAY, 12))
    return daily_deals.daily_deal_get_or_create(day=DAY, mode="D1N")


@pytest.fixture
def finished_attempt(make_user: Callable[..., Any]) -> Callable[..., Game]:
    """A ranked attempt recorded as finished with the given figures (ranking tests)."""

    def make(
        daily: DailyDeal,
        *,
        username: str | None = None,
        won: bool,
        score: int,
        moves: int,
        elapsed_ms: int,
        undos: int = 0,
        finished_offset_ms: int = 0,
        foundations: int | None = None,
    ) -> Game:
        user, _ = make_user(username)
        game, _ = daily_attempts.daily_start(user=user, day=daily.date, mode=daily.mode)
        finished = game.started_at + timedelta(milliseconds=elapsed_ms + finished_offset_ms)
        Game.objects.filter(pk=game.pk).update(
            status="won" if won else "resigned",
            score=score,
            leaderboard_score=score,
            moves=moves,
            undos=undos,
            # A card on a foundation unless told: a loss with few moves is then no abort.
            foundations=(52 if won else 1) if foundations is None else foundations,
            elapsed_ms=elapsed_ms,
            finished_at=finished,
        )
        game.refresh_from_db()
        return game

    return make


@pytest.fixture
def play_board(clock: Any) -> Any:
    """Play a board of `mode` (D1N by default) on `day`: each (player, won, score) finishes a
    ranked attempt, in that order; then the board closes (not rated yet). Returns the board."""

    def play(day: date, results: list[tuple[Any, bool, int]], mode: str = "D1N") -> DailyDeal:
        clock(at(day, 12))
        daily = daily_deals.daily_deal_get_or_create(day=day, mode=mode)
        for user, won, score in results:
            game, _ = daily_attempts.daily_start(user=user, day=day, mode=mode)
            Game.objects.filter(pk=game.pk).update(
                status="won" if won else "resigned",
                leaderboard_score=score,
                moves=100,
                elapsed_ms=1000,
                finished_at=game.started_at + timedelta(seconds=1),
            )
        clock(at(day + timedelta(days=2), 1))
        assert daily_closing.daily_close(daily_id=daily.pk)
        daily.refresh_from_db()
        return daily

    return play


# Boards of a few players say little, so a test rating would take a score of them to settle
# (rules: deviation at most rating.PROVISIONAL_SIGMA); with `settle_fast` one board does.
SETTLING_BOARDS = 2


@pytest.fixture
def settle_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.daily import rating

    monkeypatch.setattr(rating, "PROVISIONAL_SIGMA", 280.0)
