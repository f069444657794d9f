"""The action log is append-only: in the model, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from games.models import Action, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_game(start, act):
    game = start()
    act(game, action="draw")
    return Game.objects.get(pk=game["id"])


@pytest.fixture
def guard_on(monkeypatch):
    """Turn off the test suite's escape hatch for the duration of a test."""
    from games import db

    monkeypatch.setattr(db, "log_rewrite_allowed", False)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL klondike.allow_log_rewrite = 'off'")


def test_model_refuses_to_save_an_existing_row(logged_game):
    row = Action.objects.get(game=logged_game, seq=1)
    row.notation = "recycle"
    with pytest.raises(TypeError, match="append-only"):
        row.save()
    with pytest.raises(TypeError, match="append-only"):
        row.delete()
    with pytest.raises(TypeError, match="append-only"):
        Action.objects.filter(game=logged_game).update(notation="x")
    with pytest.raises(TypeError, match="append-only"):
        Action.objects.filter(game=logged_game).delete()


def test_database_refuses_update_and_delete(logged_game, guard_on):
    table = Action._meta.db_table
    for sql in (f"UPDATE {table} SET notation = 'recycle'", f"DELETE FROM {table}"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert Action.objects.get(game=logged_game, seq=1).notation == "draw"


def test_unique_game_seq(logged_game):
    from django.db import IntegrityError

    with pytest.raises(IntegrityError), transaction.atomic():
        Action.objects.create(game=logged_game, seq=1, notation="draw", at_ms=0)


@pytest.mark.postgres
def test_postgres_refuses_truncate(logged_game, guard_on):
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        # Fire the pending foreign-key checks first, so TRUNCATE reaches our trigger.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"TRUNCATE {Action._meta.db_table} CASCADE")
