"""Following other players, and the privacy that hides a player from it (docs/api.md,
"Following"): writes and reads of `Follow` and `User.profile_private`."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext, ngettext

from accounts.errors import AccountRequiredError, FollowRefusedError
from accounts.models import Follow, User
from accounts.selectors import user_get_by_username

# How many players one player may follow: a following view reads them all.
FOLLOWING_LIMIT = 1000


def user_follow(*, follower: User, username: str) -> User:
    """`follower` follows the player named `username`; following them again changes nothing.
    Returns the player followed.

    :raises AccountRequiredError: `follower` is a guest.
    :raises NotFoundError: no such player, or one whose profile is private.
    :raises FollowRefusedError: oneself, or FOLLOWING_LIMIT players followed already.
    """
    if follower.is_guest:
        raise AccountRequiredError(gettext("Sign up first: guests do not follow players."))
    followee = user_get_by_username(username=username, viewer=follower)
    if followee.pk == follower.pk:
        message = gettext("You cannot follow yourself.")
        raise FollowRefusedError(message, fields={"username": [message]})
    with transaction.atomic():
        # The follower's row, locked: two requests at once cannot both pass the limit.
        User.objects.select_for_update().filter(pk=follower.pk).first()
        if Follow.objects.filter(follower=follower, followee=followee).exists():
            return followee
        if Follow.objects.filter(follower=follower).count() >= FOLLOWING_LIMIT:
            message = ngettext(
                "You follow %(limit)s player already: the most one may follow.",
                "You follow %(limit)s players already: the most one may follow.",
                FOLLOWING_LIMIT,
            ) % {"limit": FOLLOWING_LIMIT}
            raise FollowRefusedError(message, fields={"username": [message]})
        try:
            with transaction.atomic():
                Follow.objects.create(follower=follower, followee=followee)
        except IntegrityError:
            pass  # followed by a request at the same time: the same outcome
    return followee


def user_unfollow(*, follower: User, username: str) -> None:
    """`follower` no longer follows the player named `username` (nothing if they did not).
    A private profile is let go too, but answered as an unknown player is: the answer must
    not tell that the name has an account.

    :raises NotFoundError: no such player, or one whose profile is private (someone else's).
    """
    followee = user_get_by_username(username=username, viewer=None, private_too=True)
    Follow.objects.filter(follower=follower, followee=followee).delete()
    if followee.profile_private and followee.pk != follower.pk:
        user_get_by_username(username=username, viewer=follower)  # raises as for no player


def user_privacy_set(*, user: User, private: bool) -> User:
    """Make the player's profile private (hidden from others) or public again."""
    User.objects.filter(pk=user.pk).update(profile_private=private)
    user.profile_private = private
    return user


def following_ids(*, user: User) -> list[int]:
    """The player and the players they follow whom a following view shows: active, public,
    not guests. The player first."""
    followed = Follow.objects.filter(
        follower=user,
        followee__is_active=True,
        followee__is_guest=False,
        followee__profile_private=False,
    ).values_list("followee_id", flat=True)
    return [user.pk, *followed]


def user_following(*, user: User) -> list[dict[str, Any]]:
    """Whom the player follows (those a following view shows), oldest first."""
    rows = (
        Follow.objects.filter(
            follower=user,
            followee__is_active=True,
            followee__is_guest=False,
            followee__profile_private=False,
        )
        .select_related("followee")
        .order_by("created_at", "id")
    )
    return [{"user": row.followee.username, "since": row.created_at} for row in rows]


def follow_counts(*, user: User, viewer: User | None) -> dict[str, Any]:
    """A profile's following figures: how many follow the player and whom they follow (public
    players only), and whether `viewer` follows them (None for a visitor or the player)."""
    public = {"is_active": True, "is_guest": False, "profile_private": False}
    followers = Follow.objects.filter(
        followee=user, **{f"follower__{k}": v for k, v in public.items()}
    )
    following = Follow.objects.filter(
        follower=user, **{f"followee__{k}": v for k, v in public.items()}
    )
    followed = None
    if viewer is not None and viewer.pk != user.pk:
        followed = Follow.objects.filter(follower=viewer, followee=user).exists()
    return {"followers": followers.count(), "following": following.count(), "followed": followed}
