"""Daily challenge writes: the players' streaks of ranked wins, counted as wins happen
and settled when a board closes."""

from __future__ import annotations

from datetime import date, timedelta

from games.models import (
    OFF_FINAL_BOARD,
    DailyDeal,
    DailyStreak,
    Game,
)


def streak_count_win(game: Game) -> None:
    """A ranked win counts for its player's streak when it happens, not when its board closes.
    A win of a day before the player's last counted win (finished in the grace hour, after the
    next day's win) recounts the player's streak instead. Inside the game's transaction."""
    daily = game.daily
    assert daily is not None
    streak, _ = DailyStreak.objects.select_for_update().get_or_create(
        user_id=game.user_id, mode=daily.mode
    )
    if _streak_extend(streak, daily.date):
        streak.save(update_fields=["current", "longest", "last_win"])
    elif streak.last_win is not None and streak.last_win > daily.date:
        streak_recount(user_id=game.user_id, mode=daily.mode)


def _streak_extend(streak: DailyStreak, day: date) -> bool:
    """Count a win on `day` in `streak` (not saved): the current streak grows if the last win
    was the day before, else restarts at 1. False, and nothing changed, when a win on `day` or
    later is counted already."""
    if streak.last_win is not None and streak.last_win >= day:
        return False
    streak.current = streak.current + 1 if streak.last_win == day - timedelta(days=1) else 1
    streak.longest = max(streak.longest, streak.current)
    streak.last_win = day
    return True


def streak_recount(*, user_id: int, mode: str) -> None:
    """Count a player's streaks in a mode again from their ranked wins: the rare cases the
    running count cannot follow (a win out of order, a flag raised or cleared once a board is
    final). A win counts unless its board is final and leaves it out (OFF_FINAL_BOARD: a
    reviewer confirmed it, or conclusive evidence nobody cleared); the current streak ends
    when any board of the mode after the last win is final, as `streaks_settle` ends it (a
    mode need not have a board every day)."""
    wins = sorted(
        Game.objects.filter(user_id=user_id, daily__mode=mode, status=Game.Status.WON)
        .exclude(OFF_FINAL_BOARD, daily__finalized_at__isnull=False)
        .values_list("daily__date", flat=True)
    )
    longest = run = 0
    for i, day in enumerate(wins):
        run = run + 1 if i and day - wins[i - 1] == timedelta(days=1) else 1
        longest = max(longest, run)
    last = wins[-1] if wins else None
    broken = (
        last is None
        or DailyDeal.objects.filter(mode=mode, date__gt=last, finalized_at__isnull=False).exists()
    )
    DailyStreak.objects.update_or_create(
        user_id=user_id,
        mode=mode,
        defaults={"current": 0 if broken else run, "longest": longest, "last_win": last},
    )


def streaks_settle(*, daily: DailyDeal) -> None:
    """End every streak in the mode whose player did not win this board; extend the streaks of
    its winners not counted yet (`streak_count_win` counts a win when it happens); count again
    the players whose win here the final board leaves out (it no longer counts).

    Must run inside the closing transaction, once per board.
    """
    winners = set(
        Game.objects.filter(daily=daily, status=Game.Status.WON)
        .exclude(OFF_FINAL_BOARD)
        .values_list("user_id", flat=True)
    )
    DailyStreak.objects.filter(mode=daily.mode, current__gt=0).exclude(user_id__in=winners).exclude(
        last_win__gte=daily.date
    ).update(current=0)
    existing = {
        s.user_id: s for s in DailyStreak.objects.filter(mode=daily.mode, user_id__in=winners)
    }
    changed = []
    for user_id in winners:
        streak = existing.get(user_id)
        if streak is None:
            existing[user_id] = DailyStreak(user_id=user_id, mode=daily.mode)
            streak = existing[user_id]
        if _streak_extend(streak, daily.date):  # else counted when it was won
            changed.append(streak)
    DailyStreak.objects.bulk_create(
        changed,
        update_conflicts=True,
        unique_fields=["user", "mode"],
        update_fields=["current", "longest", "last_win"],
    )
    withheld = Game.objects.filter(OFF_FINAL_BOARD, daily=daily, status=Game.Status.WON)
    for user_id in withheld.values_list("user_id", flat=True):
        streak_recount(user_id=user_id, mode=daily.mode)
