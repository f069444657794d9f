"""API tokens (accounts.tokens): one per login (a device), logged out one device at a time or
all at once, stored as digests, expiring when left unused, extended on use at most once a
day; and the page's session, bound to the token of its login."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts import tasks, tokens
from accounts.models import User
from tests.games.conftest import CODE

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
TTL = timedelta(days=30)  # TOKEN_TTL_DAYS' default


def _device(key: str) -> APIClient:
    """A client (a device) sending `key` and JSON bodies."""
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _login(username: str = "ann") -> dict:
    answer = APIClient().post(
        "/api/v1/auth/login", {"username": username, "password": PASSWORD}, format="json"
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


@pytest.fixture
def ann(db: None) -> User:
    """A player with no token yet."""
    return User.objects.create_user(username="ann", password=PASSWORD)


def test_each_login_and_register_makes_a_token_of_its_own():
    created = APIClient().post(
        "/api/v1/auth/register", {"username": "ann", "password": PASSWORD}, format="json"
    )
    assert created.status_code == 201
    keys = {created.json()["token"], _login()["token"], _login()["token"]}
    assert len(keys) == 3
    assert AuthToken.objects.filter(user__username="ann").count() == 3
    for key in keys:
        assert _device(key).get("/api/v1/me").status_code == 200
    expiry = parse_datetime(created.json()["expiry"])
    assert timezone.now() + TTL - timedelta(minutes=1) < expiry <= timezone.now() + TTL


def test_logout_on_one_device_leaves_the_other_logged_in(ann, auth_client):
    phone, laptop = _device(_login()["token"]), _device(_login()["token"])
    game = laptop.post("/api/v1/games", {"code": CODE}, format="json").json()
    assert phone.post("/api/v1/auth/logout").status_code == 204
    assert phone.get("/api/v1/me").status_code == 401
    assert laptop.get("/api/v1/me").json()["username"] == "ann"
    move = laptop.post(f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"})
    assert move.status_code == 200, move.content
    assert AuthToken.objects.filter(user=ann).count() == 1
    assert auth_client.get("/api/v1/me").status_code == 200  # another account: untouched


def test_logout_all_ends_every_device_of_the_account(ann, auth_client):
    phone, laptop = _device(_login()["token"]), _device(_login()["token"])
    game = laptop.post("/api/v1/games", {"code": CODE}, format="json").json()
    move = f"/api/v1/games/{game['id']}/actions"
    assert (
        laptop.post(move, {"seq": 0, "action": "draw"}, format="json").status_code == 200
    )  # kept in memory
    assert phone.post("/api/v1/auth/logout-all").status_code == 204
    for device in (phone, laptop):
        assert device.get("/api/v1/me").status_code == 401
    refused = laptop.post(move, {"seq": 1, "action": "draw"}, format="json")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "authentication_failed"
    assert not AuthToken.objects.filter(user=ann).exists()
    assert auth_client.get("/api/v1/me").status_code == 200  # another account: untouched


def test_tokens_are_stored_as_digests(ann):
    key = _login()["token"]
    row = AuthToken.objects.get(user=ann)
    assert row.digest == hashlib.sha512(key.encode()).hexdigest()
    values = [str(v) for v in AuthToken.objects.filter(pk=row.pk).values_list().get()]
    assert not any(key in value for value in values)  # the key is in no column
    assert _device(row.digest).get("/api/v1/me").status_code == 401  # a dump's digest: no use
    assert _device(row.token_key).get("/api/v1/me").status_code == 401  # nor its prefix


def test_an_expired_token_is_refused_by_every_endpoint(ann):
    device = _device(_login()["token"])
    game = device.post("/api/v1/games", {"code": CODE}, format="json").json()
    actions = f"/api/v1/games/{game['id']}/actions"
    assert (
        device.post(actions, {"seq": 0, "action": "draw"}, format="json").status_code == 200
    )  # kept
    with time_machine.travel(timezone.now() + TTL + timedelta(seconds=1)):
        for path in (
            "/api/v1/me",
            "/api/v1/games",
            f"/api/v1/games/{game['id']}",
            f"/api/v1/games/{game['id']}/hint",
            f"/api/v1/games/{game['id']}/replay",
            "/api/v1/games/export",
            "/api/v1/users/ann",  # open to everyone, but a bad token is still refused
        ):
            answer = device.get(path)
            assert answer.status_code == 401, (path, answer.content)
            assert answer.json()["error"]["code"] == "authentication_failed"
        for path, body in (
            ("/api/v1/games", {"code": CODE}),
            (actions, {"seq": 1, "action": "draw"}),
            ("/api/v1/auth/logout", None),
            ("/api/v1/auth/logout-all", None),
        ):
            answer = device.post(path, body, format="json")
            assert answer.status_code == 401, (path, answer.content)
            assert answer.json()["error"]["code"] == "authentication_failed"
    assert device.get(f"/api/v1/games/{game['id']}").json()["seq"] == 1  # nothing moved


def _token_writes(captured: CaptureQueriesContext) -> int:
    """How many of the statements `captured` wrote to the token table."""
    table = connection.ops.quote_name(AuthToken._meta.db_table)
    starts = (f"UPDATE {table} ", f"INSERT INTO {table} ", f"DELETE FROM {table} ")
    # (A move's prepared statement is logged without its text: it writes no token.)
    return sum(1 for q in captured.captured_queries if (q["sql"] or "").startswith(starts))


def test_a_token_in_use_is_extended_at_most_once_a_day(ann):
    device = _device(_login()["token"])
    game = device.post("/api/v1/games", {"code": CODE}, format="json").json()
    actions = f"/api/v1/games/{game['id']}/actions"
    seq = 0
    made = AuthToken.objects.get(user=ann).expiry
    start = timezone.now()
    for days, writes, expiry in (  # days after the login: token writes, then its expiry
        (0.5, 0, made),
        (1.5, 1, start + timedelta(days=1.5) + TTL),
        (2, 0, start + timedelta(days=1.5) + TTL),
        (2.6, 1, start + timedelta(days=2.6) + TTL),
        (32, 1, start + timedelta(days=32) + TTL),  # alive: it was in use on day 2.6
    ):
        with time_machine.travel(start + timedelta(days=days), tick=False):
            with CaptureQueriesContext(connection) as captured:
                for action in ("draw", "undo") * 3:  # moves and reads
                    moved = device.post(actions, {"seq": seq, "action": action}, format="json")
                    assert moved.status_code == 200, (days, moved.content)
                    seq = moved.json()["seq"]
                    assert device.get("/api/v1/me").status_code == 200
            assert _token_writes(captured) == writes, (days, captured.captured_queries)
            assert AuthToken.objects.get(user=ann).expiry == expiry, days


def test_a_copy_kept_from_before_another_process_extended_it_writes_nothing(ann):
    _login()
    kept_here = AuthToken.objects.get(user=ann)  # this process's copy, as made
    later = timezone.now() + timedelta(days=2)
    with time_machine.travel(later, tick=False):
        kept_there = AuthToken.objects.get(user=ann)  # another process's
        assert tokens.token_renew_if_due(token=kept_there, now=timezone.now())
        assert AuthToken.objects.get(user=ann).expiry == later + TTL
    with time_machine.travel(later + timedelta(hours=1), tick=False):
        with CaptureQueriesContext(connection) as captured:
            assert tokens.token_renew_if_due(token=kept_here, now=timezone.now())  # was due
        assert AuthToken.objects.get(user=ann).expiry == later + TTL  # not written again
        assert kept_here.expiry == later + timedelta(hours=1) + TTL  # nor asked again today
        assert not tokens.token_renew_if_due(token=kept_here, now=timezone.now())
    assert len(captured.captured_queries) == 1  # its UPDATE, which matched no row


def test_expired_tokens_are_deleted_by_the_daily_task_and_at_login(ann, make_user):
    make_user("bob", PASSWORD)
    old = _login()["token"]
    _login("bob")
    with time_machine.travel(timezone.now() + TTL + timedelta(hours=1)):
        fresh = _login()["token"]  # drops ann's expired tokens (hers only)
        assert AuthToken.objects.filter(user=ann).count() == 1
        assert AuthToken.objects.filter(user__username="bob").count() == 2  # make_user's too
        assert _device(old).get("/api/v1/me").status_code == 401
        assert tasks.delete_expired_tokens() == 2  # bob's two
        assert tasks.delete_expired_tokens() == 0  # idempotent
        assert list(AuthToken.objects.values_list("user__username", flat=True)) == ["ann"]
        assert _device(fresh).get("/api/v1/me").status_code == 200


def test_the_beat_deletes_expired_tokens_daily(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["delete-expired-tokens"]
    assert entry == {"task": "accounts.tasks.delete_expired_tokens", "schedule": 86400.0}


def test_a_login_past_the_limit_ends_the_devices_used_least_lately(ann, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_TOKENS_PER_USER", 3)
    start = timezone.now()
    keys = []
    for hour in range(3):
        with time_machine.travel(start + timedelta(hours=hour), tick=False):
            keys.append(_login()["token"])
    with time_machine.travel(start + timedelta(days=2), tick=False):
        assert _device(keys[0]).get("/api/v1/me").status_code == 200  # in use: extended
        keys.append(_login()["token"])
    alive = [_device(key).get("/api/v1/me").status_code == 200 for key in keys]
    assert alive == [True, False, True, True]
    assert AuthToken.objects.filter(user=ann).count() == 3


def _page_login(username: str = "ann") -> tuple[Client, dict]:
    browser = Client(enforce_csrf_checks=True)
    csrf = browser.get("/api/v1/auth/csrf").json()["csrf_token"]
    answer = browser.post(
        "/api/v1/auth/login",
        {"username": username, "password": PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert answer.status_code == 200, answer.content
    return browser, answer.json()


def _page_post(browser: Client, path: str, body: dict | None = None):
    return browser.post(
        path,
        body or {},
        content_type="application/json",
        headers={"X-CSRFToken": browser.cookies["csrftoken"].value},
    )


def test_the_pages_logout_ends_its_session_and_the_token_of_its_login(ann):
    page, answer = _page_login()
    script = _device(_login()["token"])
    assert page.get("/api/v1/me").json()["username"] == "ann"
    assert _page_post(page, "/api/v1/auth/logout").status_code == 204
    assert page.get("/api/v1/me").status_code == 401
    assert _device(answer["token"]).get("/api/v1/me").status_code == 401  # its login's token
    assert script.get("/api/v1/me").status_code == 200  # another device


def test_a_page_session_ends_with_its_token(ann):
    page, _ = _page_login()
    other_page, _ = _page_login()
    game = _page_post(page, "/api/v1/games", {"code": CODE}).json()
    actions = f"/api/v1/games/{game['id']}/actions"
    assert _page_post(page, actions, {"seq": 0, "action": "draw"}).status_code == 200
    script = _device(_login()["token"])
    assert script.post("/api/v1/auth/logout-all").status_code == 204
    refused = _page_post(page, actions, {"seq": 1, "action": "draw"})
    assert refused.status_code == 401, refused.content
    for browser in (page, other_page):
        assert browser.get("/api/v1/me").status_code == 401
        assert browser.get("/api/v1/users/ann").status_code == 200  # anonymous, not an error
        assert "sessionid" not in browser.cookies or not browser.cookies["sessionid"].value


def test_a_page_session_in_use_extends_its_token_and_expires_with_it(ann, settings):
    settings.SESSION_COOKIE_AGE = 365 * 24 * 3600  # the session itself outlives the token
    page, answer = _page_login()
    digest = tokens.token_digest(answer["token"])
    start = timezone.now()
    with time_machine.travel(start + timedelta(days=2), tick=False):
        assert page.get("/api/v1/me").status_code == 200
        assert AuthToken.objects.get(digest=digest).expiry == start + timedelta(days=2) + TTL
    with time_machine.travel(start + timedelta(days=2) + TTL + timedelta(seconds=1)):
        assert page.get("/api/v1/me").status_code == 401


def test_a_session_bound_to_no_token_works_as_before(ann):
    browser = Client()
    browser.force_login(ann)  # as the admin's login does
    assert browser.get("/api/v1/me").json()["username"] == "ann"
