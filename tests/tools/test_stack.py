"""The multi-node stack (tools/stack.py) started for real in a temporary root on free ports, and
what several nodes behind nginx must get right: a game played across nodes, a logout seen by
every node at once, throttles and the client's address counted across nodes, a node killed
mid-run. Scaled run only (it starts its own PostgreSQL cluster and Redis beside CI's)."""

from __future__ import annotations

import http.client
import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from stack import DATABASE, HOST, OWNER_ROLE, Ports, Stack  # noqa: E402

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (.ci/run installs it)"),
]

METRICS_TOKEN = secrets.token_urlsafe(48)  # a new secret each run: a written one is refused
MOVES_RATE = 120  # a minute: CounterThrottle's batch is then 2 (config.throttles)
LOGIN_RATE = 10


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # Not under pytest's tmp_path: its folders are private to root, and PostgreSQL runs as
    # the `postgres` user.
    root = Path(tempfile.mkdtemp(prefix="klondike-stack-"))
    the_stack = Stack(
        root,
        ports=Ports.free(),
        settings={
            "THROTTLE_MOVES": f"{MOVES_RATE}/min",
            "THROTTLE_LOGIN": f"{LOGIN_RATE}/min",
            "THROTTLE_REGISTER": "1000/min",
            "THROTTLE_GAMES": "1000/min",
            "LOG_LEVEL": "WARNING",
            "METRICS_TOKEN": METRICS_TOKEN,
        },
    )
    try:
        the_stack.start()
        yield the_stack
    finally:
        the_stack.stop()
        shutil.rmtree(root, ignore_errors=True)


def call(
    stack: Stack,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int | None, Any]:
    """One request through the load balancer on a connection of its own: (status, JSON body),
    (None, None) when the connection failed."""
    sent = {"Content-Type": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Token {token}"
    conn = http.client.HTTPConnection(HOST, stack.ports.lb, timeout=30)
    try:
        conn.request(
            method, path, body=json.dumps(body) if body is not None else None, headers=sent
        )
        response = conn.getresponse()
        raw = response.read()
    except (OSError, http.client.HTTPException):
        return None, None
    finally:
        conn.close()
    try:
        return response.status, json.loads(raw) if raw else None
    except ValueError:
        return response.status, None


_players = iter(range(1_000_000))


def register(stack: Stack) -> tuple[str, str]:
    """A new player: (username, token)."""
    username = f"stack{time.monotonic_ns() % 10**9}x{next(_players)}"
    status, data = call(
        stack,
        "POST",
        "/api/v1/auth/register",
        body={"username": username, "password": "a long enough passphrase 42"},
    )
    assert status == 201, data
    return username, data["token"]


def login(stack: Stack, username: str) -> str:
    status, data = call(
        stack,
        "POST",
        "/api/v1/auth/login",
        body={"username": username, "password": "a long enough passphrase 42"},
    )
    assert status == 200, data
    return str(data["token"])


def new_game(stack: Stack, token: str) -> dict[str, Any]:
    status, data = call(
        stack, "POST", "/api/v1/games", token=token, body={"draw": 1, "preset": "N"}
    )
    assert status == 201, data
    return dict(data)


def action_path(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/actions"


# draw, draw, undo: always legal in a casual game, a card nearer the stock's end each round.
PLAY = ("draw", "draw", "undo")


def act(stack: Stack, token: str, game_id: int, seq: int, action: str) -> int:
    """Apply `action` at `seq` as a client does: a request that got no answer is sent again
    with the same seq, and a 409 seq_mismatch then says whether the first one was applied.
    Returns the new seq."""
    for _ in range(50):
        status, data = call(
            stack, "POST", action_path(game_id), token=token, body={"seq": seq, "action": action}
        )
        if status == 200:
            return int(data["seq"])
        if status == 409 and data["error"]["code"] == "seq_mismatch":
            assert data["error"]["expected"] == seq + 1, data  # applied once, answer lost
            return seq + 1
        assert status in (None, 502, 503, 504), (status, data)
        time.sleep(0.1)
    raise AssertionError(f"{action} at {seq} never answered")


def logged_actions(stack: Stack, game_id: int) -> list[str]:
    """The game's log read from the database as its owner, in order (seq 1, 2, ... with no
    gap): its notations."""
    out = subprocess.run(
        [
            "psql",
            "-h",
            HOST,
            "-p",
            str(stack.ports.pg),
            "-U",
            OWNER_ROLE,
            "-d",
            DATABASE,
            "-AtF",
            " ",
            "-c",
            f"SELECT seq, notation FROM games_action WHERE game_id = {int(game_id)} ORDER BY seq",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split(" ", 1) for line in out.splitlines()]
    assert [int(seq) for seq, _ in rows] == list(range(1, len(rows) + 1))
    return [notation for _, notation in rows]


def node_hits(stack: Stack, path: str) -> Counter[int]:
    """Requests for `path` in each node's access log."""
    hits: Counter[int] = Counter()
    for i in range(stack.nodes):
        log = stack.logs / f"node{i}.access.log"
        text = log.read_text() if log.exists() else ""
        hits[i] = len(re.findall(rf'"[A-Z]+ {re.escape(path)} ', text))
    return hits


def test_stack_answers_every_part(stack: Stack):
    assert all(stack.status().values()), stack.status()
    assert stack.start() is None  # idempotent: all up already
    status, data = call(stack, "GET", "/api/v1/health")
    assert (status, data["status"]) == (200, "ok")


def test_metrics_are_served_by_each_node_and_never_through_the_balancer(stack: Stack):
    bearer = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    assert call(stack, "GET", "/metrics", headers=bearer)[0] == 404
    for i in range(stack.nodes):
        conn = http.client.HTTPConnection(HOST, stack.node_port(i), timeout=30)
        try:
            conn.request("GET", "/metrics", headers=bearer)
            response = conn.getresponse()
            assert (
                response.status == 200 and b"klondike_request_duration_seconds" in response.read()
            )
        finally:
            conn.close()


def test_game_across_nodes_with_stale_retries(stack: Stack):
    _, token = register(stack)
    game = new_game(stack, token)
    seq, played = game["seq"], []
    for action in PLAY * 6:
        status, data = call(
            stack, "POST", action_path(game["id"]), token=token, body={"seq": seq, "action": action}
        )
        assert status == 200, data
        played.append(action)
        # The same request again (a client that missed the answer): refused, nothing doubled.
        status, stale = call(
            stack, "POST", action_path(game["id"]), token=token, body={"seq": seq, "action": action}
        )
        assert (status, stale["error"]["code"]) == (409, "seq_mismatch")
        assert stale["error"]["expected"] == data["seq"] == seq + 1
        seq = data["seq"]
    assert len(logged_actions(stack, game["id"])) == len(played)
    hits = node_hits(stack, action_path(game["id"]))
    assert sum(hits.values()) == 2 * len(played)
    assert all(hits[i] > 0 for i in range(stack.nodes)), hits  # every node served some


def test_logout_refuses_the_token_on_every_node(stack: Stack):
    username, first = register(stack)
    second, third = login(stack, username), login(stack, username)
    game = new_game(stack, first)
    seq = game["seq"]
    # Every node's processes keep the tokens (the move's authentication keeps them in memory).
    for token in (first, second, third):
        for _ in range(3 * stack.nodes):
            assert call(stack, "GET", "/api/v1/me", token=token)[0] == 200
            seq = act(stack, token, game["id"], seq, "draw")
            seq = act(stack, token, game["id"], seq, "undo")

    def refused_everywhere(token: str) -> None:
        for _ in range(3 * stack.nodes):
            assert call(stack, "GET", "/api/v1/me", token=token)[0] == 401
            status, data = call(
                stack,
                "POST",
                action_path(game["id"]),
                token=token,
                body={"seq": seq, "action": "draw"},
            )
            assert status == 401, data
            assert call(stack, "GET", f"/api/v1/games/{game['id']}", token=token)[0] == 401

    assert call(stack, "POST", "/api/v1/auth/logout", token=first)[0] == 204
    refused_everywhere(first)
    assert call(stack, "GET", "/api/v1/me", token=second)[0] == 200  # the other devices stay
    assert call(stack, "POST", "/api/v1/auth/logout-all", token=second)[0] == 204
    refused_everywhere(second)
    refused_everywhere(third)
    # Nothing the refused moves sent was applied.
    assert len(logged_actions(stack, game["id"])) == seq


def _wait_for_a_fresh_window(seconds_left: float) -> None:
    """The throttles count in fixed minutes: start early in one."""
    into = time.time() % 60
    if into > 60 - seconds_left:
        time.sleep(60 - into + 0.5)


def test_move_throttle_counts_across_nodes(stack: Stack):
    _, token = register(stack)
    game = new_game(stack, token)
    _wait_for_a_fresh_window(20)
    answers: Counter[int | None] = Counter()
    for _ in range(2 * MOVES_RATE):
        # A stale seq: refused after the throttle has counted it, nothing written.
        status, _ = call(
            stack, "POST", action_path(game["id"]), token=token, body={"seq": 999, "action": "draw"}
        )
        answers[status] += 1
    assert set(answers) == {409, 429}, answers
    # Each process may add up to batch - 1 requests (config.throttles.CounterThrottle): with 3
    # nodes of 2 workers, a few more than the rate, never 3 times it.
    processes = stack.nodes * 2
    assert MOVES_RATE <= answers[409] <= MOVES_RATE + processes * (2 - 1), answers
    hits = node_hits(stack, action_path(game["id"]))
    assert all(hits[i] > 0 for i in range(stack.nodes)), hits


def test_client_address_is_the_one_nginx_saw(stack: Stack):
    import redis

    store = redis.Redis.from_url(stack.env["REDIS_URL"])
    key = ":1:throttle_login_127.0.0.1"  # DRF's key for the scope and the client, in the cache
    store.delete(key)
    statuses = []
    for i in range(LOGIN_RATE + 3):
        # Invalid bodies: counted by the throttle, then refused before any password is hashed.
        status, _ = call(
            stack,
            "POST",
            "/api/v1/auth/login",
            body={},
            headers={"X-Forwarded-For": f"203.0.113.{i}"},
        )
        statuses.append(status)
    try:
        assert statuses.count(429) == 3 and 429 not in statuses[:LOGIN_RATE], statuses
        assert store.exists(key)
        assert not store.keys(":1:throttle_login_203.0.113.*")
    finally:
        store.delete(key)


def test_a_node_killed_mid_run(stack: Stack):
    _, token = register(stack)
    game = new_game(stack, token)
    stop = threading.Event()
    reads: Counter[int | None] = Counter()

    def reader() -> None:
        while not stop.is_set():
            reads[call(stack, "GET", f"/api/v1/games/{game['id']}", token=token)[0]] += 1

    readers = [threading.Thread(target=reader) for _ in range(3)]
    for thread in readers:
        thread.start()
    killer = threading.Timer(0.5, stack.kill_node, args=(1,))
    killer.start()
    seq, played = game["seq"], []
    try:
        for action in PLAY * 10:
            seq = act(stack, token, game["id"], seq, action)
            played.append(action)
        killer.join()
        assert not stack.status()["node1"]
        stack.start_node(1)
        for action in PLAY * 2:
            seq = act(stack, token, game["id"], seq, action)
            played.append(action)
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert set(reads) == {200}, reads  # a GET a dead node dropped went to another node
    assert seq == len(played)
    assert len(logged_actions(stack, game["id"])) == len(played)  # none lost, none doubled
    assert all(stack.status().values()), stack.status()


def _raw(stack: Stack, request: bytes, source: str) -> tuple[int, dict[str, str], bytes]:
    """One raw request from the loopback address `source`: (status, headers, body)."""
    import socket

    with socket.create_connection((HOST, stack.ports.lb), 30, source_address=(source, 0)) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            if length and len(body) >= int(length[1]):
                break
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_the_balancers_own_refusals_are_the_error_format(stack: Stack):
    """nginx's 413, 414, 431 (its 494, "Request Header Or Cookie Too Large") and 429 under
    /api/ are JSON in the API's error format, not its HTML pages."""
    source = "127.0.0.7"  # not 127.0.0.1, which the stack leaves out of the per-client limits
    get = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    cases = {
        413: b"POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n",
        414: b"GET /api/v1/" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        431: get + b"Cookie: " + b"c" * 9000 + b"\r\n\r\n",
    }
    for status, request in cases.items():
        got, headers, body = _raw(stack, request, source)
        assert (got, headers["content-type"]) == (status, "application/json"), (status, body)
        assert json.loads(body)["error"]["code"] == "request_too_large"
    # A burst past the per-client rate: the balancer's 429, with its Retry-After.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: _raw(stack, get + b"\r\n", "127.0.0.8"), range(400)))
    throttled = [a for a in answers if a[0] == 429]
    assert throttled and {a[0] for a in answers} <= {200, 429}, Counter(a[0] for a in answers)
    _, headers, body = throttled[0]
    assert headers["retry-after"] == "1" and json.loads(body)["error"]["code"] == "throttled"
    # Another address is not slowed by that one's limit.
    assert _raw(stack, get + b"\r\n", "127.0.0.9")[0] == 200


def test_one_client_holding_slow_connections_does_not_take_the_balancer(stack: Stack):
    """2,100 connections from one address, each with a partial header, held: with nginx's
    1,024 connections a worker and no header timeout, no other client's health check was
    answered (bench/slow_clients.py measures 5,000)."""
    import resource
    import socket

    held_count = 2100
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < held_count + 500:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, held_count + 500), hard))
    held: list[socket.socket] = []
    try:
        for _ in range(held_count):
            s = socket.create_connection(
                (HOST, stack.ports.lb), 30, source_address=("127.0.0.20", 0)
            )
            s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        get = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        assert [_raw(stack, get, "127.0.0.21")[0] for _ in range(5)] == [200] * 5
        body = {
            "username": f"slow{time.monotonic_ns() % 10**9}",
            "password": "a long enough passphrase 42",
        }
        assert call(stack, "POST", "/api/v1/auth/register", body=body)[0] == 201
    finally:
        for s in held:
            s.close()
