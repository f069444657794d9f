"""Daily challenge writes: create the day's deals, start ranked attempts, rank, close.

Every write is one transaction; Celery tasks and Redis updates are sent after the commit.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.backends.utils import CursorWrapper
from django.utils import timezone
from django.utils.translation import gettext

from accounts.authentication import user_check_active
from accounts.models import User
from accounts.services import user_check_verified_email
from config.errors import ApplicationError
from config.hooks import Hook
from games import clock, engine
from games import services as game_services
from games.daily import live
from games.daily.errors import AlreadyPlayedError, DailyNotFoundError
from games.daily.ranking import RANK_TIES, rank_key_sql
from games.engine import solver
from games.models import (
    OFF_FINAL_BOARD,
    OFF_FINAL_BOARD_SQL,
    OFF_OPEN_BOARD_SQL,
    AttemptLink,
    AttemptOrigin,
    DailyDeal,
    DailyStreak,
    Game,
    LeaderboardEntry,
    LeaderboardSnapshot,
)

logger = logging.getLogger("games.daily")

# The jobs this layer has the task layer queue, after the commit (connected in `games.apps`):
# re-rank a board (`games.tasks.rank_daily`), check a finished ranked game
# (`games.tasks.check_game_integrity`).
rank_queue: Hook[[DailyDeal]] = Hook("games.daily.services.rank_queue")
integrity_check_queue: Hook[[int]] = Hook("games.daily.services.integrity_check_queue")

# How many candidate numbers to try before giving up on a day (each is one solver run).
MAX_CANDIDATES = 200


def daily_mode_check(mode: str) -> str:
    """The mode in upper case when it is a configured daily mode.

    :raises DailyNotFoundError: not one of settings.DAILY_MODES.
    """
    normalized = mode.upper()
    if normalized not in settings.DAILY_MODES:
        raise DailyNotFoundError(
            gettext("No daily challenge in mode %(mode)s; the modes are %(modes)s.")
            % {"mode": repr(mode), "modes": ", ".join(settings.DAILY_MODES)}
        )
    return normalized


def daily_first_candidate(*, day: date, mode: str) -> int:
    """The first deal number tried for a day and mode: HMAC(secret, "date|mode")."""
    digest = hmac.new(
        settings.DAILY_SECRET.encode(), f"{day.isoformat()}|{mode}".encode(), hashlib.sha256
    ).digest()
    return int.from_bytes(digest[:8], "big") % (engine.MAX_NUMBER + 1)


def daily_commitment(*, code: str, salt: str) -> str:
    """The public commitment to a daily deal: hex sha256 of "code|salt"."""
    return hashlib.sha256(f"{code}|{salt}".encode()).hexdigest()


def _winnable_deal(*, day: date, mode: str) -> tuple[int, list[str]]:
    """Step from the HMAC candidate to the first deal the solver proves winnable.

    Returns the deal number and the solver's winning line (its length is the par).
    """
    draw, preset = int(mode[1]), mode[2]
    number = daily_first_candidate(day=day, mode=mode)
    for _ in range(MAX_CANDIDATES):
        state = engine.GameState.from_code(str(engine.DealCode(draw, preset, number)))
        verdict = solver.solve(state, budget_s=settings.DAILY_SOLVE_BUDGET_S)
        if isinstance(verdict, solver.Solved):
            return number, [engine.format_action(a) for a in verdict.actions]
        number = (number + 1) % (engine.MAX_NUMBER + 1)
    raise ApplicationError(  # never seen in practice
        gettext("No winnable deal found for %(day)s %(mode)s.") % {"day": day, "mode": mode}
    )


def daily_deal_get_or_create(*, day: date, mode: str) -> DailyDeal:
    """The daily deal of `day` and `mode`, created (solver-proven winnable) when missing.

    Idempotent and race-safe: concurrent callers end with the same single row.

    :raises DailyNotFoundError: an unknown mode.
    """
    mode = daily_mode_check(mode)
    existing = DailyDeal.objects.filter(date=day, mode=mode).select_related("deal").first()
    if existing is not None:
        return existing
    number, solution = _winnable_deal(day=day, mode=mode)
    code = str(engine.DealCode(int(mode[1]), mode[2], number))
    salt = secrets.token_hex(16)
    try:
        with transaction.atomic():
            return DailyDeal.objects.create(
                date=day,
                mode=mode,
                deal=game_services.deal_get_or_create(number=number),
                salt=salt,
                commitment=daily_commitment(code=code, salt=salt),
                par=len(solution),
                solution="\n".join(solution),
            )
    except IntegrityError:
        return DailyDeal.objects.select_related("deal").get(date=day, mode=mode)


def daily_ensure(*, now: datetime | None = None) -> list[DailyDeal]:
    """Create today's and tomorrow's deals in every mode (the beat task's work)."""
    now = now or timezone.now()
    day = clock.today(now)
    return [
        daily_deal_get_or_create(day=d, mode=mode)
        for d in (day, day + timedelta(days=1))
        for mode in settings.DAILY_MODES
    ]


def daily_board_get(*, day: date, mode: str, now: datetime) -> DailyDeal:
    """A day's challenge in one mode, brought up to date on read so that embedded mode needs
    no beat: created on the spot while the day is open for starts, closed on the spot once
    its grace hour has passed.

    :raises DailyNotFoundError: an unknown mode, or no challenge that day.
    """
    mode = daily_mode_check(mode)
    if clock.accepts_starts(day, now):
        return daily_deal_get_or_create(day=day, mode=mode)
    daily = DailyDeal.objects.filter(date=day, mode=mode).select_related("deal").first()
    if daily is None:
        raise DailyNotFoundError(
            gettext("No daily challenge %(mode)s on %(day)s.") % {"mode": mode, "day": day}
        )
    if (
        not daily.is_final
        and clock.is_due_final(day, now)
        and daily_close(daily_id=daily.pk, now=now)
    ):
        daily.refresh_from_db()
    return daily


def daily_prepare(*, day: date, now: datetime) -> None:
    """Bring every board of a day up to date on read (see `daily_board_get`)."""
    for mode in settings.DAILY_MODES:
        try:
            daily_board_get(day=day, mode=mode, now=now)
        except DailyNotFoundError:
            continue  # a past day without that mode: nothing to show


def daily_start(
    *, user: User, day: date, mode: str, address: str | None = None, browser: str = ""
) -> tuple[Game, bool]:
    """Start (or resume) the user's ranked attempt on a daily deal.

    Returns the game and whether it was created now. The attempt is recorded when it starts,
    under a unique constraint on (user, daily deal), so reloading never gives a second one,
    with where it was started from (`address`, the client's; `browser`, its id cookie) for
    the integrity check. The deal is created (solved) outside any transaction, so no lock is
    held meanwhile.

    :raises AuthenticationFailed: the account was deactivated.
    :raises EmailUnverifiedError: the account has no verified e-mail address (a guest is
        refused with `account_required` instead).
    :raises DailyNotFoundError: unknown mode, or a day that is not open for starts.
    :raises AlreadyPlayedError: the user has finished their attempt.
    """
    user_check_active(user_id=user.pk)
    user_check_verified_email(user=user)
    mode = daily_mode_check(mode)
    now = timezone.now()
    if not clock.accepts_starts(day, now):
        raise DailyNotFoundError(
            gettext("The %(day)s challenges are not open for new attempts.") % {"day": day}
        )
    daily = daily_deal_get_or_create(day=day, mode=mode)
    game = _attempt(user=user, daily=daily)
    if game is not None:
        if game.is_over:
            raise AlreadyPlayedError(
                gettext("You have played this daily challenge: one ranked attempt per player."),
                game=game.pk,
            )
        return game, False
    rules = engine.Rules.from_preset(daily.draw, daily.preset)
    try:
        with transaction.atomic():
            game = game_services.game_create(
                user=user, deal=daily.deal, rules=rules, kind=Game.Kind.DAILY, daily=daily
            )
            AttemptOrigin.objects.create(
                game=game, daily=daily, address=address, browser=browser, created_at=now
            )
    except IntegrityError:
        # A concurrent request recorded the attempt first: answer with that one.
        game = _attempt(user=user, daily=daily)
        assert game is not None
        return game, False
    return game, True


def _attempt(*, user: User, daily: DailyDeal) -> Game | None:
    return Game.objects.filter(user=user, daily=daily).select_related("deal", "daily").first()


def daily_game_finished(game: Game, log: list[str]) -> None:
    """`games.services.game_ended`'s receiver (connected in `games.apps`): inside the
    transaction that ends a ranked attempt, with its whole log, count a win in its player's
    streak, and after the commit, update the live ranks and queue the integrity check and the
    ranking job. Other games are left alone."""
    if game.daily_id is None:
        return
    if game.status == Game.Status.WON:
        _streak_count_win(game)
    game_id = game.pk
    transaction.on_commit(lambda: live.live_rank_add(game_id=game_id))
    integrity_check_queue(game_id)
    assert game.daily is not None
    rank_queue(game.daily)


# A retired snapshot generation is kept this long after the swap that replaced it, so that a
# request that read the old pointer can still read its rows (gunicorn's timeout is 30 s).
SNAPSHOT_GRACE = timedelta(seconds=60)

# The ranking order (games.daily.ranking) in SQL, then the game id, which orders tied games'
# positions. (Also the order that games.daily.selectors searches a snapshot in.)
_RANK_ORDER = ", ".join(["k DESC", *(f"{column} ASC" for column in RANK_TIES)])
_ENTRY_COLUMNS = "id, snapshot_id, game_id, rank, position"


def _ranked_rows_sql(*, final: bool) -> str:
    """SELECT of a board's entries: RANK() and ROW_NUMBER() over its finished games, less
    those a reviewer confirmed as cheating and, on a final board, those withheld on
    conclusive evidence (games.models.OFF_FINAL_BOARD); the other flagged games stay, shown
    as under review.

    Both come from one window over the games sorted by the ranking rule and then by id, so
    tied games take consecutive positions in id order. (One window pass instead of two, one
    for RANK() and one for ROW_NUMBER() with the id as a last key: a tenth of the ranking's
    time at 1M. The window needs no sort of its own, and numbers its input rows in the order
    they come, which the sorted subquery sets; the tests pin the tie order.) The sort carries
    only the keys and the game id. The casts give each column the entry table's exact type,
    which a partition created from this SELECT must have.

    Parameters: the snapshot id (twice) and the board's id. `id` is snapshot << 32 | position.
    """
    return f"""
        SELECT CAST(%s * 4294967296 + position AS bigint) AS id,
               CAST(%s AS bigint) AS snapshot_id, game_id,
               CAST(rank AS integer) AS rank, CAST(position AS integer) AS position
        FROM (
            SELECT sorted.game_id, RANK() OVER w AS rank, ROW_NUMBER() OVER w AS position
            FROM (
                SELECT g.id AS game_id,
                       {rank_key_sql(won="g.status = 'won'", score="g.leaderboard_score")} AS k,
                       {", ".join(f"g.{column}" for column in RANK_TIES)}
                FROM {Game._meta.db_table} g
                WHERE g.daily_id = %s AND g.status <> 'playing'
                  AND NOT {OFF_FINAL_BOARD_SQL if final else OFF_OPEN_BOARD_SQL}
                ORDER BY {_RANK_ORDER}, game_id ASC
            ) sorted
            WINDOW w AS (ORDER BY {_RANK_ORDER})
        ) ranked
    """


# Planner settings for the statement that builds a PostgreSQL generation (_snapshot_build).
_RANKING_SETTINGS = (
    ("work_mem", "'256MB'"),
    ("jit", "off"),
    ("parallel_setup_cost", "0"),
    ("parallel_tuple_cost", "0.001"),
)


def _partition(snapshot_id: int) -> str:
    """The PostgreSQL partition that holds one snapshot generation."""
    return f"{LeaderboardEntry._meta.db_table}_s{int(snapshot_id)}"


def _partition_constraints_sql(cursor: CursorWrapper, *, snapshot_id: int) -> str:
    """The ALTER TABLE clauses that give a partition built by CREATE TABLE AS what ATTACH
    PARTITION requires: the entry table's NOT NULL columns and CHECK constraints (same names),
    and a CHECK on the snapshot id, which lets ATTACH skip its own validation scan. Read from
    the catalog, so they follow the migrations."""
    entry = LeaderboardEntry._meta.db_table
    q = connection.ops.quote_name
    cursor.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
        " AND NOT attisdropped AND attnotnull ORDER BY attnum",
        [entry],
    )
    clauses = [f"ALTER COLUMN {q(name)} SET NOT NULL" for (name,) in cursor.fetchall()]
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
        " WHERE conrelid = %s::regclass AND contype = 'c' ORDER BY conname",
        [entry],
    )
    clauses += [f"ADD CONSTRAINT {q(name)} {check}" for name, check in cursor.fetchall()]
    clauses.append(f"ADD CHECK (snapshot_id = {int(snapshot_id)})")
    return ", ".join(clauses)


def _snapshot_build(*, snapshot_id: int, daily_id: int, final: bool) -> int:
    """Write a board's new generation of entries; returns how many.

    On PostgreSQL the generation is a fresh table, created by CREATE TABLE ... AS from the
    ranking SELECT (which, unlike INSERT ... SELECT, may scan and sort the games in parallel
    workers, and checks no constraint row by row), then given the entry table's constraints
    in one validating pass, indexed (a sorted bulk build), and attached as the partition for
    `snapshot_id`. ATTACH takes only a SHARE UPDATE EXCLUSIVE lock on the parent: readers go
    on. Must run inside the transaction that swaps the board's pointer.
    """
    entry = LeaderboardEntry._meta.db_table
    params = [snapshot_id, snapshot_id, daily_id]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(
                f"INSERT INTO {entry} ({_ENTRY_COLUMNS}) {_ranked_rows_sql(final=final)}", params
            )
            return cursor.rowcount
        part = _partition(snapshot_id)
        # For the ranking statement only (reset below, as the closing transaction goes on):
        # a big board's sort in memory, not on disk (each parallel worker sorts its share
        # within this much: about 40 MB each at 1M); no JIT, whose compilation costs seconds
        # here; and a parallel scan and sort, which the default costs refuse for the million
        # rows the leader then merges, though it saved about 0.6 s of 3 at 1M
        # (docs/daily.md, "Snapshot generations").
        for name, value in _RANKING_SETTINGS:
            cursor.execute(f"SET LOCAL {name} = {value}")
        # The id is new, so a table of that name can only be debris (a flushed test database).
        cursor.execute(f"DROP TABLE IF EXISTS {part}")
        # Its rows are never updated or deleted, so autovacuum has nothing to clean up (the
        # anti-wraparound freeze still runs: PostgreSQL forces it whatever this setting says).
        cursor.execute(
            f"CREATE TABLE {part} WITH (autovacuum_enabled = off)"
            f" AS {_ranked_rows_sql(final=final)}",
            params,
        )
        count = cursor.rowcount
        for name, _ in _RANKING_SETTINGS:
            cursor.execute(f"SET LOCAL {name} TO DEFAULT")
        cursor.execute(
            f"ALTER TABLE {part} {_partition_constraints_sql(cursor, snapshot_id=snapshot_id)}"
        )
        # The parent's index, matched by definition when the partition is attached.
        cursor.execute(f"CREATE INDEX ON {part} (snapshot_id, position)")
        cursor.execute(
            f"ALTER TABLE {entry} ATTACH PARTITION {part} FOR VALUES IN ({int(snapshot_id)})"
        )
    return count


def daily_rank(*, daily_id: int) -> int:
    """Rank a board: build a new generation of its rank snapshot with set-based SQL (RANK()
    and ROW_NUMBER() window functions over its finished games, one bulk write; a final board
    leaves out games.models.OFF_FINAL_BOARD), then point the board at it, in one transaction.

    Readers follow the board's pointer, so they see the old snapshot or the new one, never a
    half-built one. Runs on the same board are serialized by a lock on the board's row (FOR NO
    KEY UPDATE, which does not hold up the starts that reference the board), so the later run
    ranks everything the earlier one saw. The replaced generation is retired and dropped after
    SNAPSHOT_GRACE, once this transaction has committed (`snapshots_drop_retired`).

    Idempotent: running it twice gives the same entries. Returns the number of entries.
    """
    with transaction.atomic():
        daily = DailyDeal.objects.select_for_update(no_key=True).filter(pk=daily_id).first()
        if daily is None:
            return 0
        snapshot = LeaderboardSnapshot.objects.create(daily=daily)
        count = _snapshot_build(snapshot_id=snapshot.pk, daily_id=daily_id, final=daily.is_final)
        now = timezone.now()
        LeaderboardSnapshot.objects.filter(daily=daily, retired_at__isnull=True).exclude(
            pk=snapshot.pk
        ).update(retired_at=now)
        DailyDeal.objects.filter(pk=daily_id).update(
            snapshot=snapshot, ranked_at=now, entries_count=count
        )
        transaction.on_commit(snapshots_drop_retired)
    return count


def snapshots_drop_retired(*, now: datetime | None = None) -> int:
    """Drop the snapshot generations retired more than SNAPSHOT_GRACE ago; returns how many.

    On PostgreSQL a generation is dropped as a whole partition (no dead rows to vacuum). That
    briefly locks the parent table, so it waits at most a second for readers: when it cannot
    have the lock, the generations stay for the next run.
    """
    now = now or timezone.now()
    stale = list(
        LeaderboardSnapshot.objects.filter(retired_at__lt=now - SNAPSHOT_GRACE).values_list(
            "pk", flat=True
        )
    )
    if not stale:
        return 0
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '1s'")
                    cursor.execute(f"DROP TABLE IF EXISTS {', '.join(map(_partition, stale))}")
            # Elsewhere this deletes the generations' entries (the foreign key's cascade).
            LeaderboardSnapshot.objects.filter(pk__in=stale).delete()
    except OperationalError:
        logger.warning("could not drop retired snapshots %s yet", stale, exc_info=True)
        return 0
    return len(stale)


def daily_close(*, daily_id: int, now: datetime | None = None) -> bool:
    """Make a board final once its grace hour has passed: record games still open as they
    stand (resigned), rank, update streaks, publish code and salt.

    Idempotent: a final board is left alone. Returns whether this call finalized it.
    """
    now = now or timezone.now()
    with transaction.atomic():
        daily = DailyDeal.objects.select_for_update().filter(pk=daily_id).first()
        if daily is None or daily.is_final or not clock.is_due_final(daily.date, now):
            return False
        for game in Game.objects.filter(daily=daily, status=Game.Status.PLAYING):
            game_services.game_finish_as_it_stands(game_id=game.pk)
        # Final first, so that the last ranking leaves out the withheld and confirmed games.
        daily.finalized_at = now
        daily.save(update_fields=["finalized_at"])
        daily_rank(daily_id=daily.pk)
        _streaks_update(daily=daily)
        origins_purge(now=now)
    transaction.on_commit(lambda: live.live_board_drop(daily_id=daily_id))
    logger.info("daily %s %s is final", daily.date, daily.mode)
    return True


def daily_close_due(*, now: datetime | None = None) -> int:
    """Close every board whose grace hour has passed (the beat task's work)."""
    now = now or timezone.now()
    cutoff = clock.today(now) - timedelta(days=1)
    due = DailyDeal.objects.filter(finalized_at__isnull=True, date__lte=cutoff)
    return sum(daily_close(daily_id=pk, now=now) for pk in due.values_list("pk", flat=True))


def _streak_count_win(game: Game) -> None:
    """A ranked win counts for its player's streak when it happens, not when its board closes.
    A win of a day before the player's last counted win (finished in the grace hour, after the
    next day's win) recounts the player's streak instead. Inside the game's transaction."""
    daily = game.daily
    assert daily is not None
    streak, _ = DailyStreak.objects.select_for_update().get_or_create(
        user_id=game.user_id, mode=daily.mode
    )
    if _streak_extend(streak, daily.date):
        streak.save(update_fields=["current", "longest", "last_win"])
    elif streak.last_win is not None and streak.last_win > daily.date:
        streak_recount(user_id=game.user_id, mode=daily.mode)


def _streak_extend(streak: DailyStreak, day: date) -> bool:
    """Count a win on `day` in `streak` (not saved): the current streak grows if the last win
    was the day before, else restarts at 1. False, and nothing changed, when a win on `day` or
    later is counted already."""
    if streak.last_win is not None and streak.last_win >= day:
        return False
    streak.current = streak.current + 1 if streak.last_win == day - timedelta(days=1) else 1
    streak.longest = max(streak.longest, streak.current)
    streak.last_win = day
    return True


def streak_recount(*, user_id: int, mode: str) -> None:
    """Count a player's streaks in a mode again from their ranked wins: the rare cases the
    running count cannot follow (a win out of order, a flag raised or cleared once a board is
    final). A win counts unless its board is final and leaves it out (OFF_FINAL_BOARD: a
    reviewer confirmed it, or conclusive evidence nobody cleared); the current streak ends
    when a board after the last win is final."""
    wins = sorted(
        Game.objects.filter(user_id=user_id, daily__mode=mode, status=Game.Status.WON)
        .exclude(OFF_FINAL_BOARD, daily__finalized_at__isnull=False)
        .values_list("daily__date", flat=True)
    )
    longest = run = 0
    for i, day in enumerate(wins):
        run = run + 1 if i and day - wins[i - 1] == timedelta(days=1) else 1
        longest = max(longest, run)
    last = wins[-1] if wins else None
    broken = (
        last is None
        or DailyDeal.objects.filter(
            mode=mode, date=last + timedelta(days=1), finalized_at__isnull=False
        ).exists()
    )
    DailyStreak.objects.update_or_create(
        user_id=user_id,
        mode=mode,
        defaults={"current": 0 if broken else run, "longest": longest, "last_win": last},
    )


def _streaks_update(*, daily: DailyDeal) -> None:
    """End every streak in the mode whose player did not win this board; extend the streaks of
    its winners not counted yet (`_streak_count_win` counts a win when it happens); count again
    the players whose win here the final board leaves out (it no longer counts).

    Must run inside the closing transaction, once per board.
    """
    winners = set(
        Game.objects.filter(daily=daily, status=Game.Status.WON)
        .exclude(OFF_FINAL_BOARD)
        .values_list("user_id", flat=True)
    )
    DailyStreak.objects.filter(mode=daily.mode, current__gt=0).exclude(user_id__in=winners).exclude(
        last_win__gte=daily.date
    ).update(current=0)
    existing = {
        s.user_id: s for s in DailyStreak.objects.filter(mode=daily.mode, user_id__in=winners)
    }
    changed = []
    for user_id in winners:
        streak = existing.get(user_id)
        if streak is None:
            existing[user_id] = DailyStreak(user_id=user_id, mode=daily.mode)
            streak = existing[user_id]
        if _streak_extend(streak, daily.date):  # else counted when it was won
            changed.append(streak)
    DailyStreak.objects.bulk_create(
        changed,
        update_conflicts=True,
        unique_fields=["user", "mode"],
        update_fields=["current", "longest", "last_win"],
    )
    withheld = Game.objects.filter(OFF_FINAL_BOARD, daily=daily, status=Game.Status.WON)
    for user_id in withheld.values_list("user_id", flat=True):
        streak_recount(user_id=user_id, mode=daily.mode)


# How long the origin of a ranked attempt (client address, browser id) is kept.
ORIGIN_RETENTION = timedelta(days=30)


def origins_purge(*, now: datetime | None = None) -> int:
    """Delete the origins of ranked attempts older than ORIGIN_RETENTION, and the links the
    integrity check found between them; returns how many origins."""
    now = now or timezone.now()
    AttemptLink.objects.filter(created_at__lt=now - ORIGIN_RETENTION).delete()
    deleted, _ = AttemptOrigin.objects.filter(created_at__lt=now - ORIGIN_RETENTION).delete()
    return deleted
