"""The ranking order of a daily board, defined once (docs/api.md, "Ranking"), and the two
encodings derived from it: SQL for the ranking job and the board's pages, text for the live
ranks kept in Redis (`games.daily.live`).

Won games first; then the leaderboard score, higher first; then fewer moves; then shorter
time; then the earlier finish. Games equal on all five share a rank (1, 2, 2, 4); among them,
positions on a page follow the game id.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

# The key's last three fields, smaller first, as columns of the games table.
RANK_TIES = ("moves", "elapsed_ms", "finished_at")

# The text key's fields are fixed-width decimal numbers, so that its byte order is its order.
_SCORE_LIMIT = 1 << 32  # |leaderboard score| below this, as the SQL key's 32 bits hold it
_SCORE_DIGITS = 10
_MOVES_DIGITS = 10
_TIME_DIGITS = 13  # milliseconds
_FINISH_DIGITS = 17  # microseconds since 1970
_ID_DIGITS = 20
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def rank_key(
    *, won: bool, score: int | None, moves: int, elapsed_ms: int, finished_at: datetime
) -> tuple[int, int, int, int, datetime]:
    """A finished game's place in the ranking order: a smaller key ranks higher, and games
    with equal keys share a rank. A missing leaderboard score counts as 0.

    >>> at = datetime(2026, 12, 3, tzinfo=UTC)
    >>> rank_key(won=True, score=10, moves=99, elapsed_ms=1, finished_at=at) < rank_key(
    ...     won=False, score=900, moves=1, elapsed_ms=1, finished_at=at)
    True
    """
    return (0 if won else 1, -(score or 0), moves, elapsed_ms, finished_at)


def game_rank_fields(game: Any) -> dict[str, Any]:
    """The ranking order's fields of a finished game (a `games.models.Game`): the arguments of
    `rank_key` and `rank_key_text`. A finished game has both its time and its finish."""
    assert game.finished_at is not None and game.elapsed_ms is not None
    return {
        "won": game.status == "won",
        "score": game.leaderboard_score,
        "moves": game.moves,
        "elapsed_ms": game.elapsed_ms,
        "finished_at": game.finished_at,
    }


def game_rank_key(game: Any) -> tuple[int, int, int, int, datetime]:
    """`rank_key` of a finished game."""
    return rank_key(**game_rank_fields(game))


def rank_key_sql(*, won: str, score: str) -> str:
    """The key's first two fields from SQL expressions for "won" and the leaderboard score,
    packed into one exact bigint (1 bit and 32 bits) that sorts higher first: much faster to
    sort than two keys, in the same order as won DESC, COALESCE(score, 0) DESC. RANK_TIES
    follow, ascending."""
    return f"CASE WHEN {won} THEN 8589934592 ELSE 0 END + CAST(COALESCE({score}, 0) AS bigint)"


def rank_key_text(
    *, won: bool, score: int | None, moves: int, elapsed_ms: int, finished_at: datetime
) -> str:
    """`rank_key` as text whose byte order is the key's order (equal keys, equal texts): what
    Redis's lexicographic ranges compare.

    :raises ValueError: a figure outside the text's fixed widths.
    """
    _won, minus_score, moves, elapsed_ms, finished = rank_key(
        won=won, score=score, moves=moves, elapsed_ms=elapsed_ms, finished_at=finished_at
    )
    if not -_SCORE_LIMIT < minus_score < _SCORE_LIMIT:
        raise ValueError(f"a leaderboard score of {score} is out of the ranking's range")
    microseconds = (finished - _EPOCH) // timedelta(microseconds=1)
    fields = (
        (_won, 1),
        (minus_score + _SCORE_LIMIT, _SCORE_DIGITS),
        (moves, _MOVES_DIGITS),
        (elapsed_ms, _TIME_DIGITS),
        (microseconds, _FINISH_DIGITS),
    )
    for value, digits in fields:
        if not 0 <= value < 10**digits:
            raise ValueError(f"{value} does not fit the ranking key's {digits} digits")
    return "".join(f"{value:0{digits}d}" for value, digits in fields)


def rank_member_text(key_text: str, *, game_id: int) -> str:
    """A game's member of a board's sorted set: its key text, then its id (fixed width, so
    tied games lie in id order, as on the board's pages)."""
    return f"{key_text}:{game_id:0{_ID_DIGITS}d}"
