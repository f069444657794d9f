"""The midnight burst: N players start the new day's ranked attempt within one second.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    flock /tmp/klondike-bench.lock .venv/bin/python bench/burst.py --players 200
    flock /tmp/klondike-bench.lock .venv/bin/python bench/burst.py --players 1000
    flock /tmp/klondike-bench.lock .venv/bin/python bench/burst.py --players 200 --deal missing

The day rolling over. The server's clock is not moved: it runs unpatched on the real clock, and
the benchmark makes the database what it is in the first second of a UTC day instead. Nothing a
ranked start does depends on the time of day but whether the day is open for starts
(`games.clock.accepts_starts`, true from 00:00:00); what changes at midnight is the state:
nobody has an attempt on the new day's board yet, and the day's deal is either already made or
not. `--deal ready` (the default) is the normal night: the beat's `ensure_daily_deals` makes
today's and tomorrow's deals every 10 minutes, so the new day's deal was made the day before;
here it is made before the burst by the same service (`daily_deal_get_or_create`, for the
burst's mode). `--deal missing` is the night the beat was down: no deal for the day, so the
first starts must make it (solve and shorten it) inside their requests. (The tests move the
clock with time_machine instead, inside one process; doing that to a gunicorn would measure a
patched clock.) A run that spans a real UTC midnight says so and fails.

What it does, all on loopback:

1. bench/harness.py's set-up: drops and re-creates `--db`, migrates it, flushes `--redis-db`,
   creates `--players` players (verified addresses, API tokens) and a few more for the
   warm-up; with `--deal ready`, makes the day's deal in `--mode`. DAILY_SECRET is fixed, so a
   day's deal is the same from run to run;
2. starts gunicorn (config/gunicorn.py, bench.settings, `--workers` x `--threads`) and warms
   it up for `--warmup` s (casual game starts and GET /api/v1/me from the warm-up players, on
   every worker): a server at midnight has served all day;
3. the burst: every player gets a start time drawn uniformly within `--window` s, on a clock
   that starts once every client process is ready (`--clients` processes, a thread and a fresh
   connection per player, as a player's first request of the day); at its time it sends
   POST /api/v1/daily/<today>/<mode>/start once and waits up to `--timeout` s;
4. prints the starts' p50, p99 and max (from each request's send to its answer), the answers
   by HTTP status (0: no answer) with the error codes, the throughput (starts answered 2xx over
   the time from the first send to the last answer), how late the clients sent (their own
   load), the CPU ms each part used per start over the burst (harness.CpuMeter), and checks
   the database: one daily deal for the day and mode, one attempt for each 201.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import random
import secrets
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    CPU_SAMPLE_S,
    HOST,
    PARTS,
    PG,
    CpuMeter,
    django_run,
    free_port,
    fresh_stores,
    percentile,
    server_env,
    serving,
)
from bench.player import OneWriteConnection  # noqa: E402

WARMUP_PLAYERS = 16
READY_TIMEOUT_S = 120  # for the client processes to start their threads
LEAD_S = 0.5  # from "every client is ready" to the burst's first possible send


class Answer(NamedTuple):
    """One player's start: when it was sent (s after the burst's clock), how late against its
    planned time, how long it took, and what came back."""

    sent: float
    late: float
    seconds: float
    status: int  # HTTP status, 0 when the request failed or timed out
    code: str  # the error format's code of a refusal, else ""


def start_path(day: str, mode: str) -> str:
    """The ranked start's path of a day (ISO date) and mode."""
    return f"/api/v1/daily/{day}/{mode}/start"


def player_start(
    port: int, token: str, path: str, at: float, origin: float, timeout: float
) -> Answer:
    """Wait until `origin + at` (time.monotonic), then send one ranked start."""
    conn = OneWriteConnection(HOST, port, timeout=timeout)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    time.sleep(max(0.0, origin + at - time.monotonic()))
    t0 = time.monotonic()
    code = ""
    try:
        conn.request("POST", path, body=b"", headers=headers)
        response = conn.getresponse()
        body = response.read()
        status = response.status
    except OSError:
        status, body = 0, b""
    finally:
        conn.close()
    t1 = time.monotonic()
    if status >= 400:
        try:
            code = json.loads(body)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = "?"
    return Answer(t0 - origin, t0 - origin - at, t1 - t0, status, code)


def client_process(
    port: int,
    plan: list[tuple[str, float]],
    path: str,
    timeout: float,
    ready: Any,
    origin: Any,
    go: Any,
    queue: Any,
) -> None:
    """One load-generator process: a thread per planned (token, start time); reports ready,
    waits for the burst's clock, then sends the list of its players' answers."""
    answers: list[Answer] = []
    lock = threading.Lock()

    def run(token: str, at: float) -> None:
        answer = player_start(port, token, path, at, origin.value, timeout)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in plan]
    ready.release()
    if not go.wait(timeout=READY_TIMEOUT_S + 60):
        return
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, origin.value + LEAD_S - time.monotonic()) + timeout + 10)
    queue.put(answers)


def warm_up(port: int, tokens: list[str], seconds: float) -> None:
    """Casual starts and GET /api/v1/me from `tokens`, one thread each, for `seconds`: every
    gunicorn worker and thread has imported and served what a start needs."""
    end = time.monotonic() + seconds

    def loop(token: str) -> None:
        conn = OneWriteConnection(HOST, port, timeout=10)
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        start = json.dumps({"draw": 1, "preset": "N"}).encode()
        requests = (("POST", "/api/v1/games", start), ("GET", "/api/v1/me", None))
        while time.monotonic() < end:
            for method, path, data in requests:
                try:
                    conn.request(method, path, body=data, headers=headers)
                    conn.getresponse().read()
                except OSError:
                    conn.close()
        conn.close()

    threads = [threading.Thread(target=loop, args=(t,), daemon=True) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 15)


def burst(
    args: argparse.Namespace, tokens: list[str], path: str, server_pgid: int
) -> tuple[list[Answer], dict[str, float]]:
    """Run the burst; returns every player's answer and the CPU seconds of each part."""
    rng = random.Random(args.seed)
    plan = [(token, rng.uniform(0.0, args.window)) for token in tokens]
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    ready, go, origin = ctx.Semaphore(0), ctx.Event(), ctx.Value("d", 0.0)
    groups = [plan[i :: args.clients] for i in range(args.clients)]
    procs = [
        ctx.Process(
            target=client_process,
            args=(args.port, group, path, args.timeout, ready, origin, go, queue),
            daemon=True,
        )
        for group in groups
        if group
    ]
    for p in procs:
        p.start()
    answers: list[Answer] = []
    try:
        for _ in procs:
            if not ready.acquire(timeout=READY_TIMEOUT_S):
                raise RuntimeError(f"the client processes were not ready in {READY_TIMEOUT_S} s")
        origin.value = time.monotonic() + LEAD_S
        go.set()
        meter = CpuMeter(server_pgid, {p.pid for p in procs if p.pid is not None}, args.db)
        while len(answers) < len(tokens):
            try:
                answers.extend(queue.get(timeout=CPU_SAMPLE_S))
            except Exception:  # queue.Empty: nothing yet, sample the CPU meanwhile
                if not any(p.is_alive() for p in procs) and queue.empty():
                    break
            meter.sample()
        cpu, _ = meter.finish()
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    return answers, cpu


def database_check(db: str, day: str, mode: str) -> tuple[int, int]:
    """(daily deals of the day and mode, ranked attempts on them) in the benchmark's database."""
    import psycopg

    with psycopg.connect(dbname=db, **PG) as conn:  # type: ignore[arg-type]
        row = conn.execute(
            "SELECT count(DISTINCT d.id), count(g.id) FROM games_dailydeal d"
            " LEFT JOIN games_game g ON g.daily_id = d.id WHERE d.date = %s AND d.mode = %s",
            (day, mode),
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def report(args: argparse.Namespace, answers: list[Answer], cpu: dict[str, float], day: str) -> int:
    """Print the burst's figures and the database check; returns the exit status."""
    statuses = collections.Counter(a.status for a in answers)
    codes = collections.Counter(f"{a.status} {a.code}" for a in answers if a.code)
    seconds = [a.seconds for a in answers]
    ok = statuses[200] + statuses[201]
    first = min((a.sent for a in answers), default=0.0)
    last = max((a.sent + a.seconds for a in answers), default=0.0)
    span = last - first
    print(
        f"starts: p50 {percentile(seconds, 0.50) * 1000:.1f} ms, p99 "
        f"{percentile(seconds, 0.99) * 1000:.1f} ms, max {max(seconds, default=0) * 1000:.1f} ms"
    )
    print(
        f"answers by status: {dict(sorted(statuses.items()))}"
        + (f"; refusals by code: {dict(codes)}" if codes else "")
        + f"; {args.players - len(answers)} players' clients reported nothing"
    )
    print(
        f"throughput: {ok} starts answered 2xx in {span:.2f} s from the first send to the last "
        f"answer, {ok / span if span else float('nan'):.0f} starts/s; the clients sent up to "
        f"{max((a.late for a in answers), default=0) * 1000:.0f} ms late (their own load)"
    )
    per = {k: cpu[k] / ok * 1000 if ok else float("nan") for k in (*PARTS, "machine")}
    others = max(0.0, cpu["machine"] - sum(cpu[k] for k in PARTS))
    print(
        f"CPU ms per start answered: gunicorn {per['gunicorn']:.2f}, postgres "
        f"{per['postgres']:.2f} (+ shared {per['pg_shared']:.2f}), redis {per['redis']:.2f}, "
        f"clients {per['clients']:.2f}; the machine was busy {cpu['machine'] / span:.2f} of "
        f"{os.cpu_count()} cores over the burst, {others / span:.2f} of them other processes"
        if span
        else "CPU: no answer"
    )
    deals, attempts = database_check(args.db, day, args.mode)
    print(
        f"database: {deals} daily deal for {day} {args.mode} (1 expected), {attempts} ranked "
        f"attempts ({statuses[201]} answered 201)"
    )
    if datetime.now(UTC).date().isoformat() != day:
        print("the run spanned a UTC midnight: rerun it", file=sys.stderr)
        return 1
    return 0 if deals == 1 and attempts == statuses[201] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200, help="players in the burst")
    parser.add_argument("--window", type=float, default=1.0, help="seconds the starts spread")
    parser.add_argument("--deal", choices=("ready", "missing"), default="ready")
    parser.add_argument("--mode", default="D1N", help="the daily mode started")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument("--clients", type=int, default=4, help="load-generator processes")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a start may take")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up load")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port (0: a free one)")
    parser.add_argument("--db", default="klondike_bench_burst", help="dropped and re-created")
    parser.add_argument("--redis-db", type=int, default=15, help="Redis db number, flushed")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (1 <= args.players <= 5000 and 1 <= args.clients <= 64 and 0 < args.window <= 60):
        parser.error("players 1..5000, clients 1..64, window up to 60 s")
    args.port = args.port or free_port()
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    # A fixed daily secret: the same deal for a day from run to run (the solver's work in
    # `--deal missing` depends on it).
    env["DAILY_SECRET"] = hashlib.sha256(b"bench/burst.py daily secret").hexdigest()
    day = datetime.now(UTC).date().isoformat()
    print(
        f"set-up: database {args.db}, Redis db {args.redis_db}, {args.players} players; "
        f"{day} {args.mode}, its deal {args.deal}",
        flush=True,
    )
    tokens = fresh_stores(env, args.db, args.redis_db, args.players + WARMUP_PLAYERS)
    if args.deal == "ready":
        made = time.monotonic()
        django_run(
            env,
            "manage.py",
            "shell",
            "-c",
            "from datetime import date; from games.daily.services.deals import "
            f"daily_deal_get_or_create as make; make(day=date.fromisoformat({day!r}), "
            f"mode={args.mode!r})",
        )
        print(f"the day's deal made ahead, as the beat does, in {time.monotonic() - made:.1f} s")
    warmers, players = tokens[:WARMUP_PLAYERS], tokens[WARMUP_PLAYERS:]
    try:
        with serving(env, "bench-burst-gunicorn.log", args.port) as server:
            worker_class = "gthread" if args.threads > 1 else "sync"
            print(
                f"server: gunicorn config/gunicorn.py, {args.workers} workers x {args.threads} "
                f"threads ({worker_class}), DEBUG off; warm-up {args.warmup:g} s; burst: "
                f"{args.players} players within {args.window:g} s from {args.clients} client "
                f"processes, a fresh connection each; {os.cpu_count()} cores shared by "
                f"everything, load average before {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            warm_up(args.port, warmers, args.warmup)
            answers, cpu = burst(args, players, start_path(day, args.mode), server.proc.pid)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return report(args, answers, cpu, day)


if __name__ == "__main__":
    sys.exit(main())
