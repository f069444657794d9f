"""The daily page's offer of a verification link when a ranked start needs a verified address,
and the page of the link itself."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tests.e2e.conftest import sign_up

pytestmark = pytest.mark.e2e


def _start_ranked(page: Any) -> None:
    page.goto("/daily")
    page.click('[data-mode="D1N"] [data-start]')
    page.click("dialog[open] [data-confirm]")


def test_an_unverified_player_is_offered_the_link_and_then_plays_ranked(page: Any) -> None:
    from django.conf import settings
    from django.core import mail

    from accounts.models import User
    from accounts.services import email_verification_token_generator
    from games.models import Game

    name = sign_up(page, verified=False)
    _start_ranked(page)
    offer = page.wait_for_selector("[data-verify-offer]:not([hidden])")
    assert "verified e-mail address" in offer.inner_text()  # the server's own explanation
    assert not Game.objects.filter(kind=Game.Kind.DAILY).exists()
    # The account has no address: the offer asks for one, labelled, and has it in focus.
    assert page.evaluate("document.activeElement.id") == "verify-email"
    assert page.inner_text("label[for=verify-email]") == "Your e-mail address"
    page.fill("#verify-email", f"{name}@example.com")
    page.click("[data-verify-offer] button >> text=Send me the link")
    page.wait_for_selector(f"[data-verify-status] >> text=on its way to {name}@example.com")
    user = User.objects.get(username=name)
    assert (user.email, user.email_verified_at) == (f"{name}@example.com", None)
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):  # the scaled run has no worker
        assert [m.to for m in mail.outbox] == [[f"{name}@example.com"]]

    # The link's page verifies the address when asked.
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = email_verification_token_generator.make_token(user)
    page.goto(f"/verify-email/{uid}/{token}")
    page.click("[data-verify-form] button[type=submit]")
    page.wait_for_selector("[data-verify-done]:not([hidden])")
    assert User.objects.get(pk=user.pk).email_verified_at is not None

    _start_ranked(page)
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")


def test_a_used_link_says_so(page: Any) -> None:
    from accounts.models import User

    name = sign_up(page)  # verified: its link was used
    user = User.objects.get(username=name)
    page.goto(f"/verify-email/{urlsafe_base64_encode(force_bytes(user.pk))}/abc-123")
    page.click("[data-verify-form] button[type=submit]")
    error = page.wait_for_selector("[data-verify-form] [data-error]:not([hidden])")
    assert "invalid, used or expired" in error.inner_text()
    assert page.locator("[data-verify-done]").is_hidden()
