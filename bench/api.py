"""HTTP load benchmark of the play API: moves per second and the latency of POST .../actions.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/api.py                       # defaults: 20 s per phase
    .venv/bin/python bench/api.py --duration 30 --users 8 --workers 3 --threads 2

What it does, all on loopback:

1. drops and re-creates the database `klondike_bench`, migrates it, flushes Redis db 13 and
   creates `--users` players with API tokens (directly in the database: no password hashing);
2. starts gunicorn with `config/gunicorn.py`, DEBUG off, DJANGO_HTTPS=0 (plain HTTP), a random
   secret key, THROTTLE_MOVES raised so that the throttle (still on) never refuses a move,
   and DJANGO_SETTINGS_MODULE=bench.settings, which adds the baseline view `/bench/constant`;
3. phase "baseline": `--users` concurrent clients GET the constant view for `--duration` s;
4. phase "moves": the same number of clients each start a game and play random legal
   actions (draws, recycles, moves of every run length, a few undos; resign after
   `--game-length` actions), tracking the game with the engine on their side, checking every
   response's `seq` and public position against it;
5. prints requests/s and p50/p99 latency of both phases and their ratio; the CPU time each
   part (gunicorn, this database's PostgreSQL backends, Redis, the clients) used per request,
   and how much of the machine other processes took meanwhile; and the CPU-cost ratio
   (baseline CPU per request / move CPU per request), which is what the throughput ratio
   would be on a machine doing nothing else. Gunicorn is stopped on exit, error or Ctrl-C.

The clients are `--clients` processes with `--users / --clients` threads each, one keep-alive
`http.client` connection per user. Every loop is bounded by time and by a request count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"  # the only address this benchmark ever talks to
PG = {"host": HOST, "port": 5432, "user": "postgres"}
REDIS_PORT = 6379
BENCH_THROTTLE = "1000000/min"
MAX_REQUESTS_PER_USER = 1_000_000  # a hard stop besides the clock
REQUEST_TIMEOUT_S = 10
SERVER_START_TIMEOUT_S = 60


# --- set-up -------------------------------------------------------------------------------


def server_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment of every Django process of the run (migrate, gunicorn)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "THROTTLE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DJANGO_DEBUG="0",
        DJANGO_HTTPS="0",  # plain HTTP on loopback: no SSL redirect, no secure-only cookies
        DJANGO_SECRET_KEY=args.secret_key,
        DJANGO_ALLOWED_HOSTS=HOST,
        DATABASE_URL=f"postgres://{PG['user']}@{HOST}:{PG['port']}/{args.db}",
        REDIS_URL=f"redis://{HOST}:{REDIS_PORT}/{args.redis_db}",
        THROTTLE_MOVES=BENCH_THROTTLE,
        LOG_LEVEL="WARNING",
        GUNICORN_BIND=f"{HOST}:{args.port}",
        GUNICORN_WORKERS=str(args.workers),
        GUNICORN_THREADS=str(args.threads),
        GUNICORN_ACCESSLOG="",  # no access log: it would measure the log pipe, not the app
        PYTHONUNBUFFERED="1",
    )
    return env


def reset_database(name: str) -> None:
    """Drop and create the benchmark's own database (never any other)."""
    import psycopg

    assert name.startswith("klondike_bench"), "only a dedicated benchmark database is dropped"
    with psycopg.connect(dbname="postgres", autocommit=True, **PG) as conn:  # type: ignore[arg-type]
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def reset_redis(db: int) -> None:
    """Flush the benchmark's own Redis database number."""
    import redis

    redis.Redis(host=HOST, port=REDIS_PORT, db=db, socket_timeout=5).flushdb()


def django_run(env: dict[str, str], *argv: str) -> str:
    """Run a Django management step of the set-up in a child process; returns its stdout."""
    done = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def make_users_main(count: int) -> None:
    """(In a child process with the server's environment) create players, print their tokens."""
    import django

    django.setup()
    from rest_framework.authtoken.models import Token

    from accounts.models import User

    users = User.objects.bulk_create(
        [User(username=f"bench{i}", password="!unusable") for i in range(count)]
    )
    tokens = Token.objects.bulk_create([Token(user=u, key=secrets.token_hex(20)) for u in users])
    print(json.dumps([t.key for t in tokens]))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Gunicorn:
    """The server, in a process group of its own so that every worker goes with it."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.log = log_path.open("w")
        self.proc = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "-c",
                "config/gunicorn.py",
                "config.wsgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, port: int) -> None:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        url = f"http://{HOST}:{port}/api/v1/health"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"gunicorn exited with {self.proc.returncode}; see {self.log.name}"
                )
            with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within {SERVER_START_TIMEOUT_S} s")

    def stop(self) -> None:
        """SIGTERM to the master (graceful), then SIGKILL to the whole group if it lingers."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.log.close()


# --- CPU accounting from /proc -------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _proc_stats(server_pgid: int) -> list[tuple[int, str, int, float]]:
    """(pid, command line, process group, CPU seconds) of every process we may read."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / _TICK  # utime + stime
        if int(fields[2]) == server_pgid:  # + reaped children: recycled gunicorn workers
            cpu += (int(fields[13]) + int(fields[14])) / _TICK
        out.append(
            (int(entry), cmdline or raw[raw.index("(") + 1 : raw.rindex(")")], int(fields[2]), cpu)
        )
    return out


def cpu_by_part(server_pgid: int, client_pids: set[int], db: str) -> dict[str, float]:
    """CPU seconds so far of gunicorn, the PostgreSQL backends of the benchmark's database,
    PostgreSQL's shared background processes (WAL writer, checkpointer...), Redis, the client
    processes, and the machine as a whole (busy time of all cores, from /proc/stat). Other
    databases' backends (other people's work on the machine) are left out."""
    parts = {"gunicorn": 0.0, "postgres": 0.0, "pg_shared": 0.0, "redis": 0.0, "clients": 0.0}
    for pid, cmdline, pgid, cpu in _proc_stats(server_pgid):
        if pgid == server_pgid:
            parts["gunicorn"] += cpu
        elif cmdline.startswith("postgres"):
            if f" {db} " in cmdline:
                parts["postgres"] += cpu
            elif "(" not in cmdline:  # not a client backend: a shared background process
                parts["pg_shared"] += cpu
        elif cmdline.startswith("redis-server"):
            parts["redis"] += cpu
        elif pid in client_pids:
            parts["clients"] += cpu
    cpu_line = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(x) for x in cpu_line]
    idle = ticks[3] + ticks[4]  # idle + iowait
    parts["machine"] = (sum(ticks[:8]) - idle) / _TICK
    return parts


# --- the load generator --------------------------------------------------------------------


class User:
    """One simulated player: a keep-alive connection and the game they are playing."""

    def __init__(self, port: int, token: str, rng: random.Random, game_length: int) -> None:
        self.conn = HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.rng = rng
        self.game_length = game_length
        self.game: dict[str, Any] | None = None
        self.local: Any = None  # the client's own engine copy of the game
        self.played = 0

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes, float]:
        data = None if body is None else json.dumps(body).encode()
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, ConnectionError):
            self.conn.close()  # reconnects on the next request
            return 0, b"", time.perf_counter() - t0
        return response.status, payload, time.perf_counter() - t0

    def start_game(self) -> tuple[int, float]:
        from games.engine import GameState

        status, payload, elapsed = self.request(
            "POST", "/api/v1/games", {"draw": self.rng.choice((1, 3)), "preset": "N"}
        )
        if status == 201:
            self.game = json.loads(payload)
            self.local = GameState.from_code(self.game["code"])
            self.played = 0
        else:
            self.game = None
        return status, elapsed

    def next_action(self) -> Any:
        """A random legal action; foundation moves are favoured so that games progress."""
        from games.engine import RESIGN, UNDO, Move

        legal = self.local.legal_moves()
        if self.played >= self.game_length or not (legal or self.local.can_undo):
            return RESIGN
        if self.local.can_undo and (not legal or self.rng.random() < 0.03):
            return UNDO
        home = [m for m in legal if isinstance(m, Move) and m.dst.startswith("f")]
        return self.rng.choice(home) if home and self.rng.random() < 0.6 else self.rng.choice(legal)

    def act(self) -> tuple[str, int, float]:
        """Play one action; returns (what, HTTP status or 0, seconds)."""
        from games.engine import action_to_dict, public_view

        if self.game is None:
            status, elapsed = self.start_game()
            return "start", status, elapsed
        action = self.next_action()
        body = {"seq": self.game["seq"], **action_to_dict(action)}
        status, payload, elapsed = self.request(
            "POST", f"/api/v1/games/{self.game['id']}/actions", body
        )
        if status != 200:
            self.game = None  # start afresh rather than guess what went wrong
            return "action", status, elapsed
        self.local.apply(action)
        self.played += 1
        game = json.loads(payload)
        if (
            game["seq"] < self.game["seq"] + 1
            or game["status"] != self.local.status
            or game["state"] != public_view(self.local)
        ):
            self.game = None
            return "action", -1, elapsed  # -1: the server disagrees with the local engine
        self.game = game if game["status"] == "playing" else None
        return "action", status, elapsed

    def constant(self) -> tuple[str, int, float]:
        status, _, elapsed = self.request("GET", "/bench/constant")
        return "constant", status, elapsed


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


def client_process(
    port: int,
    tokens: list[str],
    phase: str,
    t_measure: float,
    t_end: float,
    seed: int,
    game_length: int,
    queue: Any,
) -> None:
    """One load-generator process: a thread per user; sends its measurements to the parent."""
    out: dict[str, Any] = {}
    lock = threading.Lock()
    threads = [
        threading.Thread(
            target=user_loop,
            args=(
                User(port, token, random.Random(seed * 1000 + i), game_length),
                phase,
                t_measure,
                t_end,
                out,
                lock,
            ),
            daemon=True,
        )
        for i, token in enumerate(tokens)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, t_end - time.monotonic()) + REQUEST_TIMEOUT_S + 5)
    queue.put(out)


def run_phase(
    args: argparse.Namespace, phase: str, tokens: list[str], server_pgid: int
) -> dict[str, Any]:
    """Run one phase with args.users users in args.clients processes; merge their results."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    t_measure = time.monotonic() + 1.0 + args.warmup  # 1 s for the processes to start
    t_end = t_measure + args.duration
    groups = [tokens[i :: args.clients] for i in range(args.clients)]
    procs = [
        ctx.Process(
            target=client_process,
            args=(args.port, g, phase, t_measure, t_end, args.seed + n, args.game_length, queue),
            daemon=True,
        )
        for n, g in enumerate(groups)
        if g
    ]
    for p in procs:
        p.start()
    client_pids = {p.pid for p in procs if p.pid is not None}
    time.sleep(max(0.0, t_measure - time.monotonic()))
    cpu_before = cpu_by_part(server_pgid, client_pids, args.db)
    time.sleep(max(0.0, t_end - time.monotonic()))
    cpu_after = cpu_by_part(server_pgid, client_pids, args.db)
    merged: dict[str, Any] = {}
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
    for p in procs:
        p.join(timeout=5)
        if p.is_alive():
            p.terminate()
            p.join(timeout=5)
    merged["cpu"] = {k: cpu_after[k] - cpu_before[k] for k in cpu_after}
    return merged


# --- report --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(result: dict[str, Any], what: str, duration: float) -> dict[str, float]:
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


OURS = ("gunicorn", "postgres", "pg_shared", "redis", "clients")


def cpu_per_request(result: dict[str, Any], requests: int) -> dict[str, float]:
    """CPU ms per request of each part, and `total` of the benchmark's own parts."""
    cpu = result["cpu"]
    per = {k: (v / requests * 1000 if requests else float("nan")) for k, v in cpu.items()}
    per["total"] = sum(per[k] for k in OURS)
    return per


def cpu_line(result: dict[str, Any], requests: int, duration: float) -> str:
    per = cpu_per_request(result, requests)
    cpu = result["cpu"]
    others = (cpu["machine"] - sum(cpu[k] for k in OURS)) / duration
    return (
        f"  CPU ms per request: gunicorn {per['gunicorn']:.2f}, postgres {per['postgres']:.2f}"
        f" (+ shared {per['pg_shared']:.2f}), redis {per['redis']:.2f}, clients "
        f"{per['clients']:.2f}; total {per['total']:.2f}. Machine busy "
        f"{cpu['machine'] / duration:.2f} of {os.cpu_count()} cores, "
        f"{max(0.0, others):.2f} of them other processes"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--users", type=int, default=4, help="concurrent clients (both phases)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument("--clients", type=int, default=2, help="load-generator processes")
    parser.add_argument("--game-length", type=int, default=200, help="resign after this many")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port (0: a free one)")
    parser.add_argument("--db", default="klondike_bench", help="database, dropped and re-created")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis db number, flushed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phases", default="baseline,moves", help="which phases, in order")
    parser.add_argument("--make-users", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_users is not None:
        make_users_main(args.make_users)
        return 0
    if not (1 <= args.users <= 1000 and 1 <= args.clients <= 64 and 0 < args.duration <= 3600):
        parser.error("users 1..1000, clients 1..64, duration up to an hour")
    args.clients = min(args.clients, args.users)
    args.port = args.port or free_port()
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)

    print(f"set-up: database {args.db}, Redis db {args.redis_db}, {args.users} users", flush=True)
    reset_database(args.db)
    reset_redis(args.redis_db)
    django_run(env, "manage.py", "migrate", "--noinput")
    tokens = json.loads(django_run(env, str(Path(__file__)), "--make-users", str(args.users)))

    log_path = ROOT / "var" / "bench-api-gunicorn.log"
    log_path.parent.mkdir(exist_ok=True)
    server = Gunicorn(env, log_path)
    # SIGTERM (and SIGHUP) stop the run like Ctrl-C does, so `finally` stops gunicorn.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    try:
        server.wait_ready(args.port)
        worker_class = "gthread" if args.threads > 1 else "sync"
        print(
            f"server: gunicorn config/gunicorn.py on {HOST}:{args.port}, {args.workers} workers"
            f" x {args.threads} threads ({worker_class}), DEBUG off, DJANGO_HTTPS=0, "
            f"THROTTLE_MOVES={BENCH_THROTTLE} (raised so the moves throttle never refuses; "
            f"it still runs), no access log"
        )
        print(
            f"load: {args.users} users in {args.clients} client processes, keep-alive "
            f"connections, {args.warmup:g} s warm-up + {args.duration:g} s measured per phase; "
            f"{os.cpu_count()} cores shared by everything"
        )
        results: dict[str, dict[str, float]] = {}
        for phase in args.phases.split(","):
            result = run_phase(args, phase, tokens, server.proc.pid)
            if phase == "baseline":
                s = summary(result, "constant", args.duration)
                results["baseline"] = s
                print(
                    f"baseline GET /bench/constant: {s['rate']:.0f} req/s, "
                    f"p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, "
                    f"statuses {result.get('status:constant')}"
                )
                print(cpu_line(result, s["count"], args.duration))
                results["baseline_cpu"] = cpu_per_request(result, s["count"])
            else:
                s = summary(result, "action", args.duration)
                starts = summary(result, "start", args.duration)
                results["moves"] = s
                print(
                    f"moves POST /api/v1/games/{{id}}/actions: {s['rate']:.0f} moves/s, "
                    f"p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, "
                    f"statuses {result.get('status:action')}"
                )
                print(
                    f"  plus {starts['ok']:.0f} game starts (POST /api/v1/games, "
                    f"p50 {starts['p50_ms']:.1f} ms), statuses {result.get('status:start')}"
                )
                print(cpu_line(result, s["count"] + starts["count"], args.duration))
                results["moves_cpu"] = cpu_per_request(result, s["count"] + starts["count"])
        if "baseline" in results and "moves" in results:
            ratio = results["moves"]["rate"] / results["baseline"]["rate"]
            print(
                f"ratio moves/baseline at {args.users} users: {ratio:.2f} "
                f"(target >= 0.5); moves p99 {results['moves']['p99_ms']:.1f} ms (target < 50)"
            )
            cpu_ratio = results["baseline_cpu"]["total"] / results["moves_cpu"]["total"]
            print(
                f"CPU-cost ratio (baseline CPU per request / move CPU per request, all parts of "
                f"the stack and the clients): {cpu_ratio:.2f} - the throughput ratio on a "
                f"machine doing nothing else"
            )
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
