"""A casual game's clock counts play, not the wall (games.clock, `casual_clock_ms`): the game
keeps its clock as of its last action, and that action's `at_ms`, as caches of the log.

Games in play get both from their logs, so that their clocks go on where the log says. A
finished game keeps its `elapsed_ms`: its result was recorded by the rules of its time.
"""

from django.db import migrations, models

IDLE_LIMIT_MS = 60_000  # games.clock.IDLE_LIMIT_MS when this was written


def clocks_from_logs(apps, schema_editor):
    game_model = apps.get_model("games", "Game")
    action_model = apps.get_model("games", "Action")
    in_play = game_model.objects.filter(status="playing", seq__gt=0).values_list("pk", flat=True)
    for game_id in in_play.iterator():
        clock_ms, last = 0, None
        for at in (
            action_model.objects.filter(game_id=game_id)
            .order_by("seq")
            .values_list("at_ms", flat=True)
        ):
            if last is not None:
                clock_ms += min(max(0, at - last), IDLE_LIMIT_MS)
            last = at
        game_model.objects.filter(pk=game_id).update(clock_ms=clock_ms, last_action_ms=last)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_ranking_generation"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="clock_ms",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="game",
            name="last_action_ms",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(clocks_from_logs, migrations.RunPython.noop, elidable=True),
    ]
