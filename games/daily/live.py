"""Live ranks between snapshots: one Redis sorted set per open board.

The database snapshot (`LeaderboardEntry`) stays the source of truth: everything here is
best effort, and a Redis error only means the API answers from the snapshot (and this process
leaves Redis alone for a few seconds: `config.cache.cache_failed`).

Ranking key (api.md): won first, then leaderboard score (higher first), fewer moves, shorter
time, earlier finish. A sorted-set score is a double, exact only below 2^53, so the first
three fields are packed into 37 bits of the score, and the last two into the member, which
Redis orders byte by byte among equal scores. Members are read highest first (ZREVRANGE), so
time and finish are stored inverted to put the smaller value first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings

from config.cache import CACHE_ERRORS, cache_failed, cache_paused

if TYPE_CHECKING:
    from games.models import Game

logger = logging.getLogger("games.daily")

_SCORE_OFFSET = 1 << 15  # leaderboard scores from -32768 to 32767
_MOVES_LIMIT = 1 << 20
_TIME_LIMIT = 10**12  # milliseconds; members hold 12-digit inverted numbers
_KEY = "lb:daily:{daily_id}"


def composite_score(*, won: bool, score: int | None, moves: int) -> int:
    """The sorted-set score of an entry: below 2^53, so a double holds it exactly.

    >>> won = composite_score(won=True, score=700, moves=120)
    >>> won > composite_score(won=False, score=900, moves=1)
    True
    """
    bounded_score = min(max(score or 0, -_SCORE_OFFSET), _SCORE_OFFSET - 1) + _SCORE_OFFSET
    bounded_moves = min(moves, _MOVES_LIMIT - 1)
    value = (int(won) << 36) | (bounded_score << 20) | (_MOVES_LIMIT - 1 - bounded_moves)
    assert value < 1 << 53
    return value


def member(*, elapsed_ms: int, finished_ms: int, game_id: int) -> str:
    """The sorted-set member: inverted time and finish, then the game id."""
    return (
        f"{_TIME_LIMIT - 1 - elapsed_ms:012d}:{_TIME_LIMIT * 10 - 1 - finished_ms:013d}:{game_id}"
    )


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


def _entry(game: Game) -> tuple[str, str, int]:
    """The board key, member and score of a finished ranked game."""
    assert game.finished_at is not None
    name = member(
        elapsed_ms=game.elapsed_ms or 0,
        finished_ms=int(game.finished_at.timestamp() * 1000),
        game_id=game.pk,
    )
    score = composite_score(
        won=game.status == "won", score=game.leaderboard_score, moves=game.moves
    )
    return _KEY.format(daily_id=game.daily_id), name, score


def _ranked(game_id: int) -> Game | None:
    from games.models import Game

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.daily_id is None or game.finished_at is None:
        return None
    return game


def live_rank_add(*, game_id: int) -> None:
    """Put a finished ranked game on its board's sorted set (idempotent), unless a reviewer
    confirmed it as cheating (an open board leaves out only those)."""
    from games.models import FlagReview

    if settings.EMBEDDED or cache_paused():
        return
    game = _ranked(game_id)
    if game is None or game.flag_review == FlagReview.CONFIRMED:
        return
    key, name, score = _entry(game)
    _on_redis(f"add game {game_id}", lambda client: client.zadd(key, {name: score}))


def live_rank_remove(*, game_id: int) -> None:
    """Take a ranked game off its board's sorted set (a reviewer confirmed it as cheating)."""
    if settings.EMBEDDED:
        return
    game = _ranked(game_id)
    if game is None:
        return
    key, name, _ = _entry(game)
    _on_redis(f"remove game {game_id}", lambda client: client.zrem(key, name), even_paused=True)


def live_rank(*, game: Game) -> tuple[int, int] | None:
    """(rank, players on the board) of a finished ranked game from the sorted set, or None
    when there is no Redis, the game is not on it, or Redis cannot answer."""
    if game.daily_id is None or game.finished_at is None:
        return None
    key, name, _ = _entry(game)

    def read(client: Any) -> Any:
        with client.pipeline(transaction=False) as pipe:
            return pipe.zrevrank(key, name).zcard(key).execute()

    answer = _on_redis(f"read board {game.daily_id}", read)
    if answer is None or answer[0] is None:
        return None
    position, count = answer
    return int(position) + 1, int(count)


def live_board_drop(*, daily_id: int) -> None:
    """Forget a final board's sorted set: the final snapshot answers from now on. Tried even
    while this process leaves Redis alone (the set has no expiry)."""
    key = _KEY.format(daily_id=daily_id)
    _on_redis(f"drop board {daily_id}", lambda client: client.delete(key), even_paused=True)
