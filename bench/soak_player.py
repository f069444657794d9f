"""bench/soak.py's simulated players: people at human pace, each on a keep-alive connection of
its own from an address of its own, playing their daily and casual games through the load
balancer while faults hit the stack.

A player plays its ranked attempt (a third play the deal's winning line, with an undo and
its move again now and then; the others play `bench.integrity_player.Heuristic`), half of
them after a first casual game, and casual games: some on a deal proven winnable, following
the server's hints (which follow the proof's line: wins), the others heuristic, with undos,
the odd hint and a resign when stuck.
Every game is kept in step with a local copy (the engine), and every answer checked against it.

What a fault does to a request is the client's business, as it is a real one's: a failed
action (no answer, a 5xx) may or may not have been applied, so the player reads the game and
either sends the action again with the same `seq` (the API applies one action per `seq`) or
finds it applied. Every request is recorded (start, seconds, kind, status, ok), and every game
with the actions answered 200 (`acked`: seq of the first log entry, the entries) and the whole
log as the player knows it (`log`), for the checks against the stored logs.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections import Counter
from http.client import HTTPException
from typing import Any

from bench.harness import REQUEST_TIMEOUT_S
from bench.integrity_player import Heuristic, human_gap, kind_of
from bench.player import OneWriteConnection
from games import engine
from games.engine import RESIGN, UNDO, GameState, public_view

PASSWORD = "soak-Pl4yer-passw0rd"  # every simulated player's; Django's validators accept it
WINNERS = 0.35  # the share of ranked attempts that play the deal's winning line
HINT_GAMES = 0.35  # the share of casual games on a proven deal, played by the hints
CASUAL_FIRST = 0.5  # the share of players who play a casual game before their daily
HINT_GAP_S = 1.1  # at least this between two hints of a player: the hints throttle is 60/min
STRAY_HINT_P = 0.004  # a heuristic player's odd hint (a real search: solver CPU)
REDO_P = 0.06  # a line follower takes back a move and plays it again
ACTION_CAP = 400  # then a casual game is resigned
RETRY_GAP_S = (0.2, 1.0)  # a failed request is retried after this, growing, at most
SETTLE_S = 20.0  # after the clock, a player still finds out what its last action did
# A connection idle this long is closed before the next request, as browsers do, rather than
# found closed by the balancer (nginx's keepalive_timeout: 75 s).
IDLE_CLOSE_S = 60.0


def player_address(index: int) -> str:
    """Player `index`'s own loopback address (127.0.1.1, 127.0.1.2, ...): the balancer and
    the throttles see one client per player, as they would real ones."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


class Recorder:
    """One client process's record of every request and game (threads append; lists and
    dicts take that without a lock under the GIL)."""

    def __init__(self) -> None:
        self.requests: list[tuple[float, float, str, int, bool]] = []
        self.games: dict[int, dict[str, Any]] = {}
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        """Something no correct server does (an answer the engine disagrees with)."""
        self.counts["problems"] += 1
        if len(self.problems) < 50:
            self.problems.append(text)


class Client:
    """A player's connection to the balancer, from its own address, with its token."""

    def __init__(self, host: str, port: int, address: str, rec: Recorder) -> None:
        self.conn = OneWriteConnection(
            host, port, timeout=REQUEST_TIMEOUT_S, source_address=(address, 0)
        )
        self.headers = {"Content-Type": "application/json"}
        self.rec = rec
        self.idle_close_s = IDLE_CLOSE_S
        self.used = 0.0  # when the last request ended

    def login(self, token: str) -> None:
        self.headers["Authorization"] = f"Token {token}"

    def call(
        self, method: str, path: str, body: Any = None, *, kind: str
    ) -> tuple[int, dict[str, Any]]:
        """One request; returns (HTTP status, 0 when no answer came, and the JSON body or
        {}). Recorded as ok when it is a 2xx; the caller calls `accept` for an answer that
        is right though not a 2xx."""
        data = json.dumps(body).encode() if body is not None else None
        t0 = time.monotonic()
        if t0 - self.used > self.idle_close_s:
            self.conn.close()
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
            status = response.status
        except (OSError, HTTPException):
            self.conn.close()  # a new connection on the next request
            status, payload = 0, b""
        self.used = time.monotonic()
        self.rec.requests.append((t0, self.used - t0, kind, status, 200 <= status < 300))
        try:
            answer = json.loads(payload) if payload else {}
        except ValueError:
            answer = {}
        return status, answer if isinstance(answer, dict) else {}

    def accept(self) -> None:
        """The last request's answer was the right one though not a 2xx (a retried action's
        409, a ranked attempt's refused undo)."""
        t0, elapsed, kind, status, _ = self.rec.requests[-1]
        self.rec.requests[-1] = (t0, elapsed, kind, status, True)


def error_of(answer: dict[str, Any]) -> dict[str, Any]:
    error = answer.get("error")
    return error if isinstance(error, dict) else {}


class Stop(Exception):
    """The player's time is up: on to the end."""


class Lost(Exception):
    """The server's game is not the local copy: the player leaves it for another."""


class Session:
    """One game over the API and its local copy; `send` applies an action to both."""

    def __init__(self, player: Player, game: dict[str, Any], code: str, kind: str) -> None:
        self.player, self.client, self.rec = player, player.client, player.rec
        self.id = int(game["id"])
        self.path = f"/api/v1/games/{self.id}/actions"
        self.state = GameState.from_code(code)
        self.seq = int(game["seq"])
        self.record: dict[str, Any] = {"kind": kind, "log": [], "acked": [], "open": True}
        self.rec.games[self.id] = self.record
        if game["state"] != public_view(self.state) or self.seq != 0:
            self.lose(f"game {self.id}: its start is not the engine's deal {code}")

    @property
    def over(self) -> bool:
        return self.state.is_over

    def lose(self, problem: str) -> None:
        """Leave the game: the server's game is not the local one."""
        self.rec.problem(problem)
        self.record["abandoned"] = problem
        raise Lost

    def send(self, action: engine.Action) -> engine.Applied | None:
        """Send `action` until its fate is known; returns what it did locally, or None when
        the server refused an undo that would hide a card in a ranked attempt.

        :raises Stop: the time is up (the fate of the action may be unknown: `pending`).
        :raises Lost: the game disagrees with the local copy.
        """
        after = self.state.copy()
        applied = after.apply(action)
        entries = [engine.format_action(applied.action)]
        entries += [engine.format_action(a.action) for a in applied.auto]
        body = {"seq": self.seq, **engine.action_to_dict(action)}
        kind = "move" if isinstance(action, engine.Move) else kind_of(action)
        retried = False
        self.record["pending"] = entries  # until its fate is known
        while True:
            status, answer = self.client.call("POST", self.path, body, kind=kind)
            if status == 200:
                if (
                    answer.get("seq") != self.seq + len(entries)
                    or answer.get("status") != after.status
                    or answer.get("state") != public_view(after)
                ):
                    self.lose(f"game {self.id} seq {self.seq}: {entries} answered another game")
                self.record["acked"].append([self.seq + 1, entries])
                return self._took(after, applied, entries)
            error = error_of(answer)
            if status == 422 and action == UNDO and error.get("reason") == "undo_reveal":
                self.client.accept()
                self.rec.counts["undo_refused"] += 1
                del self.record["pending"]
                return None
            if status == 409 and retried and error.get("code") == "seq_mismatch":
                self.client.accept()  # the right answer to a retry of an applied action
            else:
                self.rec.counts[f"failed {kind} {status}"] += 1
            retried = True
            game = self.player.fetch(self.id)
            if game["seq"] == self.seq:
                continue  # not applied: send it again
            if game["seq"] == self.seq + len(entries) and game["state"] == public_view(after):
                self.rec.counts["applied, answer lost"] += 1
                return self._took(after, applied, entries)
            self.lose(f"game {self.id} seq {self.seq}: {entries}: the server is at {game['seq']}")

    def _took(
        self, after: GameState, applied: engine.Applied, entries: list[str]
    ) -> engine.Applied:
        del self.record["pending"]
        self.state = after
        self.seq += len(entries)
        self.record["log"] += entries
        self.record["open"] = not after.is_over
        if after.is_over:
            self.rec.counts[f"{self.record['kind']} {after.status}"] += 1
        return applied


class Player:
    """One simulated person: registered, e-mail verified, then on the clock."""

    def __init__(
        self,
        index: int,
        name: str,
        client: Client,
        rng: random.Random,
        *,
        pace: float = 1.0,
        t_end: float = 0.0,
    ) -> None:
        self.index, self.name, self.client, self.rng = index, name, client, rng
        self.rec = client.rec
        self.pace = pace
        self.t_end = t_end
        self.last_hint = 0.0

    # --- before the clock ----------------------------------------------------------------

    def register(self, deadline: float) -> None:
        """Sign up through the API. A sign-up hashes a password, one at a time on a host:
        503 `unavailable` when the slot is busy, so it asks again after the `Retry-After`."""
        body = {"username": self.name, "password": PASSWORD, "email": f"{self.name}@example.com"}
        while time.monotonic() < deadline:
            status, answer = self.client.call(
                "POST", "/api/v1/auth/register", body, kind="register"
            )
            if status == 201:
                self.client.login(answer["token"])
                return
            time.sleep(self.rng.uniform(0.2, 1.0))
        raise RuntimeError(f"{self.name} could not register (last HTTP {status}: {answer})")

    def verify_email(self, uid: str, token: str) -> None:
        """Open the verification link the service e-mailed (ranked play needs it)."""
        status, answer = self.client.call(
            "POST", "/api/v1/auth/verify-email", {"uid": uid, "token": token}, kind="verify"
        )
        if status != 200:
            raise RuntimeError(f"{self.name} could not verify its address: {status} {answer}")

    # --- on the clock --------------------------------------------------------------------

    def run(self, day: str, boards: dict[str, dict[str, Any]]) -> None:
        """Play the daily, then casual games until the clock ends."""
        with contextlib.suppress(Stop):
            self.pause(self.rng.uniform(0.0, 5.0))  # arrivals spread over the first seconds
            if self.rng.random() < CASUAL_FIRST:
                with contextlib.suppress(Lost):
                    self.play_casual()
            with contextlib.suppress(Lost):
                self.play_daily(day, boards)
            while True:
                with contextlib.suppress(Lost):
                    self.play_casual()

    def pause(self, seconds: float) -> None:
        """Think for `seconds`; Stop once the clock has ended."""
        left = self.t_end - time.monotonic()
        if left <= seconds:
            time.sleep(max(0.0, left))
            raise Stop
        time.sleep(seconds)

    def gap(self, action: engine.Action) -> None:
        self.pause(human_gap(self.rng, kind_of(action), self.pace))

    def retry(self, attempt: int) -> None:
        """Wait before asking again after a failed request; Stop once the settle time after
        the clock has passed."""
        if time.monotonic() > self.t_end + SETTLE_S:
            raise Stop
        time.sleep(min(RETRY_GAP_S[1], RETRY_GAP_S[0] * 1.5**attempt))

    def fetch(self, game_id: int) -> dict[str, Any]:
        """The game as the server has it, asked until it answers."""
        for attempt in range(10_000):
            self.retry(attempt)
            status, game = self.client.call("GET", f"/api/v1/games/{game_id}", kind="read")
            if status == 200:
                return game
        raise Stop

    def start(self, path: str, body: dict[str, Any], kind: str) -> dict[str, Any]:
        """Start a game, asking again after a failure (a second casual game is harmless, a
        second ranked start answers the same game)."""
        for attempt in range(10_000):
            status, game = self.client.call("POST", path, body, kind=kind)
            if status in (200, 201):
                return game
            self.rec.counts[f"failed {kind} {status}"] += 1
            self.retry(attempt)
        raise Stop

    def play_daily(self, day: str, boards: dict[str, dict[str, Any]]) -> None:
        mode = self.rng.choice(sorted(boards))
        game = self.start(f"/api/v1/daily/{day}/{mode}/start", {}, "daily start")
        session = Session(self, game, boards[mode]["code"], "daily")
        line = boards[mode]["solution"]
        if line and self.rng.random() < WINNERS:
            self.play_line(session, [engine.parse_action(n) for n in line])
        else:
            self.play_heuristic(session, hints=False)

    def play_casual(self) -> None:
        proven = self.rng.random() < HINT_GAMES
        body = (
            {"draw": 1, "preset": "N", "winnable": True}
            if proven
            else {"draw": self.rng.choice((1, 3)), "preset": "N"}
        )
        game = self.start("/api/v1/games", body, "start")
        session = Session(self, game, game["code"], "hinted" if proven else "casual")
        if proven:
            self.play_hints(session)
        else:
            self.play_heuristic(session, hints=True)

    def play_line(self, session: Session, line: list[engine.Action]) -> None:
        """A known winning line, with a move taken back and played again now and then."""
        for action in line:
            if session.over:
                return
            self.gap(action)
            session.send(action)
            if (
                isinstance(action, engine.Move)
                and not session.over
                and not session.state.last_action_revealed
                and self.rng.random() < REDO_P
            ):
                self.gap(UNDO)
                if session.send(UNDO) is not None:
                    self.gap(action)
                    session.send(action)

    def heuristic(self, session: Session) -> Heuristic:
        return Heuristic(
            session.state,
            self.rng,
            skill=self.rng.uniform(0.4, 1.0),
            undoer=self.rng.random() < 0.6,
            give_up_at=self.rng.choice((None, None, self.rng.randint(20, 150))),
        )

    def play_heuristic(self, session: Session, *, hints: bool) -> None:
        person = self.heuristic(session)
        while not session.over:
            action = person.next_action()
            if hints and self.rng.random() < STRAY_HINT_P:
                self.hint(session)
            self.gap(action)
            self.send_for(person, session, action)

    @staticmethod
    def send_for(person: Heuristic, session: Session, action: engine.Action) -> None:
        """Send the action `person` chose, and tell them how it went."""
        applied = session.send(action)
        person.state = session.state
        if applied is None:
            person.refused(action)
        else:
            person.applied(action, applied)

    def hint(self, session: Session) -> engine.Action | None:
        """Ask for a hint; its move, if it gave one the local copy finds legal."""
        wait = self.last_hint + HINT_GAP_S - time.monotonic()
        if wait > 0:
            self.pause(wait)
        self.last_hint = time.monotonic()
        status, answer = self.client.call("GET", f"/api/v1/games/{session.id}/hint", kind="hint")
        if status != 200:
            self.rec.counts[f"failed hint {status}"] += 1
            return None
        self.rec.counts[f"hint {answer.get('source')}"] += 1
        if not answer.get("move"):
            return None
        try:
            action = engine.action_from_dict(answer["move"])
            session.state.copy().apply(action)
        except (ValueError, KeyError, TypeError):
            self.rec.problem(f"game {session.id}: hint {answer['move']} is not legal")
            return None
        return action

    def play_hints(self, session: Session) -> None:
        """Follow the server's hints; the heuristic plays when a hint gives no move."""
        person = self.heuristic(session)
        while not session.over:
            action = self.hint(session)
            if action is None or session.seq >= ACTION_CAP:
                action = RESIGN if session.seq >= ACTION_CAP else person.next_action()
                self.gap(action)
            else:  # the hint's move is on the screen already: a quick one
                self.pause(human_gap(self.rng, "draw", self.pace))
            self.send_for(person, session, action)


def play_all(
    players: list[tuple[int, str, str]],
    host: str,
    port: int,
    *,
    day: str,
    boards: dict[str, dict[str, Any]],
    t_start: float,
    t_end: float,
    pace: float,
    seed: int,
    idle_close_s: float = IDLE_CLOSE_S,
) -> Recorder:
    """A client process's work: its players ((index, name, token)), one thread each, from
    `t_start` until `t_end`; returns the record."""
    rec = Recorder()
    threads = []
    for index, name, token in players:
        client = Client(host, port, player_address(index), rec)
        client.login(token)
        client.idle_close_s = idle_close_s
        player = Player(
            index, name, client, random.Random(seed * 100_003 + index), pace=pace, t_end=t_end
        )
        threads.append(
            threading.Thread(target=player.run, args=(day, boards), name=name, daemon=True)
        )
    time.sleep(max(0.0, t_start - time.monotonic()))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.0, t_end + SETTLE_S + REQUEST_TIMEOUT_S + 5 - time.monotonic()))
    rec.counts["threads_left"] = sum(thread.is_alive() for thread in threads)
    return rec
