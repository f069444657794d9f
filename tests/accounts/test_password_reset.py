"""Password reset by e-mail: ask for a link (202, whether or not the address is known), then
set a new password with its uid and token (204), once; the account's API tokens are revoked."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import User
from accounts.tokens import token_digest

# The e-mails go out from Celery tasks: run in process in the scaled run too.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_tasks_eager")]

PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "stable-lantern-quartz"
RESET = "/api/v1/auth/password-reset"
CONFIRM = "/api/v1/auth/password-reset/confirm"
LINK = re.compile(r"(https?)://([^/\s]+)/password-reset/([^/\s]+)/([^/\s]+)")


@pytest.fixture
def dora(make_user):
    user, key = make_user("Dora", PASSWORD)
    user.email = "dora@example.com"
    user.save(update_fields=["email"])
    return user, key


def _ask(client, email, **extra):
    return client.post(RESET, {"email": email}, format="json", **extra)


def _link(message):
    match = LINK.search(message.body)
    assert match, message.body
    return match.groups()  # scheme, host, uid, token


def _confirm(client, uid, token, new_password=NEW_PASSWORD):
    return client.post(
        CONFIRM, {"uid": uid, "token": token, "new_password": new_password}, format="json"
    )


def _login(client, password):
    body = {"username": "dora", "password": password}
    return client.post("/api/v1/auth/login", body, format="json")


def _assert_bad_link(response):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "invalid or has expired" in error["fields"]["token"][0]


def test_the_whole_flow(api_client, dora):
    user, old_key = dora
    asked = _ask(api_client, "DORA@Example.com")  # the address in any case
    assert asked.status_code == 202
    assert asked.json()["detail"]

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["dora@example.com"]
    assert "password" in message.subject.lower()
    assert "Dora" in message.body
    scheme, host, uid, token = _link(message)
    assert (scheme, host) == ("http", "testserver")

    page = api_client.get(f"/password-reset/{uid}/{token}")
    assert page.status_code == 200
    assert f'data-uid="{uid}"' in page.content.decode()

    assert _confirm(api_client, uid, token).status_code == 204
    assert not AuthToken.objects.filter(user=user).exists()  # every script is logged out
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {old_key}")
    assert api_client.get("/api/v1/me").status_code == 401
    api_client.credentials()
    assert _login(api_client, PASSWORD).status_code == 401
    assert _login(api_client, NEW_PASSWORD).status_code == 200

    # The link works once.
    _assert_bad_link(_confirm(api_client, uid, token, "another-fine-passphrase"))
    assert _login(api_client, NEW_PASSWORD).status_code == 200


def test_a_reset_ends_the_accounts_sessions(dora):
    user, _ = dora
    browser = Client()
    browser.force_login(user)
    assert browser.get("/api/v1/me").status_code == 200
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    assert _confirm(APIClient(), uid, token).status_code == 204
    assert browser.get("/api/v1/me").status_code == 401


def test_an_unknown_address_answers_the_same_and_sends_nothing(api_client, dora):
    known = _ask(api_client, "dora@example.com")
    mail.outbox.clear()
    unknown = _ask(api_client, "nobody@example.com")
    assert (unknown.status_code, unknown.json()) == (known.status_code, known.json())
    assert mail.outbox == []


def test_inactive_accounts_and_unusable_passwords_get_no_link(api_client, make_user):
    for name, change in (("ivy", {"is_active": False}), ("una", {})):
        user, _ = make_user(name)
        user.email = f"{name}@example.com"
        for field, value in change.items():
            setattr(user, field, value)
        if name == "una":
            user.set_unusable_password()
        user.save()
        assert _ask(api_client, user.email).status_code == 202
    assert mail.outbox == []


def test_a_malformed_address_is_400(api_client):
    for body in ({"email": "not-an-address"}, {}, {"email": ""}, {"email": "a" * 250 + "@x.io"}):
        response = api_client.post(RESET, body, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid"
        assert "email" in response.json()["error"]["fields"]
    assert mail.outbox == []


def test_forged_links_are_refused(api_client, dora, make_user):
    user, _ = dora
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    other, _ = make_user("oscar")
    others_token = default_token_generator.make_token(other)
    huge = urlsafe_base64_encode(b"99999999999999999999999999")
    for bad_uid, bad_token in (
        (uid, "abc-123"),
        (uid, others_token),
        (urlsafe_base64_encode(force_bytes(other.pk)), default_token_generator.make_token(user)),
        ("!!!", default_token_generator.make_token(user)),
        (urlsafe_base64_encode(b"abc"), default_token_generator.make_token(user)),
        (huge, default_token_generator.make_token(user)),
        (urlsafe_base64_encode(b"\xff\xfe"), default_token_generator.make_token(user)),
    ):
        _assert_bad_link(_confirm(api_client, bad_uid, bad_token))
    assert _login(api_client, PASSWORD).status_code == 200  # nothing changed


def test_a_link_of_a_deactivated_account_is_refused(api_client, dora):
    user, _ = dora
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    User.objects.filter(pk=user.pk).update(is_active=False)
    _assert_bad_link(_confirm(api_client, uid, token))


@pytest.mark.parametrize(
    ("weak", "says"),
    [
        ("password", "too common"),
        (" " * 12, "only spaces"),
        ("short1", "too short"),
        ("doraexample", "too similar"),
    ],
)
def test_a_weak_new_password_is_refused_and_the_link_still_works(api_client, dora, weak, says):
    user, key = dora
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    response = _confirm(api_client, uid, token, weak)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert any(says in message for message in error["fields"]["new_password"])
    assert AuthToken.objects.filter(digest=token_digest(key)).exists()  # nothing revoked
    assert _confirm(api_client, uid, token).status_code == 204


def test_bad_bodies_of_the_confirmation_are_400(api_client):
    for body in (
        {},
        {"uid": "MQ", "token": "x"},
        {"uid": 1, "token": "x", "new_password": NEW_PASSWORD},
        {"uid": "MQ", "token": ["x"], "new_password": NEW_PASSWORD},
        {"uid": "MQ", "token": "x" * 129, "new_password": NEW_PASSWORD},
        {"uid": "MQ", "token": "x", "new_password": "x" * 129},
    ):
        response = api_client.post(CONFIRM, body, format="json")
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "invalid"


def test_the_link_uses_the_sites_origin_not_the_requests_host(api_client, dora, settings):
    settings.SITE_URL = "https://klondike.example"
    _ask(api_client, "dora@example.com", HTTP_HOST="testserver:6666")
    scheme, host, _, _ = _link(mail.outbox[0])
    assert (scheme, host) == ("https", "klondike.example")


def test_an_account_gets_at_most_one_mail_a_minute(api_client, dora):
    for _ in range(3):
        assert _ask(api_client, "dora@example.com").status_code == 202
    assert len(mail.outbox) == 1


def test_every_account_with_the_address_gets_its_own_link(api_client, dora, make_user):
    twin, _ = make_user("dora2", verified=False)  # a verified address is one account's
    twin.email = "Dora@Example.com"
    twin.save(update_fields=["email"])
    _ask(api_client, "dora@example.com")
    assert len(mail.outbox) == 2
    assert {_link(m)[2] for m in mail.outbox} == {
        urlsafe_base64_encode(force_bytes(u.pk)) for u in (dora[0], twin)
    }


def test_asking_is_throttled_apart_from_registering(api_client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "register": "2/min"},
    }  # fmt: skip
    codes = [_ask(api_client, f"p{i}@example.com").status_code for i in range(3)]
    assert codes == [202, 202, 429]
    throttled = _ask(api_client, "p9@example.com").json()["error"]
    assert throttled["code"] == "throttled" and throttled["retry_after"] > 0
    body = {"username": "newcomer", "password": PASSWORD}
    assert api_client.post("/api/v1/auth/register", body, format="json").status_code == 201


def test_a_reset_lifts_the_accounts_login_lock(api_client, dora, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):  # from the address the logins below come from
        body = {"username": "dora", "password": "wrong-wrong-wrong"}
        api_client.post("/api/v1/auth/login", body, format="json")
    assert _login(api_client, PASSWORD).status_code == 429
    user, _ = dora
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    assert _confirm(api_client, uid, default_token_generator.make_token(user)).status_code == 204
    assert _login(api_client, NEW_PASSWORD).status_code == 200


def test_the_pages_render_and_load_the_sites_module(client):
    ask = client.get("/password-reset")
    assert ask.status_code == 200
    html = ask.content.decode()
    assert 'data-reset-form="request"' in html
    assert 'type="module" src="/static/frontend/site.js"' in html
    assert "<script>" not in html  # no inline script

    confirm = client.get("/password-reset/MQ/abc-123")
    assert confirm.status_code == 200
    html = confirm.content.decode()
    assert 'data-reset-form="confirm"' in html
    assert 'data-uid="MQ"' in html and 'data-token="abc-123"' in html
    assert '<meta name="referrer" content="no-referrer">' in html  # the token stays here
    assert "csrftoken" in confirm.cookies

    assert 'href="/password-reset"' in client.get("/signin").content.decode()


def test_the_email_is_in_the_language_of_the_request_that_asked_for_it(api_client, dora, settings):
    """The e-mail is sent by a task, outside the request: the request's language goes with it."""
    assert _ask(api_client, "dora@example.com", HTTP_ACCEPT_LANGUAGE="hr").status_code == 202
    message = mail.outbox[0]
    assert message.subject == "Nova lozinka za Klondike Daily"
    assert message.body.startswith("Pozdrav, Dora,")
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60  # 60: Croatian's third plural form
    assert f"u roku od {minutes} minuta:" in message.body
    assert "Poveznica vrijedi jednom." in message.body
    assert "Someone asked" not in message.body
    _link(message)


def test_the_email_of_an_english_request_is_english(api_client, dora, settings):
    assert _ask(api_client, "dora@example.com", HTTP_ACCEPT_LANGUAGE="de, en").status_code == 202
    message = mail.outbox[0]
    assert message.subject == "Reset your Klondike Daily password"
    assert f"within {settings.PASSWORD_RESET_TIMEOUT // 60} minutes:" in message.body


def test_the_email_is_in_the_language_the_account_picked(api_client, dora):
    """A language kept on the profile beats the asking request's."""
    user, _ = dora
    user.language = "hr"
    user.save(update_fields=["language"])
    assert _ask(api_client, "dora@example.com", HTTP_ACCEPT_LANGUAGE="en").status_code == 202
    message = mail.outbox[0]
    assert message.subject == "Nova lozinka za Klondike Daily"
    assert message.body.startswith("Pozdrav, Dora,")
    _link(message)
