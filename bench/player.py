"""The load generator's player: a keep-alive connection and games planned before the clock.

bench/api.py's clients and bench/wsgi_calls.py play with it, bench/stack.py sends with its
connection. A `User` starts casual games and plays each through with its own copy of the
engine before the clock (random legal actions, foundation moves favoured, an undo now and
then, a resign after `game_length`); every planned `Step` holds the request body, already
encoded with the `seq` the server will expect, and the answer the server must give. On the
clock it only sends the next body and checks the answer.
"""

from __future__ import annotations

import collections
import json
import random
import time
from http.client import HTTPConnection
from typing import Any, NamedTuple

from bench.harness import HOST, REQUEST_TIMEOUT_S

MOVES_PATH = "/api/v1/games/{id}/actions"  # the API's move endpoint


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
