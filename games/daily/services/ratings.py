"""Daily challenge writes: the players' skill ratings (docs/daily.md, "Ratings"), updated by the
rating job from final boards, in date order, one draw at a time."""

from __future__ import annotations

import logging
import time
from bisect import bisect_left
from datetime import date, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from config.hooks import Hook
from games.daily import rating as rating_model
from games.daily.ranking import RANK_COLUMNS, game_rank_key, is_abort
from games.daily.rating import (
    IDLE_DAYS_OFF_BOARD,
    Skill,
    board_update,
    ranks_of,
    skill_after_idle,
)
from games.daily.services.badges import badges_recount
from games.models import (
    OFF_FINAL_BOARD,
    UNDER_REVIEW,
    DailyDeal,
    Game,
    Rating,
    RatingChange,
    RatingNotice,
    draw_boards,
)

logger = logging.getLogger("games.daily")

# Rows a bulk write sends per statement: well under PostgreSQL's 65,535 parameters.
_BATCH = 2000

# Have the rating job bring a draw's ratings up to date (`ratings_update(draw=, since=)`), outside
# the request, once the transaction commits: connected to games.tasks.ratings_queue.
ratings_queue: Hook[[int, date | None]] = Hook("games.daily.services.ratings.ratings_queue")


def ratings_update(*, draw: int, since: date | None = None, budget_s: float | None = None) -> int:
    """Bring a draw's ratings up to date with its final boards; returns how many boards it
    rated.

    The boards count in (date, mode) order. It rates every final board not rated yet and, when
    `since` is given (a review changed a final board of that day), every board from `since` on
    again. First, in one transaction, it rewinds: the changes of every rated board from the
    first stale one on are deleted and their players set back to their last change before
    them (a review opens each touched player's `RatingNotice` with the rating before). Then it
    rates the unrated boards one by one, each in a transaction of its own that also numbers
    the draw's leaderboard positions and counts the board's players' badges again, so a review
    a month back never needs one transaction longer than a board. With `budget_s`, it starts
    no board after that many seconds; the caller queues the rest (`ratings_pending`). The last
    board closes the draw's open notices.

    Each step takes the draw's lock: two runs never interleave, and a run that stops half-way
    leaves every board rated or not, never half. Idempotent, so the job can be retried
    (`acks_late`), and a killed run goes on where it stopped.
    """
    started = time.monotonic()
    with transaction.atomic():
        _draw_lock(draw)
        boards = DailyDeal.objects.filter(draw_boards(draw), finalized_at__isnull=False)
        stale = boards.filter(rated_at__isnull=True)
        if since is not None:
            stale = boards.filter(Q(rated_at__isnull=True) | Q(date__gte=since))
        first = stale.order_by("date", "mode").first()
        if first is None:
            return 0
        rewound = list(
            boards.filter(Q(date__gt=first.date) | Q(date=first.date, mode__gte=first.mode))
            .filter(rated_at__isnull=False)
            .order_by("date", "mode")
            .only("pk", "date", "mode")
        )
        if rewound:
            if since is not None:
                _notices_open(draw=draw, boards=rewound, reviewed_day=since)
            _ratings_rewind(draw=draw, boards=rewound)
            DailyDeal.objects.filter(pk__in=[b.pk for b in rewound]).update(rated_at=None)
    rated = 0
    while budget_s is None or time.monotonic() - started < budget_s:
        with transaction.atomic():
            _draw_lock(draw)
            unrated = DailyDeal.objects.filter(
                draw_boards(draw), finalized_at__isnull=False, rated_at__isnull=True
            ).order_by("date", "mode")
            board = unrated.only("pk", "date", "mode").first()
            if board is None:
                break
            _board_rate(board, draw=draw)
            _positions_number(draw, day=board.date)
            # After the ratings: a rating milestone is one of the badges.
            badges_recount(users=Game.objects.filter(daily=board).values("user_id"))
            if not unrated.exists():
                _notices_close(draw=draw)
            rated += 1
    logger.info("rated %d board(s) of draw %d from %s", rated, draw, first.date)
    return rated


def ratings_pending(draw: int) -> bool:
    """Whether a final board of the draw waits for its ratings (a run stopped by its budget)."""
    return DailyDeal.objects.filter(
        draw_boards(draw), finalized_at__isnull=False, rated_at__isnull=True
    ).exists()


def _notices_open(*, draw: int, boards: list[DailyDeal], reviewed_day: date) -> None:
    """Open a notice for every player the rewound boards rated, with their rating now; a
    player with an open notice keeps it, with the earlier day."""
    open_notices = RatingNotice.objects.filter(draw=draw, mu_after__isnull=True)
    open_notices.filter(reviewed_day__gt=reviewed_day).update(reviewed_day=reviewed_day)
    noticed = set(open_notices.values_list("user_id", flat=True))
    touched = Rating.objects.filter(
        draw=draw,
        user_id__in=RatingChange.objects.filter(daily__in=[b.pk for b in boards]).values("user_id"),
    )
    RatingNotice.objects.bulk_create(
        [
            RatingNotice(user_id=user_id, draw=draw, reviewed_day=reviewed_day, mu_before=mu)
            for user_id, mu in touched.values_list("user_id", "mu")
            if user_id not in noticed
        ],
        batch_size=_BATCH,
    )


def _notices_close(*, draw: int) -> None:
    """Close the draw's open notices with each player's rating now; delete those whose shown
    rating did not change, and those of players left with no rating."""
    ratings = dict(
        Rating.objects.filter(
            draw=draw,
            user_id__in=RatingNotice.objects.filter(draw=draw, mu_after__isnull=True).values(
                "user_id"
            ),
        ).values_list("user_id", "mu")
    )
    closed = []
    for notice in RatingNotice.objects.filter(draw=draw, mu_after__isnull=True):
        after = ratings.get(notice.user_id)
        if after is None or round(after) == round(notice.mu_before):
            notice.delete()
            continue
        notice.mu_after = after
        closed.append(notice)
    RatingNotice.objects.bulk_update(closed, ["mu_after"], batch_size=_BATCH)


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
    on conclusive evidence), those still under review, and aborts (`is_abort`: an attempt that
    never started neither gains nor gives rating, so resigning at once buys nobody anything)."""
    games = (
        Game.objects.filter(daily=board)
        .exclude(status=Game.Status.PLAYING)
        .exclude(OFF_FINAL_BOARD)
        .exclude(UNDER_REVIEW)
        .only("user_id", *RANK_COLUMNS)
    )
    keyed = [
        (game, game_rank_key(game))
        for game in games
        if not is_abort(
            won=game.status == Game.Status.WON, moves=game.moves, foundations=game.foundations
        )
    ]
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
        .only(*RANK_COLUMNS)
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


def _positions_number(draw: int, *, day: date) -> None:
    """Number the draw's established ratings 1, 2, 3, ... by rating (then user id), as of the
    board of `day`: those whose deviation is at most `rating.PROVISIONAL_SIGMA` and who played
    a board in the `IDLE_DAYS_OFF_BOARD` days to `day`. The position of the others is cleared;
    only rows whose position changes are written."""
    table = connection.ops.quote_name(Rating._meta.db_table)
    listed = "sigma <= %s AND last_board >= %s"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {table} SET position = numbered.place
            FROM (
                SELECT id, CASE WHEN {listed}
                    THEN ROW_NUMBER() OVER (
                        PARTITION BY {listed} ORDER BY mu DESC, user_id ASC)
                    END AS place
                FROM {table} WHERE draw = %s
            ) numbered
            WHERE {table}.id = numbered.id
              AND {table}.position IS DISTINCT FROM numbered.place
            """,
            [*_listed(day), *_listed(day), draw],
        )


def _listed(day: date) -> tuple[float, date]:
    """The parameters of "on the rating leaderboard as of `day`"."""
    return (rating_model.PROVISIONAL_SIGMA, day - timedelta(days=IDLE_DAYS_OFF_BOARD))
