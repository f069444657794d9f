"""Database hooks of the games app: the escape hatch of the action log's append-only triggers.

Production never opens it. A test suite does (`log_rewrite_allowed = True` before the first
connection), because flushing a test database between tests must empty the log table.

On PostgreSQL the hatch is the session flag `klondike.allow_log_rewrite`, and the triggers
honour it for the log table's owner only (games/migrations/0001_initial.py): the service's
role, which may only read and append to the log, can set the flag and gains nothing. So the
suite connects as the owner (DATABASE_MIGRATE_URL). On SQLite, a file with no roles, it is
the SQL function `klondike_allow_log_rewrite()` defined here for each connection.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.signals import connection_created
from django.dispatch import receiver

log_rewrite_allowed = False


def _allow_log_rewrite() -> int:
    return int(log_rewrite_allowed)


@receiver(connection_created)
def prepare_connection(sender: Any, connection: Any, **kwargs: Any) -> None:
    """SQLite: define the function the triggers consult. PostgreSQL: set the session flag."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            "klondike_allow_log_rewrite", 0, _allow_log_rewrite, deterministic=False
        )
    elif connection.vendor == "postgresql" and log_rewrite_allowed:
        with connection.connection.cursor() as cursor:
            cursor.execute("SET klondike.allow_log_rewrite = 'on'")
