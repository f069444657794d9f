"""Live ranks between generations: one Redis sorted set per open board.

The board's ranking generation in the database (`LeaderboardEntry`) stays the source of truth:
everything here is best effort, and a Redis error only means the API answers from the
generation (and this process leaves Redis alone for a few seconds: `config.cache.cache_failed`).

Every member has the score 0 and is the game's ranking key as text, then its id
(`games.daily.ranking`): Redis orders members of equal scores byte by byte, so the set lies in
ranking order, and a game's rank is 1 + the number of members whose key text is smaller
(ZLEXCOUNT), which gives tied games one rank, as the generation's RANK() does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings

from config.cache import CACHE_ERRORS, cache_failed, cache_paused
from games.daily.ranking import game_rank_fields, rank_key_text, rank_member_text

if TYPE_CHECKING:
    from games.models import Game

logger = logging.getLogger("games.daily")

# v2: the lexicographic set; a board's set of the older encoding is dropped with it.
_KEY = "lb:daily:v2:{daily_id}"
_OLD_KEY = "lb:daily:{daily_id}"


def _on_redis(what: str, call: Callable[[Any], Any], *, even_paused: bool = False) -> Any:
    """`call(client)` on the cache's Redis, and its answer; None in embedded mode, while this
    process leaves the cache alone after an error (unless `even_paused`), or when anything
    fails, the connection included: Redis is an accelerator here, never a dependency."""
    if settings.EMBEDDED or (cache_paused() and not even_paused):
        return None
    try:
        from django_redis import get_redis_connection

        return call(get_redis_connection("default"))
    except CACHE_ERRORS:
        cache_failed(f"live rank: {what}")
    except Exception:
        logger.warning("live rank: could not %s", what, exc_info=True)
    return None


def _entry(game: Game) -> tuple[str, str, str]:
    """The board key, the key text and the member of a finished ranked game."""
    key_text = rank_key_text(**game_rank_fields(game))
    member = rank_member_text(key_text, game_id=game.pk)
    return _KEY.format(daily_id=game.daily_id), key_text, member


def _ranked(game_id: int) -> Game | None:
    from games.models import Game

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.daily_id is None or game.finished_at is None:
        return None
    return game


def live_rank_add(*, game_id: int) -> None:
    """Put a finished ranked game on its board's sorted set (idempotent), unless its board
    leaves it out (`games.models.OFF_FINAL_BOARD`, open board or final: confirmed, or withheld
    on conclusive evidence that nobody has cleared)."""
    if settings.EMBEDDED or cache_paused():
        return
    game = _ranked(game_id)
    if game is None or game.off_final_board:
        return
    key, _, name = _entry(game)
    _on_redis(f"add game {game_id}", lambda client: client.zadd(key, {name: 0}))


def live_rank_remove(*, game_id: int) -> None:
    """Take a ranked game off its board's sorted set (a reviewer confirmed it as cheating, or
    conclusive evidence withheld it)."""
    if settings.EMBEDDED:
        return
    game = _ranked(game_id)
    if game is None:
        return
    key, _, name = _entry(game)
    _on_redis(f"remove game {game_id}", lambda client: client.zrem(key, name), even_paused=True)


def live_rank(*, game: Game) -> tuple[int, int] | None:
    """(rank, players on the board) of a finished ranked game from the sorted set, or None
    when there is no Redis, the game is not on it, or Redis cannot answer. Tied games share
    a rank, as on the generation."""
    if game.daily_id is None or game.finished_at is None or game.elapsed_ms is None:
        return None
    key, key_text, name = _entry(game)

    def read(client: Any) -> Any:
        with client.pipeline(transaction=False) as pipe:
            pipe.zscore(key, name).zlexcount(key, "-", f"({key_text}").zcard(key)
            return pipe.execute()

    answer = _on_redis(f"read board {game.daily_id}", read)
    if answer is None or answer[0] is None:
        return None
    _, ahead, count = answer
    return int(ahead) + 1, int(count)


def live_board_drop(*, daily_id: int) -> None:
    """Forget a final board's sorted set: the final generation answers from now on. Tried even
    while this process leaves Redis alone (the set has no expiry)."""
    keys = (_KEY.format(daily_id=daily_id), _OLD_KEY.format(daily_id=daily_id))
    _on_redis(f"drop board {daily_id}", lambda client: client.delete(*keys), even_paused=True)
