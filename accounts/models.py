"""The user model. Custom from the first migration, so it can grow without a painful swap."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower

from accounts.validators import email_canonical


class User(AbstractUser):
    """A player. Usernames are unique regardless of case ("Alice" blocks "alice").

    A guest (`is_guest`) is the account behind a browser session that plays before signing
    up: an ordinary user row, so its games are ordinary games with move logs, without a
    password or a name of its own; signing up turns it into a real account in place
    (`accounts.services.user_register`). Guests play casual games only.
    """

    is_guest = models.BooleanField(default=False)
    # The language the player picked (a code of settings.LANGUAGES), "" until they pick one:
    # set again as the language cookie at sign-in, and the language of their e-mails.
    language = models.CharField(max_length=16, blank=True, default="")
    # When the owner of `email` opened its verification link; None until then, and again once
    # the address changes. Ranked daily play needs it (accounts.services, "E-mail address").
    email_verified_at = models.DateTimeField(null=True, blank=True)
    # The mailbox `email` is delivered to (`accounts.validators.email_canonical`), "" without
    # an address: what addresses are compared by. Kept with `email` by `save`.
    # (A database default too: a row inserted by hand, as the benchmarks seed players, has "".)
    email_canonical = models.CharField(
        max_length=320, blank=True, default="", db_default="", editable=False
    )
    # A private profile is the player's own: others get 404 for it, cannot follow the player,
    # and do not see them in their following views. Public boards still rank them.
    profile_private = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
            # A verified mailbox is one account's, in any of its spellings; unverified ones
            # may be shared (typed by anyone, they prove nothing).
            models.UniqueConstraint(
                fields=["email_canonical"],
                condition=Q(email_verified_at__isnull=False) & ~Q(email_canonical=""),
                name="accounts_user_verified_mailbox_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.username

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Saves the row, its `email_canonical` derived from `email` whenever that is saved:
        a derived column, kept here so that no path that writes an address (a service, the
        admin, `createsuperuser`) can leave it behind."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "email" in update_fields:
            self.email_canonical = email_canonical(self.email)
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "email_canonical"}
        super().save(*args, **kwargs)

    @property
    def email_verified(self) -> bool:
        """Whether the account's address is verified (ranked play needs it)."""
        return self.email_verified_at is not None


class Follow(models.Model):
    """One player following another: public, and needs no consent (as on lichess); a private
    profile hides its player from the follower's views instead."""

    # No index of their own: the unique (follower, followee) index serves the follower's
    # look-ups, and `accounts_follow_followee` counts followers.
    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="following_rows",
        db_index=False,
    )
    followee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="follower_rows",
        db_index=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["follower", "followee"], name="accounts_follow_follower_followee"
            ),
            models.CheckConstraint(
                condition=~Q(follower=F("followee")), name="accounts_follow_not_self"
            ),
        ]
        indexes = [models.Index(fields=["followee"], name="accounts_follow_followee")]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followee_id}"


class RankedMailbox(models.Model):
    """A mailbox (`User.email_canonical`) that verified an account which then started a ranked
    attempt: it stays that account's ranked identity. No other account may verify it, even
    once the first changes its address or is deleted (then it is nobody's: `user` is null)."""

    email_canonical = models.CharField(max_length=320, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    first_played_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.email_canonical} ranked for {self.user_id}"


class MailSent(models.Model):
    """An e-mail queued to a mailbox for an account: what the limits per mailbox and per
    (mailbox, account) count (`accounts.mail_limits`), the same for every process. Rows
    older than a day are deleted as new ones come."""

    class Kind(models.TextChoices):
        VERIFICATION = "verify"
        PASSWORD_RESET = "reset"

    email_canonical = models.CharField(max_length=320)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    sent_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["email_canonical", "sent_at"], name="accounts_mailsent_mailbox"),
            models.Index(fields=["sent_at"], name="accounts_mailsent_sent_at"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.email_canonical} for {self.user_id}"


class TokenDevice(models.Model):
    """The device an API token's login came from (`accounts.tokens.device_id`): where a ranked
    start without a browser cookie came from, for the integrity check's links. Deleted with
    its token."""

    token = models.OneToOneField(
        "knox.AuthToken", on_delete=models.CASCADE, primary_key=True, related_name="device"
    )
    device = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"device of token {self.token_id[:8]}"
