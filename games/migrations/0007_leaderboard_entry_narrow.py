"""A snapshot's entry keeps only what the ranking computed (game, rank, position); what it
shows is read from its finished game, which does not change. The rows are half as wide, and
a ranking run at 1M entries writes and logs that much less (docs/benchmarks.md). On
PostgreSQL, dropping a column of the partitioned table drops it from every partition.

One way in practice, like any dropped column: stop the previous release's web and Celery
workers before migrating (they read and write the dropped columns); going back means
re-ranking the boards after the reverse migration (empty the snapshots first)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_leaderboard_entry_no_user_index"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="daily",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="elapsed_ms",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="finished_at",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="moves",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="score",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="undos",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="user",
        ),
        migrations.RemoveField(
            model_name="leaderboardentry",
            name="won",
        ),
    ]
