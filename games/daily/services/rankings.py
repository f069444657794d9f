"""Daily challenge writes: a board's ranking generations (docs/daily.md, "Ranking
generations"), built by one window-function query, swapped in, and dropped once retired."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import OperationalError, connection, transaction
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from games.daily.ranking import RANK_TIES, rank_key_sql
from games.models import (
    OFF_FINAL_BOARD_SQL,
    DailyDeal,
    Game,
    LeaderboardEntry,
    RankingGeneration,
)

logger = logging.getLogger("games.daily")

# A retired ranking generation is kept this long after the swap that replaced it, so that a
# request that read the old pointer can still read its rows (gunicorn's timeout is 30 s).
GENERATION_GRACE = timedelta(seconds=60)

# The ranking order (games.daily.ranking) in SQL, then the game id, which orders tied games'
# positions. (Also the order that games.daily.selectors searches a generation in.)
_RANK_ORDER = ", ".join(["k DESC", *(f"{column} ASC" for column in RANK_TIES)])
_ENTRY_COLUMNS = "id, generation_id, game_id, rank, position"


def _ranked_rows_sql() -> str:
    """SELECT of a board's entries: RANK() and ROW_NUMBER() over its finished games, less
    those a reviewer confirmed as cheating and those withheld on conclusive evidence
    (games.models.OFF_FINAL_BOARD, open board or final); the other flagged games stay,
    unmarked.

    Both come from one window over the games sorted by the ranking rule and then by id, so
    tied games take consecutive positions in id order. (One window pass instead of two, one
    for RANK() and one for ROW_NUMBER() with the id as a last key: a tenth of the ranking's
    time at 1M. The window needs no sort of its own, and numbers its input rows in the order
    they come, which the sorted subquery sets; the tests pin the tie order.) The sort carries
    only the keys and the game id. The casts give each column the entry table's exact type,
    which a partition created from this SELECT must have.

    Parameters: the generation id (twice) and the board's id. `id` is generation << 32 | position.
    """
    return f"""
        SELECT CAST(%s * 4294967296 + position AS bigint) AS id,
               CAST(%s AS bigint) AS generation_id, game_id,
               CAST(rank AS integer) AS rank, CAST(position AS integer) AS position
        FROM (
            SELECT sorted.game_id, RANK() OVER w AS rank, ROW_NUMBER() OVER w AS position
            FROM (
                SELECT g.id AS game_id,
                       {rank_key_sql("g")} AS k,
                       {", ".join(f"g.{column}" for column in RANK_TIES)}
                FROM {Game._meta.db_table} g
                WHERE g.daily_id = %s AND g.status <> 'playing'
                  AND NOT {OFF_FINAL_BOARD_SQL}
                ORDER BY {_RANK_ORDER}, game_id ASC
            ) sorted
            WINDOW w AS (ORDER BY {_RANK_ORDER})
        ) ranked
    """


# Planner settings for the statement that builds a PostgreSQL generation (_generation_build).
_RANKING_SETTINGS = (
    ("work_mem", "'256MB'"),
    ("jit", "off"),
    ("parallel_setup_cost", "0"),
    ("parallel_tuple_cost", "0.001"),
)


def _partition(generation_id: int) -> str:
    """The PostgreSQL partition that holds one ranking generation."""
    return f"{LeaderboardEntry._meta.db_table}_g{int(generation_id)}"


def _partition_constraints_sql(cursor: CursorWrapper, *, generation_id: int) -> str:
    """The ALTER TABLE clauses that give a partition built by CREATE TABLE AS what ATTACH
    PARTITION requires: the entry table's NOT NULL columns and CHECK constraints (same names),
    and a CHECK on the generation id, which lets ATTACH skip its own validation scan. Read from
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
    clauses.append(f"ADD CHECK (generation_id = {int(generation_id)})")
    return ", ".join(clauses)


def _generation_build(*, generation_id: int, daily_id: int) -> int:
    """Write a board's new generation of entries; returns how many.

    On PostgreSQL the generation is a fresh table, created by CREATE TABLE ... AS from the
    ranking SELECT (which, unlike INSERT ... SELECT, may scan and sort the games in parallel
    workers, and checks no constraint row by row), then given the entry table's constraints
    in one validating pass, indexed (a sorted bulk build), and attached as the partition for
    `generation_id`. ATTACH takes only a SHARE UPDATE EXCLUSIVE lock on the parent: readers go
    on. Must run inside the transaction that swaps the board's pointer.
    """
    entry = LeaderboardEntry._meta.db_table
    params = [generation_id, generation_id, daily_id]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(f"INSERT INTO {entry} ({_ENTRY_COLUMNS}) {_ranked_rows_sql()}", params)
            return cursor.rowcount
        part = _partition(generation_id)
        # For the ranking statement only (reset below, as the closing transaction goes on):
        # a big board's sort in memory, not on disk (each parallel worker sorts its share
        # within this much: about 40 MB each at 1M); no JIT, whose compilation costs seconds
        # here; and a parallel scan and sort, which the default costs refuse for the million
        # rows the leader then merges, though it saved about 0.6 s of 3 at 1M
        # (docs/daily.md, "Ranking generations").
        for name, value in _RANKING_SETTINGS:
            cursor.execute(f"SET LOCAL {name} = {value}")
        # The id is new, so a table of that name can only be debris (a flushed test database).
        cursor.execute(f"DROP TABLE IF EXISTS {part}")
        # Its rows are never updated or deleted, so autovacuum has nothing to clean up (the
        # anti-wraparound freeze still runs: PostgreSQL forces it whatever this setting says).
        cursor.execute(
            f"CREATE TABLE {part} WITH (autovacuum_enabled = off) AS {_ranked_rows_sql()}",
            params,
        )
        count = cursor.rowcount
        for name, _ in _RANKING_SETTINGS:
            cursor.execute(f"SET LOCAL {name} TO DEFAULT")
        cursor.execute(
            f"ALTER TABLE {part} {_partition_constraints_sql(cursor, generation_id=generation_id)}"
        )
        # The parent's index, matched by definition when the partition is attached.
        cursor.execute(f"CREATE INDEX ON {part} (generation_id, position)")
        cursor.execute(
            f"ALTER TABLE {entry} ATTACH PARTITION {part} FOR VALUES IN ({int(generation_id)})"
        )
    return count


def daily_rank(*, daily_id: int) -> int:
    """Rank a board: build a new ranking generation with set-based SQL (RANK()
    and ROW_NUMBER() window functions over its finished games, one bulk write; a board, open or
    final, leaves out games.models.OFF_FINAL_BOARD), then point the board at it, in one transaction.

    Readers follow the board's pointer, so they see the old generation or the new one, never a
    half-built one. Runs on the same board are serialized by a lock on the board's row (FOR NO
    KEY UPDATE, which does not hold up the starts that reference the board), so the later run
    ranks everything the earlier one saw. The replaced generation is retired and dropped after
    GENERATION_GRACE, once this transaction has committed (`generations_drop_retired`).

    Idempotent: running it twice gives the same entries. Returns the number of entries.
    """
    with transaction.atomic():
        daily = DailyDeal.objects.select_for_update(no_key=True).filter(pk=daily_id).first()
        if daily is None:
            return 0
        generation = RankingGeneration.objects.create(daily=daily)
        count = _generation_build(generation_id=generation.pk, daily_id=daily_id)
        now = timezone.now()
        RankingGeneration.objects.filter(daily=daily, retired_at__isnull=True).exclude(
            pk=generation.pk
        ).update(retired_at=now)
        DailyDeal.objects.filter(pk=daily_id).update(
            generation=generation, ranked_at=now, entries_count=count
        )
        transaction.on_commit(generations_drop_retired)
    return count


def generations_drop_retired(*, now: datetime | None = None) -> int:
    """Drop the ranking generations retired more than GENERATION_GRACE ago; returns how many.

    On PostgreSQL a generation is dropped as a whole partition (no dead rows to vacuum). That
    briefly locks the parent table, so it waits at most a second for readers: when it cannot
    have the lock, the generations stay for the next run.
    """
    now = now or timezone.now()
    stale = list(
        RankingGeneration.objects.filter(retired_at__lt=now - GENERATION_GRACE).values_list(
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
            RankingGeneration.objects.filter(pk__in=stale).delete()
    except OperationalError:
        logger.warning("could not drop retired generations %s yet", stale, exc_info=True)
        return 0
    return len(stale)
