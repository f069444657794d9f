"""The database connections' pool (config/settings.py, DATABASE_POOL_SIZE): both roles pooled
as configured, and a pooled connection that PostgreSQL terminated replaced without an error."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import close_old_connections, connections

ROOT = Path(__file__).resolve().parents[2]

SERVICE_URL = "postgres://klondike_app:app-pw@db:5432/klondike"
OWNER_URL = "postgres://klondike:owner-pw@db:5432/klondike"

PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s;"
    " d = s.DATABASES['default'];"
    " print(json.dumps({k: d.get(k) for k in ('ENGINE', 'USER', 'OPTIONS', 'CONN_MAX_AGE',"
    " 'CONN_HEALTH_CHECKS')}))"
)


def _settings(**variables: str) -> dict[str, Any]:
    """The default connection's settings in a fresh process with these database variables."""
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "DJANGO_"))
    }
    environ |= {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=environ | variables,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    ("variables", "user"),
    [
        ({"DATABASE_URL": SERVICE_URL}, "klondike_app"),  # web, workers, beat
        ({"DATABASE_URL": SERVICE_URL, "DATABASE_MIGRATE_URL": OWNER_URL}, "klondike"),
    ],
    ids=["service role", "owner"],
)
def test_both_roles_are_pooled_as_configured(variables: dict[str, str], user: str) -> None:
    db = _settings(**variables, DATABASE_POOL_SIZE="3")
    assert db["USER"] == user
    assert db["OPTIONS"]["pool"]["max_size"] == 3
    assert db["OPTIONS"]["prepare_threshold"] == 0  # the move's prepared statements stay
    # Django refuses persistent connections beside its pool; the pool checks a connection
    # before it lends it, so one PostgreSQL closed is replaced, not handed to a request.
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (0, True)


def test_without_a_pool_size_each_thread_keeps_its_own_connection() -> None:
    db = _settings(DATABASE_URL=SERVICE_URL, DATABASE_POOL_SIZE="0")
    assert "pool" not in db["OPTIONS"]
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (60, False)


def test_embedded_mode_has_no_pool() -> None:
    db = _settings(DATABASE_POOL_SIZE="3")
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert "pool" not in db["OPTIONS"]


def test_a_pool_size_below_zero_is_refused() -> None:
    with pytest.raises(AssertionError, match="DATABASE_POOL_SIZE"):
        _settings(DATABASE_URL=SERVICE_URL, DATABASE_POOL_SIZE="-1")


@pytest.fixture
def pooled(transactional_db: None) -> Iterator[Any]:
    """This process's default connection as a process with DATABASE_POOL_SIZE=2 has it, on the
    test database; unpooled again afterwards. Data is committed (`transactional_db`): a
    request's connection goes back to the pool only outside a test's transaction."""
    configured = _settings(
        **{k: v for k, v in os.environ.items() if k.startswith("DATABASE_")},
        DATABASE_POOL_SIZE="2",
    )
    db = connections["default"]
    kept = {key: db.settings_dict[key] for key in ("OPTIONS", "CONN_MAX_AGE", "CONN_HEALTH_CHECKS")}
    db.close()
    db.settings_dict.update(
        OPTIONS={**db.settings_dict["OPTIONS"], "pool": configured["OPTIONS"]["pool"]},
        CONN_MAX_AGE=configured["CONN_MAX_AGE"],
        CONN_HEALTH_CHECKS=configured["CONN_HEALTH_CHECKS"],
    )
    try:
        yield db
    finally:
        db.close()
        db.close_pool()
        db.settings_dict.update(kept)


def _terminate_other_sessions(db: Any) -> int:
    """Terminate every other session on the test database (the pool's), as a PostgreSQL
    restart does, and wait until they are gone; returns how many there were."""
    import psycopg

    params = {
        "dbname": db.settings_dict["NAME"],
        "user": db.settings_dict["USER"],
        "password": db.settings_dict["PASSWORD"],
        "host": db.settings_dict["HOST"],
        "port": db.settings_dict["PORT"],
    }
    others = (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()"
    )
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as session:
        pids = [pid for (pid,) in session.execute(others)]
        session.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) pid", [pids])
        deadline = time.monotonic() + 10
        while session.execute(others).fetchall():
            assert time.monotonic() < deadline, "the terminated sessions did not end"
            time.sleep(0.05)
    return len(pids)


def _served(call: Callable[[], Any]) -> int:
    """The status of `call`, a test client's request, served as a server serves it: Django
    closes (with a pool: gives back) the connections before and after each request
    (`close_old_connections`, which the test client leaves out)."""
    close_old_connections()
    try:
        return int(call().status_code)
    finally:
        close_old_connections()


@pytest.mark.postgres
def test_a_connection_postgresql_terminated_is_replaced_before_the_next_request(
    pooled: Any, auth_client: Any
) -> None:
    def start() -> Any:
        return auth_client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json")

    assert _served(start) == 201
    assert pooled.connection is None  # given back to the pool
    assert _terminate_other_sessions(pooled) >= 1
    # Not one 500: every request after the restart gets a working connection.
    assert [_served(start) for _ in range(3)] == [201, 201, 201]
    assert _served(lambda: auth_client.get("/api/v1/games")) == 200
