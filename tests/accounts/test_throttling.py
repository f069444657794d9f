"""Scoped throttles on login and register, counted in the cache."""

from __future__ import annotations

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.django_db


@pytest.fixture
def tight_rates(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "3/min", "register": "2/min"},
    }


def test_login_is_throttled(api_client, make_user, tight_rates):
    make_user("gina")
    body = {"username": "gina", "password": "wrong-wrong-wrong"}
    codes = [
        api_client.post("/api/v1/auth/login", body, format="json").status_code for _ in range(4)
    ]
    assert codes == [401, 401, 401, 429]
    throttled = api_client.post("/api/v1/auth/login", body, format="json")
    error = throttled.json()["error"]
    assert error["code"] == "throttled"
    assert error["retry_after"] > 0
    assert int(throttled["Retry-After"]) > 0


def test_register_is_throttled_and_stores_nothing(api_client, tight_rates):
    from accounts.models import User

    for i in range(2):
        body = {"username": f"hank{i}", "password": "correct-horse-battery"}
        assert api_client.post("/api/v1/auth/register", body, format="json").status_code == 201
    body = {"username": "hank9", "password": "correct-horse-battery"}
    response = api_client.post("/api/v1/auth/register", body, format="json")
    assert response.status_code == 429
    assert not User.objects.filter(username="hank9").exists()


def test_throttle_history_lives_in_the_cache(api_client, tight_rates):
    api_client.post("/api/v1/auth/login", {"username": "x", "password": "y"}, format="json")
    assert cache.get("throttle_login_127.0.0.1") is not None


@pytest.mark.redis
def test_throttle_history_lives_in_redis(api_client, tight_rates):
    from django_redis import get_redis_connection

    api_client.post("/api/v1/auth/login", {"username": "x", "password": "y"}, format="json")
    keys = get_redis_connection("default").keys("*throttle_login_127.0.0.1*")
    assert keys


def test_a_changing_forwarded_for_header_does_not_dodge_the_throttles(api_client, tight_rates):
    """With no trusted proxy (TRUSTED_PROXIES=0), the connection's address is the client's."""
    for i in range(3):
        body = {"username": f"sybil{i}", "password": "correct-horse-battery"}
        response = api_client.post(
            "/api/v1/auth/register", body, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}"
        )
        assert response.status_code == (201 if i < 2 else 429)
    body = {"username": "sybil0", "password": "wrong-wrong-wrong"}
    codes = [
        api_client.post(
            "/api/v1/auth/login", body, format="json", HTTP_X_FORWARDED_FOR=f"10.0.1.{i}"
        ).status_code
        for i in range(4)
    ]
    assert codes == [401, 401, 401, 429]


def test_a_trusted_proxys_forwarded_address_is_the_client(api_client, settings):
    from config.throttles import client_address

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    request = api_client.get(
        "/api/v1/health", HTTP_X_FORWARDED_FOR="198.51.100.4, 203.0.113.9"
    ).wsgi_request
    assert client_address(request) == "203.0.113.9"  # what the one trusted proxy saw
