"""Ranking generations (`daily_rank`, `generations_drop_retired`): re-ranking after a
new game, the pointer swap seen by readers, retired generations dropped after the grace period,
and concurrent rank jobs on PostgreSQL."""

from __future__ import annotations

import importlib
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from games.daily.services import rankings as daily_rankings
from games.models import DailyDeal, LeaderboardEntry, RankingGeneration
from tests.games.daily.conftest import DAY

URL = f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"


def _current(daily: DailyDeal) -> list[tuple[str, int, int]]:
    """(username, rank, position) of the entries of the generation the board points at."""
    daily.refresh_from_db()
    rows = LeaderboardEntry.objects.filter(generation_id=daily.generation_id).order_by("position")
    return list(rows.values_list("game__user__username", "rank", "position"))


def _partitions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'games_leaderboardentry'::regclass"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_rerank_after_a_new_game_shifts_the_board(daily, finished_attempt, api_client):
    for i in range(3):
        finished_attempt(daily, username=f"p{i}", won=True, score=500 - i, moves=100, elapsed_ms=9)
    assert daily_rankings.daily_rank(daily_id=daily.pk) == 3
    first = DailyDeal.objects.get(pk=daily.pk).generation_id
    finished_attempt(daily, username="top", won=True, score=900, moves=100, elapsed_ms=9)
    assert daily_rankings.daily_rank(daily_id=daily.pk) == 4
    assert _current(daily) == [("top", 1, 1), ("p0", 2, 2), ("p1", 3, 3), ("p2", 4, 4)]
    board = api_client.get(URL).json()
    assert board["count"] == 4 and [e["user"] for e in board["entries"]][:2] == ["top", "p0"]
    # The replaced generation is retired, not rewritten: its rows are still the old ranking.
    assert RankingGeneration.objects.get(pk=first).retired_at is not None
    assert LeaderboardEntry.objects.filter(generation_id=first).count() == 3


@pytest.mark.django_db
def test_a_board_without_ranking_reads_empty(daily, api_client):
    board = api_client.get(URL).json()
    assert board["count"] == 0 and board["entries"] == [] and board["pages"] == 1


@pytest.mark.django_db
def test_retired_generations_are_dropped_after_the_grace(daily, finished_attempt, api_client):
    finished_attempt(daily, won=True, score=700, moves=100, elapsed_ms=1000)
    daily_rankings.daily_rank(daily_id=daily.pk)
    old = DailyDeal.objects.get(pk=daily.pk).generation_id
    daily_rankings.daily_rank(daily_id=daily.pk)
    now = timezone.now()
    assert daily_rankings.generations_drop_retired(now=now) == 0  # within the grace: kept
    later = now + daily_rankings.GENERATION_GRACE + timedelta(seconds=1)
    assert daily_rankings.generations_drop_retired(now=later) == 1
    assert not RankingGeneration.objects.filter(pk=old).exists()
    assert not LeaderboardEntry.objects.filter(generation_id=old).exists()
    assert len(_current(daily)) == 1 and api_client.get(URL).json()["count"] == 1
    if connection.vendor == "postgresql":
        assert _partitions() == 1  # the current generation only


@pytest.mark.django_db
def test_me_from_the_generation_query_count(
    daily, finished_attempt, api_client, django_assert_max_num_queries
):
    from accounts.tokens import token_create

    games = [
        finished_attempt(daily, won=True, score=i, moves=100, elapsed_ms=1000) for i in range(25)
    ]
    daily_rankings.daily_rank(daily_id=daily.pk)
    token = token_create(user=games[3].user)[1]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    with django_assert_max_num_queries(4):  # token, board, my entry, the page with users
        board = api_client.get(f"{URL}?around=me").json()
    assert board["me"]["source"] == "snapshot" and board["me"]["rank"] == 22  # the API's word (v1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_readers_see_the_old_generation_until_the_swap_commits(daily, finished_attempt, client):
    finished_attempt(daily, username="first", won=True, score=700, moves=100, elapsed_ms=1000)
    daily_rankings.daily_rank(daily_id=daily.pk)
    finished_attempt(daily, username="second", won=True, score=800, moves=100, elapsed_ms=1000)
    built, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def rank_and_hold() -> None:
        try:
            with transaction.atomic():
                daily_rankings.daily_rank(daily_id=daily.pk)
                built.set()  # the new generation is attached and the pointer moved: uncommitted
                assert release.wait(30)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
            built.set()
        finally:
            connections.close_all()

    worker = threading.Thread(target=rank_and_hold)
    worker.start()
    try:
        assert built.wait(30)
        board = client.get(URL).json()  # not blocked by the rank job's locks
        assert board["count"] == 1 and [e["user"] for e in board["entries"]] == ["first"]
    finally:
        release.set()
        worker.join(30)
    assert not errors
    board = client.get(URL).json()
    assert board["count"] == 2 and [e["user"] for e in board["entries"]] == ["second", "first"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_rank_jobs_leave_one_consistent_generation(daily, finished_attempt):
    for i in range(40):
        finished_attempt(daily, won=bool(i % 3), score=10 * (i % 7), moves=90 + i, elapsed_ms=9)
    start = threading.Barrier(3)
    counts: list[int] = []
    errors: list[BaseException] = []

    def rank() -> None:
        try:
            start.wait(30)
            counts.append(daily_rankings.daily_rank(daily_id=daily.pk))
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=rank) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not errors and counts == [40, 40, 40]
    entries = _current(daily)
    assert [position for _, _, position in entries] == list(range(1, 41))
    assert DailyDeal.objects.get(pk=daily.pk).entries_count == 40
    # Three generations, two of them retired; each one complete.
    assert RankingGeneration.objects.filter(daily=daily, retired_at__isnull=True).count() == 1
    for generation in RankingGeneration.objects.filter(daily=daily):
        assert LeaderboardEntry.objects.filter(generation=generation).count() == 40


@pytest.mark.django_db
def test_admin_lists_the_current_generation_only(daily, finished_attempt, client):
    from django.contrib.auth import get_user_model

    for i in range(2):
        finished_attempt(daily, username=f"p{i}", won=True, score=500 - i, moves=100, elapsed_ms=9)
    daily_rankings.daily_rank(daily_id=daily.pk)
    daily_rankings.daily_rank(daily_id=daily.pk)  # the first generation lingers, retired
    assert LeaderboardEntry.objects.count() == 4
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-xyz-123")
    client.force_login(admin)
    page = client.get("/admin/games/leaderboardentry/").content.decode()
    assert "2 leaderboard entrys" in page  # Django's default plural of the model name


@pytest.mark.django_db
def test_me_finds_every_player_in_the_generation(daily, finished_attempt):
    """`me` is found by a binary search over positions: check it for every player of a board
    with shared ranks, wins and losses, equal scores and equal keys, against the table."""
    import random

    from games.daily import selectors
    from games.models import Game

    rnd = random.Random(7)
    games = [
        finished_attempt(
            daily,
            username=f"b{i}",
            won=rnd.random() < 0.4,
            score=rnd.choice([0, 100, 250, 250, 700]),
            moves=rnd.choice([80, 90, 90, 120]),
            elapsed_ms=rnd.choice([5000, 5000, 9000]),
        )
        for i in range(41)
    ]
    first = games[0].finished_at
    Game.objects.filter(pk__in=[g.pk for g in games[::3]]).update(finished_at=first)  # equal keys
    assert daily_rankings.daily_rank(daily_id=daily.pk) == 41
    daily.refresh_from_db()
    entries = LeaderboardEntry.objects.filter(generation_id=daily.generation_id)
    assert len({e.rank for e in entries}) < 41  # some ranks are shared
    for entry in entries.select_related("game__user"):
        found = selectors._generation_entry(daily=daily, user=entry.game.user)
        assert found == (entry.rank, entry.position), entry.game.user.username
    late = finished_attempt(daily, username="late", won=True, score=999, moves=1, elapsed_ms=1)
    assert selectors._generation_entry(daily=daily, user=late.user) is None  # not ranked yet


@pytest.mark.postgres
def test_the_migration_renames_the_generations_partitions_both_ways(daily, finished_attempt):
    """0005 named them generations: the partitions that hold them go from `_s<id>` to
    `_g<id>`, the name ranking gives them now (so a retired one is found and dropped), and
    back."""
    finished_attempt(daily, won=True, score=700, moves=100, elapsed_ms=1000)
    daily_rankings.daily_rank(daily_id=daily.pk)
    pk = DailyDeal.objects.get(pk=daily.pk).generation_id
    renaming = importlib.import_module("games.migrations.0005_ranking_generation")

    def partitions() -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                " WHERE i.inhparent = 'games_leaderboardentry'::regclass"
            )
            return {name for (name,) in cursor.fetchall()}

    assert f"games_leaderboardentry_g{pk}" in partitions()
    with connection.schema_editor() as editor:
        renaming.partitions_rename("g", "s")(None, editor)
    assert f"games_leaderboardentry_s{pk}" in partitions()
    assert not any(name.startswith("games_leaderboardentry_g") for name in partitions())
    with connection.schema_editor() as editor:
        renaming.partitions_rename("s", "g")(None, editor)
    assert f"games_leaderboardentry_g{pk}" in partitions()
    assert LeaderboardEntry.objects.filter(generation_id=pk).count() == 1


@pytest.mark.django_db
def test_games_ending_while_a_ranking_is_queued_queue_no_other(
    daily, monkeypatch, django_capture_on_commit_callbacks
):
    """Each ranked game that ends asks for its board to be ranked again; a run queued and not
    yet started will read the board when it starts, so further games queue nothing until it
    starts (else a day of N players would cost N runs of N entries, docs/scaling.md)."""
    from games import tasks

    queued: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.rank_daily, "delay_after_commit", lambda *a: queued.append(a))
    key = (DAY.isoformat(), "D1N")
    with django_capture_on_commit_callbacks(execute=True):
        tasks.rank_queue(daily)
        tasks.rank_queue(daily)
    assert queued == [key]
    tasks.rank_daily(*key)  # the queued run starts: a game that ends now queues the next
    with django_capture_on_commit_callbacks(execute=True):
        tasks.rank_queue(daily)
        tasks.rank_queue(daily)
    assert queued == [key, key]


@pytest.mark.django_db
def test_a_ranking_is_queued_when_the_cache_cannot_say_whether_one_is(
    daily, monkeypatch, django_capture_on_commit_callbacks
):
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    from games import tasks

    def refuse(*args, **kwargs):
        raise RedisConnectionError("Redis is down")

    queued: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.rank_daily, "delay_after_commit", lambda *a: queued.append(a))
    monkeypatch.setattr(cache, "add", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.rank_queue(daily)
        tasks.rank_queue(daily)
    assert len(queued) == 2
