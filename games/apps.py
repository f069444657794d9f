from typing import Any

from django.apps import AppConfig
from django.utils import autoreload


def watch_engine_sources(sender: Any, **kwargs: Any) -> None:
    """runserver restarts on an edit of any engine module: the solver's compiled ones, loaded
    from their build (games/engine/solver/native.py), are not among the files it watches."""
    from games.engine.solver import native

    sender.watch_dir(native.ENGINE_DIR, "**/*.py")


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import (
            db,  # noqa: F401  (connects the connection_created hook)
            hints,
            pool,
            services,
            tasks,
        )
        from games.daily.services import attempts, ratings

        # The layers below have the ones above act through hooks (docs/architecture.md,
        # "Layers"), connected here so that every process has them. The daily board first: a
        # ranked attempt's leaderboard score is set before the game's row is saved.
        services.game_ended.connect(attempts.daily_game_finished)
        services.game_ended.connect(tasks.lost_game_analysis_queue)
        pool.deal_pool_fill_queue.connect(tasks.deal_pool_fill_queue)
        hints.hint_line_search_queue.connect(tasks.hint_line_search_queue)
        attempts.rank_queue.connect(tasks.rank_queue)
        attempts.integrity_check_queue.connect(tasks.integrity_check_queue)
        ratings.ratings_queue.connect(tasks.ratings_queue)
        autoreload.autoreload_started.connect(watch_engine_sources)
