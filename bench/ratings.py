"""Ratings benchmark: the rating job on a big final board among many rated players, and the
latency of the rating leaderboard's pages.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    flock /tmp/klondike-bench.lock .venv/bin/python bench/ratings.py        # 1M players, 100k board
    .venv/bin/python bench/ratings.py --players 100000 --board 10000 --requests 300

What it does, all on loopback:

1. drops and re-creates the database `klondike_bench_ratings`, migrates it, flushes Redis db 13;
2. seeds in SQL (foreign-key triggers off for the seeding transaction only): `--players`
   users, each with an established draw-1 rating (mu about 1500 ± 300, sigma 60 to 260, 5 to
   200 boards, last board the day before the board, recorded as a rating change of that
   board), numbered by the job's own `_positions_number`; a final D1N board of the day before
   yesterday with `--board` finished
   ranked games of the first players (about 35 % won, a spread of scores, one pair in 250 tied,
   one game in 1000 under review);
3. times `ratings_update(draw=1)` (the job at close: read the entries, rate them, write the
   ratings and changes, number the positions), and checks the changes written;
4. times it again from the board's day (`since`: what a review on a final board costs: the
   rewind of the board's changes, then the same work);
5. starts gunicorn and measures, one keep-alive client sending requests one after the other,
   p50/p99 of the floor `GET /bench/constant` and of `GET /api/v1/leaderboards/ratings/1`:
   page 1, a page in the middle, the last page (anonymous), and `?around=me` of a player in
   the middle; every answer is checked.

The database is dropped and the Redis db flushed on exit (`--keep` keeps the database).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    Gunicorn,
    django_setup_here,
    free_port,
    reset_database,
    reset_redis,
    server_env,
    stores_dropped_after,
)
from bench.leaderboard import (  # noqa: E402
    SNAPSHOT_BYTES,
    USER_COLUMNS,
    USER_VALUES,
    WARMUP_REQUESTS,
    _r,
    measure,
    token_for,
)

TARGET_UPDATE_S = 60.0
TARGET_P99_MS = 20.0


def seed(players: int, board: int) -> dict[str, Any]:
    """Users with established ratings and one final board; returns the board's id and day."""
    from datetime import timedelta

    from django.db import connection, transaction
    from django.utils import timezone

    from games import clock
    from games import services as game_services
    from games.daily.services.deals import daily_commitment, daily_first_candidate
    from games.daily.services.ratings import _positions_number
    from games.engine import DealCode
    from games.models import DailyDeal

    day = clock.today(timezone.now()) - timedelta(days=2)
    number = daily_first_candidate(day=day, mode="D1N")
    deal = game_services.deal_get_or_create(number=number)
    salt = secrets.token_hex(16)
    daily = DailyDeal.objects.create(
        date=day,
        mode="D1N",
        deal=deal,
        salt=salt,
        commitment=daily_commitment(code=str(DealCode(1, "N", number)), salt=salt),
        par=100,
        finalized_at=timezone.now(),
    )
    # The board before: every player's last rating change (what a review's rewind goes back to).
    before = DailyDeal.objects.create(
        date=day - timedelta(days=1),
        mode="D1N",
        deal=deal,
        salt=salt,
        commitment=daily.commitment,
        par=100,
        finalized_at=timezone.now(),
        rated_at=timezone.now(),
    )
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL session_replication_role = replica")  # seeding only
        player = USER_VALUES.format(name="'r' || i")
        cur.execute(
            f"INSERT INTO accounts_user ({USER_COLUMNS})"
            f" SELECT {player} FROM generate_series(1, %s) i",
            [players],
        )
        cur.execute("SELECT min(id) FROM accounts_user")
        base = cur.fetchone()[0] - 1
        cur.execute(
            f"""
            INSERT INTO games_rating (user_id, draw, mu, sigma, boards, last_board)
            SELECT %(base)s + j, 1, 1500 + ({_r(1)} - 0.5) * 600 + ({_r(2)} - 0.5) * 600,
                   60 + {_r(3)} * 200, 5 + floor({_r(4)} * 196)::int, %(last)s
            FROM generate_series(1, %(players)s) j
            """,
            {"base": base, "players": players, "last": before.date},
        )
        cur.execute(
            """
            INSERT INTO games_ratingchange (user_id, daily_id, draw, date, rank, mu_before,
                                            sigma_before, mu_after, sigma_after, boards)
            SELECT user_id, %s, 1, last_board, 1, mu, sigma, mu, sigma, boards
            FROM games_rating
            """,
            [before.pk],
        )
        won = f"({_r(5)} < 0.35)"
        cur.execute(
            f"""
            INSERT INTO games_game (user_id, deal_id, daily_id, draw, preset, kind, status, seq,
                                    moves, score, leaderboard_score, undos, passes_used,
                                    foundations, snapshot, flag_reason, flag_withheld,
                                    flag_review, started_at, finished_at, elapsed_ms, clock_ms)
            SELECT %(base)s + i, %(deal)s, %(daily)s, 1, 'N', 'daily',
                   CASE WHEN won THEN 'won' ELSE 'resigned' END, moves, moves, score, score,
                   0, 0, CASE WHEN won THEN 52 ELSE 10 END,
                   decode(repeat('a5', {SNAPSHOT_BYTES}), 'hex'),
                   CASE WHEN i %% 1000 = 7 THEN 'inhuman timing' ELSE '' END, false, '',
                   %(start)s, %(start)s + elapsed * interval '1 millisecond', elapsed, 0
            FROM (
                SELECT i, won,
                       CASE WHEN won THEN 450 + floor({_r(6, "j")} * 350)::int
                            ELSE floor({_r(6, "j")} * 450)::int END AS score,
                       90 + floor({_r(7, "j")} * 200)::int AS moves,
                       60000 + floor({_r(8, "j")} * 1500000)::bigint AS elapsed
                FROM (SELECT i, j, {won} AS won
                      FROM (SELECT i, CASE WHEN i %% 250 = 1 AND i > 1 THEN i - 1 ELSE i END
                                   AS j FROM generate_series(1, %(board)s) i) numbered) keyed
            ) g
            """,
            {
                "base": base,
                "deal": deal.pk,
                "daily": daily.pk,
                "board": board,
                "start": timezone.now() - timedelta(days=2),
            },
        )
    with connection.cursor() as cur:
        for table in ("accounts_user", "games_rating", "games_ratingchange", "games_game"):
            cur.execute(f"VACUUM ANALYZE {table}")
    t0 = time.perf_counter()
    with transaction.atomic():
        _positions_number(1, day=day)
    numbered_s = time.perf_counter() - t0
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE games_rating")
        cur.execute("CHECKPOINT")
    return {"daily_id": daily.pk, "day": day, "base": base, "numbered_s": numbered_s}


def run(args: argparse.Namespace, env: dict[str, str]) -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection, connections

    from games.daily.services.ratings import ratings_update
    from games.models import RatingChange

    connections.close_all()
    reset_database(args.db)
    reset_redis(args.redis_db)
    call_command("migrate", interactive=False, verbosity=0)
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    board = seed(args.players, args.board)
    out["seed_s"] = time.perf_counter() - t0
    print(
        f"seeded {args.players:,} rated players and a board of {args.board:,} in "
        f"{out['seed_s']:.0f} s (numbering {args.players:,} positions: "
        f"{board['numbered_s']:.1f} s)",
        flush=True,
    )
    counted = args.board - len(range(7, args.board + 1, 1000))  # game 7, 1007, ...: under review
    t0 = time.perf_counter()
    assert ratings_update(draw=1) == 1
    out["update_s"] = time.perf_counter() - t0
    changes = RatingChange.objects.filter(daily_id=board["daily_id"])
    assert changes.count() == counted, changes.count()
    print(f"ratings_update, the board at close: {out['update_s']:.1f} s", flush=True)
    t0 = time.perf_counter()
    assert ratings_update(draw=1, since=board["day"]) == 1
    out["redo_s"] = time.perf_counter() - t0
    assert changes.count() == counted
    print(f"ratings_update, the board again (a review): {out['redo_s']:.1f} s", flush=True)

    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE games_rating")
        middle = args.players // 2
        cur.execute("SELECT user_id FROM games_rating WHERE draw = 1 AND position = %s", [middle])
        mid_user = cur.fetchone()[0]
    mid_token = token_for(mid_user)
    connections.close_all()
    pages = -(-args.players // 20)
    url = "/api/v1/leaderboards/ratings/1"

    def page_check(page: int) -> Any:
        def check(data: dict[str, Any]) -> None:
            assert data["count"] == args.players and data["page"] == page, data
            assert len(data["entries"]) == min(20, args.players - (page - 1) * 20)

        return check

    def me_check(data: dict[str, Any]) -> None:
        assert data["me"]["rank"] == middle and data["page"] == (middle - 1) // 20 + 1, data["me"]

    cases = [
        ("baseline /bench/constant (no work)", "/bench/constant", None, lambda data: None),
        ("page 1 (anonymous)", f"{url}?page=1", None, page_check(1)),
        (f"page {pages // 2} (anonymous)", f"{url}?page={pages // 2}", None,
         page_check(pages // 2)),
        (f"page {pages}, the last (anonymous)", f"{url}?page={pages}", None, page_check(pages)),
        ("me, in the middle (?around=me)", f"{url}?around=me", mid_token, me_check),
    ]  # fmt: skip
    out["load_before_http"] = Path("/proc/loadavg").read_text().split()[0]
    server = Gunicorn(env, ROOT / "var" / "bench-ratings-gunicorn.log")
    out["http"] = {}
    try:
        server.wait_ready(args.port)
        for name, path, token, check in cases:
            result = measure(args.port, path, token, args.requests, check)
            out["http"][name] = result
            print(
                f"GET {name}: p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
                f"max {result['max_ms']:.1f} ms",
                flush=True,
            )
    finally:
        server.stop()
    return out


def report(args: argparse.Namespace, out: dict[str, Any]) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} cores; PostgreSQL, Redis, gunicorn ({args.workers} sync "
        f"workers) and the client on the same machine; {args.requests} measured requests per "
        f"case after {WARMUP_REQUESTS} warm-up, one keep-alive connection, sequential"
    )
    met = "met" if out["update_s"] < TARGET_UPDATE_S else "MISSED"
    print(f"\n### {args.players:,} rated players, a board of {args.board:,}")
    print("| measure | figure | target |")
    print("|---|---|---|")
    update = f"{out['update_s']:.1f} s"
    print(f"| `ratings_update` at close | {update} | < {TARGET_UPDATE_S:.0f} s, {met} |")
    print(f"| `ratings_update` again from the board's day | {out['redo_s']:.1f} s | |")
    for name, h in out["http"].items():
        target = ""
        if "constant" not in name:
            ok = "met" if h["p99_ms"] < TARGET_P99_MS else "MISSED"
            target = f"p99 < {TARGET_P99_MS:.0f} ms, {ok}"
        print(f"| GET {name}: p50 / p99 | {h['p50_ms']:.1f} / {h['p99_ms']:.1f} ms | {target} |")
    print(
        f"| (seeding {out['seed_s']:.0f} s; 1-min load average before the HTTP cases "
        f"{out['load_before_http']}) | | |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=1_000_000, help="rated players")
    parser.add_argument("--board", type=int, default=100_000, help="entries of the board")
    parser.add_argument("--requests", type=int, default=1000, help="measured requests per case")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port (0: a free one)")
    parser.add_argument("--db", default="klondike_bench_ratings", help="database, dropped first")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis db number, flushed")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()
    if not 2 <= args.board <= args.players <= 10_000_000:
        parser.error("2 <= board <= players <= 10,000,000")
    if not 1 <= args.requests <= 100_000:
        parser.error("requests from 1 to 100,000")
    args.port = args.port or free_port()
    args.threads = 1
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    django_setup_here(env)
    (ROOT / "var").mkdir(exist_ok=True)
    return stores_dropped_after(args, lambda: report(args, run(args, env)))


if __name__ == "__main__":
    sys.exit(main())
