"""The metrics of several processes: one scrape of a gunicorn master's node counts what each of
its workers did (config/gunicorn.py, prometheus-client's multiprocess mode), a metrics
directory that is gone fails no request, and a Celery worker's own exporter sums the ranking
jobs its pool's processes ran."""

from __future__ import annotations

import contextlib
import json
import os
import signal
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
from django.db import connection

from games import tasks
from tests.config.test_metrics import CODE, TOKEN, parsed
from tests.servers import ROOT, START_TIMEOUT_S, call, embedded_env, free_port

__all__ = ["embedded_env"]  # the fixture, used by name


@contextlib.contextmanager
def gunicorn(env: dict[str, str], port: int, log: Path, workers: int) -> Iterator[int]:
    """gunicorn with config/gunicorn.py, `workers` sync workers, on `port`; yields its pid."""
    env = env | {
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": "1",  # sync workers: one request at a time each
        "GUNICORN_ACCESSLOG": "",
        "METRICS_TOKEN": TOKEN,
    }
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
             "config.wsgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _answers(port):
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            yield proc.pid
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError):
        return call(port, "GET", "/api/v1/health")[0] == 200
    return False


def scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return parsed(response.read().decode())


def _player(port: int) -> tuple[str, int]:
    """A new player's token and a new game of theirs."""
    body = {"username": "mover", "password": "correct-horse-battery"}
    status, registered = call(port, "POST", "/api/v1/auth/register", None, body)
    assert status == 201, registered
    status, game = call(port, "POST", "/api/v1/games", registered["token"], {"code": CODE})
    assert status == 201, game
    return registered["token"], game["id"]


def test_one_scrape_counts_the_moves_of_both_workers(embedded_env, tmp_path):
    port = free_port()
    with gunicorn(embedded_env, port, tmp_path / "gunicorn.log", workers=2):
        token, game_id = _player(port)
        path = f"/api/v1/games/{game_id}/actions"
        # One worker takes this connection and waits for the rest of its request: meanwhile
        # every other request can only go to the other worker.
        held = socket.create_connection(("127.0.0.1", port), timeout=30)
        held.sendall(f"POST {path} HTTP/1.1\r\n".encode())
        time.sleep(0.5)
        for seq in range(4):
            status, game = call(port, "POST", path, token, {"seq": seq, "action": "draw"})
            assert status == 200, game
        body = json.dumps({"seq": 4, "action": "draw"}).encode()
        held.sendall(
            b"Host: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + f"Authorization: Token {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        answer = b""
        while chunk := held.recv(65536):
            answer += chunk
        held.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
        samples = scrape(port)
    assert samples[("klondike_actions_total", frozenset({("kind", "draw")}))] == 5
    moves = frozenset({("view", "game-actions"), ("method", "POST"), ("status", "2xx")})
    assert samples[("klondike_request_duration_seconds_count", moves)] == 5


def test_a_missing_metrics_directory_fails_no_request(embedded_env, tmp_path):
    port, directory = free_port(), tmp_path / "metrics"
    env = embedded_env | {"PROMETHEUS_MULTIPROC_DIR": str(directory)}
    directory.mkdir()
    (directory / "counter_1.db").write_bytes(b"an earlier run's")  # wiped at the start
    with gunicorn(env, port, tmp_path / "gunicorn.log", workers=1) as master:
        assert not (directory / "counter_1.db").exists()
        token, game_id = _player(port)
        path = f"/api/v1/games/{game_id}/actions"
        assert call(port, "POST", path, token, {"seq": 0, "action": "draw"})[0] == 200
        assert scrape(port)[("klondike_actions_total", frozenset({("kind", "draw")}))] == 1
        for name in os.listdir(directory):
            os.remove(directory / name)
        directory.rmdir()
        directory.write_text("not a directory")  # nor can one be made there
        # A new worker, whose first samples find no directory to write their files in.
        worker = int(subprocess.check_output(["pgrep", "-P", str(master)]).split()[0])
        os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(port):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        status, game = call(port, "POST", path, token, {"seq": 1, "action": "draw"})
        assert status == 200, game
        samples = scrape(port)  # what the scrape reads itself, no counted samples
    assert ("klondike_slots", frozenset({("slots", "solver-search")})) in samples
    assert not [key for key in samples if key[0] == "klondike_actions_total"]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_serves_its_jobs_durations_on_its_own_port(tmp_path):
    """The ranking jobs run in a worker's pool processes (prefork, two): the worker's own
    exporter sums them, under the scraper's token."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_MIGRATE_URL"} | {
        # The test database, which pytest-django made and migrated.
        "DATABASE_URL": _url_of(connection.settings_dict),
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "CELERY_METRICS_BIND": f"127.0.0.1:{port}",
    }
    argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "ranking",
            "--concurrency=2", "--pool=prefork", "--loglevel=WARNING", "--without-heartbeat",
            "--without-gossip", "--without-mingle"]  # fmt: skip
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            for _ in range(3):
                tasks.rank_daily.delay("2026-11-30", "D1N")
            deadline = time.monotonic() + START_TIMEOUT_S
            done = frozenset({("job", "rank_daily"), ("outcome", "done")})
            while True:
                assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
                with contextlib.suppress(OSError):
                    if scrape(port).get(("klondike_job_duration_seconds_count", done)) == 3:
                        break
                time.sleep(0.3)
            refused = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(refused, timeout=10)
            assert answer.value.code == 404
        finally:
            worker.terminate()
            worker.wait(timeout=30)


def _url_of(database: dict[str, Any]) -> str:
    return (
        f"postgres://{database['USER']}:{database['PASSWORD'] or ''}@{database['HOST']}:"
        f"{database['PORT']}/{database['NAME']}"
    )
