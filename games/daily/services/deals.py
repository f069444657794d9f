"""Daily challenge writes: the day's deals, chosen by the solver from a secret-keyed
sequence and committed to in public, created once per day and mode."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from config.errors import ApplicationError
from games import clock, engine
from games import services as game_services
from games.daily.errors import DailyNotFoundError
from games.daily.services.closing import daily_close
from games.engine import solver
from games.models import (
    DailyDeal,
)

# How many candidate numbers to try before giving up on a day (each is one solver run).
MAX_CANDIDATES = 200


def daily_mode_check(mode: str) -> str:
    """The mode in upper case when it is a configured daily mode.

    :raises DailyNotFoundError: not one of settings.DAILY_MODES.
    """
    normalized = mode.upper()
    if normalized not in settings.DAILY_MODES:
        raise DailyNotFoundError(
            gettext("No daily challenge in mode %(mode)s; the modes are %(modes)s.")
            % {"mode": repr(mode), "modes": ", ".join(settings.DAILY_MODES)}
        )
    return normalized


def daily_first_candidate(*, day: date, mode: str) -> int:
    """The first deal number tried for a day and mode: HMAC(secret, "date|mode")."""
    digest = hmac.new(
        settings.DAILY_SECRET.encode(), f"{day.isoformat()}|{mode}".encode(), hashlib.sha256
    ).digest()
    return int.from_bytes(digest[:8], "big") % (engine.MAX_NUMBER + 1)


def daily_commitment(*, code: str, salt: str) -> str:
    """The public commitment to a daily deal: hex sha256 of "code|salt"."""
    return hashlib.sha256(f"{code}|{salt}".encode()).hexdigest()


@functools.lru_cache(maxsize=32)
def _par_line(code: str, line: tuple[engine.PlainAction, ...]) -> tuple[str, ...]:
    """The par line of deal `code` from the solver's winning `line`, in notation: the
    shortest winning line `solver.shorten` finds (a fixed number of positions, about a second).

    A pure function, kept per process: the same deal and line give the same par line, and
    the test suite creates the same few deals again and again.
    """
    shortest = solver.shorten(engine.GameState.from_code(code), line)
    return tuple(engine.format_action(a) for a in shortest)


def _winnable_deal(*, day: date, mode: str) -> tuple[int, list[str]]:
    """Step from the HMAC candidate to the first deal the solver proves winnable.

    Returns the deal number and its par line: the shortest winning line found from the
    solver's within a fixed number of positions (`solver.shorten`); its length is the par.
    """
    draw, preset = int(mode[1]), mode[2]
    number = daily_first_candidate(day=day, mode=mode)
    for _ in range(MAX_CANDIDATES):
        code = str(engine.DealCode(draw, preset, number))
        verdict = solver.solve(
            engine.GameState.from_code(code), budget_s=settings.DAILY_SOLVE_BUDGET_S
        )
        if isinstance(verdict, solver.Solved):
            return number, list(_par_line(code, tuple(verdict.actions)))
        number = (number + 1) % (engine.MAX_NUMBER + 1)
    raise ApplicationError(  # never seen in practice
        gettext("No winnable deal found for %(day)s %(mode)s.") % {"day": day, "mode": mode}
    )


def daily_deal_get_or_create(*, day: date, mode: str) -> DailyDeal:
    """The daily deal of `day` and `mode`, created (solver-proven winnable) when missing.

    Idempotent and race-safe: concurrent callers end with the same single row.

    :raises DailyNotFoundError: an unknown mode.
    """
    mode = daily_mode_check(mode)
    existing = DailyDeal.objects.filter(date=day, mode=mode).select_related("deal").first()
    if existing is not None:
        return existing
    number, solution = _winnable_deal(day=day, mode=mode)
    code = str(engine.DealCode(int(mode[1]), mode[2], number))
    salt = secrets.token_hex(16)
    try:
        with transaction.atomic():
            return DailyDeal.objects.create(
                date=day,
                mode=mode,
                deal=game_services.deal_get_or_create(number=number),
                salt=salt,
                commitment=daily_commitment(code=code, salt=salt),
                par=len(solution),
                solution="\n".join(solution),
            )
    except IntegrityError:
        return DailyDeal.objects.select_related("deal").get(date=day, mode=mode)


def daily_ensure(*, now: datetime | None = None) -> list[DailyDeal]:
    """Create today's and tomorrow's deals in every mode (the beat task's work)."""
    now = now or timezone.now()
    day = clock.today(now)
    return [
        daily_deal_get_or_create(day=d, mode=mode)
        for d in (day, day + timedelta(days=1))
        for mode in settings.DAILY_MODES
    ]


def daily_board_get(*, day: date, mode: str, now: datetime) -> DailyDeal:
    """A day's challenge in one mode, brought up to date on read so that embedded mode needs
    no beat: created on the spot while the day is open for starts, closed on the spot once
    its grace hour has passed.

    :raises DailyNotFoundError: an unknown mode, or no challenge that day.
    """
    mode = daily_mode_check(mode)
    if clock.accepts_starts(day, now):
        return daily_deal_get_or_create(day=day, mode=mode)
    daily = DailyDeal.objects.filter(date=day, mode=mode).select_related("deal").first()
    if daily is None:
        raise DailyNotFoundError(
            gettext("No daily challenge %(mode)s on %(day)s.") % {"mode": mode, "day": day}
        )
    if (
        not daily.is_final
        and clock.is_due_final(day, now)
        and daily_close(daily_id=daily.pk, now=now)
    ):
        daily.refresh_from_db()
    return daily


def daily_prepare(*, day: date, now: datetime) -> None:
    """Bring every board of a day up to date on read (see `daily_board_get`)."""
    for mode in settings.DAILY_MODES:
        try:
            daily_board_get(day=day, mode=mode, now=now)
        except DailyNotFoundError:
            continue  # a past day without that mode: nothing to show
