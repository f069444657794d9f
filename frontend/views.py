"""The pages. They only render templates; everything they show comes from the public API."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie


@ensure_csrf_cookie
def landing(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/landing.html")


@ensure_csrf_cookie
def signin(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/auth.html", {"mode": "signin"})


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/auth.html", {"mode": "signup"})
