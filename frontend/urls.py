from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("signin", views.signin, name="signin"),
    path("signup", views.signup, name="signup"),
]
