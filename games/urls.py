from django.urls import path

from games import views

urlpatterns = [
    path("games", views.GameListCreateView.as_view(), name="games"),
    path("games/export", views.GameExportView.as_view(), name="games-export"),
    path("games/<id:game_id>", views.GameDetailView.as_view(), name="game"),
    path("games/<id:game_id>/actions", views.GameActionView.as_view(), name="game-actions"),
    path(
        "games/<id:game_id>/actions/check",
        views.GameActionCheckView.as_view(),
        name="game-action-check",
    ),
    path("games/<id:game_id>/hint", views.GameHintView.as_view(), name="game-hint"),
    path("games/<id:game_id>/replay", views.GameReplayView.as_view(), name="game-replay"),
    path(
        "games/<id:game_id>/replay/line",
        views.GameReplayLineView.as_view(),
        name="game-replay-line",
    ),
    path(
        "games/<id:game_id>/replay.txt",
        views.GameReplayTextView.as_view(),
        name="game-replay-text",
    ),
]
