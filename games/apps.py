from django.apps import AppConfig


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
        from games.daily import services as daily_services

        # The layers below have the ones above act through hooks (docs/architecture.md,
        # "Layers"), connected here so that every process has them. The daily board first: a
        # ranked attempt's leaderboard score is set before the game's row is saved.
        services.game_ended.connect(daily_services.daily_game_finished)
        services.game_ended.connect(tasks.lost_game_analysis_queue)
        pool.deal_pool_fill_queue.connect(tasks.deal_pool_fill_queue)
        hints.hint_line_search_queue.connect(tasks.hint_line_search_queue)
        daily_services.rank_queue.connect(tasks.rank_queue)
        daily_services.integrity_check_queue.connect(tasks.integrity_check_queue)
