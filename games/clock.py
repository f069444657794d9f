"""Time: the daily challenge's calendar, in UTC (api.md, "Daily challenges"), and a casual
game's clock.

Day D opens at D 00:00. New starts close at D+1 00:00; games already started may be finished
until D+1 01:00 (the grace hour); then the board is final.

Plain date arithmetic, in the games layer because a move checks it (`games.services`) as well
as the daily boards (`games.daily`).

A casual game's clock counts play, not the wall: it starts at the first action, and of any wait
between two actions it counts at most `IDLE_LIMIT`, so a player who left (page hidden, tab
closed, thinking over lunch) stops it after a minute. It is computed from the log's `at_ms`
alone, like everything the server referees. A ranked attempt's clock is the wall's, from the
start (docs/daily.md): everyone on a board is timed the same way.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

GRACE = timedelta(hours=1)
IDLE_LIMIT_MS = 60_000


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


def ms_since(start: datetime, now: datetime) -> int:
    """Whole milliseconds from `start` to `now`, never negative (clocks of two hosts)."""
    return max(0, int((now - start).total_seconds() * 1000))


def casual_clock_ms(clock_ms: int, last_at_ms: int | None, at_ms: int) -> int:
    """A casual game's clock at `at_ms` (wall time since its start), from its clock
    `clock_ms` at its last action, made at `last_at_ms` (None: no action yet, the clock has
    not started).

    >>> casual_clock_ms(0, None, 5_000)  # the first action starts the clock
    0
    >>> casual_clock_ms(10_000, 20_000, 25_000)
    15000
    >>> casual_clock_ms(10_000, 20_000, 900_000)  # an hour away counts one minute
    70000
    """
    if last_at_ms is None:
        return 0
    return clock_ms + min(max(0, at_ms - last_at_ms), IDLE_LIMIT_MS)
