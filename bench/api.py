"""HTTP load benchmark of the play API: moves per second and the latency of POST .../actions.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/api.py                       # defaults: 2 rounds of 20 s phases
    .venv/bin/python bench/api.py --duration 30 --users 8 --workers 3 --threads 2 --rounds 3

What it does, all on loopback:

1. drops and re-creates the database `klondike_bench`, migrates it, flushes Redis db 13 and
   creates `--users` players with API tokens (directly in the database: no password hashing;
   bench/harness.py's set-up, as every benchmark of the stack);
2. starts gunicorn with `config/gunicorn.py`, DEBUG off, DJANGO_HTTPS=0 (plain HTTP), a random
   secret key, THROTTLE_MOVES and THROTTLE_GAMES raised so that the throttles (still on) never
   refuse a move or a game start,
   and DJANGO_SETTINGS_MODULE=bench.settings, which adds the baseline view `/bench/constant`;
3. runs the phases of `--phases` in that order, `--rounds` times (baseline, moves, baseline,
   moves...: the machine's speed drifts over minutes, so alternating phases and taking the
   median of several rounds is what makes their ratio trustworthy). Every phase has fresh
   client processes, `--warmup` s unmeasured then `--duration` s measured, at the same
   concurrency:
   - "baseline": `--users` concurrent clients GET the constant view;
   - "moves": before the clock starts, each user starts `--games-per-user` casual games
     (POST /api/v1/games, draw 1 or 3 at random, preset N) and plays each one through with
     its own copy of the engine (random legal actions: draws, recycles, moves of every run
     length; foundation moves favoured, an undo now and then; resign after `--game-length`
     actions, or when nothing is legal and nothing can be undone). That plan holds every
     request body, already encoded with the `seq` the server will expect, and the answer it
     must give: the `seq`, `status` and public position after the action. On the clock a
     user only sends its next planned body and checks the answer: 200, then its `seq`,
     `status` and `state` equal to the plan's (else it counts as status -1 and the user goes
     on with its next game). After a game's last step (a resign or the end of the game) the
     user takes its next planned game; one that has none left starts and plans one on the
     clock (counted as a game start), so the run never stalls. So on the clock a client does
     per move what it does per baseline request, plus decoding and comparing one JSON body:
     the engine, the public views and the encoding of the bodies all ran before the clock;
   - `--moves-path` sends the moves elsewhere: `/bench/plain/games/{id}/actions` is the same
     move in a plain Django view without DRF (bench/urls.py), to measure what DRF costs;
   - the clock starts only once every client process is ready (its games planned): the
     processes report to the parent, which then sets the start time for all of them; a client
     that dies or is not ready within PREPARE_TIMEOUT_S fails the run instead of hanging it;
4. prints, per round, each phase's requests/s and p50/p99 latency, the CPU time each part
   (gunicorn, this database's PostgreSQL backends, Redis, the clients) used per request over
   exactly the measured window (process by process, from /proc, re-read every second: a
   database connection Django replaces or a gunicorn worker recycled within the window still
   counts), how gunicorn's share split between its processes (with a note when one worker
   did most of it: the kernel and gunicorn decide which worker gets a connection, and a
   phase's users keep theirs), and how much of the machine other processes took meanwhile;
   the throughput ratio moves/baseline and the CPU-cost ratio (baseline CPU per request / move
   CPU per request), which is what the throughput ratio would be on a machine doing nothing
   else. At the end: the median over rounds of the ratios, moves/s and baseline req/s, and
   the worst moves p99. Gunicorn is stopped on exit, error or Ctrl-C.

The clients are `--clients` processes with `--users / --clients` threads each, one keep-alive
`http.client` connection per user, which sends a request's head and body in one write (as
browsers do; `http.client` alone would use two). Every loop is bounded by time and by a
request count.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import random
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    BENCH_THROTTLE,
    CPU_SAMPLE_S,
    HOST,
    MAX_REQUESTS_PER_USER,
    PARTS,
    REQUEST_TIMEOUT_S,
    CpuMeter,
    Gunicorn,
    free_port,
    fresh_stores,
    percentile,
    server_env,
    serving,
)
from bench.player import MOVES_PATH, User  # noqa: E402

PREPARE_TIMEOUT_S = 300  # for a phase's client processes to start and plan their games


# --- the load generator --------------------------------------------------------------------


def user_loop(
    user: User, phase: str, t_measure: float, t_end: float, out: dict[str, Any], lock: Any
) -> None:
    """Run one user until t_end; keep what completed inside [t_measure, t_end]."""
    latencies: dict[str, list[float]] = {}
    statuses: dict[str, dict[int, int]] = {}
    step = user.constant if phase == "baseline" else user.act
    for _ in range(MAX_REQUESTS_PER_USER):
        if time.monotonic() >= t_end:
            break
        what, status, elapsed = step()
        if status == 0:
            time.sleep(0.01)  # a refused connection: do not spin
        now = time.monotonic()
        if t_measure <= now <= t_end:
            latencies.setdefault(what, []).append(elapsed)
            counts = statuses.setdefault(what, {})
            counts[status] = counts.get(status, 0) + 1
    with lock:
        for what, values in latencies.items():
            out.setdefault(what, []).extend(values)
        for what, counts in statuses.items():
            merged = out.setdefault("status:" + what, {})
            for status, n in counts.items():
                merged[status] = merged.get(status, 0) + n


class Sync(NamedTuple):
    """How a phase's client processes and the parent agree on when the clock starts."""

    ready: Any  # a semaphore each client releases once its games are planned
    go: Any  # an event the parent sets once every client is ready
    start: Any  # a shared double: the start time (time.monotonic()), written before `go`


def client_process(
    port: int,
    tokens: list[str],
    phase: str,
    seed: str,
    args: argparse.Namespace,
    sync: Sync,
    queue: Any,
) -> None:
    """One load-generator process: plans its users' games (moves), reports ready, waits for the
    start time, then runs a thread per user; sends its measurements to the parent."""
    users = [
        User(port, token, random.Random(f"{seed}:{i}"), args.game_length, args.moves_path)
        for i, token in enumerate(tokens)
    ]
    if phase == "moves":
        deadline = time.monotonic() + PREPARE_TIMEOUT_S
        preparing = [
            threading.Thread(target=u.prepare, args=(args.games_per_user, deadline), daemon=True)
            for u in users
        ]
        for t in preparing:
            t.start()
        for t in preparing:
            t.join(timeout=max(0.0, deadline - time.monotonic()) + REQUEST_TIMEOUT_S + 5)
        if any(t.is_alive() for t in preparing):
            return  # stuck: exit without reporting ready, so the parent fails the run
        # The plans are long-lived and hold many containers: keep the cyclic GC from scanning
        # them again and again on the clock (what a move allocates is freed by refcounting).
        gc.collect()
        gc.freeze()
    sync.ready.release()
    if not sync.go.wait(timeout=PREPARE_TIMEOUT_S + 60):
        return  # the parent gave up on this phase
    t_measure = sync.start.value + args.warmup
    t_end = t_measure + args.duration
    out: dict[str, Any] = {}
    lock = threading.Lock()
    threads = [
        threading.Thread(
            target=user_loop, args=(u, phase, t_measure, t_end, out, lock), daemon=True
        )
        for u in users
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, t_end - time.monotonic()) + REQUEST_TIMEOUT_S + 5)
    prepared = out.setdefault("status:prepare", {})
    for u in users:
        for status, n in u.prepared.items():
            prepared[status] = prepared.get(status, 0) + n
    queue.put(out)


def wait_clients_ready(procs: list[Any], ready: Any, timeout_s: float) -> None:
    """Wait until every client process has reported ready; raise if one exits first or
    `timeout_s` passes, so that a dead or stuck client fails the run instead of hanging it."""
    deadline = time.monotonic() + timeout_s
    waiting = len(procs)
    while waiting:
        if ready.acquire(timeout=0.2):
            waiting -= 1
            continue
        dead = [p.exitcode for p in procs if p.exitcode is not None]
        if dead:
            raise RuntimeError(f"a client process exited with {dead[0]} before it was ready")
        if time.monotonic() >= deadline:
            raise RuntimeError(f"{waiting} client processes not ready after {timeout_s:g} s")


def run_phase(
    args: argparse.Namespace, phase: str, tokens: list[str], server_pgid: int, round_no: int
) -> dict[str, Any]:
    """Run one phase with args.users users in args.clients processes; merge their results.
    The clock starts when every client is ready: warm-up, then the measured window."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    sync = Sync(ctx.Semaphore(0), ctx.Event(), ctx.Value("d", 0.0))
    groups = [tokens[i :: args.clients] for i in range(args.clients)]
    procs = [
        ctx.Process(
            target=client_process,
            args=(args.port, g, phase, f"{args.seed}:{round_no}:{n}", args, sync, queue),
            daemon=True,
        )
        for n, g in enumerate(groups)
        if g
    ]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    merged: dict[str, Any] = {}
    try:
        # The clients' own deadline, plus the slack of their last game start.
        wait_clients_ready(procs, sync.ready, PREPARE_TIMEOUT_S + REQUEST_TIMEOUT_S + 20)
        start = time.monotonic()
        sync.start.value = start
        sync.go.set()
        merged["prepare_s"] = start - t0
        t_measure = start + args.warmup  # the clients compute the same two times from `start`
        t_end = t_measure + args.duration
        client_pids = {p.pid for p in procs if p.pid is not None}
        time.sleep(max(0.0, t_measure - time.monotonic()))
        meter = CpuMeter(server_pgid, client_pids, args.db)
        for _ in range(int(args.duration / CPU_SAMPLE_S) + 2):
            time.sleep(max(0.0, min(CPU_SAMPLE_S, t_end - time.monotonic())))
            if time.monotonic() >= t_end:
                break
            meter.sample()
        merged["cpu"], merged["server_split"] = meter.finish()
        for _ in procs:
            try:
                out = queue.get(timeout=REQUEST_TIMEOUT_S + 30)
            except Exception:
                break
            for key, value in out.items():
                if key.startswith("status:"):
                    target = merged.setdefault(key, {})
                    for status, n in value.items():
                        target[status] = target.get(status, 0) + n
                else:
                    merged.setdefault(key, []).extend(value)
    finally:
        for p in procs:
            p.join(timeout=5 if sync.go.is_set() else 0)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
    return merged


# --- report --------------------------------------------------------------------------------


def summary(result: dict[str, Any], what: str, duration: float) -> dict[str, Any]:
    latencies = result.get(what, [])
    statuses = result.get("status:" + what, {})
    ok = statuses.get(200, 0) + statuses.get(201, 0)
    return {
        "count": len(latencies),
        "ok": ok,
        "rate": ok / duration,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "mean_ms": (statistics.fmean(latencies) * 1000) if latencies else float("nan"),
    }


def cpu_per_request(result: dict[str, Any], requests: int) -> dict[str, float]:
    """CPU ms per request of each part, and `total` of the benchmark's own parts."""
    cpu = result["cpu"]
    per = {k: (v / requests * 1000 if requests else float("nan")) for k, v in cpu.items()}
    per["total"] = sum(per[k] for k in PARTS)
    return per


def cpu_line(result: dict[str, Any], requests: int, duration: float) -> str:
    per = cpu_per_request(result, requests)
    cpu = result["cpu"]
    others = (cpu["machine"] - sum(cpu[k] for k in PARTS)) / duration
    split = " / ".join(f"{x:.0%}" for x in result["server_split"] if x >= 0.005)
    return (
        f"  CPU ms per request: gunicorn {per['gunicorn']:.2f} (by process {split}), "
        f"postgres {per['postgres']:.2f}"
        f" (+ shared {per['pg_shared']:.2f}), redis {per['redis']:.2f}, clients "
        f"{per['clients']:.2f}; total {per['total']:.2f}. Machine busy "
        f"{cpu['machine'] / duration:.2f} of {os.cpu_count()} cores, "
        f"{max(0.0, others):.2f} of them other processes"
    )


def uneven_note(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Say so when one gunicorn worker did most of gunicorn's work. Which worker accepts a
    connection is up to the kernel and gunicorn, and a phase's users keep theirs: when most
    land on one worker, its threads share one GIL and the phase gets less of the machine."""
    split = result["server_split"]
    if args.workers > 1 and split and split[0] > 1 / args.workers + 0.25:
        print(
            f"  uneven: one gunicorn worker did {split[0]:.0%} of gunicorn's CPU (most "
            f"connections landed on it), so this phase's rate is low: trust the median of "
            f"several rounds, or rerun"
        )


def report_phase(
    args: argparse.Namespace, prefix: str, phase: str, result: dict[str, Any]
) -> dict[str, Any]:
    """Print one phase's lines; returns its summary with `cpu` (CPU ms per request)."""
    if phase == "baseline":
        s = summary(result, "constant", args.duration)
        print(
            f"{prefix}baseline GET /bench/constant: {s['rate']:.0f} req/s, "
            f"p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, "
            f"statuses {result.get('status:constant')}"
        )
        print(cpu_line(result, s["count"], args.duration))
        uneven_note(args, result)
        s["cpu"] = cpu_per_request(result, s["count"])
        return s
    s = summary(result, "action", args.duration)
    starts = summary(result, "start", args.duration)
    prepared = result.get("status:prepare", {})
    print(
        f"{prefix}moves POST {args.moves_path}: {s['rate']:.0f} moves/s, "
        f"p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, "
        f"statuses {result.get('status:action')}"
    )
    on_clock = f"{starts['count']} game starts"
    if starts["count"]:
        on_clock += f" (p50 {starts['p50_ms']:.1f} ms, statuses {result.get('status:start')})"
    print(
        f"  {prepared.get(201, 0)} games started and planned before the clock in "
        f"{result['prepare_s']:.1f} s (POST /api/v1/games statuses {prepared}); on the clock "
        f"{on_clock}"
    )
    print(cpu_line(result, s["count"] + starts["count"], args.duration))
    uneven_note(args, result)
    s["cpu"] = cpu_per_request(result, s["count"] + starts["count"])
    return s


def report_ratio(args: argparse.Namespace, prefix: str, results: dict[str, Any]) -> None:
    """Print a round's throughput and CPU-cost ratios; store them in `results`."""
    baseline_rate = results["baseline"]["rate"]
    results["ratio"] = results["moves"]["rate"] / baseline_rate if baseline_rate else float("nan")
    results["cpu_ratio"] = results["baseline"]["cpu"]["total"] / results["moves"]["cpu"]["total"]
    print(
        f"{prefix}ratio moves/baseline at {args.users} users: {results['ratio']:.2f} "
        f"(target >= 0.5); moves p99 {results['moves']['p99_ms']:.1f} ms (target < 50)"
    )
    print(
        f"{prefix}CPU-cost ratio (baseline CPU per request / move CPU per request, all parts "
        f"of the stack and the clients): {results['cpu_ratio']:.2f} - the throughput ratio on "
        f"a machine doing nothing else"
    )


def report_rounds(rounds: list[dict[str, Any]]) -> None:
    """Print the medians over the rounds, and the worst moves p99."""
    med = statistics.median
    head = f"median of {len(rounds)} round{'s' if len(rounds) > 1 else ''}:"
    if "ratio" in rounds[0]:
        ratios = [r["ratio"] for r in rounds]
        each = ", ".join(f"{x:.2f}" for x in ratios)
        print(
            f"{head} ratio moves/baseline {med(ratios):.2f} (rounds: {each}; target >= 0.5), "
            f"CPU-cost ratio {med(r['cpu_ratio'] for r in rounds):.2f}"
        )
    rates = []
    if "moves" in rounds[0]:
        rates.append(f"{med(r['moves']['rate'] for r in rounds):.0f} moves/s")
    if "baseline" in rounds[0]:
        rates.append(f"baseline {med(r['baseline']['rate'] for r in rounds):.0f} req/s")
    worst = ""
    if "moves" in rounds[0]:
        p99s = [r["moves"]["p99_ms"] for r in rounds]
        worst_ms = float("nan") if any(x != x for x in p99s) else max(p99s)  # x != x: nan
        worst = f"; worst moves p99 {worst_ms:.1f} ms (target < 50)"
    print(f"{head} {', '.join(rates)}{worst}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--users", type=int, default=4, help="concurrent clients (both phases)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument("--clients", type=int, default=2, help="load-generator processes")
    parser.add_argument("--game-length", type=int, default=200, help="resign after this many")
    parser.add_argument(
        "--games-per-user", type=int, default=60, help="games planned before each moves phase"
    )
    parser.add_argument("--rounds", type=int, default=2, help="times to run the phases")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port (0: a free one)")
    parser.add_argument("--db", default="klondike_bench", help="database, dropped and re-created")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis db number, flushed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--moves-path",
        default=MOVES_PATH,
        help="where the moves go ({id}: the game's id); /bench/plain/games/{id}/actions is the"
        " same move in a plain Django view, without DRF",
    )
    parser.add_argument("--phases", default="baseline,moves", help="which phases, in order")
    args = parser.parse_args()
    if not (1 <= args.users <= 1000 and 1 <= args.clients <= 64 and 0 < args.duration <= 3600):
        parser.error("users 1..1000, clients 1..64, duration up to an hour")
    if not (1 <= args.rounds <= 100 and 0 <= args.games_per_user <= 10_000):
        parser.error("rounds 1..100, games per user 0..10000")
    if not (1 <= args.game_length <= 10_000 and 0 <= args.warmup <= 600):
        parser.error("game length 1..10000, warm-up up to 10 minutes")
    phases = args.phases.split(",")
    if not phases or any(p not in ("baseline", "moves") for p in phases):
        parser.error("phases: baseline and/or moves, comma-separated")
    args.clients = min(args.clients, args.users)
    args.port = args.port or free_port()
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)

    print(f"set-up: database {args.db}, Redis db {args.redis_db}, {args.users} users", flush=True)
    tokens = fresh_stores(env, args.db, args.redis_db, args.users)
    try:
        with serving(env, "bench-api-gunicorn.log", args.port) as server:
            return run(args, phases, tokens, server)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def run(args: argparse.Namespace, phases: list[str], tokens: list[str], server: Gunicorn) -> int:
    """The phases, round after round, against the running server; then the medians."""
    worker_class = "gthread" if args.threads > 1 else "sync"
    print(
        f"server: gunicorn config/gunicorn.py on {HOST}:{args.port}, {args.workers} workers"
        f" x {args.threads} threads ({worker_class}), DEBUG off, DJANGO_HTTPS=0, "
        f"THROTTLE_MOVES={BENCH_THROTTLE} (raised so the moves throttle never refuses; "
        f"it still runs), no access log"
    )
    print(
        f"load: {args.users} users in {args.clients} client processes, keep-alive "
        f"connections, {args.rounds} round{'s' if args.rounds > 1 else ''} of "
        f"{', '.join(phases)}, each phase "
        f"{args.warmup:g} s warm-up + {args.duration:g} s measured once every client is "
        f"ready (moves: {args.games_per_user} games per user planned first); "
        f"{os.cpu_count()} cores shared by everything",
        flush=True,
    )
    rounds: list[dict[str, Any]] = []
    for round_no in range(1, args.rounds + 1):
        prefix = f"round {round_no}: "
        results: dict[str, Any] = {}
        for phase in phases:
            result = run_phase(args, phase, tokens, server.proc.pid, round_no)
            results[phase] = report_phase(args, prefix, phase, result)
        if "baseline" in results and "moves" in results:
            report_ratio(args, prefix, results)
        rounds.append(results)
        sys.stdout.flush()
    report_rounds(rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
