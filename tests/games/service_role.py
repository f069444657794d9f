"""The service's own PostgreSQL role (DATABASE_URL), for tests that act as it.

The suite connects as the owner (DATABASE_MIGRATE_URL), the only role that may empty the move
log, which flushing the test database between tests does; settings.SERVICE_DATABASE then names
the service's role, which the initial migration granted its privileges in the test database.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections


def service_database() -> dict[str, Any]:
    """The service role's connection settings. Without them the test skips, or fails in the
    scaled CI run (KLONDIKE_REQUIRE_SERVICES=1), which must exercise the two roles."""
    service = settings.SERVICE_DATABASE
    if not service:
        reason = "needs the service's own role: set DATABASE_MIGRATE_URL to the owner's URL"
        if os.environ.get("KLONDIKE_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{reason} (KLONDIKE_REQUIRE_SERVICES=1)")
        pytest.skip(reason)
    return service


def conninfo() -> dict[str, Any]:
    """psycopg.connect() arguments for a session of the service's role on the test database."""
    service = service_database()
    args = {
        "dbname": connection.settings_dict["NAME"],
        "user": service["USER"],
        "password": service["PASSWORD"],
        "host": service["HOST"],
        "port": service["PORT"],
    }
    return {key: value for key, value in args.items() if value}


@contextlib.contextmanager
def logged_in_as_service() -> Iterator[str]:
    """Inside, Django's connections log in as the service's role; yields its name.

    Only for tests whose data is committed (`transactional_db`): the connection of the suite's
    role is closed on the way in and out, and the owner flushes the database afterwards.
    """
    service = service_database()
    connections.close_all()
    current = connection.settings_dict  # shared by every thread's connection
    saved = {key: current[key] for key in service}
    current.update(service)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT session_user::text")
            assert cursor.fetchone()[0] == service["USER"]
        yield service["USER"]
    finally:
        connections.close_all()
        current.update(saved)
