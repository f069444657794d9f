"""Isolation benchmark: do hints and resigned games' analyses starve honest players' moves?

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/isolation.py                  # 20 s quiet, then 20 s under attack
    .venv/bin/python bench/isolation.py --duration 30 --honest 8 --attackers 4

What it does, all on loopback, on the scaled stack as docker-compose runs it:

1. re-creates the database `klondike_bench_isolation` and Redis db 14 (bench/harness.py),
   with `--honest` + `--attackers` + 2 players;
2. starts gunicorn (config/gunicorn.py, DEBUG off) and the two Celery workers of
   docker-compose: one on the `ranking` and default queues, one on `analysis` (nice 10);
3. two phases of `--duration` s, each after a `--warmup`:
   - "quiet": `--honest` players each play a casual game at a human pace (one action every
     `--pace` s: draw, or recycle once the stock is empty), and the move latency is recorded;
   - "attack": the same, while `--attackers` accounts start games, ask for a hint in each (a
     new position: a search) and resign it (an analysis), as fast as the limits allow (the
     throttles stay at their production rates; a 429 is waited out for its `retry_after`);
   in each phase one more player starts today's ranked daily and resigns it, and the time from
   that resign's answer to its row on the leaderboard is measured (polled every 50 ms);
4. prints move p50 and p99 per phase, the p50 ratio attack/quiet, the ranked finish times,
   what the attackers got (hint answers by source, 429s, games resigned), and the targets:
   p99 under 50 ms and p50 within 2x of the quiet run under attack, a ranked finish on the
   leaderboard within 2 s.
Every loop is bounded by time and by a request count; gunicorn and the workers are stopped on
exit, error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    HOST,
    free_port,
    fresh_stores,
    percentile,
    server_env,
    serving,
)

MAX_REQUESTS = 100_000  # per client and phase, a hard stop besides the clock
TARGET_P99_MS = 50.0
TARGET_P50_RATIO = 2.0
TARGET_RANKED_S = 2.0


class Client:
    """One keep-alive connection with a player's token."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = HTTPConnection(HOST, port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers=self.headers)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None


def honest_player(client: Client, pace_s: float, until: float, latencies: list[float]) -> None:
    """Play one casual game: an action every `pace_s` (draw, or recycle on an empty stock)."""
    status, game = client.call("POST", "/api/v1/games", {"draw": 1, "preset": "N"})
    assert status == 201, game
    path = f"/api/v1/games/{game['id']}/actions"
    for _ in range(MAX_REQUESTS):
        if time.monotonic() >= until:
            return
        action = "draw" if game["state"]["stock"] else "recycle"
        began = time.perf_counter()
        status, answer = client.call("POST", path, {"seq": game["seq"], "action": action})
        latencies.append((time.perf_counter() - began) * 1000)
        assert status == 200, answer
        game = answer
        time.sleep(max(0.0, pace_s - (time.perf_counter() - began)))


def attacker(client: Client, until: float, seen: collections.Counter[str]) -> None:
    """Start a game, ask for a hint (a new position: a search), resign (an analysis), again,
    as fast as the limits allow: a 429 is waited out for its `retry_after`."""
    for _ in range(MAX_REQUESTS):
        if time.monotonic() >= until:
            return
        status, game = client.call("POST", "/api/v1/games", {"draw": 3, "preset": "V"})
        seen[f"new game {status}"] += 1
        if status == 429:
            time.sleep(min(game["error"]["retry_after"], max(0.0, until - time.monotonic())))
            continue
        status, answer = client.call("GET", f"/api/v1/games/{game['id']}/hint")
        seen[f"hint {answer['source'] if status == 200 else status}"] += 1
        body = {"seq": game["seq"], "action": "resign"}
        status, _ = client.call("POST", f"/api/v1/games/{game['id']}/actions", body)
        seen[f"resign {status}"] += 1


def login_attacker(
    port: int, addresses: list[str], until: float, seen: collections.Counter[str]
) -> None:
    """Log in with wrong passwords, each request from the next of `addresses` that may send
    (loopback addresses: the connection's own, as the server counts it), as fast as the limits
    allow: an address's 429 or 503 is waited out for its `Retry-After`, the others go on."""
    body = json.dumps({"username": "victim", "password": "not-the-password"})
    headers = {"Content-Type": "application/json"}
    ready = dict.fromkeys(addresses, 0.0)  # address -> when it may send again
    for _ in range(MAX_REQUESTS):
        now = time.monotonic()
        if now >= until:
            return
        address = min(ready, key=ready.__getitem__)
        if ready[address] > now:
            time.sleep(min(ready[address], until) - now)
            continue
        conn = HTTPConnection(HOST, port, timeout=30, source_address=(address, 0))
        try:
            conn.request("POST", "/api/v1/auth/login", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            seen[f"login {response.status}"] += 1
            wait = response.getheader("Retry-After")
            ready[address] = time.monotonic() + (float(wait) if wait else 0.0)
        finally:
            conn.close()


def ranked_finish(client: Client, day: str) -> float:
    """Start today's D1N attempt, resign it, and time its arrival on the leaderboard (s)."""
    status, game = client.call("POST", f"/api/v1/daily/{day}/D1N/start")
    assert status in (200, 201), game
    status, answer = client.call(
        "POST", f"/api/v1/games/{game['id']}/actions", {"seq": game["seq"], "action": "resign"}
    )
    assert status == 200, answer
    began = time.perf_counter()
    for _ in range(1200):  # 60 s at most
        board = client.call("GET", f"/api/v1/leaderboards/daily/{day}/D1N?around=me")[1]
        if board["me"] is not None and board["me"]["source"] == "snapshot":
            return time.perf_counter() - began
        time.sleep(0.05)
    return float("inf")


@contextlib.contextmanager
def workers(env: dict[str, str], logs: Path) -> Iterator[None]:
    """docker-compose's two Celery workers: ranking and the beat's tasks; analyses, niced."""
    celery = str(Path(sys.executable).parent / "celery")
    commands = [
        [celery, "-A", "config", "worker", "-Q", "ranking,celery", "-c", "1", "-P", "solo"],
        ["nice", "-n", "10", celery, "-A", "config", "worker", "-Q", "analysis", "-c", "1",
         "-P", "solo"],
    ]  # fmt: skip
    procs = []
    try:
        for i, command in enumerate(commands):
            with (logs / f"isolation-worker-{i}.log").open("w") as log:
                argv = [*command, "-n", f"bench{i}@%h", "--loglevel", "WARNING"]
                procs.append(
                    subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
                )
        time.sleep(3)  # the workers connect to Redis
        for proc in procs:
            assert proc.poll() is None, "a Celery worker exited; see var/isolation-worker-*.log"
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)


def phase(
    args: argparse.Namespace, tokens: list[str], ranked_token: str, day: str, attack: str
) -> dict[str, Any]:
    """One phase: honest players (and the `attack`: "" none, "hints" or "logins"), and a
    ranked finish on the clock."""
    latencies: list[list[float]] = [[] for _ in range(args.honest)]
    seen: collections.Counter[str] = collections.Counter()
    warm_until = time.monotonic() + args.warmup
    until = warm_until + args.duration
    threads = [
        threading.Thread(
            target=honest_player, args=(Client(args.port, tokens[i]), args.pace, until, lat)
        )
        for i, lat in enumerate(latencies)
    ]
    if attack == "hints":
        attackers = tokens[args.honest : args.honest + args.attackers]
        threads += [
            threading.Thread(target=attacker, args=(Client(args.port, t), until, seen))
            for t in attackers
        ]
    elif attack == "logins":
        addresses = [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(args.addresses)]
        threads += [
            threading.Thread(
                target=login_attacker, args=(args.port, addresses[i :: args.login_attackers],
                                             until, seen)
            )
            for i in range(args.login_attackers)
        ]  # fmt: skip
    for thread in threads:
        thread.start()
    time.sleep(args.warmup)
    for lat in latencies:
        lat.clear()  # the warm-up is not measured
    time.sleep(args.duration / 2)
    ranked_s = ranked_finish(Client(args.port, ranked_token), day)
    for thread in threads:
        thread.join()
    moves = sorted(x for lat in latencies for x in lat)
    return {
        "moves": len(moves),
        "p50": statistics.median(moves),
        "p99": percentile(moves, 0.99),
        "ranked_s": ranked_s,
        "attack": dict(seen),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--honest", type=int, default=8)
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--login-attackers", type=int, default=6, help="login flood clients")
    parser.add_argument("--addresses", type=int, default=50, help="the login flood's addresses")
    parser.add_argument("--pace", type=float, default=0.25, help="s between honest actions")
    parser.add_argument("--workers", type=int, default=5, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--db", default="klondike_bench_isolation")
    parser.add_argument("--redis-db", type=int, default=14)
    args = parser.parse_args()
    args.port = free_port()
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    # Production's rates, but the honest players' own pace is far below the move rate.
    env.pop("THROTTLE_MOVES")
    env.pop("THROTTLE_GAMES")
    tokens = fresh_stores(env, args.db, args.redis_db, users=args.honest + args.attackers + 3)
    logs = ROOT / "var"
    with serving(env, "isolation-gunicorn.log", args.port), workers(env, logs):
        day = Client(args.port, tokens[0]).call("GET", "/api/v1/daily")[1]["date"]  # deals made
        quiet = phase(args, tokens, tokens[-3], day, attack="")
        hints = phase(args, tokens, tokens[-2], day, attack="hints")
        logins = phase(args, tokens, tokens[-1], day, attack="logins")
    print(
        f"isolation: {args.honest} honest players (an action every {args.pace} s), "
        f"{args.attackers} hint attackers, {args.login_attackers} login attackers from "
        f"{args.addresses} addresses, {args.duration:.0f} s a phase, {os.cpu_count()} cores"
    )
    for name, result in (("quiet", quiet), ("hints", hints), ("logins", logins)):
        print(
            f"  {name:6}  moves {result['moves']:5d}  p50 {result['p50']:6.1f} ms"
            f"  p99 {result['p99']:6.1f} ms  ranked finish on the board {result['ranked_s']:.2f} s"
        )
    for name, result in (("hints", hints), ("logins", logins)):
        print(f"  {name} attackers got: {json.dumps(result['attack'], sort_keys=True)}")
    checks = []
    for name, loud in (("hints", hints), ("logins", logins)):
        ratio = loud["p50"] / quiet["p50"]
        checks += [
            (f"{name}: p99 under attack {loud['p99']:.1f} ms < {TARGET_P99_MS:.0f} ms",
             loud["p99"] < TARGET_P99_MS),
            (f"{name}: p50 attack/quiet {ratio:.2f} <= {TARGET_P50_RATIO:.0f}",
             ratio <= TARGET_P50_RATIO),
            (f"{name}: ranked finish {loud['ranked_s']:.2f} s < {TARGET_RANKED_S:.0f} s",
             loud["ranked_s"] < TARGET_RANKED_S),
        ]  # fmt: skip
    for text, ok in checks:
        print(f"  {'met' if ok else 'MISSED'}: {text}")


if __name__ == "__main__":
    main()
