"""A deactivated account stops at once in every server process, not only in the one that
cached its token: two gunicorn servers on one embedded database, each with its own
process-local token cache, both warmed up before the account is deactivated."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(port: int, method: str, path: str, token: str | None, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Token {token}"} if token else {}),
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@contextlib.contextmanager
def _server(env: dict[str, str], port: int, log: Path) -> Iterator[None]:
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi:application", "-b",
             f"127.0.0.1:{port}", "-w", "1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while _call_quietly(port) != 200:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def _call_quietly(port: int) -> int | None:
    with contextlib.suppress(OSError):
        return int(_call(port, "GET", "/api/v1/health", None)[0])
    return None


@pytest.fixture
def embedded_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {"KLONDIKE_VAR_DIR": str(tmp_path), "DJANGO_DEBUG": "0", "DJANGO_HTTPS": "0"}
    env.setdefault("DJANGO_SECRET_KEY", "a-key-of-this-test-run-only-" + os.urandom(8).hex())
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return env


def test_a_deactivated_account_stops_at_once_in_every_process(embedded_env, tmp_path):
    ports = [_free_port(), _free_port()]
    with (
        _server(embedded_env, ports[0], tmp_path / "a.log"),
        _server(embedded_env, ports[1], tmp_path / "b.log"),
    ):
        body = {"username": "doomed", "password": "correct-horse-battery"}
        status, registered = _call(ports[0], "POST", "/api/v1/auth/register", None, body)
        assert status == 201, registered
        token = registered["token"]
        games = []
        for port in ports:  # each process caches the token, and the account has a game there
            status, game = _call(port, "POST", "/api/v1/games", token, {"draw": 1, "preset": "N"})
            assert status == 201, game
            assert _call(port, "GET", f"/api/v1/games/{game['id']}/hint", token)[0] == 200
            games.append(game)
        with sqlite3.connect(tmp_path / "klondike.sqlite3") as db:  # as an admin would
            db.execute("UPDATE accounts_user SET is_active = 0 WHERE username = 'doomed'")
        today = time.strftime("%Y-%m-%d", time.gmtime())
        for port, game in zip(ports, games, strict=True):
            gid = game["id"]
            for method, path, payload in (
                ("POST", f"/api/v1/daily/{today}/D1N/start", None),
                ("POST", "/api/v1/games", {"draw": 1, "preset": "N"}),
                ("GET", f"/api/v1/games/{gid}/hint", None),
                ("POST", f"/api/v1/games/{gid}/actions", {"seq": 0, "action": "draw"}),
            ):
                status, answer = _call(port, method, path, token, payload)
                assert status == 401, (port, path, answer)
                assert answer["error"]["code"] == "authentication_failed"
        with sqlite3.connect(tmp_path / "klondike.sqlite3") as db:
            assert db.execute("SELECT COUNT(*) FROM games_game").fetchone() == (2,)
            assert db.execute("SELECT COUNT(*) FROM games_action").fetchone() == (0,)
