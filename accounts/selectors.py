"""Account reads."""

from __future__ import annotations

from django.utils.translation import gettext

from accounts.models import User
from config.errors import NotFoundError


def user_get_by_username(
    *, username: str, viewer: object = None, private_too: bool = False
) -> User:
    """The active user with this name, in any letter case; never a guest (a guest has no
    public profile), and a private profile only for its owner `viewer` (or `private_too`).

    :raises NotFoundError: no such active user, or a private one someone else asks for.
    """
    user = User.objects.filter(username__iexact=username, is_active=True, is_guest=False).first()
    hidden = user is not None and user.profile_private and not private_too
    if user is None or (hidden and not (isinstance(viewer, User) and viewer.pk == user.pk)):
        raise NotFoundError(gettext("No such player."))
    return user
