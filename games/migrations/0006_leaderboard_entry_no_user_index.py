"""Drop the snapshot's index on the user: `me` finds its entry by a binary search over
positions (games.daily.selectors), and building that index was a fifth of every ranking run
at 1M entries. On PostgreSQL, dropping the partitioned index drops it on every partition."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_leaderboard_snapshot_generations"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="games_lb_snapshot_user",
        ),
    ]
