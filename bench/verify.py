"""verify_games benchmark: how many stored games a minute `manage.py verify_games` replays
and checks (target: at least 10,000), and that its memory does not grow with the games.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    flock /tmp/klondike-bench.lock .venv/bin/python bench/verify.py            # 10k, then 100k
    .venv/bin/python bench/verify.py --sizes 20000 --templates 50

What it does, all on loopback:

1. drops and re-creates the database `klondike_bench_verify`, migrates it, flushes Redis db 10
   (bench/harness.py's `django_in_this_process`, which makes one player);
2. plays `--templates` casual games through the services (`game_start`,
   `game_action_apply`), in the eight modes in turn, each by bench/integrity_player.py's
   heuristic player (a person of some skill who sees what a person sees, takes moves back now
   and then, and resigns when stuck); one in ten is left in play after a few dozen actions;
3. copies them in SQL (INSERT ... SELECT, foreign-key triggers off for the seeding only) up to
   each of `--sizes` games, among 1,000 players: each copy has a deal row of its own (the
   template's layout), as casual games do, and a chunk of copies writes its log rows ordered
   by `seq` first, so that a game's rows lie apart in the table as concurrent play leaves
   them; then VACUUM ANALYZE and a CHECKPOINT;
4. at each size, runs `manage.py verify_games` in a child process with the server's
   environment (as an operator would) and reports its summary (games checked, mismatches,
   games a minute), the wall time with Django's start, its CPU time and its peak memory. Any
   mismatch fails the run.

The database is dropped and the Redis db flushed on exit (`--keep` keeps the database).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    django_in_this_process,
    server_env,
    stores_dropped_after,
)
from bench.leaderboard import USER_COLUMNS, USER_VALUES  # noqa: E402

TARGET_PER_MINUTE = 10_000
MODES = [(draw, preset) for draw in (1, 3) for preset in "NVCR"]
PLAYERS = 1_000
IN_PLAY_SHARE = 0.1
COPIES_A_CHUNK = 50  # copies of every template a seeding statement writes
# A copy's deal row is the template's under the scheme 1 + copy, a small integer.
MAX_COPIES = 30_000
SUMMARY = re.compile(r"^(\d+) games checked, (\d+) mismatches, ([\d,]+) games/minute")


def play_templates(count: int, seed: int) -> list[int]:
    """Play `count` casual games through the services; returns their ids."""
    from accounts.models import User
    from bench.integrity_player import Heuristic
    from games import engine
    from games import services as game_services

    rng = random.Random(seed)
    user = User.objects.get()  # the one player `django_in_this_process` made
    ids = []
    for i in range(count):
        draw, preset = MODES[i % len(MODES)]
        game = game_services.game_start(user=user, draw=draw, preset=preset)
        local = engine.GameState.new(
            engine.Deal.from_dict(game.deal.layout), engine.Rules.from_preset(draw, preset)
        )
        player = Heuristic(local, rng, skill=rng.uniform(0.3, 1.0), undoer=rng.random() < 0.3)
        stop_at = rng.randrange(5, 60) if rng.random() < IN_PLAY_SHARE else None
        while local.status == "playing" and player.actions != stop_at:
            action = player.next_action()
            game, _ = game_services.game_action_apply(
                game_id=game.pk, user=user, seq=game.seq, action=action
            )
            player.play(action)
        ids.append(game.pk)
    return ids


def seed_copies(templates: list[int], first_copy: int, last_copy: int, user_base: int) -> None:
    """Copies `first_copy`..`last_copy` of every template game: its deal, its row and its log,
    with explicit ids (copy k of template t: `t + k * len(templates)`, templates being
    consecutive ids)."""
    from django.db import connection, transaction

    low, count = templates[0], len(templates)
    assert templates == list(range(low, low + count)), "templates have consecutive ids"
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL session_replication_role = replica")  # seeding only
        cur.execute(
            """
            INSERT INTO games_deal (scheme, number, layout, created_at)
            SELECT DISTINCT 1 + k, d.number, d.layout, now()
            FROM games_deal d JOIN games_game g ON g.deal_id = d.id,
                 generate_series(%(first)s, %(last)s) k
            WHERE g.id BETWEEN %(low)s AND %(high)s
            """,
            {"first": first_copy, "last": last_copy, "low": low, "high": low + count - 1},
        )
        cur.execute(
            """
            INSERT INTO games_game (id, user_id, deal_id, daily_id, draw, preset, kind, status,
                                    seq, moves, score, leaderboard_score, undos, passes_used,
                                    foundations, snapshot, flag_reason, flag_withheld,
                                    flag_review, started_at, finished_at, elapsed_ms,
                                    clock_ms, last_action_ms)
            SELECT g.id + k * %(count)s, %(users)s + 1 + (g.id + k * %(count)s) %% %(players)s,
                   c.id, NULL, g.draw, g.preset, g.kind, g.status, g.seq, g.moves, g.score,
                   g.leaderboard_score, g.undos, g.passes_used, g.foundations, g.snapshot, '',
                   false, '', g.started_at, g.finished_at, g.elapsed_ms, g.clock_ms,
                   g.last_action_ms
            FROM games_game g JOIN games_deal d ON d.id = g.deal_id,
                 generate_series(%(first)s, %(last)s) k
            JOIN games_deal c ON c.scheme = 1 + k
            WHERE g.id BETWEEN %(low)s AND %(high)s AND c.number = d.number
            """,
            {"first": first_copy, "last": last_copy, "low": low, "high": low + count - 1,
             "count": count, "users": user_base, "players": PLAYERS},
        )  # fmt: skip
        cur.execute(
            """
            INSERT INTO games_action (game_id, seq, notation, score_after, at_ms)
            SELECT a.game_id + k * %(count)s, a.seq, a.notation, a.score_after, a.at_ms
            FROM games_action a, generate_series(%(first)s, %(last)s) k
            WHERE a.game_id BETWEEN %(low)s AND %(high)s
            ORDER BY k, a.seq, a.game_id
            """,
            {"first": first_copy, "last": last_copy, "low": low, "high": low + count - 1,
             "count": count},
        )  # fmt: skip


def seed(templates: list[int], copies_done: int, copies: int, user_base: int) -> None:
    """Copies up to `copies` of every template, the first `copies_done` being there."""
    from django.db import connection

    for first in range(copies_done + 1, copies + 1, COPIES_A_CHUNK):
        seed_copies(templates, first, min(first + COPIES_A_CHUNK - 1, copies), user_base)
    with connection.cursor() as cur:
        cur.execute("SELECT setval('games_game_id_seq', (SELECT max(id) FROM games_game))")
        cur.execute("VACUUM ANALYZE games_deal")
        cur.execute("VACUUM ANALYZE games_game")
        cur.execute("VACUUM ANALYZE games_action")
        cur.execute("CHECKPOINT")  # the seed's dirty pages are not the verification's


def players() -> int:
    """Make PLAYERS players in SQL; returns the id before the first."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cur:
        player = USER_VALUES.format(name="'v' || i")
        cur.execute(
            f"INSERT INTO accounts_user ({USER_COLUMNS})"
            f" SELECT {player} FROM generate_series(1, %s) i RETURNING id",
            [PLAYERS],
        )
        return int(min(row[0] for row in cur.fetchall())) - 1


def verify(env: dict[str, str], log: Path) -> dict[str, Any]:
    """`manage.py verify_games` in a child process: its summary, wall and CPU time, peak
    memory."""
    load = Path("/proc/loadavg").read_text().split()[0]  # others' work on the machine
    t0 = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(
            [sys.executable, "manage.py", "verify_games"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    lines = log.read_text().splitlines()
    summary = next((m for line in lines if (m := SUMMARY.match(line))), None)
    if child.returncode != 0 or summary is None:
        raise RuntimeError(f"verify_games exited with {child.returncode}; see {log}")
    return {
        "checked": int(summary[1]),
        "mismatches": int(summary[2]),
        "per_minute": int(summary[3].replace(",", "")),
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "load": load,
    }


def run(args: argparse.Namespace, env: dict[str, str]) -> None:
    from django.db import connection

    t0 = time.perf_counter()
    templates = play_templates(args.templates, args.seed)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT avg(seq), count(*) FILTER (WHERE status = 'won'),"
            " count(*) FILTER (WHERE status = 'playing') FROM games_game"
        )
        actions, won, playing = cur.fetchone()
    print(
        f"{len(templates)} games played through the services in {time.perf_counter() - t0:.0f} s:"
        f" {won} won, {playing} in play, {actions:.0f} log entries on average",
        flush=True,
    )
    user_base = players()
    results, copies_done = [], 0
    for size in args.sizes:
        copies = -(-size // len(templates)) - 1  # the templates count as one copy
        t0 = time.perf_counter()
        seed(templates, copies_done, copies, user_base)
        copies_done = copies
        print(f"[{size}] seeded in {time.perf_counter() - t0:.0f} s", flush=True)
        result = verify(env, ROOT / "var" / "bench-verify.log")
        results.append(result)
        print(
            f"[{result['checked']}] verify_games: {result['per_minute']:,} games/minute,"
            f" {result['mismatches']} mismatches; {result['wall_s']:.1f} s wall with Django's"
            f" start, {result['cpu_s']:.1f} s CPU, peak {result['peak_mb']:.0f} MB"
            f" (1-min load average before: {result['load']})",
            flush=True,
        )
    print(f"\nmachine: {os.cpu_count()} cores; PostgreSQL and the command on the same machine")
    print("| games | games/minute | mismatches | wall (with start) | CPU | peak memory | target |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        met = "met" if r["per_minute"] >= TARGET_PER_MINUTE and not r["mismatches"] else "MISSED"
        print(
            f"| {r['checked']:,} | {r['per_minute']:,} | {r['mismatches']} | {r['wall_s']:.1f} s"
            f" | {r['cpu_s']:.1f} s | {r['peak_mb']:.0f} MB | >= {TARGET_PER_MINUTE:,}/min: {met} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="games verified, in turn")
    parser.add_argument("--templates", type=int, default=100, help="games played for real")
    parser.add_argument("--seed", type=int, default=1, help="the players' random seed")
    parser.add_argument("--db", default="klondike_bench_verify", help="database, dropped first")
    parser.add_argument("--redis-db", type=int, default=10, help="Redis db number, flushed")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()
    args.sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    if not 1 <= args.templates <= 10_000:
        parser.error("templates from 1 to 10,000")
    if not args.sizes or not all(
        args.templates <= s <= min(10_000_000, args.templates * MAX_COPIES) for s in args.sizes
    ):
        parser.error(f"sizes from --templates to 10,000,000 and {MAX_COPIES:,} x --templates")
    args.secret_key = secrets.token_urlsafe(50)
    args.port, args.workers, args.threads = 0, 1, 1
    env = server_env(args)
    django_in_this_process(args.db, args.redis_db)
    (ROOT / "var").mkdir(exist_ok=True)
    return stores_dropped_after(args, lambda: run(args, env))


if __name__ == "__main__":
    sys.exit(main())
