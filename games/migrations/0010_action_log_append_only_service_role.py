"""The move log is append-only against the service's own role (PostgreSQL).

Two roles (docs/architecture.md): the owner runs the migrations and owns the tables; web,
workers and beat connect as the service's role (DATABASE_URL). Run by the owner, this grants
the service's role (settings.SERVICE_DATABASE)
- SELECT and INSERT on the move log, games_action: no UPDATE, DELETE or TRUNCATE;
- SELECT, INSERT, UPDATE and DELETE on every other table, and by default privileges on the
  tables later migrations create (a new append-only table revokes them in its migration);
  SELECT only on django_migrations; USAGE and SELECT on the sequences;
- the leaderboard entry table itself (and any partitions it has): ranking attaches new
  partitions to it and drops retired ones at run time (games.daily.services), which only the
  table's owner may do. The owner stays a member of the service's role, so later migrations
  can still alter that table (one that makes it anew must hand it over too). The partitions
  are created in a schema named for the service's role, first on its search path ("$user"),
  so that role needs no CREATE on the shared schema `public` (where a function of its own
  could be resolved in the owner's statements).

The triggers' escape hatch (0002) now opens for the table's owner only: the session flag on its
own no longer does, so a session of the service's role has no way to rewrite the log. The test
suite connects as the owner and sets the flag, to flush its database between tests.

Without a service role (no DATABASE_MIGRATE_URL: one role does everything) only the trigger
changes. On SQLite (one file, no roles) nothing changes.
"""

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import migrations
from psycopg import sql

ENTRY = "games_leaderboardentry"

OWNER_ONLY_HATCH = """
CREATE OR REPLACE FUNCTION games_action_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
    -- The escape hatch (test databases): the session flag, honoured for the table's owner (or
    -- a superuser) only.
    IF current_setting('klondike.allow_log_rewrite', true) = 'on'
       AND pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID),
                       'MEMBER') THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'games_action is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
"""
ANYONE_HATCH = """
CREATE OR REPLACE FUNCTION games_action_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('klondike.allow_log_rewrite', true) = 'on' THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'games_action is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
"""
GRANTS = """
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role};
REVOKE INSERT, UPDATE, DELETE ON django_migrations FROM {role};
REVOKE UPDATE, DELETE ON games_action FROM {role};
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role};
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role};
CREATE SCHEMA IF NOT EXISTS {role} AUTHORIZATION {role};
"""
REVOKES = """
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {role};
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM {role};
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role};
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role};
"""


def _service_role(schema_editor):
    """The service's role, quoted; None without one. Refuses a role that would void the log's
    guarantee, or that the owner cannot hand the entry table to."""
    service = getattr(settings, "SERVICE_DATABASE", None)
    if not service:
        return None
    name = service["USER"]
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT rolsuper, pg_has_role(rolname, current_user, 'MEMBER'),"
            " pg_has_role(current_user, rolname, 'MEMBER') FROM pg_roles WHERE rolname = %s",
            [name],
        )
        row = cursor.fetchone()
    if row is None:
        raise ImproperlyConfigured(
            f"The service's role {name!r} (DATABASE_URL) does not exist. Create it first, as"
            " docker-compose.yml's db-roles script or .ci/run do."
        )
    superuser, can_act_as_owner, owner_is_member = row
    if superuser or can_act_as_owner:
        raise ImproperlyConfigured(
            f"The service's role {name!r} is a superuser or a member of the owner, so it could"
            " rewrite the move log: give the service a role of its own."
        )
    if not owner_is_member:
        raise ImproperlyConfigured(
            f"The owner must be a member of the service's role {name!r}, to hand it the"
            f" leaderboard entry table: GRANT {name} TO <the owner>."
        )
    return sql.Identifier(name).as_string(schema_editor.connection.connection)


def _entry_tables(schema_editor):
    """The leaderboard entry table and its partitions, quoted."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = %s::regclass",
            [ENTRY],
        )
        return [ENTRY, *(name for (name,) in cursor.fetchall())]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(OWNER_ONLY_HATCH, params=None)
    role = _service_role(schema_editor)
    if role is None:
        return
    schema_editor.execute(GRANTS.format(role=role), params=None)
    # A table's new owner must be allowed to create in its schema: for the hand-over only.
    schema_editor.execute(f"GRANT CREATE ON SCHEMA public TO {role}", params=None)
    for table in _entry_tables(schema_editor):
        schema_editor.execute(f"ALTER TABLE {table} OWNER TO {role}", params=None)
    schema_editor.execute(f"REVOKE CREATE ON SCHEMA public FROM {role}", params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(ANYONE_HATCH, params=None)
    role = _service_role(schema_editor)
    if role is None:
        return
    for table in _entry_tables(schema_editor):
        schema_editor.execute(f"ALTER TABLE {table} OWNER TO CURRENT_USER", params=None)
    schema_editor.execute(REVOKES.format(role=role), params=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0009_daily_solution_attempt_origin")]
    operations = [migrations.RunPython(forward, backward)]
