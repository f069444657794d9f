"""Daily challenge writes: the players' skill ratings (docs/daily.md, "Ratings"), updated by the
rating job from final boards, in date order, one draw at a time."""

from __future__ import annotations

import logging
from bisect import bisect_left
from datetime import date
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from config.hooks import Hook
from games.daily.ranking import game_rank_key
from games.daily.rating import PROVISIONAL_BOARDS, Skill, board_update, ranks_of, skill_after_idle
from games.daily.services.badges import badges_recount
from games.models import (
    OFF_FINAL_BOARD,
    UNDER_REVIEW,
    DailyDeal,
    Game,
    Rating,
    RatingChange,
    draw_boards,
)

logger = logging.getLogger("games.daily")

# Rows a bulk write sends per statement: well under PostgreSQL's 65,535 parameters.
_BATCH = 2000

# Have the rating job bring a draw's ratings up to date (`ratings_update(draw=, since=)`), outside
# the request, once the transaction commits: connected to games.tasks.ratings_queue.
ratings_queue: Hook[[int, date | None]] = Hook("games.daily.services.ratings.ratings_queue")


def ratings_update(*, draw: int, since: date | None = None) -> int:
    """Bring a draw's ratings up to date with its final boards; returns how many boards it
    rated.

    The boards count in (date, mode) order. It rates every final board not rated yet and, when
    `since` is given (a review changed a final board of that day), every board from `since` on
    again: their changes are deleted, each player's rating goes back to what it was before
    them, and they are rated anew. Then it numbers the draw's established ratings, and counts
    the badges of the boards' players again (`badges_recount`).

    One transaction, with the draw's lock: two runs never interleave, and a run that stops
    half-way leaves nothing. Idempotent, so the job can be retried (`acks_late`).
    """
    with transaction.atomic():
        _draw_lock(draw)
        boards = DailyDeal.objects.filter(draw_boards(draw), finalized_at__isnull=False)
        stale = boards.filter(rated_at__isnull=True)
        if since is not None:
            stale = boards.filter(Q(rated_at__isnull=True) | Q(date__gte=since))
        first = stale.order_by("date", "mode").first()
        if first is None:
            return 0
        redo = list(
            boards.filter(Q(date__gt=first.date) | Q(date=first.date, mode__gte=first.mode))
            .order_by("date", "mode")
            .only("pk", "date", "mode")
        )
        _ratings_rewind(draw=draw, boards=redo)
        for board in redo:
            _board_rate(board, draw=draw)
        _positions_number(draw)
        # After the ratings: a rating milestone is one of the badges.
        badges_recount(users=Game.objects.filter(daily__in=[b.pk for b in redo]).values("user_id"))
    logger.info("rated %d board(s) of draw %d from %s", len(redo), draw, first.date)
    return len(redo)


_LOCK_SPACE = 0x72617469  # "rati": the advisory locks of the rating runs, one per draw


def draws_unrated() -> list[int]:
    """The draws with a final board that has not rated its players yet."""
    modes = DailyDeal.objects.filter(finalized_at__isnull=False, rated_at__isnull=True)
    return sorted({int(mode[1]) for mode in modes.values_list("mode", flat=True).distinct()})


def _draw_lock(draw: int) -> None:
    """Serialize rating runs of one draw until the transaction ends (SQLite serializes every
    write anyway)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_SPACE, draw])


def _ratings_rewind(*, draw: int, boards: list[DailyDeal]) -> None:
    """Undo what `boards` did to the draw's ratings: delete their changes, and set every player
    they rated back to their last change before them (or to no rating at all)."""
    changes = RatingChange.objects.filter(daily__in=[b.pk for b in boards])
    touched = Rating.objects.filter(draw=draw, user_id__in=changes.values("user_id"))
    if not changes.exists():
        return
    users = list(touched.values_list("user_id", flat=True))
    changes.delete()
    for start in range(0, len(users), _BATCH):
        batch = users[start : start + _BATCH]
        Rating.objects.filter(draw=draw, user_id__in=batch).delete()
        latest = (
            RatingChange.objects.filter(draw=draw, user_id__in=batch)
            .order_by("user_id", "-date", "-daily__mode")
            .values("user_id", "mu_after", "sigma_after", "boards", "date")
        )
        restored: dict[int, Rating] = {}
        for row in latest:
            if row["user_id"] not in restored:  # the first row per user is their latest
                restored[row["user_id"]] = Rating(
                    user_id=row["user_id"],
                    draw=draw,
                    mu=row["mu_after"],
                    sigma=row["sigma_after"],
                    boards=row["boards"],
                    last_board=row["date"],
                )
        Rating.objects.bulk_create(restored.values(), batch_size=_BATCH)


def counted_entries(board: DailyDeal) -> list[tuple[Game, tuple[Any, ...]]]:
    """The entries of a final board that count for ratings, with their ranking keys, in
    ranking order: its finished games but those off the final board (confirmed, or withheld
    on conclusive evidence) and those still under review."""
    games = (
        Game.objects.filter(daily=board)
        .exclude(status=Game.Status.PLAYING)
        .exclude(OFF_FINAL_BOARD)
        .exclude(UNDER_REVIEW)
        .only("user_id", "status", "leaderboard_score", "moves", "elapsed_ms", "finished_at")
    )
    keyed = [(game, game_rank_key(game)) for game in games]
    keyed.sort(key=lambda entry: (entry[1], entry[0].pk))
    return keyed


def board_places(board: DailyDeal, entries: list[tuple[Game, tuple[Any, ...]]]) -> list[int]:
    """The rank each of a final board's counted `entries` (`counted_entries`, in order) has on
    the board as it shows: among all its entries, those still under review too, so that the
    rating history, the board, `me` and the calendar say one rank (docs/daily.md, "Ratings")."""
    reviewed = sorted(
        game_rank_key(game)
        for game in Game.objects.filter(UNDER_REVIEW, daily=board)
        .exclude(status=Game.Status.PLAYING)
        .exclude(OFF_FINAL_BOARD)
        .only("status", "leaderboard_score", "moves", "elapsed_ms", "finished_at")
    )
    keys = [key for _, key in entries]
    return [bisect_left(keys, key) + bisect_left(reviewed, key) + 1 for key in keys]


def _board_difficulty(entries: list[tuple[Game, tuple[Any, ...]]]) -> dict[str, int]:
    """A rated board's difficulty as its final board shows it: its counted entries, and how
    many of them won."""
    wins = sum(game.status == Game.Status.WON for game, _ in entries)
    return {"counted_entries": len(entries), "counted_wins": wins}


def _board_rate(board: DailyDeal, *, draw: int) -> None:
    """Rate one final board as one free-for-all match of its counted entries, ranked as on the
    board (ties as ties), and record every player's change."""
    entries = counted_entries(board)
    ranks = ranks_of([key for _, key in entries])
    current = {
        r.user_id: r
        for r in Rating.objects.filter(
            draw=draw,
            user_id__in=Game.objects.filter(daily=board).values("user_id"),
        )
    }
    before: list[Skill] = []
    for game, _ in entries:
        rating = current.get(game.user_id)
        skill = Skill() if rating is None else Skill(rating.mu, rating.sigma)
        last = None if rating is None else rating.last_board
        before.append(skill_after_idle(skill, last_board=last, day=board.date))
    after = board_update(before, ranks)
    ratings, changes = [], []
    places = board_places(board, entries)
    for (game, _), rank, old, new in zip(entries, places, before, after, strict=True):
        user_id = game.user_id
        rating = current.get(user_id)
        boards = (rating.boards if rating is not None else 0) + 1
        ratings.append(
            Rating(
                user_id=user_id,
                draw=draw,
                mu=new.mu,
                sigma=new.sigma,
                boards=boards,
                last_board=board.date,
            )
        )
        changes.append(
            RatingChange(
                user_id=user_id,
                daily_id=board.pk,
                draw=draw,
                date=board.date,
                rank=rank,
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                boards=boards,
            )
        )
    Rating.objects.bulk_create(
        ratings,
        batch_size=_BATCH,
        update_conflicts=True,
        unique_fields=["user", "draw"],
        update_fields=["mu", "sigma", "boards", "last_board"],
    )
    RatingChange.objects.bulk_create(changes, batch_size=_BATCH)
    DailyDeal.objects.filter(pk=board.pk).update(
        rated_at=timezone.now(), **_board_difficulty(entries)
    )


def _positions_number(draw: int) -> None:
    """Number the draw's established ratings 1, 2, 3, ... by rating (then user id), and clear
    the position of provisional ones; only rows whose position changes are written."""
    table = connection.ops.quote_name(Rating._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {table} SET position = numbered.place
            FROM (
                SELECT id, CASE WHEN boards >= %s
                    THEN ROW_NUMBER() OVER (
                        PARTITION BY boards >= %s ORDER BY mu DESC, user_id ASC)
                    END AS place
                FROM {table} WHERE draw = %s
            ) numbered
            WHERE {table}.id = numbered.id
              AND {table}.position IS DISTINCT FROM numbered.place
            """,
            [PROVISIONAL_BOARDS, PROVISIONAL_BOARDS, draw],
        )
