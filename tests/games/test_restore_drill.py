"""The backup-and-restore drill (docs/operations.md, "Backup and restore"), on PostgreSQL: games
played through the services and a final board are dumped with `pg_dump -Fc`, restored into a
fresh database, and `manage.py verify_games` finds no mismatch there; the restored move log is
as append-only as the original, for the owner and for the service's role.

It runs as CI's roles allow: the suite's role (the owner) dumps, creates the database and
restores; the service's role verifies and may only read and append. Its data is committed
(`transactional_db`), since a dump sees committed rows only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from psycopg import errors, sql

from games.daily.services.closing import daily_close
from games.models import Action
from tests.games.test_verify import DAY, play_games

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
LOG = Action._meta.db_table
# Compared between the database and its restored copy, row for row.
TABLES = ("accounts_user", "games_deal", "games_dailydeal", "games_game", LOG,
          "games_leaderboardentry", "games_dailystreak")  # fmt: skip


def tool(name: str) -> str:
    """The path of a PostgreSQL client program; the scaled CI run has them."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("KLONDIKE_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{name} is required in this run (KLONDIKE_REQUIRE_SERVICES=1)")
        pytest.skip(f"needs PostgreSQL's {name}")
    return path


def url(entry: dict[str, Any], dbname: str) -> str:
    """The URL of `dbname` for a role's settings (USER, PASSWORD, HOST, PORT): what
    DATABASE_URL, psycopg and PostgreSQL's programs take."""
    password = f":{quote(entry['PASSWORD'], safe='')}" if entry["PASSWORD"] else ""
    port = f":{entry['PORT']}" if entry["PORT"] else ""
    host = entry["HOST"] or "localhost"
    return f"postgres://{quote(entry['USER'], safe='')}{password}@{host}{port}/{dbname}"


def counts(database: str) -> dict[str, int]:
    """Rows of each of TABLES in the database at `database` (a URL)."""
    with psycopg.connect(database) as session:
        return {
            table: session.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
            ).fetchone()[0]
            for table in TABLES
        }


@pytest.fixture
def restored_name() -> Iterator[str]:
    """The name of the restored database: created by the test, dropped however it ends."""
    name = f"{connection.settings_dict['NAME']}_restored"
    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    with connection.cursor() as cursor:
        cursor.execute(drop.as_string(cursor.connection))
    yield name
    with connection.cursor() as cursor:
        cursor.execute(drop.as_string(cursor.connection))


def test_a_restored_dump_verifies_and_its_log_stays_append_only(
    make_user: Callable[..., Any], transactional_db: None, tmp_path: Path, restored_name: str
) -> None:
    games = play_games(make_user)
    closing = datetime.combine(DAY + timedelta(days=2), datetime.min.time(), tzinfo=UTC)
    assert daily_close(daily_id=games["won"].daily_id, now=closing)  # a final board
    suite, service = connection.settings_dict, settings.SERVICE_DATABASE
    original, restored = url(suite, suite["NAME"]), url(suite, restored_name)
    dump = tmp_path / "klondike.dump"

    # Backup: as the suite's role (CI: the owner), in the custom format pg_restore reads.
    subprocess.run(
        [tool("pg_dump"), "--format=custom", f"--file={dump}", f"--dbname={original}"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip

    # Restore into a fresh database of the same owner, with the owners and grants as they
    # were. The service's role owns the leaderboard entry table, and a table's new owner must
    # be allowed to create in its schema: for the restore only, as in the migration that
    # handed the table over.
    with connection.cursor() as cursor:
        create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(restored_name))
        cursor.execute(create.as_string(cursor.connection))
    if service:
        with psycopg.connect(restored, autocommit=True) as session:
            session.execute(sql.SQL("GRANT CREATE ON SCHEMA public TO {}").format(
                sql.Identifier(service["USER"])))  # fmt: skip
    restore = subprocess.run(
        [tool("pg_restore"), "--exit-on-error", f"--dbname={restored}", str(dump)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert restore.returncode == 0, restore.stderr
    if service:
        with psycopg.connect(restored, autocommit=True) as session:
            session.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM {}").format(
                sql.Identifier(service["USER"])))  # fmt: skip
    rows = counts(restored)
    assert rows == counts(original) and rows["games_leaderboardentry"] == 2, rows

    # Verify, as the service's role where there is one: it only reads.
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_MIGRATE_URL"}
    verify = subprocess.run(
        [sys.executable, "manage.py", "verify_games"],
        cwd=ROOT, env={**env, "DATABASE_URL": url(service or suite, restored_name)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith(f"{len(games)} games checked, 0 mismatches, ")

    # The log stays append-only: the owner's triggers refuse (no escape hatch opened here).
    rewrites = (f"UPDATE {LOG} SET notation = 'recycle'", f"DELETE FROM {LOG}",
                f"TRUNCATE {LOG} CASCADE")  # fmt: skip
    with psycopg.connect(restored, autocommit=True) as session:
        for statement in rewrites:
            with pytest.raises(errors.RestrictViolation, match="append-only"):
                session.execute(statement)
    if service:
        # The service's role may read and append, and nothing more.
        playing = games["playing"]
        with psycopg.connect(url(service, restored_name), autocommit=True) as session:
            session.execute(
                f"INSERT INTO {LOG} (game_id, seq, notation, score_after, at_ms)"
                " VALUES (%s, %s, 'draw', 0, 1)",
                [playing.pk, playing.seq + 1],
            )
            for statement in rewrites:
                with pytest.raises(errors.InsufficientPrivilege):
                    session.execute(statement)
