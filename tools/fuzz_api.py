"""Fuzz the live API with Schemathesis: every check, with and without a token (`.ci/run`).

    .venv/bin/python tools/fuzz_api.py [--examples N] [--max-time SECONDS]

It starts the service as deployed (gunicorn, two workers, debug off) in the mode the
environment gives: embedded (SQLite in a temporary folder), or PostgreSQL and Redis when
`DATABASE_URL` and `REDIS_URL` are set. It signs up a player (with a verified address and a
few games), then runs `schemathesis run` on `/api/v1/schema/` twice, every check on, with the
settings of tools/schemathesis.toml:
- as that player (`Authorization: Token ...`), every operation but the two logouts, which
  would end the token under the run's feet;
- with no credentials, every operation.
The throttles are raised so that the logic behind them is what gets fuzzed (their 429s are
tested by the suite). Exit status 0 only when both runs are clean.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tools" / "schemathesis.toml"
SCHEMA_PATH = "/api/v1/schema/?format=json"
RAISED_RATE = "100000/min"
START_TIMEOUT_S = 60
# Games of the fuzzing player: a casual game of each rule set, so that generated ids of small
# values sometimes name one of them.
START_CODES = ("KL1-D1N-AAAAAAG", "KL1-D3V-AAAAAAB", "KL1-D1R-AAAAAAC")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(base: str, method: str, path: str, body: Any = None, token: str = "") -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def _environment(var_dir: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "KLONDIKE_VAR_DIR": str(var_dir),
        "DJANGO_DEBUG": "0",
        "DJANGO_HTTPS": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "LOGIN_FAILURE_LIMIT": "100000",
    }
    for scope in ("LOGIN", "REGISTER", "MOVES", "HINTS", "GAMES", "EXPORT"):
        env[f"THROTTLE_{scope}"] = RAISED_RATE
    return env


@contextlib.contextmanager
def _serving(env: dict[str, str], log: Path) -> Iterator[str]:
    """The service under gunicorn on a free port, until the block ends; yields its base URL."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}"),
                *("-w", "2", "--threads", "4", "--graceful-timeout", "5"),
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            with contextlib.suppress(OSError):
                _call(base, "GET", "/api/v1/health")
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: see {log}")
            time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


# Verifies the fuzzing player's address, as its link would, so ranked starts get past the
# check of it.
_VERIFY = """
from django.utils import timezone
from accounts.models import User
User.objects.filter(username={name!r}).update(
    email={name!r} + "@example.com", email_verified_at=timezone.now()
)
"""


def _player(base: str, env: dict[str, str]) -> str:
    """A new player's token; the player has a verified e-mail address and a game of each of
    START_CODES."""
    name = f"fuzz-{secrets.token_hex(4)}"
    answer = _call(
        base,
        "POST",
        "/api/v1/auth/register",
        {"username": name, "password": secrets.token_urlsafe(16)},
    )
    token = str(answer["token"])
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", _VERIFY.format(name=name)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    for code in START_CODES:
        _call(base, "POST", "/api/v1/games", {"code": code}, token=token)
    return token


def _schemathesis(base: str, args: argparse.Namespace, extra: list[str], report: Path) -> int:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "run",
        base + SCHEMA_PATH,
        "--checks",
        "all",
        "--max-examples",
        str(args.examples),
        "--max-time",
        str(args.max_time),
        "--generation-deterministic",
        "--no-color",
        "--report",
        "junit",
        "--report-junit-path",
        str(report),
        *extra,
    ]
    return subprocess.run(command, cwd=ROOT).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=15, help="per operation and run")
    parser.add_argument("--max-time", type=int, default=45, help="seconds per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="klondike-fuzz-") as scratch:
        var_dir = Path(scratch)
        env = _environment(var_dir)
        mode = "scaled" if env.get("DATABASE_URL") else "embedded"
        with _serving(env, var_dir / "server.log") as base:
            token = _player(base, env)
            print(f"== schemathesis ({mode} mode), with a token", flush=True)
            with_token = _schemathesis(
                base,
                args,
                [
                    "--header",
                    f"Authorization: Token {token}",
                    "--exclude-operation-id",
                    "logout_post",
                    "--exclude-operation-id",
                    "logout_all_post",
                ],
                var_dir / "with-token.xml",
            )
            print(f"== schemathesis ({mode} mode), without credentials", flush=True)
            without = _schemathesis(base, args, [], var_dir / "without-token.xml")
        if with_token or without:
            print((var_dir / "server.log").read_text()[-20_000:])
        return 1 if with_token or without else 0


if __name__ == "__main__":
    sys.exit(main())
