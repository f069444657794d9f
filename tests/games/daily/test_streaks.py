"""Streaks (games.daily.services.streaks): the running count (`streak_count_win` as wins
happen, `streaks_settle` as boards close) and the recount from the wins (`streak_recount`)
are one rule (docs/daily.md, "Streaks"), on any calendar of boards and results."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.daily.services import attempts as daily_attempts
from games.daily.services import closing as daily_closing
from games.daily.services import deals as daily_deals
from games.daily.services.streaks import streak_count_win, streak_recount
from games.models import DailyStreak, Game
from tests.games.daily.conftest import at

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)
MODE = "D1V"  # a mode not played every day
DAYS = 8
PLAYERS = 3


@pytest.fixture(autouse=True)
def _modes(settings: Any) -> None:
    settings.DAILY_MODES = ["D1N", "D1V", "D3N"]


def _play(day: date, results: dict[Any, bool], clock: Any) -> None:
    """Close the board of `day` after each player of `results` won (True) or lost (False)."""
    clock(at(day, 12))
    daily = daily_deals.daily_deal_get_or_create(day=day, mode=MODE)
    for user, won in results.items():
        game, _ = daily_attempts.daily_start(user=user, day=day, mode=MODE)
        Game.objects.filter(pk=game.pk).update(
            status="won" if won else "resigned",
            leaderboard_score=500 if won else 0,
            moves=100,
            elapsed_ms=1000,
            finished_at=game.started_at + timedelta(seconds=1),
        )
        if won:  # counted as it happens (games.daily.services.attempts)
            streak_count_win(Game.objects.select_related("daily").get(pk=game.pk))
    clock(at(day + timedelta(days=1), 1, 30))
    assert daily_closing.daily_close(daily_id=daily.pk)


def _streaks(users: list[Any]) -> dict[int, tuple[int, int, date | None]]:
    rows = {s.user_id: s for s in DailyStreak.objects.filter(mode=MODE, user__in=users)}
    return {
        u.pk: (rows[u.pk].current, rows[u.pk].longest, rows[u.pk].last_win)
        if u.pk in rows
        else (0, 0, None)
        for u in users
    }


def _recounted(users: list[Any]) -> dict[int, tuple[int, int, date | None]]:
    for user in users:
        streak_recount(user_id=user.pk, mode=MODE)
    return _streaks(users)


def test_a_board_missed_by_the_mode_does_not_keep_a_streak_the_next_board_ended(clock, make_user):
    """Boards on days 1 and 3 only: a win on day 1 and a loss on day 3 end the streak, counted
    as the boards close and recounted from the wins alike (the recount looked only at day 2)."""
    user, _ = make_user("sometimes")
    _play(START, {user: True}, clock)
    _play(START + timedelta(days=2), {user: False}, clock)
    assert _streaks([user]) == {user.pk: (0, 1, START)}
    assert _recounted([user]) == {user.pk: (0, 1, START)}


# Per day: no board of the mode, or each player's result on it (None: not played).
CALENDAR = st.lists(
    st.one_of(
        st.none(),
        st.lists(st.sampled_from([None, True, False]), min_size=PLAYERS, max_size=PLAYERS),
    ),
    min_size=1,
    max_size=DAYS,
)


@pytest.fixture
def players(make_user: Any, clock: Any) -> list[Any]:
    """The players; and every day's board made once (a deal is solved when made), for the
    examples to close or leave unplayed: an open board counts for no streak."""
    for offset in range(DAYS):
        clock(at(START + timedelta(days=offset), 12))
        daily_deals.daily_deal_get_or_create(day=START + timedelta(days=offset), mode=MODE)
    return [make_user(f"p{i}")[0] for i in range(PLAYERS)]


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(calendar=CALENDAR)
def test_the_running_count_is_the_recount_on_any_calendar(clock, players, calendar):
    savepoint = transaction.savepoint()
    try:
        for offset, results in enumerate(calendar):
            if results is not None:
                day = START + timedelta(days=offset)
                played = {u: won for u, won in zip(players, results, strict=True)}
                _play(day, {u: won for u, won in played.items() if won is not None}, clock)
        running = _streaks(players)
        assert _recounted(players) == running
    finally:
        transaction.savepoint_rollback(savepoint)
