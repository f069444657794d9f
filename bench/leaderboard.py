"""Leaderboard benchmark: the time `daily_rank` takes and the latency of the leaderboard
endpoint, on one daily board of 10k, 100k and 1M entries.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/leaderboard.py                          # 10k, 100k, 1M
    .venv/bin/python bench/leaderboard.py --sizes 10000 --requests 500

For each size, all on loopback:

1. drops and re-creates the database `klondike_bench_lb`, migrates it, flushes Redis db 12;
2. seeds in SQL (multi-row INSERT ... SELECT generate_series, foreign-key triggers off for the
   seeding transaction only): users, one Deal, today's D1N DailyDeal, `size` finished ranked
   games (about 35 % won; spread of scores, moves, undos, elapsed and finish times; one pair
   in 250 with identical keys, so shared ranks occur; one game in 1000 flagged and cleared),
   plus games that are left out of the board: still playing (size/100; the flagged games are
   cleared, and so stay on the board, so a board has `size` entries);
   then VACUUM ANALYZE and a CHECKPOINT (the burst of writes is the seed's, not the ranking's);
3. times `games.daily.services.rankings.daily_rank` on the empty generation, then an idempotent
   re-run;
4. takes a player at the middle of the board (`me` from the generation), and adds one more
   finished game after the generation (`me` from Redis: every finished game of the board is
   put on its sorted set with a pipeline of ZADDs built with `games.daily.live`'s own key,
   score and member functions; the late game with `live.live_rank_add` itself);
5. starts gunicorn (`config/gunicorn.py`, bench/harness.py's helpers and environment)
   and measures, one keep-alive client sending requests one after the other, p50/p99 of
   the stack's floor `GET /bench/constant` (bench/settings.py) and of
   `GET /api/v1/leaderboards/daily/{today}/D1N` for: page 1 (anonymous), a page in the
   middle (anonymous), `?around=me` of the middle player (generation), `?around=me` of the late
   player (live, from Redis); every answer is checked (status, count, `me.source`, rank);
6. stops gunicorn and times `daily_rank` once more with the late game (the usual case: a board
   re-ranked after a new game ended), checking that the late player is now in the generation.

Every loop is bounded by a request count; gunicorn is stopped, the database dropped and the
Redis db flushed on exit (`--keep` leaves the last database for EXPLAIN ANALYZE).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    HOST,
    REQUEST_TIMEOUT_S,
    Gunicorn,
    django_setup_here,
    free_port,
    percentile,
    reset_database,
    reset_redis,
    server_env,
    stores_dropped_after,
)

MODE = "D1N"
WARMUP_REQUESTS = 50
REDIS_BATCH = 10_000
# A seeded game's engine snapshot: about the size of a real one, so that the games table the
# ranking scans is as wide as in production. A game row's snapshot keeps the last 4 undo steps
# (games.services.SNAPSHOT_UNDO_STEPS): 424 bytes for a new deal, up to ~0.7 KB for a game in
# play. The figures in docs/benchmarks.md were measured with 424 bytes.
SNAPSHOT_BYTES = 424


# --- seeding (SQL, set-based) --------------------------------------------------------------

# A deterministic pseudo-random number in [0, 1) from a row number and a salt.
_R = "((hashint8((({j}) * 16 + {k})::bigint) & 2147483647)::float8 / 2147483648.0)"


# A seeded player's row in SQL: every column of accounts_user, none left to the ORM's defaults
# (the seeds write in bulk, without the ORM). Format USER_VALUES with `name`, the username's SQL.
USER_COLUMNS = (
    "password, is_superuser, username, first_name, last_name, email, is_staff, is_active,"
    " date_joined, is_guest, language, profile_private"
)
USER_VALUES = "'!', false, {name}, '', '', '', false, true, now(), false, '', false"


def _r(k: int, j: str = "j") -> str:
    return _R.format(j=j, k=k)


def seed(size: int) -> dict[str, Any]:
    """Users, a deal, today's daily deal and its games; returns the board's ids."""
    from django.db import connection, transaction
    from django.utils import timezone

    from games import clock
    from games import services as game_services
    from games.daily.services.deals import daily_commitment, daily_first_candidate
    from games.engine import DealCode
    from games.models import DailyDeal

    day = clock.today(timezone.now())
    number = daily_first_candidate(day=day, mode=MODE)
    deal = game_services.deal_get_or_create(number=number)
    salt = secrets.token_hex(16)
    # par is not the solver's here: the benchmark does not need a proof of the deal.
    daily = DailyDeal.objects.create(
        date=day,
        mode=MODE,
        deal=deal,
        salt=salt,
        commitment=daily_commitment(code=str(DealCode(1, "N", number)), salt=salt),
        par=100,
    )
    # No flagged games left out: the seeded flags are cleared, which any board keeps (a
    # board leaves out withheld and confirmed ones, with one condition in the same SQL).
    flagged, playing = 0, max(1, size // 100)
    total = size + flagged + playing
    with transaction.atomic(), connection.cursor() as cur:
        # Seeding only: the rows are consistent by construction, so skip the per-row
        # foreign-key triggers (the benchmark measures ranking, not loading).
        cur.execute("SET LOCAL session_replication_role = replica")
        player = USER_VALUES.format(name="'lb' || i")
        cur.execute(
            f"INSERT INTO accounts_user ({USER_COLUMNS})"
            f" SELECT {player} FROM generate_series(1, %s) i",
            [total],
        )
        cur.execute("SELECT min(id) FROM accounts_user")  # a fresh database: only these
        base = cur.fetchone()[0] - 1
        # Row i: 1..size ranked, then `flagged` flagged games, then `playing` open games.
        # j: the row whose keys this row takes (one pair in 250 shares all keys: a tie).
        won = f"({_r(1)} < 0.35)"
        span = "GREATEST(EXTRACT(EPOCH FROM now() - date_trunc('day', now())), 3600)"
        cur.execute(
            f"""
            INSERT INTO games_game (user_id, deal_id, daily_id, draw, preset, kind, status, seq,
                                    moves, score, leaderboard_score, undos, passes_used,
                                    foundations, snapshot, flag_reason, flag_withheld,
                                    flag_review, started_at, finished_at, elapsed_ms,
                                    clock_ms)
            SELECT %(base)s + i, %(deal)s, %(daily)s, 1, 'N', 'daily',
                   CASE WHEN i > %(size)s + %(flagged)s THEN 'playing'
                        WHEN won THEN 'won' ELSE 'resigned' END,
                   moves + undos, moves, score, score, undos, 0,
                   CASE WHEN won THEN 52 ELSE floor({_r(7)} * 40)::int END,
                   decode(repeat('a5', {SNAPSHOT_BYTES}), 'hex'),
                   CASE WHEN i > %(size)s AND i <= %(size)s + %(flagged)s
                          OR i %% 1000 = 7 THEN 'inhuman timing' ELSE '' END,
                   i > %(size)s,
                   CASE WHEN i <= %(size)s AND i %% 1000 = 7 THEN 'cleared' ELSE '' END,
                   finished - elapsed * interval '1 millisecond',
                   CASE WHEN i > %(size)s + %(flagged)s THEN NULL ELSE finished END,
                   CASE WHEN i > %(size)s + %(flagged)s THEN NULL ELSE elapsed END, 0
            FROM (
                SELECT i, j, won,
                       CASE WHEN won THEN 450 + floor(({_r(2)} ^ 2) * 350)::int
                            ELSE floor({_r(2)} * 450)::int END AS score,
                       CASE WHEN won THEN 90 + floor({_r(3)} * 180)::int
                            ELSE 15 + floor({_r(3)} * 300)::int END AS moves,
                       floor(({_r(4)} ^ 3) * 25)::int AS undos,
                       CASE WHEN won THEN 80000 + floor({_r(5)} * 1500000)::bigint
                            ELSE 5000 + floor({_r(5)} * 1800000)::bigint END AS elapsed,
                       date_trunc('milliseconds',
                                  now() - {_r(6)} * {span} * interval '1 second') AS finished
                FROM (SELECT i, j, {won} AS won
                      FROM (SELECT i, CASE WHEN i %% 250 = 1 AND i > 1 THEN i - 1 ELSE i END AS j
                            FROM generate_series(1, %(total)s) i) AS numbered) AS rows
            ) AS g
            """,
            {
                "base": base,
                "deal": deal.pk,
                "daily": daily.pk,
                "size": size,
                "flagged": flagged,
                "total": total,
            },
        )
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE accounts_user")
        cur.execute("VACUUM ANALYZE games_game")
        # The seed writes a day's games in seconds; a real board fills over a day. Flush the
        # burst's dirty pages now, so the timed ranking does not share the disk with it.
        cur.execute("CHECKPOINT")
    return {"daily_id": daily.pk, "day": day, "base": base, "total": total}


def token_for(user_id: int) -> str:
    """A new API token (one device's) of the user, saved; returns its key."""
    from accounts.models import User
    from accounts.tokens import token_build

    token, key = token_build(user=User(pk=user_id))
    token.save(force_insert=True)
    return key


def late_game(daily_id: int, like_position: int) -> tuple[int, int]:
    """A new player's game that finished now with the keys of the entry at `like_position`
    (so it lands just behind it): not in the generation yet. Returns (user id, game id)."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cur:
        player = USER_VALUES.format(name="'late'")
        cur.execute(f"INSERT INTO accounts_user ({USER_COLUMNS}) VALUES ({player}) RETURNING id")
        user_id = cur.fetchone()[0]
        cur.execute(
            """
            INSERT INTO games_game (user_id, deal_id, daily_id, draw, preset, kind, status, seq,
                                    moves, score, leaderboard_score, undos, passes_used,
                                    foundations, snapshot, flag_reason, flag_withheld,
                                    flag_review, started_at, finished_at, elapsed_ms,
                                    clock_ms)
            SELECT %s, g.deal_id, g.daily_id, 1, 'N', 'daily', g.status, g.seq, g.moves,
                   g.score, g.leaderboard_score, g.undos, 0, g.foundations, g.snapshot, '',
                   false, '', now() - g.elapsed_ms * interval '1 millisecond', now(), g.elapsed_ms,
                   0
            FROM games_dailydeal d
            JOIN games_leaderboardentry e ON e.generation_id = d.generation_id
            JOIN games_game g ON g.id = e.game_id
            WHERE d.id = %s AND e.position = %s
            RETURNING id
            """,
            [user_id, daily_id, like_position],
        )
        game_id = cur.fetchone()[0]
    return user_id, game_id


def load_redis(daily_id: int) -> tuple[int, float]:
    """Put every ranked game of the board on its sorted set, as `live.live_rank_add` would,
    with pipelined ZADDs. Returns (members, seconds)."""
    from django.db import connection
    from django_redis import get_redis_connection

    from games.daily import live
    from games.daily.ranking import rank_key_text, rank_member_text

    t0 = time.perf_counter()
    client = get_redis_connection("default")
    key = live._KEY.format(daily_id=daily_id)  # the module's own key format
    added = 0
    with connection.chunked_cursor() as cur:
        cur.execute(
            """
            SELECT id, status, leaderboard_score, moves, foundations, elapsed_ms, finished_at
            FROM games_game
            WHERE daily_id = %s AND finished_at IS NOT NULL
              AND flag_review <> 'confirmed'
            """,
            [daily_id],
        )
        while rows := cur.fetchmany(REDIS_BATCH):
            mapping = {
                rank_member_text(
                    rank_key_text(
                        won=status == "won",
                        score=score,
                        moves=moves,
                        foundations=foundations,
                        elapsed_ms=elapsed,
                        finished_at=finished,
                    ),
                    game_id=game_id,
                ): 0
                for game_id, status, score, moves, foundations, elapsed, finished in rows
            }
            with client.pipeline(transaction=False) as pipe:
                pipe.zadd(key, mapping)
                pipe.execute()
            added += len(mapping)
    return added, time.perf_counter() - t0


# --- measurements --------------------------------------------------------------------------


def timed_rank(daily_id: int) -> tuple[int, float]:
    from games.daily.services.rankings import daily_rank

    t0 = time.perf_counter()
    count = daily_rank(daily_id=daily_id)
    return count, time.perf_counter() - t0


def measure(port: int, path: str, token: str | None, requests: int, check: Any) -> dict[str, float]:
    """`requests` sequential GETs (after a warm-up) on one keep-alive connection."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    conn = HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
    latencies: list[float] = []
    try:
        for n in range(WARMUP_REQUESTS + requests):
            t0 = time.perf_counter()
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body = response.read()
            elapsed = time.perf_counter() - t0
            if response.status != 200:
                raise RuntimeError(f"GET {path}: {response.status} {body[:300]!r}")
            if n == 0:
                check(json.loads(body))
            if n >= WARMUP_REQUESTS:
                latencies.append(elapsed)
    finally:
        conn.close()
    return {
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies) * 1000,
    }


def run_size(args: argparse.Namespace, env: dict[str, str], size: int) -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection, connections

    connections.close_all()
    reset_database(args.db)
    reset_redis(args.redis_db)
    call_command("migrate", interactive=False, verbosity=0)
    out: dict[str, Any] = {"size": size}

    t0 = time.perf_counter()
    board = seed(size)
    out["seed_s"] = time.perf_counter() - t0
    daily_id = board["daily_id"]
    print(f"[{size}] seeded {board['total']} games in {out['seed_s']:.1f} s", flush=True)

    count, out["rank_first_s"] = timed_rank(daily_id)
    assert count == size, f"{count} entries, expected {size}"
    count, out["rank_again_s"] = timed_rank(daily_id)
    assert count == size
    print(
        f"[{size}] daily_rank: {out['rank_first_s']:.2f} s (empty generation), "
        f"{out['rank_again_s']:.2f} s (re-run)",
        flush=True,
    )
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(DISTINCT rank), count(*) FROM games_leaderboardentry"
            " WHERE generation_id = (SELECT generation_id FROM games_dailydeal WHERE id = %s)",
            [daily_id],
        )
        distinct_ranks, rows = cur.fetchone()
        out["shared"] = rows - distinct_ranks
        middle = size // 2 or 1
        cur.execute(
            "SELECT g.user_id, e.rank FROM games_leaderboardentry e"
            " JOIN games_game g ON g.id = e.game_id"
            " WHERE e.generation_id = (SELECT generation_id FROM games_dailydeal WHERE id = %s)"
            " AND e.position = %s",
            [daily_id, middle],
        )
        mid_user, mid_rank = cur.fetchone()
    mid_token = token_for(mid_user)
    late_user, late_game_id = late_game(daily_id, middle)
    late_token = token_for(late_user)
    members, out["redis_load_s"] = load_redis(daily_id)
    from games.daily import live

    live.live_rank_add(game_id=late_game_id)  # the real path for the game being measured
    print(
        f"[{size}] Redis: {members} members in {out['redis_load_s']:.1f} s; "
        f"{out['shared']} entries share a rank",
        flush=True,
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE games_leaderboardentry")
        cur.execute("ANALYZE games_game")
    connections.close_all()

    pages = -(-size // 20)
    url = f"/api/v1/leaderboards/daily/{board['day'].isoformat()}/{MODE}"

    def page_check(page: int) -> Any:
        def check(data: dict[str, Any]) -> None:
            assert data["count"] == size and data["page"] == page, data
            assert len(data["entries"]) == min(20, size - (page - 1) * 20) and data["me"] is None

        return check

    def me_generation(data: dict[str, Any]) -> None:
        assert data["me"]["source"] == "snapshot" and data["me"]["rank"] == mid_rank, data["me"]
        assert data["page"] == (middle - 1) // 20 + 1, data["page"]

    def me_live(data: dict[str, Any]) -> None:
        me = data["me"]
        assert me["source"] == "live" and me["count"] == size + 1, me
        assert abs(me["rank"] - (middle + 1)) <= 20, me  # right behind its twin
        assert data["page"] == 1

    cases = [
        ("baseline /bench/constant (no work)", "/bench/constant", None, lambda data: None),
        ("page 1 (anonymous)", f"{url}?page=1", None, page_check(1)),
        (f"page {pages // 2 + 1} (anonymous)", f"{url}?page={pages // 2 + 1}", None,
         page_check(pages // 2 + 1)),
        ("me, generation (?around=me)", f"{url}?around=me", mid_token, me_generation),
        ("me, live from Redis (?around=me)", f"{url}?around=me", late_token, me_live),
    ]  # fmt: skip
    out["load_before_http"] = Path("/proc/loadavg").read_text().split()[0]
    server = Gunicorn(env, ROOT / "var" / "bench-leaderboard-gunicorn.log")
    try:
        server.wait_ready(args.port)
        out["http"] = {}
        for name, path, token, check in cases:
            result = measure(args.port, path, token, args.requests, check)
            out["http"][name] = result
            print(
                f"[{size}] {name}: p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
                f"max {result['max_ms']:.1f} ms",
                flush=True,
            )
    finally:
        server.stop()

    count, out["rank_new_game_s"] = timed_rank(daily_id)
    assert count == size + 1
    from games.models import DailyDeal, LeaderboardEntry

    generation = DailyDeal.objects.get(pk=daily_id).generation_id
    assert LeaderboardEntry.objects.filter(
        generation_id=generation, game__user_id=late_user
    ).exists()
    print(f"[{size}] daily_rank after one new game: {out['rank_new_game_s']:.2f} s", flush=True)
    return out


def report(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} cores; PostgreSQL, Redis, gunicorn ({args.workers} sync "
        f"workers) and the client on the same machine; {args.requests} measured requests "
        f"per case after {WARMUP_REQUESTS} warm-up, one keep-alive connection, sequential"
    )
    for r in results:
        print(f"\n### {r['size']:,} entries")
        print("| measure | figure |")
        print("|---|---|")
        print(f"| `daily_rank`, empty generation | {r['rank_first_s']:.2f} s |")
        print(f"| `daily_rank`, idempotent re-run | {r['rank_again_s']:.2f} s |")
        print(f"| `daily_rank`, after one new game | {r['rank_new_game_s']:.2f} s |")
        for name, h in r["http"].items():
            print(f"| GET {name}: p50 / p99 | {h['p50_ms']:.1f} / {h['p99_ms']:.1f} ms |")
        print(
            f"| (seeding {r['seed_s']:.0f} s; Redis load {r['redis_load_s']:.1f} s; "
            f"1-min load average before the HTTP cases {r['load_before_http']}) | |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="entries per board")
    parser.add_argument("--requests", type=int, default=1000, help="measured requests per case")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port (0: a free one)")
    parser.add_argument("--db", default="klondike_bench_lb", help="database, dropped first")
    parser.add_argument("--redis-db", type=int, default=12, help="Redis db number, flushed")
    parser.add_argument("--keep", action="store_true", help="keep the last database")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not sizes or not all(1 <= s <= 10_000_000 for s in sizes):
        parser.error("sizes from 1 to 10,000,000")
    if not 1 <= args.requests <= 100_000:
        parser.error("requests from 1 to 100,000")
    args.port = args.port or free_port()
    args.threads = 1
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    # This process (seeding, daily_rank) runs with the server's settings and database.
    django_setup_here(env)
    (ROOT / "var").mkdir(exist_ok=True)
    return stores_dropped_after(
        args, lambda: report(args, [run_size(args, env, size) for size in sizes])
    )


if __name__ == "__main__":
    sys.exit(main())
