"""The benchmarks' harness: the servers, the data, the clock's helpers and the CPU accounting.

Every benchmark that needs the stack imports from here (PostgreSQL at 127.0.0.1:5432 as
`postgres` with trust auth, Redis at 127.0.0.1:6379), and measures on its own:

- set-up: `server_env` (the environment of every Django process of a run: bench.settings,
  DEBUG off, plain HTTP, the benchmark's own database and Redis db), `fresh_stores` (drop and
  re-create the database, migrate it, flush the Redis db, create players with API tokens),
  `django_in_this_process` for a benchmark that calls the application itself, `free_port`;
- the server: `Gunicorn` (config/gunicorn.py in a process group of its own) and `serving`
  (started, settled, stopped however the block ends);
- CPU accounting from /proc: `proc_stat`, `CpuMeter` (CPU seconds of gunicorn, the database's
  PostgreSQL backends, PostgreSQL's shared processes, Redis and the clients over a window);
- reporting: `percentile`.

`python -m bench.harness --make-users N` (run by `fresh_stores` with the server's environment)
creates the players and prints their tokens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HOST = "127.0.0.1"  # the only address the benchmarks ever talk to
PG = {"host": HOST, "port": 5432, "user": "postgres"}
REDIS_PORT = 6379
BENCH_THROTTLE = "1000000/min"
MAX_REQUESTS_PER_USER = 1_000_000  # a load generator's hard stop besides the clock
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
        THROTTLE_GAMES=BENCH_THROTTLE,  # the benchmarks start many games from few players
        LOG_LEVEL="WARNING",
        GUNICORN_BIND=f"{HOST}:{args.port}",
        GUNICORN_WORKERS=str(args.workers),
        GUNICORN_THREADS=str(args.threads),
        GUNICORN_ACCESSLOG="",  # no access log: it would measure the log pipe, not the app
        PYTHONUNBUFFERED="1",
    )
    return env


def reset_database(name: str, *, create: bool = True) -> None:
    """Drop and create the benchmark's own database (never any other); `create=False` only
    drops it."""
    import psycopg

    assert name.startswith("klondike_bench"), "only a dedicated benchmark database is dropped"
    with psycopg.connect(dbname="postgres", autocommit=True, **PG) as conn:  # type: ignore[arg-type]
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
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
    return list(json.loads(django_run(env, "-m", "bench.harness", "--make-users", str(users))))


def django_in_this_process(db: str, redis_db: int) -> str:
    """For a benchmark that calls the application in its own process: fresh stores with one
    player (`fresh_stores`), then Django set up here with the server's settings and a random
    secret key (the settings refuse a weak one); returns the player's token."""
    settings = argparse.Namespace(
        db=db,
        redis_db=redis_db,
        secret_key=secrets.token_urlsafe(50),
        port=0,
        workers=1,
        threads=1,
    )
    env = server_env(settings)
    [token] = fresh_stores(env, db, redis_db, users=1)
    django_setup_here(env)
    return token


def django_setup_here(env: dict[str, str]) -> None:
    """Set Django up in this process with `env`, a server's environment (`server_env`): this
    process's own DJANGO_ and THROTTLE_ variables go first, as they do from the server's."""
    for name in [k for k in os.environ if k.startswith(("DJANGO_", "THROTTLE_"))]:
        del os.environ[name]
    os.environ.update(env)
    import django

    django.setup()


def make_users_main(count: int) -> None:
    """(In a child process with the server's environment) create players, print their tokens."""
    import django

    django.setup()
    from django.utils import timezone
    from knox.models import AuthToken

    from accounts.models import User
    from accounts.tokens import token_build

    now = timezone.now()  # verified addresses: the benchmarks start ranked attempts
    users = User.objects.bulk_create(
        [
            User(
                username=f"bench{i}",
                password="!unusable",
                email=f"bench{i}@example.com",
                email_canonical=f"bench{i}@example.com",  # bulk_create skips User.save
                email_verified_at=now,
            )
            for i in range(count)
        ]
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
    interrupt_on_signals()
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


def interrupt_on_signals() -> None:
    """SIGTERM and SIGHUP stop the run as Ctrl-C does (KeyboardInterrupt), so that the
    `finally` blocks stop the servers."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)


# --- CPU accounting from /proc -------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")

PARTS = ("gunicorn", "postgres", "pg_shared", "redis", "clients")
CPU_SAMPLE_S = 1.0  # how often the processes are re-read within a measured window


def stores_dropped_after(args: argparse.Namespace, work: Callable[[], None]) -> int:
    """Run `work`, a benchmark's body with Django set up in this process, under
    `interrupt_on_signals`; then close this process's connections and, unless `args.keep`,
    flush the benchmark's Redis db (`args.redis_db`) and drop its database (`args.db`).
    Returns the exit status: 130 when interrupted, else 0."""
    interrupt_on_signals()
    try:
        work()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            reset_redis(args.redis_db)
            reset_database(args.db, create=False)
    return 0


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


# --- report --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The value at quantile `q` (0..1) of `values`, nearest rank below; nan if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description="The benchmarks' set-up steps.")
    parser.add_argument("--make-users", type=int, required=True, help="players to create")
    make_users_main(parser.parse_args().make_users)
    return 0


if __name__ == "__main__":
    sys.exit(main())
