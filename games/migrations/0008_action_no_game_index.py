"""Drop the action log's index on `game` alone: the unique (game, seq) index serves every
look-up by game and the foreign key, and one index fewer is one fewer to write per move.

Only the index goes, by name as the database reports it: on SQLite, altering the field the
usual way would rebuild the table, and with it drop the append-only triggers (0002)."""

import django.db.models.deletion
from django.db import migrations, models


def _game_only_indexes(schema_editor, table: str, column: str) -> list[str]:
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, table)
    return [
        name
        for name, info in constraints.items()
        if info["columns"] == [column]
        and info["index"]
        and not (info["unique"] or info["primary_key"] or info["foreign_key"])
    ]


def drop_game_index(apps, schema_editor):
    action = apps.get_model("games", "Action")
    column = action._meta.get_field("game").column
    for name in _game_only_indexes(schema_editor, action._meta.db_table, column):
        schema_editor.execute(schema_editor._delete_index_sql(action, name))


def create_game_index(apps, schema_editor):
    action = apps.get_model("games", "Action")
    schema_editor.execute(
        schema_editor._create_index_sql(action, fields=[action._meta.get_field("game")])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_leaderboard_entry_narrow"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="action",
                    name="game",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="actions",
                        to="games.game",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_game_index, create_game_index)],
        ),
    ]
