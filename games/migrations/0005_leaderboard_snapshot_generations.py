"""Rank snapshots in generations: a ranking run builds a new generation beside the current one
and swaps a pointer on the board (`DailyDeal.snapshot`), instead of rewriting rows in place.

On PostgreSQL `games_leaderboardentry` becomes a table partitioned by LIST (snapshot_id): each
generation is a partition, built as a plain table, indexed after its bulk insert, attached
when complete and dropped whole when retired. It has no primary-key or unique constraint in
the database (a partitioned table's keys must contain the partition key); `id` is derived from
snapshot and position. Elsewhere (SQLite) it is a plain table.

The old snapshot rows are not carried over (they are derived data): boards are ranked again by
the next `rank_daily` run (open boards: every minute); rank final boards once after migrating.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

PARTITIONED_TABLE = """
CREATE TABLE games_leaderboardentry (
    id bigint NOT NULL,
    snapshot_id bigint NOT NULL,
    daily_id bigint NOT NULL,
    game_id bigint NOT NULL,
    user_id bigint NOT NULL,
    rank integer NOT NULL CONSTRAINT games_leaderboardentry_rank_check CHECK (rank >= 0),
    position integer NOT NULL
        CONSTRAINT games_leaderboardentry_position_check CHECK (position >= 0),
    won boolean NOT NULL,
    score integer NULL,
    moves integer NOT NULL CONSTRAINT games_leaderboardentry_moves_check CHECK (moves >= 0),
    undos integer NOT NULL CONSTRAINT games_leaderboardentry_undos_check CHECK (undos >= 0),
    elapsed_ms bigint NOT NULL,
    finished_at timestamp with time zone NOT NULL
) PARTITION BY LIST (snapshot_id);
CREATE INDEX games_lb_snapshot_position ON games_leaderboardentry (snapshot_id, position);
CREATE INDEX games_lb_snapshot_user ON games_leaderboardentry (snapshot_id, user_id);
"""


def create_entry_table(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PARTITIONED_TABLE)
    else:
        schema_editor.create_model(apps.get_model("games", "LeaderboardEntry"))


def drop_entry_table(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP TABLE games_leaderboardentry")  # and its partitions
    else:
        schema_editor.delete_model(apps.get_model("games", "LeaderboardEntry"))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_leaderboard_entry_lean"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.DeleteModel(name="LeaderboardEntry"),
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
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LeaderboardEntry",
                    fields=[
                        ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                        ("rank", models.PositiveIntegerField()),
                        ("position", models.PositiveIntegerField()),
                        ("won", models.BooleanField()),
                        ("score", models.IntegerField(null=True)),
                        ("moves", models.PositiveIntegerField()),
                        ("undos", models.PositiveIntegerField()),
                        ("elapsed_ms", models.BigIntegerField()),
                        ("finished_at", models.DateTimeField()),
                        (
                            "daily",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="entries",
                                to="games.dailydeal",
                            ),
                        ),
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
                        (
                            "user",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "indexes": [
                            models.Index(
                                fields=["snapshot", "position"], name="games_lb_snapshot_position"
                            ),
                            models.Index(
                                fields=["snapshot", "user"], name="games_lb_snapshot_user"
                            ),
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(create_entry_table, drop_entry_table),
        migrations.RunSQL(
            "UPDATE games_dailydeal SET entries_count = 0, ranked_at = NULL",
            migrations.RunSQL.noop,
        ),
    ]
