"""Live ranks on Redis, and a real Celery worker ranking a finished game (scaled run)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from django.db import connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.daily import live, ranking
from games.daily.services import attempts as daily_attempts
from games.daily.services import rankings as daily_rankings
from games.models import Game, LeaderboardEntry
from tests.games.daily.conftest import DAY, at

FIGURES = st.fixed_dictionaries(
    {
        "won": st.booleans(),
        "score": st.one_of(st.none(), st.integers(-(2**32) + 1, 2**32 - 1)),
        "moves": st.one_of(st.integers(0, 12), st.integers(0, 10**9)),
        "foundations": st.integers(0, 52),
        "elapsed_ms": st.integers(0, 10**12),
        "finished_at": st.datetimes(
            min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
        ),
    }
)


@given(FIGURES, FIGURES)
def test_the_text_key_orders_as_the_key(a, b):
    key_a, key_b = ranking.rank_key(**a), ranking.rank_key(**b)
    text_a, text_b = ranking.rank_key_text(**a), ranking.rank_key_text(**b)
    assert (key_a < key_b) == (text_a < text_b)
    assert (key_a == key_b) == (text_a == text_b)


def test_tied_members_lie_in_game_id_order():
    text = ranking.rank_key_text(
        won=True, score=700, moves=90, foundations=52, elapsed_ms=1000, finished_at=at(DAY, 12)
    )
    # The id was compared as text, read backwards: 41 came before 40 (issue #38).
    members = [ranking.rank_member_text(text, game_id=n) for n in (9, 40, 41, 100)]
    assert members == sorted(members)


# A board of a few players whose figures collide often: full ties, ties up to the finish.
BOARD = st.lists(
    st.fixed_dictionaries(
        {
            "won": st.booleans(),
            "score": st.sampled_from([-52, 0, 700]),
            "moves": st.sampled_from([3, 90, 91]),  # 3 moves and no foundation card: an abort
            "foundations": st.sampled_from([0, 1]),
            "elapsed_ms": st.sampled_from([1000, 2000]),
            "finished_offset_ms": st.sampled_from([0, 1]),
        }
    ),
    min_size=1,
    max_size=10,
)


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(board=BOARD)
def test_every_live_rank_is_the_rank_of_the_generation_of_the_same_games(
    daily, finished_attempt, board
):
    """The live rank (Redis) and the board's rank (the generation's SQL) come from one
    definition: they differed on full ties (a shared RANK() against ZREVRANK's position)."""
    from django.db import transaction
    from django_redis import get_redis_connection

    redis = get_redis_connection("default")
    savepoint = transaction.savepoint()
    try:
        redis.delete(live._KEY.format(daily_id=daily.pk))
        games = [finished_attempt(daily, **figures) for figures in board]
        for game in games:
            live.live_rank_add(game_id=game.pk)
        daily_rankings.daily_rank(daily_id=daily.pk)
        daily.refresh_from_db()
        ranks = dict(
            LeaderboardEntry.objects.filter(generation_id=daily.generation_id).values_list(
                "game_id", "rank"
            )
        )
        for game in games:
            assert live.live_rank(game=game) == (ranks[game.pk], len(games))
    finally:
        transaction.savepoint_rollback(savepoint)
        redis.delete(live._KEY.format(daily_id=daily.pk))


@pytest.mark.redis
@pytest.mark.django_db
def test_live_rank_answers_before_the_generation(daily, finished_attempt, api_client):
    from django_redis import get_redis_connection

    from accounts.tokens import token_create

    get_redis_connection("default").delete(live._KEY.format(daily_id=daily.pk))
    ahead = finished_attempt(daily, won=True, score=900, moves=90, elapsed_ms=1000)
    mine = finished_attempt(daily, won=True, score=800, moves=90, elapsed_ms=1000)
    for game in (ahead, mine):
        live.live_rank_add(game_id=game.pk)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=mine.user)[1]}")
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert board["count"] == 0  # no generation yet
    assert board["me"] == {
        "rank": 2,
        "count": 2,
        "percentile": 50.0,
        "source": "live",
        "rating": None,
    }


@pytest.mark.django_db
def test_without_redis_the_generation_answers(daily, finished_attempt, api_client, settings):
    from accounts.tokens import token_create

    settings.EMBEDDED = True  # as if Redis were gone: no live ranks
    mine = finished_attempt(daily, won=True, score=800, moves=90, elapsed_ms=1000)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=mine.user)[1]}")
    assert api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()["me"] is None
    daily_rankings.daily_rank(daily_id=daily.pk)
    me = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()["me"]
    assert me == {"rank": 1, "count": 1, "percentile": 100.0, "source": "snapshot", "rating": None}


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
    game, _ = daily_attempts.daily_start(user=user, day=DAY, mode="D1N")
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
