"""A game's clock, by the server: a casual game's counts play (from the first action, at most a
minute of any wait), a ranked attempt's the wall (#39, item 3)."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.apps import apps
from hypothesis import given
from hypothesis import strategies as st

from games.clock import IDLE_LIMIT_MS, casual_clock_ms
from games.models import Action, Game

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 3, 12, tzinfo=UTC)


def at(seconds: float) -> time_machine.travel:
    return time_machine.travel(T0 + timedelta(seconds=seconds), tick=False)


def test_a_casual_clock_waits_for_the_first_action(start, act, auth_client):
    with at(0):
        game = start()
    assert (game["elapsed_ms"], game["clock_stops_in_ms"]) == (0, 0)
    with at(1200):  # twenty minutes with the game open and untouched
        got = auth_client.get(f"/api/v1/games/{game['id']}").json()
        assert (got["elapsed_ms"], got["clock_stops_in_ms"]) == (0, 0)
        game = act(game, action="draw").json()
    assert (game["elapsed_ms"], game["clock_stops_in_ms"]) == (0, IDLE_LIMIT_MS)
    with at(1210):
        got = auth_client.get(f"/api/v1/games/{game['id']}").json()
    assert (got["elapsed_ms"], got["clock_stops_in_ms"]) == (10_000, 50_000)


def test_a_casual_clock_counts_a_minute_of_a_long_wait(start, act, auth_client):
    with at(0):
        game = start()
        game = act(game, action="draw").json()
    with at(30):
        game = act(game, action="draw").json()
    assert game["elapsed_ms"] == 30_000
    with at(3630):  # an hour away: the clock stopped a minute in
        got = auth_client.get(f"/api/v1/games/{game['id']}").json()
        assert (got["elapsed_ms"], got["clock_stops_in_ms"]) == (90_000, 0)
        game = act(game, action="draw").json()
    assert game["elapsed_ms"] == 90_000
    with at(3635):
        game = act(game, action="resign").json()
    assert (game["elapsed_ms"], game["clock_stops_in_ms"]) == (95_000, 0)
    assert Game.objects.get(pk=game["id"]).elapsed_ms == 95_000
    # The log keeps the wall's time since the start: the clock is computed from it.
    log = Action.objects.filter(game_id=game["id"]).order_by("seq").values_list("at_ms", flat=True)
    assert list(log) == [0, 30_000, 3_630_000, 3_635_000]


def test_a_ranked_clock_is_the_wall_from_the_start(act, auth_client):
    with at(0):
        response = auth_client.post(f"/api/v1/daily/{T0.date().isoformat()}/D1N/start")
        assert response.status_code == 201, response.content
        game = response.json()
    assert game["clock_stops_in_ms"] is None
    with at(600):
        got = auth_client.get(f"/api/v1/games/{game['id']}").json()
        assert (got["elapsed_ms"], got["clock_stops_in_ms"]) == (600_000, None)
        game = act(game, action="draw").json()
    with at(4200):
        game = act(game, action="resign").json()
    assert game["elapsed_ms"] == 4_200_000


@given(st.lists(st.integers(min_value=0, max_value=10 * IDLE_LIMIT_MS), max_size=30))
def test_the_clock_counts_each_wait_up_to_the_limit(gaps):
    clock_ms, last, at_ms = 0, None, 0
    for gap in gaps:
        at_ms += gap
        clock_ms, last = casual_clock_ms(clock_ms, last, at_ms), at_ms
    assert clock_ms == sum(min(gap, IDLE_LIMIT_MS) for gap in gaps[1:])


def test_the_migration_gives_games_in_play_their_clocks_from_their_logs(start, act):
    backfill = importlib.import_module("games.migrations.0006_casual_clock").clocks_from_logs
    with at(0):
        game = start()
        game = act(game, action="draw").json()
    with at(20):
        game = act(game, action="draw").json()
    with at(500):
        game = act(game, action="draw").json()
    untouched = start()
    Game.objects.update(clock_ms=0, last_action_ms=None)  # as the new columns start
    backfill(apps, None)
    assert Game.objects.filter(pk=game["id"]).values_list("clock_ms", "last_action_ms").get() == (
        80_000,
        500_000,
    )
    assert Game.objects.filter(pk=untouched["id"]).values_list(
        "clock_ms", "last_action_ms"
    ).get() == (0, None)
