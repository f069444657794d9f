"""Account reads."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from config.api import NotFoundError
from games.selectors import user_game_stats, user_streaks


def user_get_by_username(*, username: str) -> User:
    """The active user with this name, in any letter case.

    :raises NotFoundError: no such active user.
    """
    user = User.objects.filter(username__iexact=username, is_active=True).first()
    if user is None:
        raise NotFoundError("No such player.")
    return user


def user_stats(*, user: User) -> dict[str, Any]:
    """A player's statistics: games played and won, win rate, bests, per mode, and streaks.

    Zeros and nulls until the player has finished games.
    """
    return {**user_game_stats(user=user), "streaks": user_streaks(user=user)}
