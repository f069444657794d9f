"""What PostgreSQL itself spends on a move: the backend's CPU time per move statement.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/move_sql.py            # --statements 4000

It drops and re-creates the database `klondike_bench_sql`, migrates it, starts one game
through the service, then sends statements on one prepared-statement connection, each in
autocommit as the service sends it, and reads the backend process's CPU time from /proc:
`SELECT 1` (a round trip and nothing else), the move's commit exactly as
`games.game_rows.move_commit` sends it (the game's UPDATE, the token check and the log's INSERT
in one statement), and the UPDATE alone. The last two run again with `synchronous_commit = off`
in that session, only to show what waiting for the write-ahead log's flush costs: the service
never turns it off, because an acknowledged move must survive a crash.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import PG, django_in_this_process, proc_stat  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--statements", type=int, default=4000, help="per measurement")
    parser.add_argument("--db", default="klondike_bench_sql", help="dropped and re-created")
    parser.add_argument("--redis-db", type=int, default=14, help="Redis db number, flushed")
    args = parser.parse_args()
    if not 100 <= args.statements <= 100_000:
        parser.error("statements 100..100000")
    token = django_in_this_process(args.db, args.redis_db)
    import psycopg
    from django.utils import timezone
    from knox.models import AuthToken

    from accounts.tokens import token_digest
    from games import game_rows, services

    digest = token_digest(token)
    user = AuthToken.objects.select_related("user").get(digest=digest).user
    game = services.game_start(user=user, code="KL1-D1N-AAAAAAG")
    snapshot = bytes(game.snapshot)
    now = timezone.now()  # the token check's "not expired at"
    conn = psycopg.connect(**PG, dbname=args.db, autocommit=True, prepare_threshold=0)
    backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]

    def backend_cpu() -> float:
        stat = proc_stat(backend)
        assert stat is not None, "the backend is gone"
        return stat[2]

    seq = [game.seq]

    def in_play(next_seq: int) -> list[object]:
        """The in-play fields' values, as `move_commit` binds them, and the game's id."""
        return [next_seq, 0, 0, 0, 0, 0, "playing", snapshot, game.pk]

    def commit_params() -> list[object]:
        s = seq[0]
        seq[0] += 1
        return [*in_play(s + 1), s, digest, now, game.pk, s + 1, "draw", 0, 1000]

    def update_params() -> list[object]:
        s = seq[0]
        seq[0] += 1
        return [*in_play(s + 1), s]

    commit_sql = game_rows.move_commit_sql(1, token=True)
    update_sql, _ = game_rows.game_update_sql(game_rows.IN_PLAY_FIELDS, in_play_at_seq=True)
    figures: dict[str, float] = {}

    def measure(name: str, sql: str, params: Callable[[], list[object] | None]) -> None:
        conn.execute(sql, params())  # prepares it
        cpu0, t0 = backend_cpu(), time.monotonic()
        for _ in range(args.statements):
            conn.execute(sql, params())
        per_us = (backend_cpu() - cpu0) / args.statements * 1e6
        wall_us = (time.monotonic() - t0) / args.statements * 1e6
        figures[name] = round(per_us)
        print(f"{name:55s} backend CPU {per_us:5.0f} us, wall {wall_us:5.0f} us per statement")

    print(f"{args.statements} statements per line, one connection, autocommit, prepared")
    measure("SELECT 1", "SELECT 1", lambda: None)
    measure("move commit (UPDATE + token check + INSERT)", commit_sql, commit_params)
    measure("game UPDATE alone", update_sql, update_params)
    conn.execute("SET synchronous_commit = off")
    measure("move commit, synchronous_commit off (comparison)", commit_sql, commit_params)
    measure("game UPDATE alone, synchronous_commit off (comparison)", update_sql, update_params)
    print(json.dumps(figures))
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
