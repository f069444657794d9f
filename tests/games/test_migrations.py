"""What the migrations make, on the database the suite runs on: the models' tables, columns,
indexes and constraints, and what the models cannot express (games/migrations/0001_initial.py):
the move log's append-only triggers, and on PostgreSQL the partitioned leaderboard entry table
and the service role's privileges. That the triggers refuse rewrites is tested in
tests/games/test_append_only.py."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from games.models import Action, LeaderboardEntry
from tests.games import service_role

pytestmark = pytest.mark.django_db

APPS = ("accounts", "games")


def _models():
    for label in APPS:
        yield from apps.get_app_config(label).get_models()


def _constraints(table: str) -> dict[str, dict]:
    with connection.cursor() as cursor:
        return connection.introspection.get_constraints(cursor, table)


def test_the_migrations_match_the_models():
    out = StringIO()
    call_command("makemigrations", *APPS, check=True, dry_run=True, stdout=out)
    assert "No changes detected" in out.getvalue()


def test_each_table_has_the_models_columns():
    tables = set(connection.introspection.table_names())
    for model in _models():
        table = model._meta.db_table
        assert table in tables, table
        with connection.cursor() as cursor:
            columns = {
                c.name for c in connection.introspection.get_table_description(cursor, table)
            }
        assert columns == {f.column for f in model._meta.concrete_fields}, table


def test_the_indexes_and_constraints_named_in_the_models_exist():
    for model in _models():
        names = [item.name for item in (*model._meta.indexes, *model._meta.constraints)]
        assert set(names) <= set(_constraints(model._meta.db_table)), model._meta.label


def test_the_dropped_indexes_stay_dropped():
    """No index on the move log's game alone (the unique (game, seq) index serves), and none on
    an entry's game or generation alone."""
    for model, column in (
        (Action, "game_id"),
        (LeaderboardEntry, "game_id"),
        (LeaderboardEntry, "generation_id"),
    ):
        single = [
            name
            for name, info in _constraints(model._meta.db_table).items()
            if info["index"] and info["columns"] == [column]
        ]
        assert single == [], (model._meta.db_table, single)


def test_the_move_log_has_its_append_only_triggers():
    table = Action._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal"
                " AND tgenabled = 'O'",
                [table],
            )
            expected = {"games_action_no_update_delete", "games_action_no_truncate"}
        else:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [table]
            )
            expected = {"games_action_no_update", "games_action_no_delete"}
        assert {name for (name,) in cursor.fetchall()} == expected


@pytest.mark.postgres
def test_the_trigger_function_opens_its_hatch_for_the_owner_only():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT prosrc, proconfig FROM pg_proc WHERE proname = 'games_action_append_only'"
        )
        ((source, config),) = cursor.fetchall()
    assert "pg_has_role(current_user" in source
    assert config == ["search_path=pg_catalog"]


@pytest.mark.postgres
def test_the_entry_table_is_partitioned_by_generation_and_has_no_keys():
    table = LeaderboardEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relkind, p.partstrat, a.attname FROM pg_class c"
            " JOIN pg_partitioned_table p ON p.partrelid = c.oid"
            " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0]"
            " WHERE c.oid = %s::regclass",
            [table],
        )
        assert cursor.fetchall() == [("p", "l", "generation_id")]
    keys = [
        name for name, info in _constraints(table).items() if info["primary_key"] or info["unique"]
    ]
    assert keys == []


@pytest.mark.postgres
def test_the_service_role_may_read_and_write_all_but_rewrite_the_log():
    role = service_role.service_database()["USER"]
    log, entry = Action._meta.db_table, LeaderboardEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename, tableowner,"
            " has_table_privilege(%(role)s, quote_ident(tablename), 'SELECT, INSERT'),"
            " has_table_privilege(%(role)s, quote_ident(tablename), 'UPDATE'),"
            " has_table_privilege(%(role)s, quote_ident(tablename), 'DELETE'),"
            " has_table_privilege(%(role)s, quote_ident(tablename), 'TRUNCATE')"
            " FROM pg_tables WHERE schemaname = 'public'",
            {"role": role},
        )
        rows = {name: rest for name, *rest in cursor.fetchall()}
        cursor.execute("SELECT has_schema_privilege(%s, 'public', 'CREATE')", [role])
        assert cursor.fetchone() == (False,)
    assert rows[log][1:] == [True, False, False, False]
    assert rows["django_migrations"][1:] == [True, False, False, False]
    assert rows[entry][0] == role  # ranking attaches and drops its partitions
    for name, (owner, read_insert, update, delete, _) in rows.items():
        if name not in (log, "django_migrations"):
            assert (read_insert, update, delete) == (True, True, True), name
        if name != entry:
            assert owner != role, name
