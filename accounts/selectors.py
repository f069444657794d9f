"""Account reads."""

from __future__ import annotations

from django.utils.translation import gettext

from accounts.models import User
from config.errors import NotFoundError


def user_get_by_username(*, username: str) -> User:
    """The active user with this name, in any letter case; never a guest (a guest has no
    public profile).

    :raises NotFoundError: no such active user.
    """
    user = User.objects.filter(username__iexact=username, is_active=True, is_guest=False).first()
    if user is None:
        raise NotFoundError(gettext("No such player."))
    return user
