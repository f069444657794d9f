"""Real server processes for the tests of what a process keeps in memory: gunicorn servers,
each with its own memory, on one embedded database (SQLite in a temporary folder)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 60


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(port: int, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    """(status, JSON body) of one API request to the server on `port`."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def _health(port: int) -> int | None:
    with contextlib.suppress(OSError):
        return int(call(port, "GET", "/api/v1/health")[0])
    return None


# Runs gunicorn with Django's clock (`django.utils.timezone.now`) set ahead by the number of
# seconds written in a file, read at every call: a test moves the servers' time on while
# they run, keeping what each process holds in memory.
_SHIFTED_CLOCK = """
import datetime, pathlib, sys
from django.utils import timezone
ahead = pathlib.Path(sys.argv.pop(1))
real_now = timezone.now
timezone.now = lambda: real_now() + datetime.timedelta(seconds=float(ahead.read_text() or 0))
from gunicorn.app.wsgiapp import run
run()
"""


@contextlib.contextmanager
def serving(env: dict[str, str], port: int, log: Path, clock: Path | None = None) -> Iterator[None]:
    """A gunicorn server (one worker) with `env` on `port`, until the block ends. With
    `clock`, a file holding a number of seconds (0 if empty), the server's Django clock runs
    that far ahead of the real one: write the file to move it."""
    start = [sys.executable, "-m", "gunicorn"]
    if clock is not None:
        clock.touch()
        start = [sys.executable, "-c", _SHIFTED_CLOCK, str(clock)]
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*start, "config.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while _health(port) != 200:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=20)


@pytest.fixture
def embedded_env(tmp_path: Path) -> dict[str, str]:
    """The environment of server processes sharing a fresh, migrated SQLite database in
    `tmp_path` (file `klondike.sqlite3`), with no Redis: each process has its own memory."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {"KLONDIKE_VAR_DIR": str(tmp_path), "DJANGO_DEBUG": "0", "DJANGO_HTTPS": "0"}
    env.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))  # of this test run only
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return env
