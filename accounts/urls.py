from django.urls import path

from accounts import views

urlpatterns = [
    path("auth/register", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/password-reset", views.PasswordResetView.as_view(), name="auth-password-reset"),
    path(
        "auth/password-reset/confirm",
        views.PasswordResetConfirmView.as_view(),
        name="auth-password-reset-confirm",
    ),
    path("auth/verify-email", views.VerifyEmailView.as_view(), name="auth-verify-email"),
    path("auth/csrf", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/guest", views.GuestView.as_view(), name="auth-guest"),
    path("me", views.MeView.as_view(), name="me"),
    path("me/email", views.MeEmailView.as_view(), name="me-email"),
    path(
        "me/email/verification",
        views.MeEmailVerificationView.as_view(),
        name="me-email-verification",
    ),
    path("me/following", views.MeFollowingView.as_view(), name="me-following"),
    path("users/<name:username>", views.UserProfileView.as_view(), name="user-profile"),
    path("users/<name:username>/follow", views.FollowView.as_view(), name="user-follow"),
]
