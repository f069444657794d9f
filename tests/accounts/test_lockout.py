"""Repeated failed logins lock out an account from one client address, and apart from it the
address, for the API's login and the admin's alike; never an account from everywhere (anyone
could do that to anyone), and never a device signed in to the account already. A locked login
is refused before any password is hashed."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth.backends import ModelBackend
from django.db.models import Sum
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
WRONG = "wrong-wrong-wrong"
LIMIT = 3
COOL_OFF_S = 15 * 60


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = COOL_OFF_S / 3600


def _login(client, username, password, address, **extra):
    return client.post(
        "/api/v1/auth/login",
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
        **extra,
    )


def _assert_locked(response):
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert error["code"] == "throttled"
    assert "Too many failed logins" in error["message"]
    assert 0 < error["retry_after"] <= COOL_OFF_S
    assert response["Retry-After"] == str(error["retry_after"])
    assert "token" not in response.json()


def test_wrong_passwords_for_one_account_lock_it_from_that_address_only(api_client, make_user):
    make_user("alice", PASSWORD)
    codes = [_login(api_client, "alice", WRONG, "10.0.0.1").status_code for _ in range(LIMIT)]
    assert codes == [401] * (LIMIT - 1) + [429]  # the failure that reaches the limit locks
    locked = _login(api_client, "ALICE", PASSWORD, "10.0.0.1")  # right password, same address
    _assert_locked(locked)
    assert locked.json()["error"]["retry_after"] > COOL_OFF_S - 10
    assert _login(api_client, "alice", PASSWORD, "10.0.0.2").status_code == 200  # her phone


def test_failures_from_many_addresses_do_not_lock_the_owner_out(api_client, make_user):
    """Ten wrong passwords from ten addresses locked the owner, and the admin on /admin/, out
    for 15 minutes, even with the right password."""
    make_user("target", PASSWORD)
    codes = [_login(api_client, "target", WRONG, f"10.0.2.{i}").status_code for i in range(10)]
    assert codes == [401] * 10
    assert _login(api_client, "target", PASSWORD, "10.0.2.200").status_code == 200


def test_a_device_signed_in_already_is_not_kept_out_by_its_addresss_lock(api_client, make_user):
    """A neighbour on the same address (a NAT) locked it; the owner's device has a token."""
    _, key = make_user("owner", PASSWORD)
    for i in range(LIMIT):
        _login(api_client, f"stranger{i}", WRONG, "10.0.11.1")
    _assert_locked(_login(api_client, "owner", PASSWORD, "10.0.11.1"))  # a new device
    device = {"HTTP_AUTHORIZATION": f"Token {key}"}
    assert _login(api_client, "owner", PASSWORD, "10.0.11.1", **device).status_code == 200
    wrong = _login(api_client, "owner", WRONG, "10.0.11.1", **device)  # a typo: no lock
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_credentials"
    # Another account's token buys nothing.
    _, other_key = make_user("other", PASSWORD)
    other = {"HTTP_AUTHORIZATION": f"Token {other_key}"}
    _assert_locked(_login(api_client, "owner", PASSWORD, "10.0.11.1", **other))


def test_one_name_in_any_letter_case_is_one_account(api_client):
    names = ["Ghost", "GHOST", "ghost"]  # no such account: counted all the same
    codes = [_login(api_client, n, WRONG, "10.0.3.1").status_code for n in names]
    assert codes == [401, 401, 429]


def test_wrong_passwords_for_many_accounts_from_one_address_lock_the_address(api_client, make_user):
    for i in range(LIMIT + 1):
        make_user(f"user{i}", PASSWORD)
    codes = [_login(api_client, f"user{i}", WRONG, "10.0.1.1").status_code for i in range(LIMIT)]
    assert codes == [401] * (LIMIT - 1) + [429]
    _assert_locked(_login(api_client, f"user{LIMIT}", PASSWORD, "10.0.1.1"))
    # That account did nothing wrong: from its own address it logs in.
    assert _login(api_client, f"user{LIMIT}", PASSWORD, "10.0.1.2").status_code == 200


def test_a_forged_forwarded_for_does_not_dodge_the_address_lock(api_client, make_user):
    """With no trusted proxy (TRUSTED_PROXIES=0) the connection's address is the client's."""
    codes = [
        _login(
            api_client, f"nobody{i}", WRONG, "10.0.4.4", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}"
        ).status_code
        for i in range(LIMIT + 1)
    ]
    assert codes == [401] * (LIMIT - 1) + [429, 429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"10.0.4.4"}


def test_a_locked_login_hashes_no_password_and_counts_nothing(api_client, make_user, monkeypatch):
    make_user("bruno", PASSWORD)
    for _ in range(LIMIT):
        _login(api_client, "bruno", WRONG, "10.0.5.1")
    failures = AccessAttempt.objects.aggregate(n=Sum("failures_since_start"))["n"]

    def no_hashing(*args, **kwargs):
        raise AssertionError("a locked login reached the password check")

    monkeypatch.setattr(ModelBackend, "authenticate", no_hashing)
    for _ in range(3):
        _assert_locked(_login(api_client, "bruno", PASSWORD, "10.0.5.1"))
    # Refused, not counted: retrying does not extend the lock.
    assert AccessAttempt.objects.aggregate(n=Sum("failures_since_start"))["n"] == failures


def test_the_right_password_is_refused_until_the_cool_off_has_passed(api_client, make_user):
    make_user("carla", PASSWORD)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(LIMIT):
            _login(api_client, "carla", WRONG, "10.0.7.1")
    with time_machine.travel(start + timedelta(seconds=COOL_OFF_S - 60), tick=False):
        locked = _login(api_client, "carla", PASSWORD, "10.0.7.1")
        _assert_locked(locked)
        assert locked.json()["error"]["retry_after"] == 60
    with time_machine.travel(start + timedelta(seconds=COOL_OFF_S + 1), tick=False):
        assert _login(api_client, "carla", PASSWORD, "10.0.7.1").status_code == 200


def test_an_honest_player_elsewhere_is_unaffected(api_client, make_user):
    make_user("dave", PASSWORD)
    make_user("erin", PASSWORD)
    for _ in range(LIMIT):
        _login(api_client, "dave", WRONG, "10.0.8.1")
    _assert_locked(_login(api_client, "dave", PASSWORD, "10.0.8.1"))
    assert _login(api_client, "erin", PASSWORD, "10.0.8.2").status_code == 200


def test_a_locked_page_login_starts_no_session(make_user):
    make_user("fay", PASSWORD)
    browser = Client(enforce_csrf_checks=True, REMOTE_ADDR="10.0.9.1")
    csrf = browser.get("/api/v1/auth/csrf").json()["csrf_token"]
    for _ in range(LIMIT):
        browser.post(
            "/api/v1/auth/login",
            {"username": "fay", "password": WRONG},
            content_type="application/json",
            headers={"X-CSRFToken": csrf},
        )
    response = browser.post(
        "/api/v1/auth/login",
        {"username": "fay", "password": PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    _assert_locked(response)
    assert "sessionid" not in response.cookies
    assert browser.get("/api/v1/me").status_code == 401


def test_the_admin_login_locks_too(api_client, django_user_model):
    django_user_model.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    browser = Client(REMOTE_ADDR="10.0.10.1")
    form = {"username": "boss", "password": WRONG, "next": "/admin/"}
    codes = [browser.post("/admin/login/?next=/admin/", form).status_code for _ in range(LIMIT)]
    assert codes == [200] * (LIMIT - 1) + [429]  # the form again, then the lockout page
    locked = browser.post("/admin/login/?next=/admin/", {**form, "password": PASSWORD})
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert 0 < int(locked["Retry-After"]) <= COOL_OFF_S
    assert browser.get("/admin/").status_code == 302  # not logged in
    # One account, whichever door: the API's login is locked for it too, from that address.
    _assert_locked(_login(api_client, "boss", PASSWORD, "10.0.10.1"))
    assert _login(api_client, "boss", PASSWORD, "10.0.10.2").status_code == 200
