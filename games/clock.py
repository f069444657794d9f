"""The daily challenge's calendar, in UTC (api.md, "Daily challenges").

Day D opens at D 00:00. New starts close at D+1 00:00; games already started may be finished
until D+1 01:00 (the grace hour); then the board is final.

Plain date arithmetic, in the games layer because a move checks it (`games.services`) as well
as the daily boards (`games.daily`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

GRACE = timedelta(hours=1)


def opens_at(day: date) -> datetime:
    """When the day's challenges open."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def starts_close_at(day: date) -> datetime:
    """When new ranked attempts stop being accepted: the next midnight."""
    return opens_at(day) + timedelta(days=1)


def play_closes_at(day: date) -> datetime:
    """When games already started must be finished, and the board becomes final."""
    return starts_close_at(day) + GRACE


def today(now: datetime) -> date:
    """The UTC date of an aware datetime."""
    return now.astimezone(UTC).date()


def accepts_starts(day: date, now: datetime) -> bool:
    """Whether a ranked attempt may start on `day` at `now`."""
    return opens_at(day) <= now < starts_close_at(day)


def accepts_play(day: date, now: datetime) -> bool:
    """Whether a started ranked attempt may still take actions."""
    return now < play_closes_at(day)


def is_due_final(day: date, now: datetime) -> bool:
    """Whether the board of `day` should be final by `now`."""
    return now >= play_closes_at(day)
