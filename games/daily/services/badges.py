"""Daily challenge writes: the badges that reward good play (docs/daily.md, "Badges"), counted
from the stored final boards: games, final rankings and rating changes.

Every count is a recount: `badges_recount` derives each badge of the given players from the
data alone, as earned on the first final board that qualifies, and writes only the
difference. So closing a board, a review and a recount from nothing give the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

from django.db.models import QuerySet

from games.daily import rating as rating_model
from games.models import (
    OFF_FINAL_BOARD,
    UNDER_REVIEW,
    Badge,
    BadgeKind,
    DailyDeal,
    Game,
    LeaderboardEntry,
    RatingChange,
)

STREAK_BADGES = {7: BadgeKind.STREAK_7, 30: BadgeKind.STREAK_30}
RATING_BADGES = {
    1700: BadgeKind.RATING_1700,
    1900: BadgeKind.RATING_1900,
    2100: BadgeKind.RATING_2100,
}
TOP_RANK = 10
# A final ranking gives equal keys one rank, so a rank of 10 or better lies within the first
# positions unless more than this many players tie at the top: read by position (the index).
_TOP_POSITIONS = 1000

# Players: a query of their ids, or a short list of them.
Users = QuerySet[Any] | list[int]
# (user, kind) -> (board's day, board's mode, board's id): the first board that earned it.
Earned = dict[tuple[int, str], tuple[date, str, int]]


def _earn(earned: Earned, user_id: int, kind: str, board: tuple[date, str, int]) -> None:
    if (user_id, kind) not in earned or board < earned[(user_id, kind)]:
        earned[(user_id, kind)] = board


def _wins(earned: Earned, users: Users) -> None:
    """First win, a win without undo, a win under par, and the streaks: from the players'
    counted wins (final boards, neither left out nor under review), in date order."""
    wins = (
        Game.objects.filter(
            user_id__in=users, status=Game.Status.WON, daily__finalized_at__isnull=False
        )
        .exclude(OFF_FINAL_BOARD)
        .exclude(UNDER_REVIEW)
        .order_by("user_id", "daily__date", "daily__mode")
        .values_list(
            "user_id", "daily_id", "daily__date", "daily__mode", "undos", "moves", "daily__par"
        )
    )
    runs: dict[tuple[int, str], tuple[date, int]] = {}  # (user, mode) -> (last day, run length)
    for user_id, daily_id, day, mode, undos, moves, par in wins.iterator(chunk_size=5000):
        board = (day, mode, daily_id)
        _earn(earned, user_id, BadgeKind.FIRST_WIN, board)
        if undos == 0:
            _earn(earned, user_id, BadgeKind.NO_UNDO_WIN, board)
        if moves < par:
            _earn(earned, user_id, BadgeKind.UNDER_PAR, board)
        last = runs.get((user_id, mode))
        run = last[1] + 1 if last is not None and day - last[0] == timedelta(days=1) else 1
        runs[(user_id, mode)] = (day, run)
        for length, kind in STREAK_BADGES.items():
            if run >= length:
                _earn(earned, user_id, kind, board)


def _top_finishes(earned: Earned, users: Users) -> None:
    """A top-10 finish: a rank of TOP_RANK or better on a final board's ranking, by an entry
    that counts (one still under review shows on the board, and earns nothing until cleared)."""
    final = DailyDeal.objects.filter(finalized_at__isnull=False, generation__isnull=False)
    rows = (
        LeaderboardEntry.objects.filter(
            generation_id__in=final.values("generation_id"),
            position__lte=_TOP_POSITIONS,
            rank__lte=TOP_RANK,
            game__user_id__in=users,
        )
        .exclude(game__in=Game.objects.filter(UNDER_REVIEW, user_id__in=users).values("pk"))
        .values_list("game__user_id", "game__daily_id", "game__daily__date", "game__daily__mode")
    )
    for user_id, daily_id, day, mode in rows:
        _earn(earned, user_id, BadgeKind.TOP_10, (day, mode, daily_id))


def _rating_milestones(earned: Earned, users: Users) -> None:
    """A rating milestone: a board after which the player's rating (shown, rounded) reached it,
    established (a provisional rating still swings by hundreds on one lucky board)."""
    lowest = min(RATING_BADGES)
    changes = RatingChange.objects.filter(
        user_id__in=users,
        mu_after__gte=lowest - 0.5,
        sigma_after__lte=rating_model.PROVISIONAL_SIGMA,
    ).values_list("user_id", "daily_id", "date", "daily__mode", "mu_after")
    for user_id, daily_id, day, mode, mu in changes.iterator(chunk_size=5000):
        for milestone, kind in RATING_BADGES.items():
            if round(mu) >= milestone:
                _earn(earned, user_id, kind, (day, mode, daily_id))


def badges_recount(*, users: QuerySet[Any] | Iterable[int]) -> int:
    """Count the badges of `users` (ids, or a query of ids) anew from the stored data and write
    the difference: new badges added, moved ones updated, lost ones (a review took their board
    away) deleted. Returns how many rows changed. Inside the caller's transaction."""
    ids = users if isinstance(users, QuerySet) else list(users)
    earned: Earned = {}
    _wins(earned, ids)
    _top_finishes(earned, ids)
    _rating_milestones(earned, ids)
    current = {(b.user_id, b.kind): b for b in Badge.objects.filter(user_id__in=ids)}
    stale = [b.pk for key, b in current.items() if key not in earned]
    fresh = []
    for (user_id, kind), (day, _mode, daily_id) in earned.items():
        badge = current.get((user_id, kind))
        if badge is None or badge.daily_id != daily_id:
            fresh.append(Badge(user_id=user_id, kind=kind, daily_id=daily_id, earned_on=day))
    Badge.objects.filter(pk__in=stale).delete()
    Badge.objects.bulk_create(
        fresh,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["user", "kind"],
        update_fields=["daily", "earned_on"],
    )
    return len(stale) + len(fresh)
