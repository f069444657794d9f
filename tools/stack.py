"""The multi-node stack on one machine: nginx in front of three gunicorn nodes, with their own
PostgreSQL cluster and Redis, the two Celery workers and one beat, all under one folder.

    python tools/stack.py start     # (or `make stack`) set up what is missing, start what is down
    python tools/stack.py status
    python tools/stack.py stop      # (or `make stack-stop`) the data stays under var/stack

Everything lives under the root (var/stack by default): the PostgreSQL cluster (`pg/`, made by
initdb with the service's two roles), the secret key (kept, so a restart keeps sessions and
tokens), the generated nginx configuration, the pid files (`run/`) and every process's log
(`logs/`). The stack's PostgreSQL and Redis listen on ports of their own, so its faults never
touch the machine's shared servers. Each part runs in a process group of its own, so that a
fault (`kill_node`, `kill_ranking_worker`) takes a master and all its workers at once.

The load balancer retries a request on the next node only when the node refused the connection
or timed out, and a POST (or PATCH) only when it was never sent (nginx's default: no
`non_idempotent`). A move that reached a node that then died may have been committed: the
client, not the balancer, retries it with the same `seq`, which the API answers idempotently
(docs/api.md), while a second game start or a logout replayed by the balancer would not be.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import http.client
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"

LB_PORT = 8480
NODE_PORT = 8481  # node i listens on NODE_PORT + i
PG_PORT = 5480
REDIS_PORT = 6480
# Where `Ports.free` looks: under Linux's ephemeral range (32768-60999 by default).
FREE_PORTS_FROM, FREE_PORTS_TO = 20_000, 32_000

NODE_WORKERS = 2
NODE_THREADS = 4
DATABASE = "klondike"
OWNER_ROLE = "klondike"  # owns the database and runs the migrations
SERVICE_ROLE = "klondike_app"  # the web nodes' and workers' role
HEALTH_PATH = "/api/v1/health"
START_TIMEOUT_S = 90
STOP_TIMEOUT_S = 20

# The Debian package that brings each binary the stack runs.
PACKAGES = {"nginx": "nginx", "redis-server": "redis-server", "initdb": "postgresql"}


# --- the balancer's configuration (docker-compose.yml's nginx-conf says the same) ---------
# One client cannot take the balancer (docs/operations.md, "Adding a node"): connections enough
# for thousands of idle ones, and a connection that has not sent its whole header (or body) in
# 10 s is closed; `limit_conn` and `limit_req` count requests per client address ($per_client,
# defined beside each configuration), and nginx's own refusals under /api/ are the API's error
# format (config/errors.py). A header that nginx cannot hold (8 KiB) is its 494, answered 431.
NGINX_MAIN = """worker_rlimit_nofile 40000;
events { worker_connections 16384; }"""
NGINX_HTTP = """client_max_body_size 1m;
client_header_timeout 10s;
client_body_timeout 10s;
send_timeout 10s;
keepalive_timeout 15s;
reset_timedout_connection on;
large_client_header_buffers 4 8k;
limit_conn_zone $per_client zone=per_client_conn:10m;
limit_req_zone $per_client zone=per_client_req:10m rate=20r/s;
limit_conn_status 429;
limit_req_status 429;"""
NGINX_SERVER = """limit_conn per_client_conn 100;
limit_req zone=per_client_req burst=100 nodelay;
# Refused before a location is known: answered in the error format on every path.
error_page 414 /_errors/414.json;  # a named location needs the URI this lacks
error_page 494 =431 @header_too_large;
# The scraper reads each node's metrics at the node itself (config/metrics.py): never
# through the balancer, whatever token a request carries.
location = /metrics { return 404; }
location = /_errors/414.json {
    internal;
    default_type application/json;
    return 414 '{"error":{"code":"request_too_large",
        "message":"The request line is too long."}}';
}
location @header_too_large {
    default_type application/json;
    return 431 '{"error":{"code":"request_too_large",
        "message":"A request header or cookie is too large."}}';
}
location @body_too_large {
    default_type application/json;
    return 413 '{"error":{"code":"request_too_large",
        "message":"The request body is too large."}}';
}
location @throttled {
    default_type application/json;
    add_header Retry-After 1 always;
    return 429 '{"error":{"code":"throttled",
        "message":"Too many requests from your address.","retry_after":1}}';
}
location @server_error {
    default_type application/json;
    return 500 '{"error":{"code":"server_error",
        "message":"Something went wrong on our side. Please try again."}}';
}
location @unavailable {
    default_type application/json;
    add_header Retry-After 1 always;
    return 503 '{"error":{"code":"unavailable",
        "message":"The service is busy or away for a moment.","retry_after":1}}';
}"""
NGINX_API_ERRORS = """error_page 413 @body_too_large;
error_page 429 @throttled;
error_page 500 @server_error;
error_page 502 503 504 =503 @unavailable;"""
NGINX_PROXY = """proxy_pass http://klondike_web;
proxy_http_version 1.1;
proxy_set_header Connection "";
proxy_set_header Host $http_host;
# The address nginx saw, appended: the one TRUSTED_PROXIES=1 makes the client's.
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
proxy_set_header X-Forwarded-Proto $scheme;
# Passive failover, nginx's default: the next node on a refused connection or a
# timeout; a POST only when it was never sent (nginx's default): a move sent to a
# node that died is retried by its client, by seq.
proxy_next_upstream error timeout;
proxy_next_upstream_tries TRIES;
proxy_connect_timeout 2s;
proxy_read_timeout 60s;"""


@dataclasses.dataclass(frozen=True)
class Ports:
    """The ports of one stack: the load balancer, the first node (the others follow it),
    PostgreSQL and Redis."""

    lb: int = LB_PORT
    node: int = NODE_PORT
    pg: int = PG_PORT
    redis: int = REDIS_PORT

    @classmethod
    def free(cls, nodes: int = 3) -> Ports:
        """Ports nothing listens on now (a test's stack beside the default one), below the
        kernel's ephemeral range: a port of that range that a killed node lets go may be taken
        at once as an outgoing connection's own, and the node could not start again."""
        draw = random.SystemRandom()
        while True:
            base = draw.randrange(FREE_PORTS_FROM, FREE_PORTS_TO - nodes - 3)
            if all(_port_free(port) for port in range(base, base + nodes + 3)):
                return cls(lb=base, pg=base + 1, redis=base + 2, node=base + 3)


class StackError(RuntimeError):
    """A part of the stack could not be set up or started."""


class Stack:
    """The multi-node stack on this machine, all of it under `root` (default ROOT/'var'/'stack')."""

    def __init__(
        self,
        root: Path | None = None,
        nodes: int = 3,
        ports: Ports | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        """`ports`: other ports than the constants'; `settings`: environment variables of every
        Django process besides the stack's own (a test's throttle rates)."""
        self.root = Path(root) if root is not None else ROOT / "var" / "stack"
        self.root = self.root.resolve()
        self.nodes = nodes
        self.ports = ports or Ports()
        self.url = f"http://{HOST}:{self.ports.lb}"
        self.logs = self.root / "logs"
        self.run = self.root / "run"
        self.pgdata = self.root / "pg"
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._ready_from: dict[str, int] = {}
        database = f"{HOST}:{self.ports.pg}/{DATABASE}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not _foreign(k)},
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_HTTPS": "0",  # plain HTTP on loopback
            "DJANGO_SECRET_KEY": "",  # set by start(): read from the root, made once
            "DJANGO_ALLOWED_HOSTS": f"{HOST},localhost",
            "SITE_URL": self.url,  # links point at the balancer
            "DATABASE_URL": f"postgres://{SERVICE_ROLE}@{database}",
            "REDIS_URL": f"redis://{HOST}:{self.ports.redis}/0",
            # nginx appends the address it saw to X-Forwarded-For: the throttles count that one.
            "TRUSTED_PROXIES": "1",
            "KLONDIKE_VAR_DIR": str(self.root / "var"),
            "PYTHONUNBUFFERED": "1",
            **(settings or {}),
        }
        if (self.root / "secret-key").exists():
            self.env["DJANGO_SECRET_KEY"] = (self.root / "secret-key").read_text().strip()
        self.owner_env = {**self.env, "DATABASE_MIGRATE_URL": f"postgres://{OWNER_ROLE}@{database}"}

    # --- the parts ------------------------------------------------------------------------

    def node_port(self, i: int) -> int:
        """The port node i listens on."""
        return self.ports.node + i

    def _daemons(self) -> dict[str, tuple[list[str], dict[str, str]]]:
        """The parts this class runs as children: name -> (argv, environment)."""
        venv = ROOT / ".venv" / "bin"
        celery = [str(venv / "celery"), "-A", "config"]
        parts: dict[str, tuple[list[str], dict[str, str]]] = {
            "redis": (
                [
                    "redis-server",
                    "--port",
                    str(self.ports.redis),
                    "--bind",
                    HOST,
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.run),
                    "--logfile",
                    "",
                ],
                self.env,
            ),
        }
        for i in range(self.nodes):
            parts[f"node{i}"] = (
                [
                    str(venv / "gunicorn"),
                    "config.wsgi:application",
                    "--config",
                    "config/gunicorn.py",
                    "--name",
                    f"klondike-node{i}",
                ],
                {
                    **self.env,
                    "GUNICORN_BIND": f"{HOST}:{self.node_port(i)}",
                    "GUNICORN_WORKERS": str(NODE_WORKERS),
                    "GUNICORN_THREADS": str(NODE_THREADS),
                    "GUNICORN_ACCESSLOG": str(self.logs / f"node{i}.access.log"),
                    # The node's own (config/gunicorn.py wipes it at start): a killed node
                    # leaves no temporary one behind.
                    "PROMETHEUS_MULTIPROC_DIR": str(self.run / f"metrics-node{i}"),
                },
            )
        # As docker-compose.yml runs them: ranking and the beat's tasks, analyses, one beat.
        parts["worker-ranking"] = (
            [
                *celery,
                "worker",
                "-Q",
                "ranking,celery",
                "--loglevel=INFO",
                "--concurrency=2",
                "-n",
                f"ranking-{self.ports.lb}@%h",
            ],
            self.env,
        )
        parts["worker-analysis"] = (
            [
                "nice",
                "-n",
                "10",
                *celery,
                "worker",
                "-Q",
                "analysis",
                "--loglevel=INFO",
                "--concurrency=1",
                "-n",
                f"analysis-{self.ports.lb}@%h",
            ],
            self.env,
        )
        parts["beat"] = (
            [*celery, "beat", "--loglevel=INFO", f"--schedule={self.run / 'celerybeat-schedule'}"],
            self.env,
        )
        parts["nginx"] = (
            [
                "nginx",
                "-p",
                str(self.root / "nginx"),
                "-c",
                str(self.root / "nginx.conf"),
                "-g",
                "daemon off;",
            ],
            self.env,
        )
        return parts

    def _ready(self, name: str) -> bool:
        """Whether the part answers (beyond its process being alive)."""
        if name == "postgres":
            return _pg_isready(self.ports.pg)
        if name == "redis":
            return _redis_ping(self.ports.redis)
        if name.startswith("node"):
            return _http_status(self.node_port(int(name[4:])), HEALTH_PATH) in (200, 503)
        if name == "nginx":
            return _http_status(self.ports.lb, HEALTH_PATH) in (200, 503)
        if name.startswith("worker"):
            log = self.logs / f"{name}.log"
            with open(log, "rb") as f:
                f.seek(self._ready_from.get(name, 0))
                return b" ready." in f.read()
        return True  # beat: its process is alive

    def _port(self, name: str) -> int | None:
        if name.startswith("node"):
            return self.node_port(int(name[4:]))
        return {"postgres": self.ports.pg, "redis": self.ports.redis, "nginx": self.ports.lb}.get(
            name
        )

    # --- the interface --------------------------------------------------------------------

    def start(self) -> None:
        """Set up what is missing and start what is down; waits until every part answers.
        Idempotent."""
        if all(self.status().values()):
            return  # (after an update of the code: stop, then start, to migrate and reload)
        _ensure_packages()
        self._set_up_root()
        self._start_postgres()
        self._start("redis")
        self._wait(["redis"])
        self.manage("migrate", "--noinput", owner=True)
        self.manage("collectstatic", "--noinput")
        # nginx last: a node it found down would be left out for its fail_timeout.
        names = [n for n in self._daemons() if n not in ("redis", "nginx")]
        for name in names:
            self._start(name)
        self._wait(names)
        self._start("nginx")
        self._wait(["nginx"])

    def stop(self) -> None:
        """Stop everything this stack started (the data stays under the root)."""
        self._stop("nginx")  # first: no request reaches a node that is stopping
        self._stop(*[name for name in self._daemons() if name != "nginx"])
        if (self.pgdata / "postmaster.pid").exists():
            self._pg_ctl("stop", "-m", "fast")

    def status(self) -> dict[str, bool]:
        """Part name -> up (its process alive and answering)."""
        parts = {"postgres": _pg_isready(self.ports.pg)}
        for name in self._daemons():
            parts[name] = self._pid(name) is not None and self._ready(name)
        return parts

    def kill_node(self, i: int) -> None:
        """SIGKILL node i's gunicorn master and all its workers."""
        self._kill(f"node{i}")

    def start_node(self, i: int) -> None:
        """Start node i again; returns once it answers its health check."""
        self._start(f"node{i}")
        self._wait([f"node{i}"])

    def restart_redis(self) -> None:
        """Stop and start the stack's Redis (it keeps nothing on disk)."""
        self._stop("redis")
        self._start("redis")
        self._wait(["redis"])

    def kill_ranking_worker(self) -> None:
        """SIGKILL the Celery worker consuming the `ranking` queue (all its processes)."""
        self._kill("worker-ranking")

    def start_ranking_worker(self) -> None:
        """Start the ranking worker again; returns once it is ready for tasks."""
        self._start("worker-ranking")
        self._wait(["worker-ranking"])

    def restart_postgres(self) -> None:
        """`pg_ctl restart -m fast`: every connection dropped."""
        self._pg_ctl("restart", "-m", "fast", "-o", self._pg_options())
        self._wait(["postgres"])

    def manage(self, *argv: str, owner: bool = False) -> str:
        """Run manage.py against the stack (as the database's owner with `owner`); returns its
        stdout.

        :raises StackError: the command failed.
        """
        env = self.owner_env if owner else self.env
        done = subprocess.run(
            [str(ROOT / ".venv" / "bin" / "python"), "manage.py", *argv],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise StackError(f"manage.py {' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def node_of(self, i: int) -> int | None:
        """The process group (its master's pid) of node i, None when it is down."""
        return self._pid(f"node{i}")

    # --- set-up ---------------------------------------------------------------------------

    def _set_up_root(self) -> None:
        for path in (self.root, self.logs, self.run, self.root / "var", self.root / "nginx"):
            path.mkdir(parents=True, exist_ok=True)
        # PostgreSQL and nginx's workers run as other users: they must reach their folders.
        self.root.chmod(0o711)
        key = self.root / "secret-key"
        if not key.exists():
            fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(50) + "\n")
        self.env["DJANGO_SECRET_KEY"] = self.owner_env["DJANGO_SECRET_KEY"] = (
            key.read_text().strip()
        )
        (self.root / "nginx.conf").write_text(self._nginx_conf())
        for temp in ("client_body", "proxy"):
            (self.root / "nginx" / temp).mkdir(exist_ok=True)
            if os.geteuid() == 0:
                shutil.chown(self.root / "nginx" / temp, "nobody", "nogroup")

    def _nginx_conf(self) -> str:
        servers = "\n".join(
            f"        server {HOST}:{self.node_port(i)} max_fails=1 fail_timeout=5s;"
            for i in range(self.nodes)
        )
        user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
        temp = self.root / "nginx"
        proxy = textwrap.indent(NGINX_PROXY.replace("TRIES", str(self.nodes)), " " * 12)
        return f"""# Generated by tools/stack.py for the stack under {self.root}: edits are lost.
{user}worker_processes 2;
pid {temp / "nginx.pid"};  # its own; run/nginx.pid is this script's
error_log {self.logs / "nginx.error.log"} warn;
{NGINX_MAIN}
http {{
    client_body_temp_path {temp / "client_body"};
    proxy_temp_path {temp / "proxy"};
    # Unused modules' temp paths: kept under the root, never the system's.
    fastcgi_temp_path {temp / "fastcgi"};
    uwsgi_temp_path {temp / "uwsgi"};
    scgi_temp_path {temp / "scgi"};
    log_format stack '$remote_addr [$time_local] "$request" $status $body_bytes_sent '
                     'upstream=$upstream_addr upstream_status=$upstream_status '
                     'rt=$request_time';
    access_log {self.logs / "nginx.access.log"} stack;
    # The per-client limits count every address but this machine's own 127.0.0.1, which the
    # stack's tests and its operator use (bench/slow_clients.py's clients use others).
    map $remote_addr $per_client {{
        default $binary_remote_addr;
        {HOST} "";
    }}
{textwrap.indent(NGINX_HTTP, " " * 4)}
    # Round robin, no stickiness: any node serves any request. A node that fails is left out
    # for fail_timeout, then tried again.
    upstream klondike_web {{
{servers}
    }}
    server {{
        listen {HOST}:{self.ports.lb};
{textwrap.indent(NGINX_SERVER, " " * 8)}
        location /api/ {{
{textwrap.indent(NGINX_API_ERRORS, " " * 12)}
{proxy}
        }}
        location / {{
{proxy}
        }}
    }}
}}
"""

    def _pg_options(self) -> str:
        return f"-p {self.ports.pg} -c listen_addresses={HOST} -k {self.run} -c max_connections=200"

    def _pg_ctl(self, *argv: str) -> None:
        _run_as_postgres(
            [
                _pg_bin("pg_ctl"),
                "-D",
                str(self.pgdata),
                "-w",
                "-t",
                "60",
                "-l",
                str(self.logs / "postgres.log"),
                *argv,
            ]
        )

    def _start_postgres(self) -> None:
        if not (self.pgdata / "PG_VERSION").exists():
            if self.pgdata.exists():
                shutil.rmtree(self.pgdata)  # an initdb that did not finish
            self.pgdata.mkdir(mode=0o700)
            self.run.chmod(0o777 | 0o1000)  # the server's socket and lock files (sticky)
            log = self.logs / "postgres.log"
            log.touch()
            if os.geteuid() == 0:
                shutil.chown(self.pgdata, "postgres", "postgres")
                shutil.chown(log, "postgres", "postgres")
            _run_as_postgres(
                [
                    _pg_bin("initdb"),
                    "-D",
                    str(self.pgdata),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                ]
            )
        if not _pg_isready(self.ports.pg):
            self._check_port_free("postgres")
            self._pg_ctl("start", "-o", self._pg_options())
            self._wait(["postgres"])
        # The two roles, as docker-compose.yml's db-roles and .ci/run make them. Idempotent.
        _run(
            [
                "psql",
                "-h",
                HOST,
                "-p",
                str(self.ports.pg),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-q",
            ],
            input=f"""
DO $$ BEGIN CREATE ROLE {OWNER_ROLE}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {SERVICE_ROLE}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE {OWNER_ROLE} LOGIN CREATEDB NOSUPERUSER;
ALTER ROLE {SERVICE_ROLE} LOGIN NOCREATEDB NOSUPERUSER;
GRANT {SERVICE_ROLE} TO {OWNER_ROLE};
SELECT 'CREATE DATABASE {DATABASE} OWNER {OWNER_ROLE}'
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = '{DATABASE}') \\gexec
""",
        )

    # --- processes ------------------------------------------------------------------------

    def _pidfile(self, name: str) -> Path:
        return self.run / f"{name}.pid"

    def _pid(self, name: str) -> int | None:
        """The pid (and process group) of the part, None unless that very process is alive."""
        try:
            pid, started = self._pidfile(name).read_text().split()
        except (FileNotFoundError, ValueError):
            return None
        child = self._children.get(int(pid))
        if child is not None and child.poll() is not None:
            return None
        return int(pid) if _start_time(int(pid)) == started else None

    def _start(self, name: str) -> None:
        if self._pid(name) is not None:
            return
        self._check_port_free(name)
        argv, env = self._daemons()[name]
        with open(self.logs / f"{name}.log", "ab") as log:
            self._ready_from[name] = log.tell()  # a worker is ready when it says so after this
            log.write(f"--- started by tools/stack.py at {time.ctime()}\n".encode())
            log.flush()
            child = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._children[child.pid] = child
        self._pidfile(name).write_text(f"{child.pid} {_start_time(child.pid)}\n")

    def _check_port_free(self, name: str) -> None:
        port = self._port(name)
        if port is not None and not _port_free(port):
            raise StackError(
                f"{name}: port {port} is taken by another program (stop it, or give the stack"
                " other ports: tools/stack.py Ports)"
            )

    def _stop(self, *names: str) -> None:
        """Stop the parts, all at once: SIGTERM to each leader (it stops its own workers, as
        gunicorn's and Celery's do), then SIGKILL to a group still alive after the timeout."""
        pids = {name: pid for name in names if (pid := self._pid(name)) is not None}
        for pid in pids.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for name, pid in pids.items():
            if not _wait_for(lambda pid=pid: self._gone(pid), STOP_TIMEOUT_S):
                _signal_group(pid, signal.SIGKILL)
                _wait_for(lambda pid=pid: self._gone(pid), STOP_TIMEOUT_S)
            self._pidfile(name).unlink(missing_ok=True)

    def _kill(self, name: str) -> None:
        pid = self._pid(name)
        if pid is None:
            raise StackError(f"{name} is not running")
        _signal_group(pid, signal.SIGKILL)
        _wait_for(lambda: self._gone(pid), STOP_TIMEOUT_S)
        self._pidfile(name).unlink(missing_ok=True)

    def _gone(self, pid: int) -> bool:
        """Whether the process group `pid` has no process left (its leader reaped if ours)."""
        child = self._children.get(pid)
        if child is not None:
            child.poll()
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            self._children.pop(pid, None)
            return True
        return child is not None and child.returncode is not None and not _group_alive(pid)

    def _wait(self, names: list[str]) -> None:
        pending = list(names)
        deadline = time.monotonic() + START_TIMEOUT_S
        while pending:
            for name in list(pending):
                if name != "postgres" and self._pid(name) is None:
                    raise StackError(f"{name} exited: see {self.logs / (name + '.log')}")
                if self._ready(name):
                    pending.remove(name)
            if pending and time.monotonic() > deadline:
                raise StackError(f"not answering after {START_TIMEOUT_S} s: {', '.join(pending)}")
            time.sleep(0.1)


# --- helpers -------------------------------------------------------------------------------


def _foreign(name: str) -> bool:
    """An inherited variable that must not reach the stack's processes (another stack's or
    the test run's settings)."""
    return name.startswith(
        ("DJANGO_", "THROTTLE_", "GUNICORN_", "DATABASE_", "REDIS_")
    ) or name in (
        "KLONDIKE_VAR_DIR",
        "TRUSTED_PROXIES",
        "DAILY_SECRET",
    )


def _ensure_packages() -> None:
    """Install the Debian packages of the binaries that are missing (apt-get, as root)."""
    missing = sorted({pkg for binary, pkg in PACKAGES.items() if not _have(binary)})
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise StackError(f"install these packages first: {' '.join(missing)}")
    print(f"installing {' '.join(missing)}", file=sys.stderr)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run(["apt-get", "update", "-qq"], env=env)
    _run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], env=env)


def _have(binary: str) -> bool:
    if binary == "initdb":
        return _pg_bin("initdb") != "initdb" or shutil.which("initdb") is not None
    return shutil.which(binary) is not None


def _pg_bin(name: str) -> str:
    """PostgreSQL's server binary `name`: Debian keeps them off PATH, under one folder per
    version (the newest wins)."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3])
    )
    return str(versions[-1]) if versions else name


def _run(argv: list[str], *, input: str | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, input=input, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise StackError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _run_as_postgres(argv: list[str]) -> None:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    if os.geteuid() == 0:
        pwd.getpwnam("postgres")  # KeyError: the postgresql package makes this user
        argv = ["runuser", "-u", "postgres", "--", *argv]
    _run(argv)


def _start_time(pid: int) -> str | None:
    """The process's start time (in clock ticks since boot), None when it is gone or a
    zombie: with the pid, it names one process even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def _group_alive(pgid: int) -> bool:
    """Whether any live (not zombie) process is in the process group."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _wait_for(done: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _pg_isready(port: int) -> bool:
    return (
        subprocess.run(
            ["pg_isready", "-q", "-h", HOST, "-p", str(port)], capture_output=True
        ).returncode
        == 0
    )


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _http_status(port: int, path: str) -> int | None:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--root", type=Path, default=None, help="default: var/stack")
    args = parser.parse_args()
    stack = Stack(args.root)
    try:
        if args.command == "start":
            stack.start()
            print(f"The stack answers on {stack.url}/ (logs in {stack.logs}).")
            print("Stop it with `make stack-stop` (or python tools/stack.py stop).")
        elif args.command == "stop":
            stack.stop()
            print(f"stopped (the data stays under {stack.root})")
        else:
            parts = stack.status()
            for name, up in parts.items():
                print(f"{name:16} {'up' if up else 'down'}")
            return 0 if all(parts.values()) else 1
    except StackError as e:
        print(f"stack: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
