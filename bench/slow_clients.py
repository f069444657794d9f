"""Slow clients against the balancer (issue #51): while one client address holds thousands of
connections that never finish their request header, does another client's health check and
moves still answer? Loopback only; bounded in connections and time.

    flock /tmp/klondike-bench.lock .venv/bin/python bench/slow_clients.py  # --slow 5000 --hold 30

Starts a stack of its own (tools/stack.py, 3 nodes, free ports, under var/slow_clients) unless
`--stack-root` names a running one. The slow client (127.0.0.2) opens `--slow` connections,
each sending a partial header and then one header byte every few seconds; the balancer closes
one that has not sent its whole header in client_header_timeout, and the client opens another,
so that about `--slow` stay held. Meanwhile the player (127.0.0.3) sends health checks and
moves, a round every 0.2 s, and each answer (or failure, after a 10 s timeout) is counted.
"""

from __future__ import annotations

import argparse
import errno
import http.client
import json
import resource
import selectors
import shutil
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.stack import HOST, Ports, Stack  # noqa: E402

SLOW_ADDRESS = "127.0.0.2"
PLAYER_ADDRESS = "127.0.0.3"
MAX_SLOW = 10_000
MAX_HOLD_S = 120
REQUEST_TIMEOUT_S = 10.0
PARTIAL = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
PACE_S = 0.2  # between the player's rounds (a health check and a move)
TRICKLE_S = 3.0  # one more header byte this often: never the whole header


def raise_open_files(wanted: int) -> int:
    """The soft limit of open files raised to `wanted` where the hard limit allows; the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class SlowClient(threading.Thread):
    """Holds about `count` connections from SLOW_ADDRESS, each a request header never ended."""

    def __init__(self, port: int, count: int) -> None:
        super().__init__(daemon=True)
        self.port, self.count = port, count
        self.stop = threading.Event()
        self.held: list[int] = []  # sampled each second
        self.opened = self.closed_by_server = 0
        self._selector = selectors.DefaultSelector()
        self._socks: dict[socket.socket, float] = {}

    def _open(self) -> None:
        s = socket.socket()
        s.setblocking(False)
        s.bind((SLOW_ADDRESS, 0))
        if s.connect_ex((HOST, self.port)) not in (0, errno.EINPROGRESS):
            s.close()
            return
        self._selector.register(s, selectors.EVENT_WRITE)
        self._socks[s] = 0.0  # not yet sent
        self.opened += 1

    def _drop(self, s: socket.socket) -> None:
        self._selector.unregister(s)
        del self._socks[s]
        s.close()

    def run(self) -> None:
        last_sample = time.monotonic()
        while not self.stop.is_set():
            for _ in range(min(200, self.count - len(self._socks))):  # ramp up, 200 at a time
                self._open()
            now = time.monotonic()
            for key, events in self._selector.select(timeout=0.05):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                if events & selectors.EVENT_WRITE and self._socks[s] == 0.0:
                    try:
                        s.send(PARTIAL)
                    except OSError:
                        self._drop(s)
                        continue
                    self._socks[s] = now
                    self._selector.modify(s, selectors.EVENT_READ)
                elif events & selectors.EVENT_READ:  # the server answered (408) or closed it
                    self.closed_by_server += 1
                    self._drop(s)
            for s, sent in list(self._socks.items()):
                if sent and now - sent > TRICKLE_S:
                    try:
                        s.send(b"x")
                        self._socks[s] = now
                    except OSError:
                        self._drop(s)
            if now - last_sample >= 1.0:
                self.held.append(sum(1 for sent in self._socks.values() if sent))
                last_sample = now
        for s in list(self._socks):
            self._drop(s)


def request(port: int, method: str, path: str, token: str | None = None,
            body: Any = None) -> tuple[int | None, Any, float]:  # fmt: skip
    """(status or None, JSON body, seconds) of one request from PLAYER_ADDRESS."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    started = time.monotonic()
    conn = http.client.HTTPConnection(
        HOST, port, timeout=REQUEST_TIMEOUT_S, source_address=(PLAYER_ADDRESS, 0)
    )
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None, time.monotonic() - started
    except (OSError, http.client.HTTPException, ValueError):
        return None, None, time.monotonic() - started
    finally:
        conn.close()


def play(port: int, seconds: float) -> dict[str, Any]:
    """A player's health checks and moves (draw, undo) one after another for `seconds`."""
    status, data, _ = request(port, "POST", "/api/v1/auth/register",
                              body={"username": f"slow{time.time_ns() % 10**9}",
                                    "password": "a long enough passphrase 42"})  # fmt: skip
    assert status == 201, (status, data)
    token = data["token"]
    status, game, _ = request(port, "POST", "/api/v1/games", token, {"draw": 1, "preset": "N"})
    assert status == 201, (status, game)
    seq, kinds = game["seq"], ("draw", "undo")  # always legal: the stock never runs out
    times: dict[str, list[float]] = {"health": [], "move": []}
    failed: dict[str, Counter[int | None]] = {"health": Counter(), "move": Counter()}
    end, i = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        time.sleep(PACE_S)  # a person's pace, within the balancer's per-client rate
        status, _, took = request(port, "GET", "/api/v1/health")
        if status == 200:
            times["health"].append(took)
        else:
            failed["health"][status] += 1
        status, data, took = request(port, "POST", f"/api/v1/games/{game['id']}/actions", token,
                                     {"seq": seq, "action": kinds[i % 2]})  # fmt: skip
        if status == 200:
            times["move"].append(took)
            seq, i = data["seq"], i + 1
        else:
            failed["move"][status] += 1
            if status == 409:
                seq = data["error"].get("expected", seq)
    return {
        kind: {
            "answered": len(times[kind]),
            "failed": dict(failed[kind]),
            "median_ms": round(1000 * statistics.median(times[kind]), 1) if times[kind] else None,
            "max_ms": round(1000 * max(times[kind]), 1) if times[kind] else None,
        }
        for kind in times
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=5000, help="connections held (≤ 10,000)")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds of play while held")
    parser.add_argument("--stack-root", type=Path, default=None)
    args = parser.parse_args()
    args.slow = max(1, min(args.slow, MAX_SLOW))
    args.hold = max(1.0, min(args.hold, MAX_HOLD_S))
    limit = raise_open_files(args.slow + 1000)
    if limit < args.slow + 100:
        raise SystemExit(f"ulimit -n allows {limit} open files: too few for {args.slow} sockets")
    own = args.stack_root is None
    root = ROOT / "var" / "slow_clients" if own else args.stack_root
    stack = Stack(root)
    if own:
        Stack(root).stop()
        shutil.rmtree(root, ignore_errors=True)
        stack = Stack(root, ports=Ports.free(), settings={"LOG_LEVEL": "WARNING"})
        stack.start()
    try:
        port = stack.ports.lb
        quiet = play(port, 5.0)
        slow = SlowClient(port, args.slow)
        slow.start()
        ramp_end = time.monotonic() + 60
        while (not slow.held or slow.held[-1] < 0.98 * args.slow) and time.monotonic() < ramp_end:
            time.sleep(0.5)
        held = play(port, args.hold)
        held_counts = list(slow.held)
        slow.stop.set()
        slow.join()
        print(json.dumps({
            "slow_connections": args.slow,
            "held_min": min(held_counts[-int(args.hold):] or [0]),
            "held_max": max(held_counts or [0]),
            "held_mean": round(statistics.mean(held_counts[-int(args.hold):] or [0])),
            "closed_by_server": slow.closed_by_server,
            "player_quiet": quiet,
            "player_while_held": held,
        }, indent=2))  # fmt: skip
    finally:
        if own:
            stack.stop()


if __name__ == "__main__":
    main()
