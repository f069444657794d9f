"""The web application's own CPU per request, without gunicorn or a network: WSGI calls.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/wsgi_calls.py          # --requests 3000 --rounds 3

The same settings as bench/api.py (DEBUG off, PostgreSQL and Redis, its own database
`klondike_bench_wsgi` and Redis db 15), but the WSGI application is called in this process,
one request at a time, and only the process's CPU time during each call is counted: what the
application itself costs, with none of gunicorn's threads and sockets. It alternates, `--rounds`
times, `--requests` calls of `GET /bench/constant` (bench/api.py's baseline) with as many
moves: games planned with bench/api.py's player (bench/player.py: random legal actions, a few
undos, resign after 200), each answer checked against the plan. It prints the CPU ms per call
of both (mean and median) and their ratio.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import django_in_this_process  # noqa: E402
from bench.player import MOVES_PATH, User  # noqa: E402

GAME_LENGTH = 200


class App:
    """The WSGI application with one user's token; `call` returns (status, body, CPU s)."""

    def __init__(self, application: Any, token: str) -> None:
        self.application = application
        self.token = token

    def call(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes, float]:
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": f"Token {self.token}",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.url_scheme": "http",
            "wsgi.version": (1, 0),
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        status: list[int] = []
        t0 = time.process_time()
        chunks = self.application(environ, lambda s, headers, exc=None: status.append(int(s[:3])))
        payload = b"".join(chunks)
        chunks.close()
        return status[0], payload, time.process_time() - t0


def moves(app: App, player: User, count: int) -> list[float]:
    """CPU seconds of `count` planned moves, each answer checked against its plan."""
    spent: list[float] = []
    while len(spent) < count:
        game_body = json.dumps({"draw": player.rng.choice((1, 3)), "preset": "N"}).encode()
        status, payload, _ = app.call("POST", "/api/v1/games", game_body)
        plan = player.plan_game(json.loads(payload)) if status == 201 else None
        if plan is None:
            raise RuntimeError(f"a game start failed: {status} {payload[:200]!r}")
        for step in plan.steps:
            status, payload, cpu = app.call("POST", plan.path, step.body)
            game = json.loads(payload)
            if status != 200 or (game["seq"], game["status"], game["state"]) != (
                step.seq,
                step.status,
                step.state,
            ):
                raise RuntimeError(f"the server's answer is not the plan's: {payload[:200]!r}")
            spent.append(cpu)
            if len(spent) == count:
                break
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=3000, help="of each kind, per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--db", default="klondike_bench_wsgi", help="dropped and re-created")
    parser.add_argument("--redis-db", type=int, default=15, help="Redis db number, flushed")
    args = parser.parse_args()
    if not (100 <= args.requests <= 100_000 and 1 <= args.rounds <= 20):
        parser.error("requests 100..100000, rounds 1..20")
    token = django_in_this_process(args.db, args.redis_db)
    from config.wsgi import application

    app = App(application, token)
    player = User(0, token, random.Random(1), GAME_LENGTH, MOVES_PATH)  # plans only: never connects
    moves(app, player, 300)  # warm-up: imports, prepared statements, caches
    ratios = []
    for n in range(1, args.rounds + 1):
        constant = [app.call("GET", "/bench/constant")[2] for _ in range(args.requests)]
        moved = moves(app, player, args.requests)
        ratio = statistics.fmean(constant) / statistics.fmean(moved)
        ratios.append(ratio)
        print(
            f"round {n}: constant view {statistics.fmean(constant) * 1e3:.3f} ms mean "
            f"({statistics.median(constant) * 1e3:.3f} median), move "
            f"{statistics.fmean(moved) * 1e3:.3f} ms mean ({statistics.median(moved) * 1e3:.3f} "
            f"median) of CPU per call; constant / move {ratio:.2f}",
            flush=True,
        )
    print(f"median of {args.rounds} rounds: constant / move {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
