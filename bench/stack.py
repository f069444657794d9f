"""What each part of a move costs under gunicorn: a ladder of views from the constant one up.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/stack.py           # --duration 8 --users 4 --workers 2 --threads 4

The same set-up as bench/api.py, from bench/harness.py (its own database
`klondike_bench_stack` and Redis db 12, the same gunicorn configuration and settings, `--users`
keep-alive clients in 2 processes), then
each step of the ladder in `bench/urls.py` for `--duration` s after 2 s unmeasured, all of them
`--rounds` times in turn: `GET /bench/constant` (bench/api.py's baseline), then POSTs of a
move's body to views that add, one at a time, a move-sized answer, one database round trip,
DRF with the move endpoint's own parts, and both. It prints requests/s and the CPU ms per
request of gunicorn, PostgreSQL and the clients, each step's median over the rounds, and
what each step adds over the one before: where a move's CPU goes besides its own work.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    CPU_SAMPLE_S,
    HOST,
    MAX_REQUESTS_PER_USER,
    REQUEST_TIMEOUT_S,
    CpuMeter,
    Gunicorn,
    free_port,
    fresh_stores,
    server_env,
    serving,
)
from bench.player import OneWriteConnection  # noqa: E402

# (label, method, path): each step adds one part to the one before it (the first is bench/api.py's
# baseline, the second adds a POST body and a move-sized answer).
LADDER = (
    ("constant GET", "GET", "/bench/constant"),
    ("+ body in, move-sized answer", "POST", "/bench/ladder/body"),
    ("+ one database round trip", "POST", "/bench/ladder/select"),
    ("body + DRF (move's parts), no database", "POST", "/bench/ladder/drf"),
    ("+ one database round trip", "POST", "/bench/ladder/drf-select"),
)
BODY = json.dumps({"seq": 12, "action": "move", "from": "t1", "to": "f1", "count": 1}).encode()


def user_loop(token: str, port: int, method: str, path: str, t_end: float, out: Any) -> None:
    """Send one kind of request on one keep-alive connection until t_end; count the 200s."""
    conn = OneWriteConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    ok = failed = 0
    for _ in range(MAX_REQUESTS_PER_USER):
        if time.monotonic() >= t_end:
            break
        try:
            conn.request(method, path, body=BODY if method == "POST" else None, headers=headers)
            response = conn.getresponse()
            response.read()
        except OSError:
            conn.close()
            failed += 1
            time.sleep(0.01)
            continue
        if response.status == 200:
            ok += 1
        else:
            failed += 1
    out.put((ok, failed))


def client_process(tokens: list[str], *args: Any) -> None:
    threads = [threading.Thread(target=user_loop, args=(t, *args), daemon=True) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def run_step(args: argparse.Namespace, tokens: list[str], method: str, path: str, pgid: int):
    """One step for 2 s unmeasured + args.duration s; (requests/s, CPU ms per request by part)."""
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    t_measure = time.monotonic() + 2.0
    t_end = t_measure + args.duration
    procs = [
        ctx.Process(
            target=client_process,
            args=(tokens[i::2], args.port, method, path, t_end, out),
            daemon=True,
        )
        for i in range(min(2, len(tokens)))
    ]
    for p in procs:
        p.start()
    time.sleep(max(0.0, t_measure - time.monotonic()))
    meter = CpuMeter(pgid, {p.pid for p in procs if p.pid is not None}, args.db)
    while time.monotonic() < t_end:
        time.sleep(max(0.0, min(CPU_SAMPLE_S, t_end - time.monotonic())))
        meter.sample()
    cpu, _ = meter.finish()
    results = [out.get(timeout=REQUEST_TIMEOUT_S + 30) for _ in tokens]
    for p in procs:
        p.join(timeout=REQUEST_TIMEOUT_S + 5)
    ok = sum(r[0] for r in results)
    failed = sum(r[1] for r in results)
    if failed:
        raise RuntimeError(f"{method} {path}: {failed} requests failed (see the gunicorn log)")
    # Requests completed over the whole step, scaled to the measured window's share of it.
    rate = ok / (args.duration + 2.0)
    per = {k: cpu[k] / (rate * args.duration) * 1000 for k in ("gunicorn", "postgres", "clients")}
    return rate, per


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=8.0, help="measured seconds a step")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="passes over the whole ladder")
    parser.add_argument("--db", default="klondike_bench_stack")
    parser.add_argument("--redis-db", type=int, default=12)
    args = parser.parse_args()
    if not (1 <= args.users <= 64 and 1 <= args.rounds <= 20 and 0 < args.duration <= 600):
        parser.error("users 1..64, rounds 1..20, duration up to 10 minutes")
    args.port = free_port()
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    tokens = fresh_stores(env, args.db, args.redis_db, args.users)
    try:
        with serving(env, "bench-stack-gunicorn.log", args.port) as server:
            ladder(args, tokens, server)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def ladder(args: argparse.Namespace, tokens: list[str], server: Gunicorn) -> None:
    """Every step of the ladder, `args.rounds` times; then each step's medians."""
    print(
        f"gunicorn {args.workers} workers x {args.threads} threads, {args.users} users in "
        f"2 client processes, {args.rounds} rounds of {len(LADDER)} steps, "
        f"{args.duration:g} s measured each"
    )
    seen: dict[str, list[tuple[float, dict[str, float]]]] = {path: [] for *_, path in LADDER}
    for n in range(1, args.rounds + 1):
        for label, method, path in LADDER:
            rate, per = run_step(args, tokens, method, path, server.proc.pid)
            seen[path].append((rate, per))
            print(
                f"round {n}: {label:40s} {rate:6.0f} req/s; CPU ms per request: gunicorn "
                f"{per['gunicorn']:.2f}, postgres {per['postgres']:.2f}, clients "
                f"{per['clients']:.2f}",
                flush=True,
            )
    print(f"median of {args.rounds} rounds (gunicorn CPU ms per request, and what it adds):")
    before = None
    for label, _, path in LADDER:
        gunicorn = statistics.median(per["gunicorn"] for _, per in seen[path])
        rate = statistics.median(rate for rate, _ in seen[path])
        added = "" if before is None else f" ({gunicorn - before:+.2f})"
        print(f"  {label:40s} {rate:6.0f} req/s, gunicorn {gunicorn:.2f}{added}")
        # The DRF step adds to the body step, not to the round trip before it.
        before = gunicorn if not path.endswith("/select") else before


if __name__ == "__main__":
    sys.exit(main())
