"""bench/integrity.py's players: the honest heuristic player, human time, and one account's
game over the API with a local copy of it.

`Heuristic` is a Klondike player of some skill who sees only what a person sees, makes
mistakes, takes back a move now and then and gives up when stuck. It plays on a local copy of
the game (`GameState`, kept in step with the server's answers) but chooses from the public
position alone: `public_view` (face-down cards and the stock's order unknown), the legal
actions (which depend only on face-up cards) and the layouts it has had before (a person
remembers those). Never the solver, never a hidden card. `Attempt` sends actions through
Django's test client and checks every answer against the local copy; it also keeps which
cards the player has seen, for the undo-as-oracle attack.

`python -m bench.integrity_player` plays the heuristic alone with the engine on random deals
and prints its win rate and game length by skill, to tune it without a server.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import engine
from games.engine import (
    DRAW,
    RECYCLE,
    RESIGN,
    UNDO,
    Action,
    Applied,
    DealCode,
    GameState,
    Move,
    public_view,
)

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(r): r for r in range(2, 11)}
SUITS = "SHDC"  # the foundations f1..f4

MOVE_CAP = 300  # actions; then the player resigns
# Human time per action: a lognormal gap around these medians (seconds), a long tail of
# thinking, never faster than the floor.
MEDIAN_GAP_S = {"draw": 0.5, "move": 1.5, "undo": 1.0, "resign": 2.0}
GAP_SIGMA = 0.55
THINK_P = 0.04  # the share of actions preceded by a long think
THINK_S = (5.0, 30.0)
FLOOR_S = 0.12


def rank_of(name: str) -> int:
    return RANKS[name[:-1]]


def suit_of(name: str) -> int:
    return SUITS.index(name[-1])


def human_gap(rng: random.Random, kind: str, pace: float = 1.0) -> float:
    """Seconds a person takes before an action of `kind` ("draw", "move", "undo", "resign"),
    `pace` their own factor (1 is the median player)."""
    gap = MEDIAN_GAP_S[kind] * pace * math.exp(rng.gauss(0.0, GAP_SIGMA))
    if rng.random() < THINK_P:
        gap += rng.uniform(*THINK_S)
    return max(gap, FLOOR_S)


def layout(state: GameState) -> tuple[object, ...]:
    """The position as a player sees it: the public view as a hashable key."""
    view = public_view(state)
    return (
        tuple(tuple(c) for c in view["tableau"]),
        tuple(view["waste"]),
        tuple(len(f) for f in view["foundations"]),
        view["stock"],
    )


@dataclass
class Heuristic:
    """One person's play of one game: call `next_action()`, send it, then `applied()` with
    the server's acceptance (or `refused()` when it said no).

    `skill` in [0.3, 1]: the chance of playing the considered move rather than a random
    legal one, and of seeing a foundation move at all. `undoer`: takes back a card move it
    does not like now and then (only moves that turned nothing face up). `give_up_at`: resigns
    after that many actions (an impatient player), else when stuck or at MOVE_CAP."""

    state: GameState
    rng: random.Random
    skill: float = 0.7
    undoer: bool = False
    give_up_at: int | None = None
    move_cap: int = MOVE_CAP
    max_undos: int = 4
    max_tries: int = 1
    seen: set[tuple[object, ...]] = field(default_factory=set)
    rejected: set[tuple[tuple[object, ...], Move]] = field(default_factory=set)
    actions: int = 0
    undos: int = 0
    tries: int = 0
    idle: int = 0  # draws and recycles since the last card move
    last: tuple[tuple[object, ...], Action, bool] | None = None  # before, action, revealed
    _decided_at: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        self.seen.add(layout(self.state))

    def next_action(self) -> Action:
        s = self.state
        self._decided_at = layout(s)
        if self.give_up_at is not None and self.actions >= self.give_up_at:
            return RESIGN
        if self.actions >= self.move_cap:
            return RESIGN
        if self._wants_undo():
            return UNDO
        legal = s.legal_moves()
        if not legal:
            return RESIGN
        view = public_view(s)
        cycle = math.ceil((view["stock"] + len(view["waste"])) / s.rules.draw) + 2
        if self.idle > cycle:  # a whole pass of the stock without a card move: stuck
            tries = [
                a
                for a in legal
                if isinstance(a, Move) and not a.dst.startswith("f") and not self._repeats(a)
            ]
            if not tries or self.tries >= self.max_tries:
                return RESIGN
            self.tries += 1  # try something new before giving up
            return self.rng.choice(tries)
        if self.rng.random() > self.skill:  # a mistake: any legal action
            return self.rng.choice(legal)
        best, best_score = None, 0.0
        key = self._decided_at
        for action in legal:
            if not isinstance(action, Move):
                continue
            score = self._value(action, view)
            if score <= 0 or (key, action) in self.rejected:
                continue
            if self._repeats(action):
                continue
            score += self.rng.random()  # ties at random
            if score > best_score:
                best, best_score = action, score
        if best is not None:
            return best
        return DRAW if DRAW in legal else (RECYCLE if RECYCLE in legal else self.rng.choice(legal))

    def applied(self, action: Action, applied: Applied) -> None:
        """The server accepted `action`, the local copy played it with the result `applied`."""
        self.actions += 1
        if action == UNDO:
            self.undos += 1
            if self.last is not None and isinstance(self.last[1], Move):
                self.rejected.add((self.last[0], self.last[1]))  # not that one again
            self.last = None
        else:
            self.last = (self._decided_at, action, self.state.last_action_revealed)
        self.idle = self.idle + 1 if action in (DRAW, RECYCLE) else 0
        self.seen.add(layout(self.state))

    def play(self, action: Action) -> None:
        """Play `action` on the local copy alone (no server)."""
        self._decided_at = layout(self.state)
        self.applied(action, self.state.apply(action))

    def refused(self, action: Action) -> None:
        """The server refused `action` (an undo that would hide a card): carry on."""
        self.actions += 1
        self.last = None

    # -- choosing -------------------------------------------------------------------------

    def _wants_undo(self) -> bool:
        if not self.undoer or self.last is None or self.undos >= self.max_undos:
            return False
        _, action, revealed = self.last
        if revealed or not isinstance(action, Move) or action.dst.startswith("f"):
            return False
        return self.rng.random() < 0.12

    def _repeats(self, move: Move) -> bool:
        """Whether `move` leads back to a position this player has had (going in circles)."""
        trial = self.state.copy()
        trial.apply(move)
        return layout(trial) in self.seen

    def _value(self, m: Move, view: dict[str, object]) -> float:
        """How much a person of this skill likes a card move (0: not worth it)."""
        tableau: list[list[str | None]] = view["tableau"]  # type: ignore[assignment]
        waste: list[str] = view["waste"]  # type: ignore[assignment]
        if m.src.startswith("f"):
            return 0.0  # back from a foundation: only by mistake
        col = tableau[int(m.src[1]) - 1] if m.src.startswith("t") else None
        down = sum(c is None for c in col) if col is not None else 0
        up = len(col) - down if col is not None else 0
        reveals = col is not None and m.count == up and down > 0
        if m.dst.startswith("f"):
            # A weaker player overlooks a foundation move now and then.
            if self.rng.random() < (1.0 - self.skill) * 0.6:
                return 0.0
            return 100.0 if reveals else 80.0
        if reveals:
            return 90.0 + down
        dst = tableau[int(m.dst[1]) - 1]
        if col is None:  # from the waste
            return 70.0 if not dst else 50.0
        card = col[len(col) - m.count]
        assert card is not None
        if not dst:  # a king to an empty column: worth it when it frees something
            return 70.0 if m.count < len(col) else 0.0
        if m.count == len(col):
            # Empties a column: worth it when a king waits for it.
            return 60.0 if self._king_waits(tableau, waste) else 0.0
        under = col[len(col) - m.count - 1]
        if under is not None and self._goes_home(under, view):
            return 40.0  # frees a card for its foundation
        if under is not None and waste and self._fits(waste[-1], under):
            return 35.0  # makes room for the waste card
        return 0.0

    @staticmethod
    def _fits(card: str, onto: str) -> bool:
        red = card[-1] in "HD"
        return rank_of(onto) == rank_of(card) + 1 and (onto[-1] in "HD") != red

    @staticmethod
    def _king_waits(tableau: list[list[str | None]], waste: list[str]) -> bool:
        if waste and rank_of(waste[-1]) == 13:
            return True
        for col in tableau:
            for i, c in enumerate(col):
                if c is not None and rank_of(c) == 13 and i > 0:
                    return True
        return False

    @staticmethod
    def _goes_home(card: str, view: dict[str, object]) -> bool:
        foundations: list[list[str]] = view["foundations"]  # type: ignore[assignment]
        return len(foundations[suit_of(card)]) == rank_of(card) - 1


# --- over the API ----------------------------------------------------------------------------


class BenchError(RuntimeError):
    """The server answered what no player expects: the figures would be wrong."""


def cards_of(view: dict[str, Any]) -> set[str]:
    """Every card face up in a public view."""
    seen = set(view["waste"])
    for pile in (*view["foundations"], *view["tableau"]):
        seen.update(c for c in pile if c is not None)
    return seen


class Attempt:
    """One account's game over the API (a Django test client with its address, browser
    cookie and token), with a local copy of it that every answer is checked against.

    It also keeps what the player has seen: every card face up in an answer (`seen`), the
    cards seen along the line that stands (`line_seen`, one set per action not undone), and
    for each action that stands whether it turned a card face up, so that undos of such
    actions are counted (`reveal_undos_accepted`, `reveal_undos_refused`)."""

    requests = 0  # every request of the run

    def __init__(self, client: Any, code: str, name: str) -> None:
        self.client, self.name = client, name
        self.state = GameState.from_code(code)
        self.game: dict[str, Any] = {}
        self.ranked = False
        self.log: list[str] = []  # the actions accepted, in order
        self.seen = cards_of(public_view(self.state))
        self.line_seen = [set(self.seen)]
        self.reveals: list[bool] = []
        self.refused = self.reveal_undos_accepted = self.reveal_undos_refused = 0

    @property
    def id(self) -> int:
        return int(self.game["id"])

    @property
    def over(self) -> bool:
        return self.state.status != "playing"

    def start(self, path: str, body: dict[str, Any] | None = None) -> None:
        """Start the game: POST `path` (a ranked start, or /api/v1/games with a code)."""
        response = self.client.post(path, body, format="json")
        Attempt.requests += 1
        if response.status_code not in (200, 201):
            raise BenchError(
                f"{self.name} start: HTTP {response.status_code} {response.content[:300]!r}"
            )
        self.game = response.json()
        self.ranked = "/daily/" in path
        if self.game["state"] != public_view(self.state):
            raise BenchError(f"{self.name}: the game is not the deal expected")

    def send(self, action: Action) -> Applied | None:
        """Send one action; the local copy follows. Returns what it did, or None when the
        server refused an undo that would hide a card (422, reason `undo_reveal`).

        :raises BenchError: any other refusal, or an answer the local copy disagrees with.
        """
        body = {"seq": self.game["seq"], **engine.action_to_dict(action)}
        response = self.client.post(f"/api/v1/games/{self.id}/actions", body, format="json")
        Attempt.requests += 1
        undoes_reveal = action == UNDO and bool(self.reveals) and self.reveals[-1]
        if (
            response.status_code == 422
            and action == UNDO
            and response.json().get("error", {}).get("reason") == "undo_reveal"
        ):
            self.refused += 1
            self.reveal_undos_refused += undoes_reveal
            return None
        if response.status_code != 200:
            raise BenchError(
                f"{self.name} {engine.format_action(action)}: HTTP {response.status_code} "
                f"{response.content[:300]!r}"
            )
        applied = self.state.apply(action)
        self.game = response.json()
        view = public_view(self.state)
        if self.game["state"] != view or self.game["status"] != self.state.status:
            raise BenchError(f"{self.name}: the server's position is not the engine's")
        self.log.append(engine.format_action(action))
        if action == UNDO:
            self.reveal_undos_accepted += undoes_reveal
            if self.reveals:
                self.reveals.pop()
                self.line_seen.pop()
        elif action != RESIGN:
            self.reveals.append(self.state.last_action_revealed)
            shown = cards_of(view)
            self.seen |= shown
            self.line_seen.append(self.line_seen[-1] | shown)
        return applied

    def learned(self) -> set[str]:
        """The cards seen that the line that stands never showed: what undos taught."""
        return self.seen - self.line_seen[-1]


# A script sends one request per step and yields the seconds until its next one.
Script = Iterator[float]
Gap = Callable[[Action], float]


def kind_of(action: Action) -> str:
    if action == UNDO:
        return "undo"
    if action == RESIGN:
        return "resign"
    return "draw" if action in (DRAW, RECYCLE) else "move"


def human(rng: random.Random, pace: float = 1.0) -> Gap:
    """Human time before each action (`human_gap`)."""
    return lambda action: human_gap(rng, kind_of(action), pace)


def fixed(seconds: float) -> Gap:
    """A script's clockwork: the same gap before every action."""
    return lambda _: seconds


def play_heuristic(
    attempt: Attempt,
    player: Heuristic,
    gap: Gap,
    *,
    stop_after: int | None = None,
    resign: bool = True,
) -> Script:
    """Send `player`'s choices until the game ends, or after `stop_after` actions resign
    (`resign`) or leave the game open."""
    made = 0
    while not attempt.over:
        action = player.next_action()
        if stop_after is not None and made >= stop_after:
            if not resign:
                return
            action = RESIGN
        yield gap(action)
        applied = attempt.send(action)
        made += 1
        if applied is None:
            player.refused(action)
        else:
            player.applied(action, applied)


def play_line(attempt: Attempt, line: list[str], gap: Gap) -> Script:
    """Send a line of actions in notation until it ends or the game does."""
    for notation in line:
        if attempt.over:
            return
        action = engine.parse_action(notation)
        yield gap(action)
        attempt.send(action)


# --- alone, to tune it -------------------------------------------------------------------------


def play_offline(code: str, rng: random.Random, **kwargs: object) -> tuple[str, int, int]:
    """Play one game with the engine alone; returns (status, actions, undos)."""
    player = Heuristic(GameState.from_code(code), rng, **kwargs)  # type: ignore[arg-type]
    while player.state.status == "playing":
        action = player.next_action()
        if action == RESIGN:
            break
        player.play(action)
    return player.state.status, player.actions, player.undos


def main() -> int:
    ap = argparse.ArgumentParser(description="The honest player alone, on the engine.")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--mode", default="D1N")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    by_skill: dict[str, list[bool]] = {}
    lengths = []
    for _ in range(args.games):
        skill = rng.uniform(0.3, 1.0)
        code = str(DealCode(int(args.mode[1]), args.mode[2], rng.randrange(10**9)))
        status, actions, _ = play_offline(code, rng, skill=skill, undoer=rng.random() < 0.3)
        by_skill.setdefault(f"{math.floor(skill * 10) / 10:.1f}", []).append(status == "won")
        lengths.append(actions)
    won = sum(sum(v) for v in by_skill.values())
    print(
        f"won {won} of {args.games} ({100 * won / args.games:.1f} %), "
        f"median actions {statistics.median(lengths):.0f}"
    )
    for k in sorted(by_skill):
        v = by_skill[k]
        print(f"  skill {k}: {sum(v)}/{len(v)} won")
    return 0


if __name__ == "__main__":
    sys.exit(main())
