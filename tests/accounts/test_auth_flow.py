"""register -> login -> me -> logout, with a token (scripts) and with a session + CSRF (page)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"


def test_token_flow(api_client):
    created = api_client.post(
        "/api/v1/auth/register",
        {"username": "Alice", "password": PASSWORD, "email": "alice@example.com"},
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["user"]["username"] == "Alice"
    assert set(created.json()["user"]) == {"id", "username", "date_joined", "is_guest", "language"}
    assert created.json()["token"]

    login = api_client.post(
        "/api/v1/auth/login", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert login.status_code == 200
    token = login.json()["token"]
    assert token != created.json()["token"]  # each login is a device with a token of its own
    assert "sessionid" not in login.cookies  # a script gets a token, not a session

    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = api_client.get("/api/v1/me")
    assert me.status_code == 200
    body = me.json()
    assert body["username"] == "Alice"
    assert set(body) == {
        "id", "username", "date_joined", "is_guest", "language", "email", "email_verified",
        "profile_private", "stats",
    }  # fmt: skip
    assert (body["email"], body["email_verified"]) == ("alice@example.com", False)
    assert body["stats"]["played"] == 0 and body["stats"]["won"] == 0

    assert api_client.post("/api/v1/auth/logout").status_code == 204
    after = api_client.get("/api/v1/me")
    assert after.status_code == 401
    assert after.json()["error"]["code"] == "authentication_failed"


def test_session_flow_with_csrf():
    browser = Client(enforce_csrf_checks=True)
    csrf = browser.get("/api/v1/auth/csrf").json()["csrf_token"]
    assert browser.cookies["csrftoken"].value

    refused = browser.post(
        "/api/v1/auth/register",
        {"username": "bob", "password": PASSWORD},
        content_type="application/json",
    )
    assert refused.status_code == 403  # cookie but no header: no session may be planted
    assert refused.json()["error"]["code"] == "permission_denied"
    assert not User.objects.filter(username="bob").exists()

    created = browser.post(
        "/api/v1/auth/register",
        {"username": "bob", "password": PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert created.status_code == 201
    assert browser.get("/api/v1/me").json()["username"] == "bob"

    # A state-changing request over the session needs the CSRF header too.
    logout = "/api/v1/auth/logout"
    assert browser.post(logout, content_type="application/json").status_code == 403
    csrf = browser.cookies["csrftoken"].value  # rotated at login
    assert (
        browser.post(
            logout, content_type="application/json", headers={"X-CSRFToken": csrf}
        ).status_code
        == 204
    )
    assert browser.get("/api/v1/me").status_code == 401

    logged_in = browser.post(
        "/api/v1/auth/login",
        {"username": "BOB", "password": PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": browser.cookies["csrftoken"].value},
    )
    assert logged_in.status_code == 200
    assert browser.get("/api/v1/me").json()["username"] == "bob"


def test_wrong_password_is_401_and_stores_nothing(api_client, make_user):
    make_user("carol")
    response = api_client.post(
        "/api/v1/auth/login", {"username": "carol", "password": "nope-nope-nope"}, format="json"
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_credentials"


def test_unknown_user_login_is_401(api_client):
    response = api_client.post(
        "/api/v1/auth/login", {"username": "nobody", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 401


def test_me_requires_credentials(api_client):
    response = api_client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_public_profile_any_case_without_login(api_client, make_user):
    make_user("Dora")
    response = api_client.get("/api/v1/users/dORA")
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "Dora"
    assert body["stats"]["played"] == 0
    assert "email" not in body


def test_unknown_profile_is_404(api_client):
    response = api_client.get("/api/v1/users/ghost")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_token_lookup_is_cached(auth_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    auth_client.get("/api/v1/me")
    with CaptureQueriesContext(connection) as captured:
        assert auth_client.get("/api/v1/me").status_code == 200
    sql = " ".join(q["sql"] for q in captured.captured_queries)
    assert "knox_authtoken" not in sql and "accounts_user" not in sql
