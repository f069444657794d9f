"""E-mail verification (accounts/services.py, "E-mail address"): ranked daily play needs a
verified address; a link e-mailed in the account's language verifies it, once, for two days; a
verified address is one account's, in any letter case; casual play and guests need none."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

from accounts import services
from accounts.errors import EmailUnverifiedError
from accounts.models import User
from games.daily.services import attempts as daily_attempts
from games.models import AttemptOrigin, DailyDeal, Game

# The e-mails go out from Celery tasks: run in process in the scaled run too.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_tasks_eager")]

PASSWORD = "correct-horse-battery"
NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
DAY = date(2026, 11, 30)
START = f"/api/v1/daily/{DAY.isoformat()}/D1N/start"
EMAIL = "/api/v1/me/email"
RESEND = "/api/v1/me/email/verification"
VERIFY = "/api/v1/auth/verify-email"
LINK = re.compile(r"(https?)://([^/\s]+)/verify-email/([^/\s]+)/([^/\s]+)")
JSON = "application/json"


@pytest.fixture(autouse=True)
def _at_noon() -> Iterator[None]:
    """The daily of DAY is open; time stands still (the links' age moves only when told)."""
    with time_machine.travel(NOON, tick=False):
        yield


@pytest.fixture
def post(django_capture_on_commit_callbacks: Any) -> Any:
    """POST as JSON, running what the request queued after its commit (the e-mail task)."""

    def send(client: Any, path: str, body: dict[str, Any] | None = None, **extra: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, body, format="json", **extra)

    return send


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _link(message: Any) -> tuple[str, ...]:
    match = LINK.search(message.body)
    assert match, message.body
    return match.groups()  # scheme, host, uid, token


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def _assert_bad_link(response: Any) -> None:
    error = _error(response, 400, "invalid")
    assert "invalid, used or expired" in error["fields"]["token"][0]


def _nothing_ranked() -> None:
    assert not Game.objects.filter(kind=Game.Kind.DAILY).exists()
    assert not AttemptOrigin.objects.exists()


# --- the ranked start ----------------------------------------------------------------------


def test_a_verified_account_starts_its_ranked_attempt(make_user):
    _, key = make_user("vera")  # make_user's accounts are verified
    started = _client(key).post(START, format="json")
    assert started.status_code == 201, started.content
    assert AttemptOrigin.objects.filter(game_id=started.json()["id"]).exists()


@pytest.mark.parametrize("email", ["", "una@example.com"], ids=["no address", "unverified"])
def test_a_ranked_start_without_a_verified_address_is_403_and_stores_nothing(make_user, email):
    user, key = make_user("una", email=email, verified=False)
    refused = _client(key).post(START, format="json")
    error = _error(refused, 403, "email_unverified")
    assert set(refused.json()) == {"error"}
    assert "verified e-mail address" in error["message"]
    _nothing_ranked()
    assert not DailyDeal.objects.exists()  # refused before the deal is made
    with pytest.raises(EmailUnverifiedError):
        daily_attempts.daily_start(user=user, day=DAY, mode="D1N")
    _nothing_ranked()


def test_casual_play_needs_no_address(make_user):
    _, key = make_user("casual", email="")
    started = _client(key).post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json")
    assert started.status_code == 201, started.content


def test_a_guest_plays_casual_and_gets_account_required_for_ranked_and_an_address():
    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/v1/auth/csrf")

    def send(path: str, body: dict[str, Any] | None = None) -> Any:
        csrf = browser.cookies["csrftoken"].value
        return browser.post(path, body or {}, content_type=JSON, HTTP_X_CSRFTOKEN=csrf)

    assert send("/api/v1/auth/guest").status_code == 201
    assert send("/api/v1/games", {"draw": 1, "preset": "N"}).status_code == 201
    _error(send(START), 403, "account_required")  # not email_unverified: ranks are accounts'
    _error(send(EMAIL, {"email": "guest@example.com"}), 403, "account_required")
    _error(send(RESEND), 403, "account_required")
    assert User.objects.get(is_guest=True).email == ""
    _nothing_ranked()
    assert mail.outbox == []


# --- the link ------------------------------------------------------------------------------


def test_the_whole_flow(make_user, post):
    user, key = make_user("Dora", email="", verified=False)
    client = _client(key)
    asked = post(client, EMAIL, {"email": "Dora@EXAMPLE.com"})
    assert asked.status_code == 202, asked.content
    assert asked.json()["email"] == "Dora@example.com"  # the domain in lower case
    assert asked.json()["email_verified"] is False and asked.json()["detail"]
    me = client.get("/api/v1/me").json()
    assert (me["email"], me["email_verified"]) == ("Dora@example.com", False)

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["Dora@example.com"]
    assert message.subject == "Verify your Klondike Daily e-mail address"
    # It names no account: the address may be a stranger's, typed by someone else.
    assert message.body.startswith(
        "Hello,\n\nSomeone asked to use this address for a Klondike Daily account."
    )
    assert "Dora" not in message.body
    assert "within 48 hours" in message.body
    scheme, host, uid, token = _link(message)
    assert (scheme, host, uid) == (
        "http",
        "testserver",
        urlsafe_base64_encode(force_bytes(user.pk)),
    )

    page = Client().get(f"/verify-email/{uid}/{token}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-uid="{uid}"' in html and f'data-token="{token}"' in html
    assert '<meta name="referrer" content="no-referrer">' in html
    assert User.objects.get(pk=user.pk).email_verified_at is None  # opening it is not enough

    verified = post(APIClient(), VERIFY, {"uid": uid, "token": token})  # no login needed
    assert verified.status_code == 200, verified.content
    assert verified.json() == {"email": "Dora@example.com", "email_verified": True}
    # The token's cached row is dropped: `me` says so at once.
    assert client.get("/api/v1/me").json()["email_verified"] is True
    assert client.post(START, format="json").status_code == 201


def test_a_link_works_once(make_user, post):
    user, key = make_user("ivan", verified=False)
    assert post(_client(key), RESEND).status_code == 202
    _, _, uid, token = _link(mail.outbox[0])
    assert post(APIClient(), VERIFY, {"uid": uid, "token": token}).status_code == 200
    verified_at = User.objects.get(pk=user.pk).email_verified_at
    _assert_bad_link(post(APIClient(), VERIFY, {"uid": uid, "token": token}))
    assert User.objects.get(pk=user.pk).email_verified_at == verified_at  # nothing stored


def test_a_link_expires_after_two_days(make_user, post, settings):
    user, key = make_user("old", verified=False)
    assert post(_client(key), RESEND).status_code == 202
    _, _, uid, token = _link(mail.outbox[0])
    late = NOON + timedelta(seconds=settings.EMAIL_VERIFICATION_TIMEOUT + 1)
    with time_machine.travel(late, tick=False):
        _assert_bad_link(post(APIClient(), VERIFY, {"uid": uid, "token": token}))
    assert User.objects.get(pk=user.pk).email_verified_at is None
    just_in_time = NOON + timedelta(seconds=settings.EMAIL_VERIFICATION_TIMEOUT)
    with time_machine.travel(just_in_time, tick=False):
        assert post(APIClient(), VERIFY, {"uid": uid, "token": token}).status_code == 200


def test_a_link_for_a_former_address_is_refused(make_user, post):
    user, key = make_user("mover", email="", verified=False)
    client = _client(key)
    post(client, EMAIL, {"email": "first@example.com"})
    _, _, uid, first_token = _link(mail.outbox[0])
    post(client, EMAIL, {"email": "second@example.com"})
    _assert_bad_link(post(APIClient(), VERIFY, {"uid": uid, "token": first_token}))
    assert User.objects.get(pk=user.pk).email_verified_at is None
    _, _, _, second_token = _link(mail.outbox[1])
    assert post(APIClient(), VERIFY, {"uid": uid, "token": second_token}).status_code == 200


def test_forged_and_foreign_links_are_refused(make_user, post):
    user, _ = make_user("fay", verified=False)
    other, _ = make_user("otto", verified=False)
    generator = services.email_verification_token_generator
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    reset_token = services.default_token_generator.make_token(user)  # another salt
    for bad_uid, bad_token in (
        (uid, "abc-123"),
        (uid, "no-dash-at-all"),
        (uid, generator.make_token(other)),
        (uid, reset_token),
        (urlsafe_base64_encode(force_bytes(other.pk)), generator.make_token(user)),
        ("!!!", generator.make_token(user)),
        (urlsafe_base64_encode(b"99999999999999999999999999"), generator.make_token(user)),
        (urlsafe_base64_encode(b"\xff\xfe"), generator.make_token(user)),
    ):
        _assert_bad_link(post(APIClient(), VERIFY, {"uid": bad_uid, "token": bad_token}))
    assert not User.objects.filter(email_verified_at__isnull=False).exists()


def test_a_link_of_a_deactivated_account_is_refused(make_user, post):
    user, _ = make_user("gone", verified=False)
    token = services.email_verification_token_generator.make_token(user)
    User.objects.filter(pk=user.pk).update(is_active=False)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    _assert_bad_link(post(APIClient(), VERIFY, {"uid": uid, "token": token}))


def test_bad_bodies_are_400(make_user, post):
    _, key = make_user("body")
    client = _client(key)
    for body in ({}, {"email": ""}, {"email": "not-an-address"}, {"email": ["a@b.io"]},
                 {"email": "a" * 250 + "@x.io"}):  # fmt: skip
        assert "email" in _error(post(client, EMAIL, body), 400, "invalid")["fields"]
    for body in ({}, {"uid": "MQ"}, {"uid": 1, "token": "x"}, {"uid": "MQ", "token": "x" * 129}):
        _error(post(APIClient(), VERIFY, body), 400, "invalid")
    assert mail.outbox == []


# --- one account per address ---------------------------------------------------------------


def test_the_database_keeps_a_verified_mailbox_to_one_account_in_any_spelling(make_user):
    make_user("first", email="Same@Example.com")
    make_user("unverified", email="same@example.com", verified=False)  # may share it
    for spelling in ("SAME@example.COM", "same+x@example.com", '"same"@\uff45xample.com'):
        with pytest.raises(IntegrityError), transaction.atomic():
            make_user("second", email=spelling)


def test_an_address_verified_by_another_account_is_refused_at_its_link(make_user, post):
    make_user("owner", email="Owner@Example.com")
    user, key = make_user("copycat", email="", verified=False)
    client = _client(key)
    # The answer is the one any address gets: it tells nobody the address has an account.
    asked = post(client, EMAIL, {"email": "owner@EXAMPLE.com"})
    assert asked.status_code == 202
    _, _, uid, token = _link(mail.outbox[0])
    error = _error(post(APIClient(), VERIFY, {"uid": uid, "token": token}), 409, "email_taken")
    assert "another account" in error["message"]
    assert User.objects.get(pk=user.pk).email_verified_at is None
    _error(client.post(START, format="json"), 403, "email_unverified")


# --- changing and sending ------------------------------------------------------------------


def test_changing_the_address_unverifies_the_account(make_user, post):
    user, key = make_user("changer")
    client = _client(key)
    same = post(client, EMAIL, {"email": "CHANGER@example.com"})  # its own, in another case
    assert same.status_code == 200 and same.json()["email_verified"] is True
    assert mail.outbox == []
    changed = post(client, EMAIL, {"email": "new@example.com"})
    assert changed.status_code == 202 and changed.json()["email_verified"] is False
    row = User.objects.get(pk=user.pk)
    assert (row.email, row.email_verified_at) == ("new@example.com", None)
    assert client.get("/api/v1/me").json()["email_verified"] is False
    _error(client.post(START, format="json"), 403, "email_unverified")
    _nothing_ranked()


def test_sending_the_link_again(make_user, post):
    _, key = make_user("nomail", email="", verified=False)
    error = _error(post(_client(key), RESEND), 400, "invalid")
    assert "email" in error["fields"]
    _, key = make_user("already")
    already = post(_client(key), RESEND)
    assert already.status_code == 200 and already.json()["email_verified"] is True
    assert mail.outbox == []
    _, key = make_user("pending", verified=False)
    sent = post(_client(key), RESEND)
    assert sent.status_code == 202 and sent.json()["email"] == "pending@example.com"
    assert [m.to for m in mail.outbox] == [["pending@example.com"]]


def test_an_account_gets_at_most_one_link_a_minute_to_an_address(make_user, post):
    """The second ask within the minute sends nothing and says so (429, not "on its way");
    the limits themselves: tests/accounts/test_mail_limits.py."""
    _, key = make_user("eager", verified=False)
    assert post(_client(key), RESEND).status_code == 202
    again = post(_client(key), RESEND)
    error = _error(again, 429, "throttled")
    assert 0 < error["retry_after"] <= 60 and again["Retry-After"] == str(error["retry_after"])
    assert "no new one was sent" in error["message"]
    assert len(mail.outbox) == 1


def test_sending_is_throttled_per_account(make_user, post, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "register": "2/min"},
    }  # fmt: skip
    _, key = make_user("spammer", verified=False)
    client = _client(key)
    codes = [post(client, EMAIL, {"email": f"v{i}@example.com"}).status_code for i in range(2)]
    assert codes == [202, 202]
    throttled = _error(post(client, RESEND), 429, "throttled")
    assert throttled["retry_after"] > 0
    _, other = make_user("bystander", verified=False)
    assert post(_client(other), RESEND).status_code == 202  # another account, its own count


def test_registering_with_an_address_sends_the_link(post):
    body = {"username": "newbie", "password": PASSWORD, "email": "newbie@example.com"}
    registered = post(APIClient(), "/api/v1/auth/register", body)
    assert registered.status_code == 201, registered.content
    assert User.objects.get(username="newbie").email_verified_at is None
    _, _, uid, token = _link(mail.outbox[0])
    assert post(APIClient(), VERIFY, {"uid": uid, "token": token}).status_code == 200
    assert _client(registered.json()["token"]).post(START, format="json").status_code == 201


def test_registering_without_an_address_sends_nothing(post):
    body = {"username": "quiet", "password": PASSWORD}
    assert post(APIClient(), "/api/v1/auth/register", body).status_code == 201
    assert mail.outbox == []


def test_a_stale_task_sends_nothing(make_user):
    """A link asked for an address the account has changed since, or verified, is not sent."""
    user, _ = make_user("stale", verified=False)
    args = {"user_id": user.pk, "domain": "testserver", "use_https": False, "language": "en"}
    assert not services.user_email_verification_mail(email="former@example.com", **args)
    User.objects.filter(pk=user.pk).update(email_verified_at=timezone.now())
    assert not services.user_email_verification_mail(email="stale@example.com", **args)
    assert mail.outbox == []


# --- privacy and language ------------------------------------------------------------------


def test_the_public_profile_shows_no_address(make_user):
    make_user("Private", email="private.person@example.com")
    profile = APIClient().get("/api/v1/users/private")
    assert profile.status_code == 200
    assert "email" not in profile.json()
    assert "private.person" not in profile.content.decode()


def test_the_email_is_in_the_language_the_account_picked(make_user, post):
    user, key = make_user("Dora", verified=False)
    user.language = "hr"
    user.save(update_fields=["language"])
    assert post(_client(key), RESEND, HTTP_ACCEPT_LANGUAGE="en").status_code == 202
    assert mail.outbox[0].body.startswith("Pozdrav,\n\nNetko je zatražio ovu adresu")
    _link(mail.outbox[0])


def test_the_email_of_an_account_without_a_language_follows_the_request(make_user, post):
    _, key = make_user("Dora", verified=False)
    assert post(_client(key), RESEND, HTTP_ACCEPT_LANGUAGE="pl").status_code == 202
    assert mail.outbox[0].body.startswith("Witaj,\n\nKtoś poprosił o użycie tego adresu")


def test_the_link_uses_the_sites_origin_not_the_requests_host(make_user, post, settings):
    settings.SITE_URL = "https://klondike.example"
    _, key = make_user("host", verified=False)
    post(_client(key), RESEND, HTTP_HOST="testserver:6666")
    scheme, host, _, _ = _link(mail.outbox[0])
    assert (scheme, host) == ("https", "klondike.example")
