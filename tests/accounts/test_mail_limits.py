"""How many e-mails a mailbox gets (`accounts.mail_limits`): one a minute of each kind per
(mailbox, account), MAILBOX_MAILS_PER_DAY a day per mailbox across accounts, and an answer
that says no link was sent when none was. Before, the minute was the address's, whichever
accounts asked: a stranger asking once a minute held it, and the owner was told "on its way"
9 times and got no link; `+` variants from 3 accounts sent 15 mails in 10 s; and the mail
greeted the account by a name its sender chose."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

from accounts import mail_limits
from accounts.models import MailSent, User

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_tasks_eager")]

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
EMAIL = "/api/v1/me/email"
RESEND = "/api/v1/me/email/verification"
RESET = "/api/v1/auth/password-reset"
LINK = re.compile(r"https?://[^/\s]+/verify-email/([^/\s]+)/([^/\s]+)")


@pytest.fixture(autouse=True)
def _clock() -> Iterator[Any]:
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def post(django_capture_on_commit_callbacks: Any) -> Any:
    def send(client: Any, path: str, body: dict[str, Any] | None = None, **extra: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, body, format="json", **extra)

    return send


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _uid(user: User) -> str:
    return urlsafe_base64_encode(force_bytes(user.pk))


def _links_for(address: str) -> list[str]:
    """The uids of the verification links mailed to `address`, in order."""
    return [
        LINK.search(m.body).group(1)  # type: ignore[union-attr]
        for m in mail.outbox
        if m.to == [address] and LINK.search(m.body)
    ]


def _refused(response: Any) -> dict[str, Any]:
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["retry_after"] > 0
    assert response["Retry-After"] == str(error["retry_after"])
    assert "on its way" not in response.content.decode()
    return error


def test_a_stranger_asking_every_minute_does_not_hold_the_owners_link(make_user, post, _clock):
    victim, victim_key = make_user("victim", email="victim@mail.test", verified=False)
    _, attacker_key = make_user("attacker", email="", verified=False)
    for _ in range(mail_limits.MAILS_PER_DAY):
        assert post(_client(attacker_key), EMAIL, {"email": "victim@mail.test"}).status_code == 202
        _clock.shift(timedelta(seconds=1))
        assert post(_client(victim_key), RESEND).status_code == 202
        _clock.shift(timedelta(seconds=60))
    uids = _links_for("victim@mail.test")
    assert uids.count(_uid(victim)) == mail_limits.MAILS_PER_DAY
    # More accounts of the stranger's do not push the owner out of the mailbox's day either.
    for i in range(mail_limits.MAILBOX_ACCOUNTS_PER_DAY):
        _, key = make_user(f"sock{i}", email="", verified=False)
        post(_client(key), EMAIL, {"email": "victim+x@mail.test"})
    assert post(_client(victim_key), RESEND).status_code == 429  # its own day's share, used


def test_an_ask_inside_the_minute_sends_nothing_and_says_so(make_user, post, _clock):
    user, key = make_user("hasty", email="", verified=False)
    client = _client(key)
    assert post(client, EMAIL, {"email": "hasty@mail.test"}).status_code == 202
    _clock.shift(timedelta(seconds=20))
    error = _refused(post(client, RESEND))
    assert error["retry_after"] == 40
    _refused(post(client, EMAIL, {"email": "Hasty+again@mail.test"}))  # the same mailbox
    assert User.objects.get(pk=user.pk).email == "hasty@mail.test"  # refused: nothing changed
    assert post(client, EMAIL, {"email": "other@mail.test"}).status_code == 202  # another one
    _clock.shift(timedelta(seconds=41))
    assert post(client, EMAIL, {"email": "hasty@mail.test"}).status_code == 202
    assert [m.to for m in mail.outbox] == [["hasty@mail.test"], ["other@mail.test"],
                                           ["hasty@mail.test"]]  # fmt: skip


def test_plus_variants_from_several_accounts_do_not_bomb_a_mailbox(make_user, post, _clock):
    """3 accounts, 5 `+` variants each, within 10 s: one mail per account (before: 15)."""
    keys = [make_user(f"bomber{i}", email="", verified=False)[1] for i in range(3)]
    answers = []
    for n in range(5):
        for key in keys:
            body = {"email": f"target+{n}{key[:4]}@mail.test"}
            answers.append(post(_client(key), EMAIL, body).status_code)
        _clock.shift(timedelta(seconds=2))
    assert answers.count(202) == 3 and answers.count(429) == 12
    assert len(mail.outbox) == 3


def test_a_mailbox_gets_mail_for_a_few_accounts_a_day(make_user, post, _clock):
    accounts = mail_limits.MAILBOX_ACCOUNTS_PER_DAY
    keys = [make_user(f"asker{i}", email="", verified=False)[1] for i in range(accounts + 1)]
    for key in keys[:accounts]:
        assert post(_client(key), EMAIL, {"email": "capped@mail.test"}).status_code == 202
        _clock.shift(timedelta(minutes=5))
    error = _refused(post(_client(keys[accounts]), EMAIL, {"email": "Capped+x@mail.test"}))
    assert "ask again tomorrow" in error["message"]
    assert error["retry_after"] == 24 * 3600 - accounts * 5 * 60
    assert len(mail.outbox) == accounts
    # An account that had mail today keeps its place, up to its own day's share.
    for _ in range(mail_limits.MAILS_PER_DAY - 1):
        assert post(_client(keys[0]), RESEND).status_code == 202
        _clock.shift(timedelta(minutes=1))
    assert "tomorrow" in _refused(post(_client(keys[0]), RESEND))["message"]
    assert len(mail.outbox) == accounts + mail_limits.MAILS_PER_DAY - 1
    # Another mailbox is not affected, and the day frees as its first mails age.
    assert post(_client(keys[accounts]), EMAIL, {"email": "free@mail.test"}).status_code == 202
    # (the second asker's day is over then: the first asked on since, and is still in it)
    _clock.shift(timedelta(seconds=error["retry_after"] + 5 * 60))
    assert post(_client(keys[accounts]), EMAIL, {"email": "capped@mail.test"}).status_code == 202
    assert MailSent.objects.filter(sent_at__lt=NOON + timedelta(minutes=1)).count() == 0


def test_a_sign_up_past_the_limits_is_made_and_sends_nothing(make_user, post):
    for i in range(mail_limits.MAILBOX_ACCOUNTS_PER_DAY):
        user, _ = make_user(f"early{i}", email="", verified=False)
        mail_limits.mail_send_reserve(user=user, email="busy@mail.test",
                                      kind=MailSent.Kind.VERIFICATION)  # fmt: skip
    body = {"username": "latecomer", "password": "correct-horse-battery",
            "email": "busy@mail.test"}  # fmt: skip
    assert post(APIClient(), "/api/v1/auth/register", body).status_code == 201
    assert mail.outbox == []
    assert User.objects.get(username="latecomer").email == "busy@mail.test"


def test_the_verification_mail_names_no_account(post):
    body = {"username": "www.claim-prize.example", "password": "correct-horse-battery",
            "email": "someone@mail.test"}  # fmt: skip
    assert post(APIClient(), "/api/v1/auth/register", body).status_code == 201
    (message,) = mail.outbox
    assert "claim-prize" not in message.body and "claim-prize" not in message.subject
    assert "Someone asked to use this address for a Klondike Daily account" in message.body


def test_a_reset_mail_greets_by_name_only_a_verified_address(make_user, post):
    make_user("www.claim-prize.example", email="stranger@mail.test", verified=False)
    make_user("Owner", email="owner@mail.test")
    assert post(APIClient(), RESET, {"email": "stranger@mail.test"}).status_code == 202
    assert post(APIClient(), RESET, {"email": "owner@mail.test"}).status_code == 202
    stranger, owner = mail.outbox
    assert stranger.body.startswith("Hello,\n") and "claim-prize" not in stranger.body
    assert owner.body.startswith("Hello Owner,\n")


def test_reset_mails_count_against_the_mailbox(make_user, post, _clock):
    """Accounts that typed one address get reset mails within the mailbox's limits (before:
    one each a minute, without end)."""
    accounts, per_day = mail_limits.MAILBOX_ACCOUNTS_PER_DAY, mail_limits.MAILS_PER_DAY
    for i in range(accounts + 2):
        make_user(f"typed{i}", email="shared@mail.test", verified=False)
    assert post(APIClient(), RESET, {"email": "shared@mail.test"}).status_code == 202
    assert len(mail.outbox) == accounts
    assert post(APIClient(), RESET, {"email": "shared@mail.test"}).status_code == 202
    assert len(mail.outbox) == accounts  # the minute
    for _ in range(per_day + 1):
        _clock.shift(timedelta(minutes=2))
        assert post(APIClient(), RESET, {"email": "shared@mail.test"}).status_code == 202
    assert len(mail.outbox) == accounts * per_day


def test_the_docs_and_the_schema_give_the_limits_as_they_are():
    from pathlib import Path

    from accounts.views import MeEmailView

    limits = (
        f"{mail_limits.MAILS_PER_DAY} a day per mailbox and account",
        f"mail for {mail_limits.MAILBOX_ACCOUNTS_PER_DAY} accounts a day per mailbox",
    )
    api = " ".join((Path(__file__).parents[2] / "docs" / "api.md").read_text().split())
    schema = " ".join((MeEmailView.__doc__ or "").split())
    for text in limits:
        assert text in api
    assert limits[1] in schema and f"{mail_limits.MAILS_PER_DAY} a day per mailbox" in schema
