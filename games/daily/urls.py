from django.urls import path

from games.daily import views

urlpatterns = [
    path("daily", views.DailyTodayView.as_view(), name="daily"),
    path("games/<id:game_id>/share", views.ShareView.as_view(), name="game-share"),
    path("games/<id:game_id>/report", views.EntryReportView.as_view(), name="game-report"),
    path("daily/calendar", views.DailyCalendarView.as_view(), name="daily-calendar"),
    path("daily/<str:day>", views.DailyDayView.as_view(), name="daily-day"),
    path("daily/<str:day>/<str:mode>/start", views.DailyStartView.as_view(), name="daily-start"),
    path(
        "leaderboards/daily/<str:day>/<str:mode>",
        views.DailyLeaderboardView.as_view(),
        name="leaderboard-daily",
    ),
    path("leaderboards/streaks", views.StreaksView.as_view(), name="leaderboard-streaks"),
    path(
        "leaderboards/ratings/<int:draw>",
        views.RatingLeaderboardView.as_view(),
        name="leaderboard-ratings",
    ),
    path(
        "users/<name:username>/ratings/<int:draw>",
        views.RatingHistoryView.as_view(),
        name="user-rating-history",
    ),
]
