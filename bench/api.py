"""HTTP load benchmark of the play API: moves per second and the latency of POST .../actions.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379)::

    .venv/bin/python bench/api.py                       # defaults: 2 rounds of 20 s phases
    .venv/bin/python bench/api.py --duration 30 --users 8 --workers 3 --threads 2 --rounds 3

What it does, all on loopback:

1. drops and re-creates the database `klondike_bench`, migrates it, flushes Redis db 13 and
   creates `--users` players with API tokens (directly in the database: no password hashing);
2. starts gunicorn with `config/gunicorn.py`, DEBUG off, DJANGO_HTTPS=0 (plain HTTP), a random
   secret key, THROTTLE_MOVES raised so that the throttle (still on) never refuses a move,
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
import collections
import contextlib
import gc
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
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"  # the only address this benchmark ever talks to
MOVES_PATH = "/api/v1/games/{id}/actions"  # the API's move endpoint
PG = {"host": HOST, "port": 5432, "user": "postgres"}
REDIS_PORT = 6379
BENCH_THROTTLE = "1000000/min"
MAX_REQUESTS_PER_USER = 1_000_000  # a hard stop besides the clock
REQUEST_TIMEOUT_S = 10
SERVER_START_TIMEOUT_S = 60
PREPARE_TIMEOUT_S = 300  # for a phase's client processes to start and plan their games


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


def fresh_stores(env: dict[str, str], db: str, redis_db: int, users: int) -> list[str]:
    """Drop and re-create the benchmark's database `db` and migrate it, flush its Redis db, and
    create `users` players with API tokens; returns the tokens."""
    reset_database(db)
    reset_redis(redis_db)
    django_run(env, "manage.py", "migrate", "--noinput")
    return list(json.loads(django_run(env, str(Path(__file__)), "--make-users", str(users))))


def django_in_this_process(db: str, redis_db: int, secret_key: str) -> str:
    """For a benchmark that calls the application in its own process: fresh stores with one
    player (`fresh_stores`), then Django set up here with the server's settings; returns the
    player's token."""
    settings = argparse.Namespace(
        db=db, redis_db=redis_db, secret_key=secret_key, port=0, workers=1, threads=1
    )
    env = server_env(settings)
    [token] = fresh_stores(env, db, redis_db, users=1)
    os.environ.update(env)
    import django

    django.setup()
    return token


def make_users_main(count: int) -> None:
    """(In a child process with the server's environment) create players, print their tokens."""
    import django

    django.setup()
    from knox.models import AuthToken

    from accounts.models import User
    from accounts.tokens import token_build

    users = User.objects.bulk_create(
        [User(username=f"bench{i}", password="!unusable") for i in range(count)]
    )
    built = [token_build(user=u) for u in users]
    AuthToken.objects.bulk_create([token for token, _ in built])
    print(json.dumps([key for _, key in built]))


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


@contextlib.contextmanager
def serving(env: dict[str, str], log_name: str, port: int) -> Iterator[Gunicorn]:
    """gunicorn started with `env`, answering on `port` and settled; stopped however the block
    ends. SIGTERM and SIGHUP stop the run as Ctrl-C does (KeyboardInterrupt)."""
    log_path = ROOT / "var" / log_name
    log_path.parent.mkdir(exist_ok=True)
    server = Gunicorn(env, log_path)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    try:
        server.wait_ready(port)
        # Let the worker that answered the health check go idle like the others first: when
        # the first phase's users connected right after it, they often all landed on that
        # worker (awake, so first to accept) and stayed there for the phase (2 runs in 6; with
        # this pause, none in 8).
        time.sleep(1.0)
        yield server
    finally:
        server.stop()


# --- CPU accounting from /proc -------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


PARTS = ("gunicorn", "postgres", "pg_shared", "redis", "clients")
CPU_SAMPLE_S = 1.0  # how often the processes are re-read within a measured window


def proc_stat(pid: int) -> tuple[int, int, float] | None:
    """(process group, start time in ticks, CPU seconds: utime + stime) of a process; None if
    it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[2]), int(fields[19]), (int(fields[11]) + int(fields[12])) / _TICK


def cpu_snapshot(
    server_pgid: int, client_pids: set[int], db: str
) -> dict[tuple[int, int], tuple[str, float]]:
    """The part and CPU seconds so far of every process of the benchmark's parts, keyed by
    (pid, start time) so that a reused pid is another process: gunicorn, the PostgreSQL
    backends of the benchmark's database, PostgreSQL's shared background processes (WAL
    writer, checkpointer...), Redis and the client processes. Other databases' backends
    (other people's work on the machine) are left out."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            continue
        stat = proc_stat(pid)
        if stat is None:
            continue
        pgid, started, cpu = stat
        part = None
        if pgid == server_pgid:
            part = "gunicorn"
        elif cmdline.startswith("postgres"):
            if f" {db} " in cmdline:
                part = "postgres"
            elif "(" not in cmdline:  # not a client backend: a shared background process
                part = "pg_shared"
        elif cmdline.startswith("redis-server"):
            part = "redis"
        elif pid in client_pids:
            part = "clients"
        if part is not None:
            out[(pid, started)] = (part, cpu)
    return out


def machine_busy() -> float:
    """Busy CPU seconds so far of all the machine's cores (from /proc/stat)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return (sum(ticks[:8]) - idle) / _TICK


class CpuMeter:
    """The CPU seconds each part uses from its creation to `finish`, process by process.

    Processes come and go within a window: Django replaces a database connection older than
    its CONN_MAX_AGE (a backend exits, another starts), gunicorn recycles a worker. A sum over
    the processes alive at both ends would lose an exited process's whole CPU time (even go
    negative); here a process counts from its first sample (or from zero if it started in the
    window) to its last one, and `sample` re-reads the known processes every CPU_SAMPLE_S, so
    an exiting one loses at most that much of its time."""

    def __init__(self, server_pgid: int, client_pids: set[int], db: str) -> None:
        self.args = (server_pgid, client_pids, db)
        self.machine = machine_busy()
        self.first = cpu_snapshot(*self.args)
        self.last = dict(self.first)

    def sample(self) -> None:
        """Re-read the processes known so far (not all of /proc: cheaper)."""
        for key, (part, _) in list(self.last.items()):
            stat = proc_stat(key[0])
            if stat is not None and stat[1] == key[1]:
                self.last[key] = (part, stat[2])

    def finish(self) -> tuple[dict[str, float], list[float]]:
        """CPU seconds of each part, and of the whole machine, since the meter started; and
        each gunicorn process's share of gunicorn's CPU, largest first."""
        self.sample()
        self.last.update(cpu_snapshot(*self.args))  # and the processes started meanwhile
        out = dict.fromkeys(PARTS, 0.0)
        server: list[float] = []
        for key, (part, cpu) in self.last.items():
            used = cpu - self.first.get(key, (part, 0.0))[1]
            out[part] += used
            if part == "gunicorn":
                server.append(used)
        out["machine"] = machine_busy() - self.machine
        total = sum(server)
        return out, sorted((x / total for x in server if total), reverse=True)


# --- the load generator --------------------------------------------------------------------


class OneWriteConnection(HTTPConnection):
    """An `HTTPConnection` that sends a request's head and a bytes body in one write.

    `http.client` writes them separately: two TCP segments, each costing this client a system
    call and the server a wake-up and a read: measured once on this machine, about 0.05 ms of
    client CPU and 0.1 ms of gunicorn CPU per move. Browsers, too, send a small body with its
    head. A GET has no body: the baseline is unchanged."""

    def _send_output(self, message_body: Any = None, encode_chunked: bool = False) -> None:
        if type(message_body) is not bytes or encode_chunked:
            super()._send_output(message_body, encode_chunked)  # type: ignore[misc]
            return
        # http.client's own head (its lines, then an empty one), with the body joined on.
        self._buffer.extend((b"", message_body))  # type: ignore[attr-defined]
        msg = b"\r\n".join(self._buffer)  # type: ignore[attr-defined]
        del self._buffer[:]  # type: ignore[attr-defined]
        self.send(msg)


class Step(NamedTuple):
    """One planned action: the request body and the answer the server must give to it."""

    body: bytes  # the JSON body, with the `seq` the server will expect
    seq: int  # the log's length after the action
    status: str  # the game's status after it
    state: dict[str, Any]  # the public view of the position after it


class Plan(NamedTuple):
    """A started game and every action that will be sent to it, in order."""

    path: str  # its POST .../actions
    steps: list[Step]


class User:
    """One simulated player: a keep-alive connection, its planned games and the one in play."""

    def __init__(
        self, port: int, token: str, rng: random.Random, game_length: int, moves_path: str
    ) -> None:
        self.conn = OneWriteConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.rng = rng
        self.game_length = game_length
        self.moves_path = moves_path  # where a game's actions go, "{id}" for the game's id
        self.ready: collections.deque[Plan] = collections.deque()  # planned before the clock
        self.prepared: dict[int, int] = {}  # statuses of the game starts before the clock
        self.plan: Plan | None = None  # the game in play
        self.step = 0  # the index of its next step

    def request(
        self, method: str, path: str, data: bytes | None = None
    ) -> tuple[int, bytes, float]:
        """Send one request; returns (HTTP status or 0 if the connection failed, body, seconds)."""
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, ConnectionError):
            self.conn.close()  # reconnects on the next request
            return 0, b"", time.perf_counter() - t0
        return response.status, payload, time.perf_counter() - t0

    def start_game(self) -> tuple[int, float, Plan | None]:
        """Start a game and plan it; returns (HTTP status, or -1 if the new game is not what
        the engine deals, seconds of the request, the plan if there is one)."""
        body = json.dumps({"draw": self.rng.choice((1, 3)), "preset": "N"}).encode()
        status, payload, elapsed = self.request("POST", "/api/v1/games", body)
        if status != 201:
            return status, elapsed, None
        try:
            plan = self.plan_game(json.loads(payload))
        except (ValueError, KeyError, TypeError):  # a body that is not a game resource
            plan = None
        return (201 if plan is not None else -1), elapsed, plan

    def plan_game(self, game: dict[str, Any]) -> Plan | None:
        """Play a just-started game through with the local engine, the actions chosen as
        `next_action` does; None if the server's position is not the engine's deal."""
        from games.engine import GameState, action_to_dict, public_view

        local = GameState.from_code(game["code"])
        if game["status"] != "playing" or game["state"] != public_view(local):
            return None
        seq = game["seq"]
        steps = []
        # At most game_length actions, then a resign: the last step always ends the game.
        for played in range(self.game_length + 1):
            action = self.next_action(local, played)
            body = json.dumps({"seq": seq, **action_to_dict(action)}).encode()
            applied = local.apply(action)
            # The server logs the action, plus each automatic move it set off as an entry of
            # its own (preset R's auto-finish; never in preset N, played here), and `seq` is
            # the log's length.
            seq += 1 + len(applied.auto)
            steps.append(Step(body, seq, local.status, public_view(local)))
            if local.status != "playing":
                break
        return Plan(self.moves_path.format(id=game["id"]), steps)

    def next_action(self, local: Any, played: int) -> Any:
        """A random legal action in `local` after `played` actions; foundation moves are
        favoured so that games progress, and an undo comes now and then."""
        from games.engine import RESIGN, UNDO, Move

        legal = local.legal_moves()
        if played >= self.game_length or not (legal or local.can_undo):
            return RESIGN
        if local.can_undo and (not legal or self.rng.random() < 0.03):
            return UNDO
        home = [m for m in legal if isinstance(m, Move) and m.dst.startswith("f")]
        return self.rng.choice(home) if home and self.rng.random() < 0.6 else self.rng.choice(legal)

    def prepare(self, count: int, deadline: float) -> None:
        """Start and plan `count` games before the clock (fewer if `deadline` passes first)."""
        for _ in range(count):
            if time.monotonic() >= deadline:
                break
            status, _, plan = self.start_game()
            self.prepared[status] = self.prepared.get(status, 0) + 1
            if plan is not None:
                self.ready.append(plan)
            elif status == 0:
                time.sleep(0.01)  # a refused connection: do not spin
        # Gunicorn closes a connection idle for its keep-alive (5 s), as this one may be until
        # every client is ready: the first request on the clock opens a fresh one instead of
        # failing on a closed one.
        self.conn.close()

    def act(self) -> tuple[str, int, float]:
        """Send the next planned action and check the answer; returns (what, HTTP status, 0
        if the connection failed or -1 if the answer is not the plan's, seconds)."""
        if self.plan is None:
            if not self.ready:
                # Out of planned games: start and plan one on the clock so the run goes on.
                status, elapsed, self.plan = self.start_game()
                self.step = 0
                return "start", status, elapsed
            self.plan, self.step = self.ready.popleft(), 0
        step = self.plan.steps[self.step]
        status, payload, elapsed = self.request("POST", self.plan.path, step.body)
        self.step += 1
        if status != 200:
            self.plan = None  # the next game rather than guess what went wrong
            return "action", status, elapsed
        try:
            game = json.loads(payload)
            agrees = (
                game["seq"] == step.seq
                and game["status"] == step.status
                and game["state"] == step.state
            )
        except (ValueError, KeyError, TypeError):  # not a game resource
            agrees = False
        if not agrees or self.step == len(self.plan.steps):
            self.plan = None
        return "action", (status if agrees else -1), elapsed

    def constant(self) -> tuple[str, int, float]:
        """One baseline request."""
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


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
    parser.add_argument("--make-users", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_users is not None:
        make_users_main(args.make_users)
        return 0
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
