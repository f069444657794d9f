"""The action log is append-only: in the model, on SQLite and on PostgreSQL, where the service's
own role may only read and append to it (games/migrations/0001_initial.py), whatever it sets
or tries."""

from __future__ import annotations

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from psycopg import errors

from games.models import Action, Game
from tests.games import service_role

pytestmark = pytest.mark.django_db

TABLE = Action._meta.db_table
REWRITES = (
    f"UPDATE {TABLE} SET notation = 'recycle'",
    f"DELETE FROM {TABLE}",
    f"TRUNCATE {TABLE}",
    f"TRUNCATE {Game._meta.db_table} CASCADE",
)


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


@pytest.fixture
def service_session(transactional_db):
    """A session of the service's own role on the test database, in autocommit mode, with the
    escape hatch's flag set: it opens nothing for that role."""
    with psycopg.connect(**service_role.conninfo(), autocommit=True) as session:
        session.execute("SET klondike.allow_log_rewrite = 'on'")
        yield session


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
    for sql in (f"UPDATE {TABLE} SET notation = 'recycle'", f"DELETE FROM {TABLE}"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert Action.objects.get(game=logged_game, seq=1).notation == "draw"


def test_the_hatch_opens_for_the_suite(logged_game):
    """The suite (on PostgreSQL: the log's owner, with the flag set) may rewrite the log, as
    flushing the test database does."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET notation = 'recycle'")
        assert Action.objects.get(game=logged_game, seq=1).notation == "recycle"
        transaction.set_rollback(True)


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
        cursor.execute(f"TRUNCATE {TABLE} CASCADE")


@pytest.mark.postgres
def test_the_service_role_may_only_read_and_append(logged_game, service_session):
    for sql in REWRITES:
        with pytest.raises(errors.InsufficientPrivilege):
            service_session.execute(sql)
    rows = service_session.execute(
        f"SELECT seq, notation FROM {TABLE} WHERE game_id = %s", [logged_game.pk]
    )
    assert rows.fetchall() == [(1, "draw")]
    assert Action.objects.get(game=logged_game, seq=1).notation == "draw"


@pytest.mark.postgres
def test_the_service_role_cannot_turn_the_guard_off(service_session):
    (owner,) = service_session.execute(
        "SELECT tableowner FROM pg_tables WHERE tablename = %s", [TABLE]
    ).fetchone()
    for sql in (
        f"ALTER TABLE {TABLE} DISABLE TRIGGER games_action_no_update_delete",
        f"DROP TRIGGER games_action_no_truncate ON {TABLE}",
        "CREATE OR REPLACE FUNCTION public.games_action_append_only() RETURNS trigger"
        " LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
        f"ALTER TABLE {TABLE} OWNER TO CURRENT_USER",
        "SET session_replication_role = replica",  # which would skip the triggers
        f'SET ROLE "{owner}"',
        "CREATE TABLE public.games_shadow (id bigint)",
    ):
        with pytest.raises(errors.InsufficientPrivilege):
            service_session.execute(sql)
    service_session.execute(f"GRANT UPDATE, DELETE ON {TABLE} TO CURRENT_USER")  # a warning only
    granted = service_session.execute(
        "SELECT has_table_privilege(%(t)s, 'UPDATE'), has_table_privilege(%(t)s, 'DELETE'),"
        " has_table_privilege(%(t)s, 'TRUNCATE'), has_schema_privilege('public', 'CREATE'),"
        " pg_has_role(%(owner)s, 'MEMBER')",
        {"t": TABLE, "owner": owner},
    ).fetchone()
    assert granted == (False, False, False, False, False)


@pytest.mark.postgres
def test_the_trigger_refuses_the_service_role_even_with_a_grant(logged_game, service_session):
    """Were UPDATE and DELETE granted to the service's role by mistake, the triggers would still
    refuse them: their escape hatch opens for the table's owner only, flag or no flag."""
    role = service_role.service_database()["USER"]
    with connection.cursor() as cursor:
        cursor.execute(f'GRANT UPDATE, DELETE ON {TABLE} TO "{role}"')
    try:
        for sql in REWRITES[:2]:
            with pytest.raises(errors.RestrictViolation, match="append-only"):
                service_session.execute(sql)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'REVOKE UPDATE, DELETE ON {TABLE} FROM "{role}"')
    assert Action.objects.get(game=logged_game, seq=1).notation == "draw"
