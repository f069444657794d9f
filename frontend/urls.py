from django.urls import path

from frontend import catalog, share, views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("signin", views.signin, name="signin"),
    path("signup", views.signup, name="signup"),
    path("password-reset", views.password_reset, name="password-reset"),
    path(
        "password-reset/<str:uidb64>/<str:token>",
        views.password_reset_confirm,
        name="password-reset-confirm",
    ),
    path("verify-email/<str:uidb64>/<str:token>", views.verify_email, name="verify-email"),
    path("play", views.play, name="play"),
    path("play/<int:game_id>", views.play, name="play-game"),
    path("daily", views.daily, name="daily"),
    path("daily/calendar", views.daily_calendar, name="daily-calendar"),
    path("leaderboards", views.leaderboards, name="leaderboards"),
    path("replay/<int:game_id>", views.replay, name="replay"),
    path("u/<str:username>", views.profile, name="profile"),
    path("share/<int:game_id>", share.share_page, name="share"),
    path("share/<int:game_id>.png", share.share_image, name="share-image"),
    path("rules", views.rules, name="rules"),
    path("jsi18n/<str:lang>.js", catalog.javascript_catalog, name="javascript-catalog"),
]
