"""A ranking run's rows are a "ranking generation", as docs/architecture.md's glossary names
them: `LeaderboardSnapshot` becomes `RankingGeneration`, and the fields that point at one
(`DailyDeal.snapshot`, `LeaderboardEntry.snapshot`) become `generation`. "Snapshot" is left
with one meaning, a game's packed engine state (`Game.snapshot`).

Renames, and the index on (generation, position) built anew: no row is written. On PostgreSQL
the entry table stays partitioned by the same column under its new name (a rename reaches
every partition, and the partition key and CHECKs follow it). The partitions that hold
generations are renamed from `..._s<id>` to `..._g<id>`, the name
`games.daily.services.rankings` gives them now, so that a retired one is still found and
dropped.
"""

import django.db.models.deletion
from django.db import migrations, models
from psycopg import sql

ENTRY = "games_leaderboardentry"


def partitions_rename(old: str, new: str):
    """Rename the entry table's partitions `ENTRY_<old><id>` to `ENTRY_<new><id>`, wherever
    their schema (they live in the service role's own: 0001_initial)."""

    def rename(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                "SELECT n.nspname, c.relname FROM pg_inherits i"
                " JOIN pg_class c ON c.oid = i.inhrelid"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE i.inhparent = %s::regclass",
                [ENTRY],
            )
            prefix = f"{ENTRY}_{old}"
            for schema, name in cursor.fetchall():
                number = name.removeprefix(prefix)
                if number == name or not number.isdigit():
                    continue
                cursor.execute(
                    sql.SQL("ALTER TABLE {}.{} RENAME TO {}").format(
                        sql.Identifier(schema),
                        sql.Identifier(name),
                        sql.Identifier(f"{ENTRY}_{new}{number}"),
                    )
                )

    return rename


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_integrity_review"),
    ]

    operations = [
        # The index on (snapshot, position) is built anew on (generation, position): a rename
        # would leave it naming the old field in the migrations' state.
        migrations.RemoveIndex(model_name="leaderboardentry", name="games_lb_snapshot_position"),
        migrations.RenameModel("LeaderboardSnapshot", "RankingGeneration"),
        migrations.RenameField("dailydeal", "snapshot", "generation"),
        migrations.RenameField("leaderboardentry", "snapshot", "generation"),
        migrations.AlterField(
            model_name="rankinggeneration",
            name="daily",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="generations",
                to="games.dailydeal",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                fields=["generation", "position"], name="games_lb_generation_position"
            ),
        ),
        migrations.RenameIndex(
            model_name="rankinggeneration",
            new_name="games_rankgen_retired",
            old_name="games_lbsnap_retired",
        ),
        migrations.RunPython(partitions_rename("s", "g"), partitions_rename("g", "s")),
    ]
