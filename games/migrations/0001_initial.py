"""The games app's schema, made in one step (it squashes the first ten migrations; no database
was ever deployed with them).

Beside the models' tables, indexes and constraints, it makes what the models cannot express:

- On PostgreSQL `games_leaderboardentry` is a table partitioned by LIST (snapshot_id): each
  ranking generation is a partition of its own, built as a plain table, indexed after its bulk
  insert, attached when complete and dropped whole when retired (games.daily.services.rankings). It has
  no primary-key or unique constraint in the database (a partitioned table's keys must contain
  the partition key); `id` is derived from snapshot and position. Elsewhere (SQLite) it is a
  plain table.

- The move log, games_action, is append-only at the database level: UPDATE and DELETE (and
  TRUNCATE on PostgreSQL) are refused by triggers. Escape hatch, for test databases only
  (flush empties every table): on PostgreSQL the session setting
  `klondike.allow_log_rewrite = 'on'`, honoured for the table's owner (or a superuser) only;
  on SQLite the SQL function `klondike_allow_log_rewrite()` returning 1 (`games.db` registers
  it per connection). The tables must not be rebuilt later: on SQLite, altering a field of
  games_action the usual way remakes the table and drops its triggers (drop or add an index by
  name instead).

- On PostgreSQL, the service's own role (docs/architecture.md; settings.SERVICE_DATABASE, from
  DATABASE_URL when DATABASE_MIGRATE_URL names the owner) is granted
  - SELECT and INSERT on the move log: no UPDATE, DELETE or TRUNCATE;
  - SELECT, INSERT, UPDATE and DELETE on every other table, and by default privileges on the
    tables later migrations create (a new append-only table revokes them in its migration);
    SELECT only on django_migrations; USAGE and SELECT on the sequences;
  - the leaderboard entry table itself (and any partitions it has): ranking attaches new
    partitions to it and drops retired ones at run time, which only the table's owner may do.
    The owner stays a member of the service's role, so later migrations can still alter that
    table (one that makes it anew must hand it over too). The partitions are created in a
    schema named for the service's role, first on its search path ("$user"), so that role
    needs no CREATE on the shared schema `public` (where a function of its own could be
    resolved in the owner's statements).
  Without a service role (no DATABASE_MIGRATE_URL: one role does everything) nothing is
  granted.

The columns are in the order the former migrations left them (tests/games/test_migrations.py).
"""

import django.db.models.deletion
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import migrations, models
from psycopg import sql

ENTRY = "games_leaderboardentry"

# --- The leaderboard entry table -------------------------------------------------------------

PARTITIONED_ENTRY_TABLE = """
CREATE TABLE games_leaderboardentry (
    id bigint NOT NULL,
    snapshot_id bigint NOT NULL,
    game_id bigint NOT NULL,
    rank integer NOT NULL CONSTRAINT games_leaderboardentry_rank_check CHECK (rank >= 0),
    position integer NOT NULL
        CONSTRAINT games_leaderboardentry_position_check CHECK (position >= 0)
) PARTITION BY LIST (snapshot_id);
CREATE INDEX games_lb_snapshot_position ON games_leaderboardentry (snapshot_id, position);
"""


def create_entry_table(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PARTITIONED_ENTRY_TABLE, params=None)
    else:
        schema_editor.create_model(apps.get_model("games", "LeaderboardEntry"))


def drop_entry_table(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TABLE {ENTRY}", params=None)  # and its partitions
    else:
        schema_editor.delete_model(apps.get_model("games", "LeaderboardEntry"))


# --- The move log is append-only -------------------------------------------------------------

PG_APPEND_ONLY = """
CREATE FUNCTION games_action_append_only() RETURNS trigger
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
CREATE TRIGGER games_action_no_update_delete BEFORE UPDATE OR DELETE ON games_action
    FOR EACH ROW EXECUTE FUNCTION games_action_append_only();
CREATE TRIGGER games_action_no_truncate BEFORE TRUNCATE ON games_action
    FOR EACH STATEMENT EXECUTE FUNCTION games_action_append_only();
"""
PG_APPEND_ONLY_REVERSE = """
DROP TRIGGER IF EXISTS games_action_no_truncate ON games_action;
DROP TRIGGER IF EXISTS games_action_no_update_delete ON games_action;
DROP FUNCTION IF EXISTS games_action_append_only();
"""
SQLITE_APPEND_ONLY = [
    """CREATE TRIGGER games_action_no_update BEFORE UPDATE ON games_action
       WHEN NOT klondike_allow_log_rewrite()
       BEGIN SELECT RAISE(ABORT, 'games_action is append-only: UPDATE refused'); END""",
    """CREATE TRIGGER games_action_no_delete BEFORE DELETE ON games_action
       WHEN NOT klondike_allow_log_rewrite()
       BEGIN SELECT RAISE(ABORT, 'games_action is append-only: DELETE refused'); END""",
]
SQLITE_APPEND_ONLY_REVERSE = [
    "DROP TRIGGER IF EXISTS games_action_no_update",
    "DROP TRIGGER IF EXISTS games_action_no_delete",
]


def make_log_append_only(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_APPEND_ONLY, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_APPEND_ONLY:
            schema_editor.execute(statement)


def unmake_log_append_only(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_APPEND_ONLY_REVERSE, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_APPEND_ONLY_REVERSE:
            schema_editor.execute(statement)


# --- The service's role (PostgreSQL) ---------------------------------------------------------

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


def grant_service_role(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    role = _service_role(schema_editor)
    if role is None:
        return
    schema_editor.execute(GRANTS.format(role=role), params=None)
    # A table's new owner must be allowed to create in its schema: for the hand-over only.
    schema_editor.execute(f"GRANT CREATE ON SCHEMA public TO {role}", params=None)
    for table in _entry_tables(schema_editor):
        schema_editor.execute(f"ALTER TABLE {table} OWNER TO {role}", params=None)
    schema_editor.execute(f"REVOKE CREATE ON SCHEMA public FROM {role}", params=None)


def revoke_service_role(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    role = _service_role(schema_editor)
    if role is None:
        return
    for table in _entry_tables(schema_editor):
        schema_editor.execute(f"ALTER TABLE {table} OWNER TO CURRENT_USER", params=None)
    schema_editor.execute(REVOKES.format(role=role), params=None)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Deal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scheme", models.PositiveSmallIntegerField(default=1)),
                ("number", models.BigIntegerField()),
                ("layout", models.JSONField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("scheme", "number"), name="games_deal_scheme_number"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("number__gte", 0), ("number__lt", 8031810176)),
                        name="games_deal_number_range",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="DailyDeal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("date", models.DateField()),
                ("mode", models.CharField(max_length=3)),
                ("salt", models.CharField(max_length=64)),
                ("commitment", models.CharField(max_length=64)),
                ("par", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("ranked_at", models.DateTimeField(blank=True, null=True)),
                ("entries_count", models.PositiveIntegerField(default=0)),
                ("finalized_at", models.DateTimeField(blank=True, null=True)),
                (
                    "deal",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="dailies",
                        to="games.deal",
                    ),
                ),
            ],
            options={
                "ordering": ["-date", "mode"],
                "constraints": [
                    models.UniqueConstraint(fields=("date", "mode"), name="games_daily_date_mode"),
                ],
            },
        ),
        migrations.CreateModel(
            name="LeaderboardSnapshot",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("retired_at", models.DateTimeField(blank=True, null=True)),
                (
                    "daily",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="snapshots",
                        to="games.dailydeal",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["retired_at"], name="games_lbsnap_retired")],
            },
        ),
        # A board and its snapshots refer to each other: the board's pointer comes second.
        migrations.AddField(
            model_name="dailydeal",
            name="snapshot",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="games.leaderboardsnapshot",
            ),
        ),
        migrations.AddField(
            model_name="dailydeal",
            name="solution",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.CreateModel(
            name="Game",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("draw", models.PositiveSmallIntegerField()),
                ("preset", models.CharField(max_length=1)),
                (
                    "kind",
                    models.CharField(
                        choices=[("casual", "Casual"), ("daily", "Daily")],
                        default="casual",
                        max_length=8,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("playing", "Playing"), ("won", "Won"), ("resigned", "Resigned")],
                        default="playing",
                        max_length=8,
                    ),
                ),
                ("seq", models.PositiveIntegerField(default=0)),
                ("moves", models.PositiveIntegerField(default=0)),
                ("score", models.IntegerField(null=True)),
                ("undos", models.PositiveIntegerField(default=0)),
                ("passes_used", models.PositiveIntegerField(default=0)),
                ("foundations", models.PositiveSmallIntegerField(default=0)),
                ("snapshot", models.BinaryField()),
                ("started_at", models.DateTimeField()),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("elapsed_ms", models.BigIntegerField(blank=True, null=True)),
                ("analysis", models.JSONField(blank=True, null=True)),
                (
                    "deal",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="games",
                        to="games.deal",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="games",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("flag_cleared", models.BooleanField(default=False)),
                ("flag_reason", models.CharField(blank=True, default="", max_length=200)),
                ("leaderboard_score", models.IntegerField(blank=True, null=True)),
                (
                    "daily",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="games",
                        to="games.dailydeal",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["user", "-id"], name="games_game_user_recent"),
                    models.Index(fields=["user", "status"], name="games_game_user_status"),
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("draw__in", (1, 3))), name="games_game_draw"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("preset__in", ("N", "V", "C", "R"))),
                        name="games_game_preset",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("finished_at__isnull", True), ("status", "playing")),
                            models.Q(
                                models.Q(("status", "playing"), _negated=True),
                                ("finished_at__isnull", False),
                            ),
                            _connector="OR",
                        ),
                        name="games_game_finished_iff_over",
                    ),
                    models.UniqueConstraint(
                        fields=("user", "daily"), name="games_game_one_ranked_attempt"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Action",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("notation", models.CharField(max_length=32)),
                ("score_after", models.IntegerField(null=True)),
                ("at_ms", models.BigIntegerField()),
                (
                    "game",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="actions",
                        to="games.game",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("game", "seq"), name="games_action_game_seq"),
                    models.CheckConstraint(
                        condition=models.Q(("seq__gte", 1)), name="games_action_seq_min"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="AttemptOrigin",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="origin",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("address", models.GenericIPAddressField(blank=True, null=True)),
                ("browser", models.CharField(blank=True, default="", max_length=64)),
                ("created_at", models.DateTimeField()),
                (
                    "daily",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.dailydeal",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["created_at"], name="games_origin_created")],
            },
        ),
        migrations.CreateModel(
            name="DailyStreak",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("mode", models.CharField(max_length=3)),
                ("current", models.PositiveIntegerField(default=0)),
                ("longest", models.PositiveIntegerField(default=0)),
                ("last_win", models.DateField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="streaks",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["mode", "-longest"], name="games_streak_longest")],
                "constraints": [
                    models.UniqueConstraint(fields=("user", "mode"), name="games_streak_user_mode"),
                ],
            },
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LeaderboardEntry",
                    fields=[
                        ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                        ("rank", models.PositiveIntegerField()),
                        ("position", models.PositiveIntegerField()),
                        (
                            "game",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="games.game",
                            ),
                        ),
                        (
                            "snapshot",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="entries",
                                to="games.leaderboardsnapshot",
                            ),
                        ),
                    ],
                    options={
                        "indexes": [
                            models.Index(
                                fields=["snapshot", "position"], name="games_lb_snapshot_position"
                            ),
                        ],
                    },
                ),
            ],
        ),
        # After the state's model exists: on SQLite the table is made from it.
        migrations.RunPython(create_entry_table, drop_entry_table),
        migrations.RunPython(make_log_append_only, unmake_log_append_only),
        migrations.RunPython(grant_service_role, revoke_service_role),
    ]
