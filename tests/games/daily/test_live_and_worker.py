"""Live ranks on Redis, and a real Celery worker ranking a finished game (scaled run)."""

from __future__ import annotations

import time

import pytest
from django.db import connections

from games.daily import live
from games.daily import services as daily_services
from games.models import Game, LeaderboardEntry
from tests.games.daily.conftest import DAY, at


def test_composite_score_stays_exact_in_a_double():
    top = live.composite_score(won=True, score=32_767, moves=0)
    assert top < 2**53 and float(top) == top
    keys = [
        live.composite_score(won=True, score=700, moves=100),
        live.composite_score(won=True, score=700, moves=101),
        live.composite_score(won=True, score=699, moves=1),
        live.composite_score(won=False, score=32_000, moves=1),
        live.composite_score(won=False, score=-52, moves=5),
    ]
    assert keys == sorted(keys, reverse=True)
    # Among equal scores the member orders shorter time, then earlier finish, first.
    members = [
        live.member(elapsed_ms=1000, finished_ms=5, game_id=9),
        live.member(elapsed_ms=1000, finished_ms=6, game_id=1),
        live.member(elapsed_ms=2000, finished_ms=1, game_id=2),
    ]
    assert members == sorted(members, reverse=True)


@pytest.mark.redis
@pytest.mark.django_db
def test_live_rank_answers_before_the_snapshot(daily, finished_attempt, api_client):
    from django_redis import get_redis_connection

    from accounts.tokens import token_create

    get_redis_connection("default").delete(f"lb:daily:{daily.pk}")
    ahead = finished_attempt(daily, won=True, score=900, moves=90, elapsed_ms=1000)
    mine = finished_attempt(daily, won=True, score=800, moves=90, elapsed_ms=1000)
    for game in (ahead, mine):
        live.live_rank_add(game_id=game.pk)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=mine.user)[1]}")
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert board["count"] == 0  # no snapshot yet
    assert board["me"] == {"rank": 2, "count": 2, "percentile": 50.0, "source": "live"}


@pytest.mark.django_db
def test_without_redis_the_snapshot_answers(daily, finished_attempt, api_client, settings):
    from accounts.tokens import token_create

    settings.EMBEDDED = True  # as if Redis were gone: no live ranks
    mine = finished_attempt(daily, won=True, score=800, moves=90, elapsed_ms=1000)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=mine.user)[1]}")
    assert api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()["me"] is None
    daily_services.daily_rank(daily_id=daily.pk)
    me = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()["me"]
    assert me == {"rank": 1, "count": 1, "percentile": 100.0, "source": "snapshot"}


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_ranks_a_finished_game(clock, make_user):
    from celery.contrib.testing.worker import start_worker

    from config.celery import app
    from games import engine
    from games.services import game_action_apply

    clock(at(DAY, 12))
    user, _ = make_user()
    game, _ = daily_services.daily_start(user=user, day=DAY, mode="D1N")
    queues = ["ranking", "celery", "analysis"]  # as docker-compose's two workers do
    with start_worker(app, perform_ping_check=False, shutdown_timeout=30, queues=queues):
        # The commit sends rank_daily and the integrity check to Redis; the worker runs them.
        game_action_apply(game_id=game.pk, user=user, seq=0, action=engine.Resign())
        deadline = time.monotonic() + 30
        while not LeaderboardEntry.objects.filter(game=game).exists():
            assert time.monotonic() < deadline, "the worker did not rank the game in 30 s"
            time.sleep(0.2)
        while Game.objects.get(pk=game.pk).analysis is None:  # from the analysis queue
            assert time.monotonic() < deadline + 30, "the worker did not analyse the game"
            time.sleep(0.2)
    entry = LeaderboardEntry.objects.get(game=game)
    assert entry.rank == 1 and entry.game.status == Game.Status.RESIGNED
    assert Game.objects.get(pk=game.pk).flag_reason == ""
    connections.close_all()
