"""The user model. Custom from the first migration, so it can grow without a painful swap."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower


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
    # A private profile is the player's own: others get 404 for it, cannot follow the player,
    # and do not see them in their following views. Public boards still rank them.
    profile_private = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
            # A verified address is one account's, in any letter case; unverified ones may be
            # shared (typed by anyone, they prove nothing).
            models.UniqueConstraint(
                Lower("email"),
                condition=Q(email_verified_at__isnull=False),
                name="accounts_user_verified_email_ci_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.username

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
