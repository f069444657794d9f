"""The ranking order of a daily board, defined once (docs/api.md, "Ranking"), and the two
encodings derived from it: SQL for the ranking job and the board's pages, text for the live
ranks kept in Redis (`games.daily.live`).

Won games first, aborts last (`is_abort`: an attempt given up within a few moves with no
card on a foundation, which never started, as lichess calls it); then the leaderboard score,
higher first; then fewer moves; then shorter time; then the earlier finish. Games equal on all
of them share a rank (1, 2, 2, 4); among them, positions on a page follow the game id.
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

# An attempt that ended with fewer moves than this (draws and undos count) and no card on a
# foundation is an abort: it ranks below every entry that played and counts for no rating.
ABORT_MOVES = 10


def is_abort(*, won: bool, moves: int, foundations: int) -> bool:
    """Whether a finished attempt never started (`ABORT_MOVES`).

    >>> is_abort(won=False, moves=3, foundations=0), is_abort(won=False, moves=3, foundations=1)
    (True, False)
    """
    return not won and moves < ABORT_MOVES and foundations == 0


def rank_key(
    *,
    won: bool,
    score: int | None,
    moves: int,
    foundations: int,
    elapsed_ms: int,
    finished_at: datetime,
) -> tuple[int, int, int, int, datetime]:
    """A finished game's place in the ranking order: a smaller key ranks higher, and games
    with equal keys share a rank. A missing leaderboard score counts as 0.

    >>> at = datetime(2026, 12, 3, tzinfo=UTC)
    >>> rank_key(won=True, score=10, moves=99, foundations=52, elapsed_ms=1, finished_at=at) < (
    ...     rank_key(won=False, score=900, moves=1, foundations=1, elapsed_ms=1, finished_at=at))
    True
    """
    part = 0 if won else 2 if is_abort(won=won, moves=moves, foundations=foundations) else 1
    return (part, -(score or 0), moves, elapsed_ms, finished_at)


# The games table's columns `game_rank_fields` reads: what a query that ranks games loads.
RANK_COLUMNS = ("status", "leaderboard_score", "moves", "foundations", "elapsed_ms", "finished_at")


def game_rank_fields(game: Any) -> dict[str, Any]:
    """The ranking order's fields of a finished game (a `games.models.Game`): the arguments of
    `rank_key` and `rank_key_text`. A finished game has both its time and its finish."""
    assert game.finished_at is not None and game.elapsed_ms is not None
    return {
        "won": game.status == "won",
        "score": game.leaderboard_score,
        "moves": game.moves,
        "foundations": game.foundations,
        "elapsed_ms": game.elapsed_ms,
        "finished_at": game.finished_at,
    }


def game_rank_key(game: Any) -> tuple[int, int, int, int, datetime]:
    """`rank_key` of a finished game."""
    return rank_key(**game_rank_fields(game))


def rank_key_sql(table: str) -> str:
    """The key's first two fields for the games row `table` (an alias), packed into one exact
    bigint that sorts higher first: won, played or aborted (2^33 apart) plus the leaderboard
    score (below 2^32). Much faster to sort than two keys, in the same order as the key's
    first two fields. RANK_TIES follow, ascending."""
    won = f"{table}.status = 'won'"
    aborted = f"{table}.moves < {ABORT_MOVES} AND {table}.foundations = 0"
    part = f"CASE WHEN {won} THEN 8589934592 WHEN {aborted} THEN -8589934592 ELSE 0 END"
    return f"{part} + CAST(COALESCE({table}.leaderboard_score, 0) AS bigint)"


def rank_key_text(
    *,
    won: bool,
    score: int | None,
    moves: int,
    foundations: int,
    elapsed_ms: int,
    finished_at: datetime,
) -> str:
    """`rank_key` as text whose byte order is the key's order (equal keys, equal texts): what
    Redis's lexicographic ranges compare.

    :raises ValueError: a figure outside the text's fixed widths.
    """
    part, minus_score, moves, elapsed_ms, finished = rank_key(
        won=won,
        score=score,
        moves=moves,
        foundations=foundations,
        elapsed_ms=elapsed_ms,
        finished_at=finished_at,
    )
    if not -_SCORE_LIMIT < minus_score < _SCORE_LIMIT:
        raise ValueError(f"a leaderboard score of {score} is out of the ranking's range")
    microseconds = (finished - _EPOCH) // timedelta(microseconds=1)
    fields = (
        (part, 1),
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
