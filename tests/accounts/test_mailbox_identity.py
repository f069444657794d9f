"""One mailbox, one ranked identity (docs/api.md, "E-mail verification"): an address is
compared as it is delivered (`accounts.validators.email_canonical`), a verified mailbox is one
account's in any spelling, and a mailbox that verified an account which then played ranked
stays that account's (`accounts.models.RankedMailbox`), even once it changes its address or is
deleted. Before, one mailbox verified any number of ranked accounts: by releasing and
verifying again (A, then B, then C), and through spellings that reach it (full-width letters,
a quoted local part, `+tag`, dots at gmail.com)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.apps import apps as live_apps
from django.core import mail
from rest_framework.test import APIClient

from accounts.models import RankedMailbox, User
from accounts.validators import email_canonical
from games.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_tasks_eager")]

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
DAY = date(2026, 11, 30)
START = f"/api/v1/daily/{DAY.isoformat()}/D1N/start"
EMAIL = "/api/v1/me/email"
VERIFY = "/api/v1/auth/verify-email"
LINK = re.compile(r"https?://[^/\s]+/verify-email/([^/\s]+)/([^/\s]+)")


def _wide(text: str) -> str:
    """`text` in full-width letters (U+FF41 and on), which NFKC folds back."""
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


@pytest.fixture(autouse=True)
def _clock() -> Iterator[Any]:
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def post(django_capture_on_commit_callbacks: Any) -> Any:
    def send(client: Any, path: str, body: dict[str, Any] | None = None) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, body, format="json")

    return send


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def claim(post: Any) -> Any:
    """Give the account `key` the address and open the link mailed for it: the answer of
    `auth/verify-email`."""

    def run(key: str, address: str) -> Any:
        sent = len(mail.outbox)
        asked = post(_client(key), EMAIL, {"email": address})
        assert asked.status_code == 202, asked.content
        assert len(mail.outbox) == sent + 1
        uid, token = LINK.search(mail.outbox[-1].body).groups()  # type: ignore[union-attr]
        return post(APIClient(), VERIFY, {"uid": uid, "token": token})

    return run


def _taken(response: Any, why: str = "") -> None:
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "email_taken" and why in error["message"]


def _start(key: str) -> int:
    return int(_client(key).post(START, format="json").status_code)


# --- the canonical form ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("u@mail.test", "u@mail.test"),
        ("U@MAIL.test", "u@mail.test"),
        ("u@" + _wide("mail") + ".test", "u@mail.test"),  # full-width: delivered to mail.test
        (_wide("u") + "@mail.test", "u@mail.test"),
        ('"u"@mail.test', "u@mail.test"),  # a quoted local part: delivered unquoted
        ('"u\\"v"@mail.test', 'u"v@mail.test'),
        ("u+1@mail.test", "u@mail.test"),  # a sub-address: the same mailbox
        ("u+a+b@mail.test", "u@mail.test"),
        ("u.x@mail.test", "u.x@mail.test"),  # dots count, but at gmail
        ("U.x+tag@gmail.com", "ux@gmail.com"),
        ("u.x@googlemail.com", "ux@gmail.com"),
        ("a@bücher.example", "a@xn--bcher-kva.example"),  # IDNA, as Django sends it
        ("a@mail.test.", "a@mail.test"),
        ("", ""),
    ],
)
def test_the_canonical_form_is_the_mailbox(typed: str, canonical: str) -> None:
    assert email_canonical(typed) == canonical


def test_the_account_keeps_what_was_typed_beside_its_canonical_form(make_user, post):
    _, key = make_user("typist", email="", verified=False)
    asked = post(_client(key), EMAIL, {"email": "U.X+news@GoogleMail.com"})
    assert asked.status_code == 202 and asked.json()["email"] == "U.X+news@googlemail.com"
    row = User.objects.get(username="typist")
    assert (row.email, row.email_canonical) == ("U.X+news@googlemail.com", "ux@gmail.com")
    assert mail.outbox[0].to == ["U.X+news@googlemail.com"]  # mailed as typed


# --- one verified account per mailbox ----------------------------------------------------


@pytest.mark.parametrize(
    ("owner", "variant"),
    [
        ("u@mail.test", "u@" + _wide("m") + "ail.test"),
        ("u@mail.test", '"u"@mail.test'),
        ("u@mail.test", "u+1@mail.test"),
        ("u@mail.test", "U@Mail.Test"),
        ("ux@gmail.com", "u.x@gmail.com"),
        ("ux@gmail.com", "U.X+1@googlemail.com"),
    ],
)
def test_a_spelling_of_a_verified_mailbox_verifies_no_other_account(
    make_user, claim, owner, variant
):
    make_user("owner", email=owner)  # verified, and still its address
    _, key = make_user("copycat", email="", verified=False)
    _taken(claim(key, variant), "verified for another account")
    assert User.objects.get(username="copycat").email_verified_at is None
    assert _start(key) == 403


@pytest.mark.parametrize(
    "variant",
    [
        "box@" + _wide("m") + "ail.test",
        '"box"@mail.test',
        "box+2@mail.test",
        "BOX@mail.test",
        "box@mail.test",
    ],
)
def test_a_mailbox_that_played_ranked_stays_its_accounts(make_user, claim, variant):
    """A verifies box@, plays its ranked attempt and changes its address; B and then C cannot
    verify the mailbox, in any spelling (before: three ranked starts from one mailbox)."""
    _, a = make_user("alpha", email="", verified=False)
    assert claim(a, "box@mail.test").status_code == 200
    assert _start(a) == 201
    assert claim(a, "alpha.other@mail.test").status_code == 200  # A moves on
    for name in ("bravo", "charlie"):
        _, key = make_user(name, email="", verified=False)
        _taken(claim(key, variant), "plays ranked for another account")
        assert _start(key) == 403
    assert Game.objects.filter(kind=Game.Kind.DAILY).count() == 1
    ranked = RankedMailbox.objects.get()
    assert (ranked.email_canonical, ranked.user.username) == ("box@mail.test", "alpha")


def test_a_mailbox_of_a_deleted_ranked_account_verifies_no_one(make_user, claim):
    _, a = make_user("leaving", email="", verified=False)
    assert claim(a, "box@mail.test").status_code == 200
    assert _start(a) == 201
    Game.objects.filter(user__username="leaving").delete()
    User.objects.filter(username="leaving").delete()
    assert RankedMailbox.objects.get().user is None  # kept, nobody's
    _, b = make_user("heir", email="", verified=False)
    _taken(claim(b, "box@mail.test"))
    assert _start(b) == 403


def test_a_race_past_the_link_starts_no_ranked_attempt(make_user):
    """A mailbox recorded for another account (a verification that raced its ranked start)
    refuses this one's start, and nothing is ranked."""
    other, _ = make_user("first")
    _, key = make_user("second", email="shared@mail.test")
    RankedMailbox.objects.create(email_canonical="shared@mail.test", user=other,
                                 first_played_at=NOON)  # fmt: skip
    _taken(_client(key).post(START, format="json"))
    assert not Game.objects.filter(kind=Game.Kind.DAILY).exists()


# --- the honest side ---------------------------------------------------------------------


def test_a_player_changes_their_address_back_and_forth(make_user, claim, _clock):
    _, key = make_user("rover", email="", verified=False)
    assert claim(key, "home@mail.test").status_code == 200
    assert _start(key) == 201
    _clock.shift(timedelta(minutes=2))
    assert claim(key, "work@mail.test").status_code == 200
    _clock.shift(timedelta(minutes=2))
    assert claim(key, "Home+back@mail.test").status_code == 200  # its own, in a new spelling
    assert _start(key) == 200  # the same attempt, resumed
    assert RankedMailbox.objects.get().user.username == "rover"


def test_different_mailboxes_are_different_accounts(make_user, claim):
    for name, address in (
        ("dotted", "u.x@mail.test"),  # dots count outside gmail.com
        ("plain", "ux@mail.test"),
        ("other", "v@mail.test"),
        ("gmailer", "ux@gmail.com"),
        ("tagged", "u-x@mail.test"),
    ):
        _, key = make_user(name, email="", verified=False)
        assert claim(key, address).status_code == 200, address
        assert _start(key) == 201
    assert RankedMailbox.objects.count() == 5


# --- the data migration ------------------------------------------------------------------


def test_the_migration_keeps_each_mailbox_to_its_first_verified_account(make_user):
    from importlib import import_module

    migration = import_module("accounts.migrations.0006_mailbox")
    first, _ = make_user("first", email="ux@gmail.com")
    second, _ = make_user("second", email="u.x+1@gmail.com", verified=False)
    make_user("unverified", email="U.X@gmail.com", verified=False)
    # As rows were before the migration: no canonical form, so both verified.
    User.objects.update(email_canonical="")
    User.objects.filter(pk=second.pk).update(email_verified_at=NOON + timedelta(hours=1))
    User.objects.filter(pk=first.pk).update(email_verified_at=NOON)
    Game.objects.all().delete()
    migration._canonical_fill(live_apps, None)
    rows = {u.username: (u.email_canonical, u.email_verified_at is not None)
            for u in User.objects.all()}  # fmt: skip
    assert rows == {
        "first": ("ux@gmail.com", True),
        "second": ("ux@gmail.com", False),
        "unverified": ("ux@gmail.com", False),
    }


def test_the_migration_records_the_mailboxes_that_played_ranked(make_user):
    from importlib import import_module

    migration = import_module("accounts.migrations.0006_mailbox")
    _, key = make_user("veteran", email="Vet@mail.test")
    make_user("casual", email="casual@mail.test")
    assert _start(key) == 201
    RankedMailbox.objects.all().delete()
    migration._ranked_mailboxes_fill(live_apps, None)
    assert [(r.email_canonical, r.user.username) for r in RankedMailbox.objects.all()] == [
        ("vet@mail.test", "veteran")
    ]
