"""Following players (accounts.following): follow and unfollow, a private profile, the limit,
and the clear errors of bad input."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts import following
from accounts.models import Follow

pytestmark = pytest.mark.django_db


def _client(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def ann(make_user: Any) -> tuple[Any, APIClient]:
    user, token = make_user("ann")
    return user, _client(token)


def test_follow_is_idempotent_and_public(ann, make_user):
    bob, _ = make_user("bob")
    _, client = ann
    assert client.put("/api/v1/users/Bob/follow").status_code == 204
    assert client.put("/api/v1/users/bob/follow").status_code == 204
    assert Follow.objects.filter(followee=bob).count() == 1
    assert [f["user"] for f in client.get("/api/v1/me/following").json()] == ["bob"]
    profile = client.get("/api/v1/users/bob").json()
    assert (profile["followers"], profile["following"], profile["followed"]) == (1, 0, True)
    assert _client().get("/api/v1/users/bob").json()["followed"] is None  # a visitor
    assert client.get("/api/v1/users/ann").json()["followed"] is None  # oneself
    assert client.delete("/api/v1/users/bob/follow").status_code == 204
    assert client.delete("/api/v1/users/bob/follow").status_code == 204
    assert not Follow.objects.exists()


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("put", "/api/v1/users/ann/follow", 409, "follow_refused"),
        ("put", "/api/v1/users/nobody/follow", 404, "not_found"),
        ("delete", "/api/v1/users/nobody/follow", 404, "not_found"),
    ],
)
def test_bad_follows_get_a_clear_error(ann, method, path, status, code):
    response = getattr(ann[1], method)(path)
    assert response.status_code == status and response.json()["error"]["code"] == code
    assert not Follow.objects.exists()


def test_a_visitor_and_a_guest_cannot_follow(make_user):
    make_user("bob")
    assert _client().put("/api/v1/users/bob/follow").status_code == 401
    guest = APIClient()
    guest.get("/api/v1/auth/csrf")
    guest.post("/api/v1/auth/guest", HTTP_X_CSRFTOKEN=guest.cookies["csrftoken"].value)
    response = guest.put(
        "/api/v1/users/bob/follow", HTTP_X_CSRFTOKEN=guest.cookies["csrftoken"].value
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "account_required"


def test_a_private_profile_hides_its_player(ann, make_user):
    _, bob_token = make_user("bob")
    _, client = ann
    client.put("/api/v1/users/bob/follow")
    bob_client = _client(bob_token)
    changed = bob_client.patch("/api/v1/me", {"profile_private": True}, format="json")
    assert changed.status_code == 200 and changed.json()["profile_private"] is True
    assert client.get("/api/v1/users/bob").status_code == 404
    assert client.get("/api/v1/users/bob/ratings/1").status_code == 404
    assert bob_client.get("/api/v1/users/bob").status_code == 200  # the owner still sees it
    assert client.get("/api/v1/me/following").json() == []  # hidden, the row kept
    assert client.get("/api/v1/users/ann").json()["following"] == 0
    # Let go, but answered as for an unknown player: the answer tells nothing of the account.
    unfollowed = client.delete("/api/v1/users/bob/follow")
    unknown = client.delete("/api/v1/users/nobody-at-all/follow")
    assert unfollowed.status_code == unknown.status_code == 404
    assert unfollowed.json() == unknown.json()
    assert not Follow.objects.filter(followee__username="bob").exists()
    refollowed = client.put("/api/v1/users/bob/follow")  # nor follow anew
    assert refollowed.status_code == 404
    assert refollowed.json() == client.put("/api/v1/users/nobody-at-all/follow").json()
    bad = bob_client.patch("/api/v1/me", {"profile_private": "yes"}, format="json")
    assert bad.status_code == 400 and "profile_private" in bad.json()["error"]["fields"]


def test_one_follows_at_most_the_limit(ann, make_user, monkeypatch):
    monkeypatch.setattr(following, "FOLLOWING_LIMIT", 2)
    for name in ("b1", "b2", "b3"):
        make_user(name)
    _, client = ann
    assert client.put("/api/v1/users/b1/follow").status_code == 204
    assert client.put("/api/v1/users/b2/follow").status_code == 204
    refused = client.put("/api/v1/users/b3/follow")
    assert refused.status_code == 409 and "username" in refused.json()["error"]["fields"]
    assert refused.json()["error"]["code"] == "follow_refused"
    assert client.put("/api/v1/users/b2/follow").status_code == 204  # already followed
