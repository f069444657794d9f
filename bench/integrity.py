"""Integrity benchmark: a simulated daily-challenge day, and how the integrity flags judge it.

Run (in-process, on a scratch SQLite database; no servers needed):
     .venv/bin/python bench/integrity.py [--players 320] [--seed 4] [--mode D1N]
         [--day 2026-12-01] [--quick] [--json PATH] [--keep]

One day of one mode (docs/daily.md). Honest players of mixed skill play their ranked attempt
with the heuristic player of bench/integrity_player.py (it sees only the public position,
makes mistakes, takes back a move now and then, keeps human time); about 30 % of them share
an address in groups of 2 to 10 (a home, an office, a carrier's NAT), each with a browser of
its own, playing together or one after the other. Then the crowded honest groups of issue
50 (`crowds`; `--no-crowds` leaves them out): households of 2-3 accounts on one computer, in
turn; a school lab of 100 on one address at once, 5 giving up at 2-5 moves; a carrier's NAT of
60 on one address over the day. Beside them, the scripted attacks of the issue
(`Attacks.build`). Every player's next request is an event at a simulated instant:
events are taken in time order, the clock travels there (`time_machine`), and the request
goes through Django's test client with the player's `REMOTE_ADDR` and `kd_browser` cookie;
so players overlap as over a real day, and the server stamps each action with simulated time.
At D+1 01:00 the board closes (`daily_close`).

Printed: per attack, whether it was caught and the flag reasons; for the honest players, their
win rate and game length (and the same players' on random deals, engine only, as a check of
the heuristic), the entries flagged (with the reasons, by group: the share flagged and the
entries off the final board in each) and the entries missing from the final board; the run's
time. The bench reads only what stays stable whatever
the integrity rules: `Game.flag_reason` (non-empty: flagged), the final board (the entries of
the board's current generation once closed) and the public profile. Exit status 1 when a target
is missed, 2 when the server answered what no player expects (the figures are then wrong).

Set-up: embedded mode (no DATABASE_URL or REDIS_URL: SQLite, Celery eager), debug off, a
random secret key, a daily secret from the seed (the same deal for the same seed and day),
throttles out of the way, and the analysis of lost games switched off for the run (a solver
search per resigned game on a background thread: minutes of CPU that judge nothing).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import heapq
import json
import logging
import os
import random
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import BENCH_THROTTLE, django_setup_here
from bench.integrity_player import (
    Attempt,
    BenchError,
    Heuristic,
    Script,
    fixed,
    human,
    play_heuristic,
    play_line,
    play_offline,
)
from games import engine
from games.engine import DRAW, RESIGN, UNDO, GameState, Move

DEFAULT_DAY = date(2026, 12, 1)
DEFAULT_SEED = 4  # neither an easy nor a hard D1N deal for the heuristic player
FLAG_TARGET = 0.01  # at most this share of honest entries flagged
SHARED_SHARE = 0.30  # honest players behind a shared address
GROUP_SIZES = {2: 30, 3: 20, 4: 14, 5: 8, 6: 6, 7: 5, 8: 5, 9: 5, 10: 7}  # weights
NEW_SHARE = 0.20  # honest accounts made hours before they play
UNDOER_SHARE = 0.30  # honest players who take back a move now and then
QUITTER_SHARE = 0.02  # honest players who resign within their first 10 actions
ABANDON_SHARE = 0.015  # ... who leave their game open (the close records it as it stands)
# The crowded groups of issue 50's honest population (`crowds`): households of 2-3 accounts
# on one computer (one browser) in turn; a school lab on one address at once, some giving
# up within a few moves; a carrier's NAT, one address over the day.
HOUSEHOLDS = 12
LAB_SIZE = 100
LAB_QUITTERS = 5  # give up at 2-5 moves
NAT_SIZE = 60
NAT_QUITTER_SHARE = 0.05
OWN_LINE_MAX_SHARE = 0.7  # an attacker's "own" line follows the solver's less than this
SOLVER_NODES = 5_000  # an attacker's solver search: bounded in positions, so repeatable

# --- the honest population ----------------------------------------------------------------------


@dataclass
class Account:
    username: str
    token: str


@dataclass
class Honest:
    """One honest player and how they play their attempt."""

    n: int
    skill: float
    new: bool
    undoer: bool
    pace: float  # their time per action, against the median player's
    start_s: float  # when they start, in seconds after the day's 00:00
    browser: str
    give_up_at: int | None  # resign after this many actions
    abandon_at: int | None  # leave the game open after this many actions
    address: str = ""
    sharing: str = "own"  # "own", "together", "in turn", "household", "lab" or "nat"
    group: int = 1  # how many players share the address
    account: Account | None = None
    attempt: Attempt | None = None


def address_of(i: int) -> str:
    """The i-th honest address of the run (in 198.18.0.0/15, the benchmarking range)."""
    return f"198.{18 + i // 65000}.{(i % 65000) // 250}.{i % 250 + 1}"


def browser_id(rng: random.Random) -> str:
    """A `kd_browser` cookie's value: 32 hex digits."""
    return f"{rng.getrandbits(128):032x}"


def population(count: int, rng: random.Random) -> list[Honest]:
    """`count` honest players: skills, accounts' ages, habits, addresses and start times."""
    people = []
    for n in range(count):
        r = rng.random()
        people.append(
            Honest(
                n=n,
                skill=rng.uniform(0.3, 1.0),
                new=rng.random() < NEW_SHARE,
                undoer=rng.random() < UNDOER_SHARE,
                pace=rng.lognormvariate(0.0, 0.25),
                start_s=rng.uniform(0.2, 22.5) * 3600,
                browser=browser_id(rng),
                give_up_at=rng.randrange(10) if r < QUITTER_SHARE else None,
                abandon_at=(
                    rng.randrange(20, 120)
                    if QUITTER_SHARE <= r < QUITTER_SHARE + ABANDON_SHARE
                    else None
                ),
            )
        )
    order = list(range(count))
    rng.shuffle(order)
    cut = round(count * SHARED_SHARE)
    shared, alone = order[:cut], order[cut:]
    addresses, first = 0, True
    while len(shared) >= 2:
        # The first group is two neighbours, one after the other: the issue's case 3.
        size = (
            2
            if first
            else min(rng.choices(list(GROUP_SIZES), list(GROUP_SIZES.values()))[0], len(shared))
        )
        if len(shared) - size == 1:  # nobody shares an address alone
            size = size + 1 if size < 10 else size - 1
        group, shared = shared[:size], shared[size:]
        together = not first and rng.random() < 0.5
        first = False
        base = rng.uniform(0.2, 20.0) * 3600
        for k, i in enumerate(group):
            h = people[i]
            h.address, h.group = address_of(addresses), size
            h.sharing = "together" if together else "in turn"
            if together:
                h.start_s = base + rng.uniform(0, 20 * 60)
            else:
                base += rng.uniform(15 * 60, 60 * 60) if k else 0.0
                h.start_s = min(base, 23.2 * 3600)
        addresses += 1
    for i in alone + shared:
        people[i].address = address_of(addresses)
        addresses += 1
    return people


def crowds(first: int, addresses: int, rng: random.Random) -> list[Honest]:
    """Issue 50's crowded honest groups, numbered from `first` on addresses from `addresses`
    on: HOUSEHOLDS households of 2-3 accounts on one computer (one address, one browser) in
    turn; a school lab of LAB_SIZE on one address at once, LAB_QUITTERS of them giving up at
    2-5 moves; a carrier's NAT of NAT_SIZE on one address over the day. Habits otherwise as
    the population's."""
    people: list[Honest] = []

    def one(**what: Any) -> Honest:
        h = Honest(
            n=first + len(people),
            skill=rng.uniform(0.3, 1.0),
            new=rng.random() < NEW_SHARE,
            undoer=rng.random() < UNDOER_SHARE,
            pace=rng.lognormvariate(0.0, 0.25),
            start_s=0.0,
            browser=browser_id(rng),
            give_up_at=None,
            abandon_at=None,
        )
        for name, value in what.items():
            setattr(h, name, value)
        people.append(h)
        return h

    for _ in range(HOUSEHOLDS):
        size, browser = rng.choice((2, 2, 3)), browser_id(rng)
        at = rng.uniform(0.5, 20.0) * 3600
        quitter = rng.randrange(size) if rng.random() < 0.25 else None
        for k in range(size):
            one(address=address_of(addresses), browser=browser, sharing="household", group=size,
                start_s=at, give_up_at=rng.randint(2, 5) if k == quitter else None)  # fmt: skip
            at = min(at + rng.uniform(20 * 60, 90 * 60), 23.2 * 3600)
        addresses += 1
    lab_at = rng.uniform(8.5, 14.0) * 3600
    quitters = set(rng.sample(range(LAB_SIZE), LAB_QUITTERS))
    for k in range(LAB_SIZE):
        one(address=address_of(addresses), sharing="lab", group=LAB_SIZE,
            start_s=lab_at + rng.uniform(0, 5 * 60),
            give_up_at=rng.randint(2, 5) if k in quitters else None)  # fmt: skip
    addresses += 1
    for _ in range(NAT_SIZE):
        quit_early = rng.random() < NAT_QUITTER_SHARE
        one(address=address_of(addresses), sharing="nat", group=NAT_SIZE,
            start_s=rng.uniform(0.2, 23.0) * 3600,
            give_up_at=rng.randint(1, 9) if quit_early else None)  # fmt: skip
    return people


def calibrate(people: list[Honest], mode: str, rng: random.Random) -> tuple[float, float]:
    """The same players (skills, habits) each on a random deal of the mode, engine only: the
    heuristic's win rate and median actions away from the day's one deal."""
    won, lengths = 0, [0]
    for h in people:
        code = str(engine.DealCode(int(mode[1]), mode[2], rng.randrange(engine.MAX_NUMBER)))
        status, actions, _ = play_offline(
            code, rng, skill=h.skill, undoer=h.undoer, give_up_at=h.give_up_at
        )
        won += status == "won"
        lengths.append(actions)
    return won / max(len(people), 1), statistics.median(lengths[1:] or lengths)


# --- the day under test -------------------------------------------------------------------------


class Bench:
    """The day under test: its deal, the accounts, the API clients."""

    def __init__(self, day: date, mode: str, rng: random.Random) -> None:
        from games.daily.services import deals as daily_deals

        self.day, self.mode, self.rng = day, mode, rng
        self.midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
        self.daily = daily_deals.daily_deal_get_or_create(day=day, mode=mode)
        self.code = str(engine.DealCode(self.daily.draw, self.daily.preset, self.daily.deal.number))
        self.solution = self.daily.solution.split()
        self.start_path = f"/api/v1/daily/{day.isoformat()}/{mode}/start"
        self.errors: list[str] = []
        self.accounts = 0

    def account(self, prefix: str, *, new: bool) -> Account:
        """A user with a verified e-mail and an API token, who joined hours (new) or weeks
        ago."""
        from accounts.models import User
        from accounts.tokens import token_create

        self.accounts += 1
        name = f"{prefix}{self.accounts}"
        user = User.objects.create_user(username=name, email=f"{name}@bench.example")
        hours = self.rng.uniform(1, 72) if new else self.rng.uniform(21, 400) * 24
        user.date_joined = self.midnight - timedelta(hours=hours)
        fields = ["date_joined"]
        if any(f.name == "email_verified_at" for f in User._meta.get_fields()):
            user.email_verified_at = user.date_joined + timedelta(minutes=10)
            fields.append("email_verified_at")
        user.save(update_fields=fields)
        _, key = token_create(user=user)
        return Account(name, key)

    def attempt(self, account: Account, address: str, browser: str = "", code: str = "") -> Attempt:
        """A game of `account` from `address` (with a `kd_browser` cookie unless `browser` is
        empty: a script keeps none), on the day's deal unless `code` says another."""
        from rest_framework.test import APIClient

        from config.browser import BROWSER_COOKIE

        client = APIClient(REMOTE_ADDR=address)
        client.credentials(HTTP_AUTHORIZATION=f"Token {account.token}")
        if browser:
            client.cookies[BROWSER_COOKIE] = browser
        return Attempt(client, code or self.code, account.username)

    def profile(self, username: str) -> dict[str, Any]:
        """The public profile, as anybody reads it."""
        from rest_framework.test import APIClient

        response = APIClient(REMOTE_ADDR="192.0.2.1").get(f"/api/v1/users/{username}")
        Attempt.requests += 1
        if response.status_code != 200:
            raise BenchError(f"profile of {username}: HTTP {response.status_code}")
        return dict(response.json())


def honest_script(bench: Bench, h: Honest) -> Script:
    assert h.account is not None
    h.attempt = attempt = bench.attempt(h.account, h.address, h.browser)
    attempt.start(bench.start_path)
    rng = random.Random(bench.rng.random())
    player = Heuristic(attempt.state, rng, skill=h.skill, undoer=h.undoer, give_up_at=h.give_up_at)
    yield from play_heuristic(
        attempt, player, human(rng, h.pace), stop_after=h.abandon_at, resign=False
    )


# --- the attacks --------------------------------------------------------------------------------


def solved_line(state: GameState) -> list[str] | None:
    """A solver's winning line from `state` (not changed), or None."""
    from games.engine import solver

    verdict = solver.solve(state.copy(), budget_s=30.0, max_nodes=SOLVER_NODES)
    if not isinstance(verdict, solver.Solved):
        return None
    return [engine.format_action(a) for a in verdict.actions]


def own_winning_line(bench: Bench, rng: random.Random) -> tuple[list[str], float]:
    """A winning line of an attacker's own making (who knows the deal from a scout): a few
    dozen moves of their own play, then a solver's line from there; tried until less than
    OWN_LINE_MAX_SHARE of its card moves follow the day's solution (the integrity check's own
    measure). Returns it and that share."""
    from games.daily.integrity import line_share  # once Django is set up

    best: tuple[list[str], float] | None = None
    for _ in range(30):
        player = Heuristic(GameState.from_code(bench.code), rng, skill=0.9)
        opening: list[str] = []
        for _ in range(rng.randrange(10, 40)):
            action = player.next_action()
            if action in (RESIGN, UNDO):
                break
            player.play(action)
            opening.append(engine.format_action(action))
        rest = solved_line(player.state)
        if rest is None:
            continue
        line = opening + rest
        share = line_share(line, bench.solution)
        if best is None or share < best[1]:
            best = (line, share)
        if share < OWN_LINE_MAX_SHARE:
            break
    if best is None:
        raise BenchError("no winning line of an attacker's own found")
    return best


def pumped_line(code: str, line: list[str], cycles: int = 20) -> tuple[list[str], int]:
    """`line` with `cycles` foundation -> column -> foundation cycles at its last point where a
    foundation card fits a column, after its last recycle if it can (a recycle's penalty
    would swallow the pumped points). Returns it and the cycles put in (0: no such point)."""
    state, points, last_recycle = GameState.from_code(code), [], -1
    for i, notation in enumerate(line):
        if notation == "recycle":
            last_recycle = i
        back = [m for m in state.legal_moves() if isinstance(m, Move) and m.src.startswith("f")]
        if back:
            points.append((i, back[0]))
        state.apply(engine.parse_action(notation))
    if not points:
        return list(line), 0
    where, move = ([p for p in points if p[0] > last_recycle] or points)[-1]
    cycle = [engine.format_action(move), engine.format_action(Move(move.dst, move.src))]
    return line[:where] + cycle * cycles + line[where:], cycles


@dataclass
class Attack:
    """One scripted attack: its accounts' attempts (by role) and how it is judged."""

    key: str
    title: str
    criterion: str
    judge: Callable[[Attack], None] | None = None
    attempts: dict[str, Attempt] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    caught: bool | None = None


def flag_of(attempt: Attempt | None) -> str:
    """The game's flag reason ("" when not flagged, or never started)."""
    from games.models import Game

    if attempt is None or not attempt.game:
        return ""
    return Game.objects.filter(pk=attempt.id).values_list("flag_reason", flat=True).first() or ""


def flagged(*roles: str) -> Callable[[Attack], None]:
    """Caught when the attempts of all of `roles` are flagged."""

    def judge(attack: Attack) -> None:
        attack.caught = all(flag_of(attack.attempts.get(role)) for role in roles)

    return judge


class Attacks:
    """The issue's attacks, each one script or two that wait for each other."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench
        self.rng = random.Random(bench.rng.random())
        self.list: list[Attack] = []
        self.scripts: list[tuple[float, Script]] = []  # (start, in seconds after 00:00)
        self.addresses = 0

    def add(self, attack: Attack, *scripts: tuple[float, Script]) -> None:
        self.list.append(attack)
        self.scripts.extend((hour * 3600, script) for hour, script in scripts)

    def address(self) -> str:
        """A client address of an attacker's own (in 203.0.113.0/24)."""
        self.addresses += 1
        return f"203.0.113.{self.addresses}"

    def build(self) -> None:
        b, rng = self.bench, self.rng
        own_lines = [own_winning_line(b, random.Random(rng.random())) for _ in range(2)]
        self.order_dodge(own_lines[0])
        self.undo_padding()
        self.undo_oracle()
        for key, ranked, hour in (("5a", True, 11.0), ("5b", False, 11.5)):
            self.pump(key, ranked, hour)
        self.add(
            attack := Attack("6a", "script at 0.16 s: the solver's line", "flagged", flagged("A")),
            (12.0, self.line_bot(attack, b.solution, 0.16)),
        )
        self.add(
            attack := Attack(
                "6b", "script at 0.16 s: a heuristic line", "flagged by timing", flagged("A")
            ),
            (12.5, self.heuristic_bot(attack, 0.16)),
        )
        self.scout_at_move_0(own_lines[1])
        self.add(
            attack := Attack("8", "bot at 5 ms between actions", "flagged", flagged("A")),
            (15.0, self.heuristic_bot(attack, 0.005)),
        )
        self.add(
            attack := Attack("9", "solver's line copied at 200 ms", "flagged", flagged("A")),
            (16.0, self.line_bot(attack, b.solution, 0.2)),
        )

    def order_dodge(self, own: tuple[list[str], float]) -> None:
        """1. One address and one browser: A starts its attempt and leaves it open; scout B
        starts, plays and resigns; then A plays a line of its own to a win."""
        b = self.bench
        attack = Attack(
            "1",
            "order dodge: A open, scout B plays and resigns, A wins",
            "A and B flagged",
            flagged("A", "B"),
        )
        attack.notes.append(f"A's own line follows the solver's for {own[1]:.0%}")
        address, browser = self.address(), browser_id(self.rng)
        main, scout = b.account("atk1a_", new=False), b.account("atk1b_", new=True)
        rng_a, rng_b = random.Random(self.rng.random()), random.Random(self.rng.random())
        scout_done = False

        def play_a() -> Script:
            attack.attempts["A"] = att = b.attempt(main, address, browser)
            att.start(b.start_path)
            for _ in range(4 * 60 * 2):  # at most four hours (should B's script fail)
                if scout_done:
                    break
                yield 30.0
            yield 5 * 60.0
            yield from play_line(att, own[0], human(rng_a))

        def play_b() -> Script:
            nonlocal scout_done
            attack.attempts["B"] = att = b.attempt(scout, address, browser)
            att.start(b.start_path)
            player = Heuristic(att.state, rng_b, skill=0.9)
            yield from play_heuristic(att, player, human(rng_b), stop_after=rng_b.randrange(40, 80))
            scout_done = True

        self.add(attack, (8.0, play_a()), (8.0 + 2 / 60, play_b()))

    def undo_padding(self) -> None:
        """2. A fresh account plays the solver's line with an opening draw and undo, and every
        fifth card move sent as move, undo, move again; 0.17 s between actions. Where an undo
        is refused the move stands (an opening draw that stays replaces the line's first)."""
        b = self.bench
        attack = Attack(
            "2",
            "undo padding: solver's line, draw+undo, every 5th move redone, 0.17 s",
            "flagged",
            flagged("A"),
        )
        account, address = b.account("atk2_", new=True), self.address()

        def script() -> Script:
            attack.attempts["A"] = att = b.attempt(account, address)
            att.start(b.start_path)
            yield 0.17
            att.send(DRAW)
            yield 0.17
            skip_draw = att.send(UNDO) is None
            moves = 0
            for notation in b.solution:
                action = engine.parse_action(notation)
                if skip_draw and action == DRAW:
                    skip_draw = False  # drawn already, by the opening draw that stayed
                    continue
                yield 0.17
                att.send(action)
                if isinstance(action, Move):
                    moves += 1
                    if moves % 5 == 0 and not att.over:
                        yield 0.17
                        if att.send(UNDO) is not None:
                            yield 0.17
                            att.send(action)
            attack.notes.append(f"undos refused: {att.refused}")

        self.add(attack, (9.0, script()))

    def undo_oracle(self) -> None:
        """4. Explore up to 95 actions, undo back to the start (as far as the server lets it),
        five times, then play the attempt out. Caught when no undo of an action that turned a
        card face up was accepted and no card was learned beyond the line that stands."""
        b = self.bench
        attack = Attack(
            "4",
            "undo oracle: explore 95 actions, undo to the start, 5 times, then play",
            "no revealing undo accepted, no card learned",
        )
        account, address = b.account("atk4_", new=False), self.address()
        browser, rng = browser_id(self.rng), random.Random(self.rng.random())

        def script() -> Script:
            attack.attempts["A"] = att = b.attempt(account, address, browser)
            att.start(b.start_path)
            gap = human(rng, 0.6)
            rounds = []
            for _ in range(5):
                player, made = Heuristic(att.state, rng, skill=0.8), 0
                while made < 95 and not att.over:
                    action = player.next_action()
                    if action in (RESIGN, UNDO):
                        break
                    yield gap(action)
                    applied = att.send(action)
                    assert applied is not None  # only an undo may be refused
                    player.applied(action, applied)
                    made += 1
                explored = made
                while made and not att.over:
                    yield gap(UNDO)
                    if att.send(UNDO) is None:
                        break  # refused: no way back past that action
                    made -= 1
                rounds.append(f"{explored}/{explored - made}")
            learned = att.learned()
            attack.notes.append(
                f"cards learned {len(learned)}; revealing undos accepted "
                f"{att.reveal_undos_accepted}, refused {att.reveal_undos_refused}; actions "
                f"explored/undone per round {' '.join(rounds)}"
            )
            attack.caught = att.reveal_undos_accepted == 0 and not learned
            yield from play_heuristic(att, Heuristic(att.state, rng, skill=1.0), gap)

        self.add(attack, (10.0, script()))

    def pump(self, key: str, ranked: bool, hour: float) -> None:
        """5. A win with twenty foundation -> column -> foundation cycles (`pumped_line`), in a
        ranked attempt or a casual game; caught when the public profile's best score is the
        game's leaderboard score, not the pumped one."""
        b = self.bench
        attack = Attack(
            key,
            f"pumped best score: 20 foundation cycles in a {'ranked' if ranked else 'casual'} win",
            "profile best_score = leaderboard score",
        )
        account, address = b.account(f"atk{key}_", new=False), self.address()
        browser, rng = browser_id(self.rng), random.Random(self.rng.random())
        code, line = b.code, b.solution
        while not ranked:  # a casual deal the solver wins
            number = self.rng.randrange(engine.MAX_NUMBER)
            code = str(engine.DealCode(b.daily.draw, b.daily.preset, number))
            if (found := solved_line(GameState.from_code(code))) is not None:
                line = found
                break
        pumped, cycles = pumped_line(code, line)
        attack.notes.append(f"{cycles} cycles")
        att = attack.attempts["A"] = b.attempt(account, address, browser, code)

        def script() -> Script:
            if ranked:
                att.start(b.start_path)
            else:
                att.start("/api/v1/games", {"code": code})
            yield from play_line(att, pumped, human(rng, 0.5))

        def judge(attack: Attack) -> None:
            from games.models import Game

            if not att.state.is_won:
                attack.caught = False
                attack.notes.append(f"the game ended {att.state.status}")
                return
            if ranked:
                score = Game.objects.get(pk=att.id).leaderboard_score
            else:
                score = engine.leaderboard_score(code, att.log)
            best = b.profile(account.username).get("stats", {}).get("best_score")
            attack.notes.append(
                f"game score {att.state.score}, leaderboard score {score}, profile best_score "
                f"{best}"
            )
            attack.caught = best == score

        attack.judge = judge
        self.add(attack, (hour, script()))

    def scout_at_move_0(self, own: tuple[list[str], float]) -> None:
        """7. Scout B (a new account, a script: no browser cookie) starts and resigns at move
        0; five minutes later established A, from the same address, wins with a line of its
        own."""
        b = self.bench
        attack = Attack(
            "7", "scout B resigns at move 0, then A wins (same address)", "A flagged", flagged("A")
        )
        attack.notes.append(f"A's own line follows the solver's for {own[1]:.0%}")
        address = self.address()
        main, scout = b.account("atk7a_", new=False), b.account("atk7b_", new=True)
        browser, rng = browser_id(self.rng), random.Random(self.rng.random())

        def play_b() -> Script:
            attack.attempts["B"] = att = b.attempt(scout, address)
            att.start(b.start_path)
            yield 2.0
            att.send(RESIGN)

        def play_a() -> Script:
            attack.attempts["A"] = att = b.attempt(main, address, browser)
            att.start(b.start_path)
            yield from play_line(att, own[0], human(rng))

        self.add(attack, (14.0, play_b()), (14.0 + 5 / 60, play_a()))

    def line_bot(self, attack: Attack, line: list[str], gap_s: float) -> Script:
        """An established account, from an address of its own and with no browser cookie,
        sends `line`, `gap_s` apart."""
        b = self.bench
        account, address = b.account(f"atk{attack.key}_", new=False), self.address()

        def script() -> Script:
            attack.attempts["A"] = att = b.attempt(account, address)
            att.start(b.start_path)
            yield from play_line(att, line, fixed(gap_s))

        return script()

    def heuristic_bot(self, attack: Attack, gap_s: float) -> Script:
        """An established account, from an address of its own and with no browser cookie,
        plays the heuristic at full skill, `gap_s` between actions."""
        b = self.bench
        account, address = b.account(f"atk{attack.key}_", new=False), self.address()
        rng = random.Random(self.rng.random())

        def script() -> Script:
            attack.attempts["A"] = att = b.attempt(account, address)
            att.start(b.start_path)
            yield from play_heuristic(att, Heuristic(att.state, rng, skill=1.0), fixed(gap_s))
            attack.notes.append(f"{len(att.log)} actions, {att.state.status}")

        return script()


# --- the day ------------------------------------------------------------------------------------


def run_day(bench: Bench, scripts: list[tuple[float, str, Script]], clock: Any) -> None:
    """Every script's requests, in simulated time order; a script that meets an unexpected
    answer stops there (noted in `bench.errors`)."""
    events = [(start, n, who, script) for n, (start, who, script) in enumerate(scripts)]
    heapq.heapify(events)
    while events:
        at_s, n, who, script = heapq.heappop(events)
        clock.move_to(bench.midnight + timedelta(seconds=at_s))
        try:
            delay = next(script)
        except StopIteration:
            continue
        except BenchError as exc:
            bench.errors.append(f"{who}: {exc}")
            continue
        heapq.heappush(events, (at_s + delay, n, who, script))


def close_day(bench: Bench, clock: Any) -> set[int]:
    """Close the board just after D+1 01:00; returns the final board's game ids (the entries
    of the board's current generation)."""
    from games.daily.services import closing as daily_closing
    from games.models import LeaderboardEntry

    when = bench.midnight + timedelta(days=1, hours=1, minutes=1)
    clock.move_to(when)
    daily_closing.daily_close(daily_id=bench.daily.pk, now=when)
    bench.daily.refresh_from_db()
    if bench.daily.generation_id is None:
        return set()
    entries = LeaderboardEntry.objects.filter(generation_id=bench.daily.generation_id)
    return set(entries.values_list("game_id", flat=True))


def reason_kinds(reason: str) -> set[str]:
    """A flag reason's parts with their figures and names taken out, to group them."""
    parts = (re.sub(r"\d+(\.\d+)?", "N", part.strip()) for part in reason.split(";"))
    return {re.sub(r"\b(honest|atk\w+_)N\b", "X", part) for part in parts if part}


HONEST_GROUPS: dict[str, Callable[[Honest], bool]] = {
    "own address": lambda h: h.sharing == "own",
    "shared address, playing together": lambda h: h.sharing == "together",
    "shared address, one after the other": lambda h: h.sharing == "in turn",
    "pairs one after the other (honest neighbours)": (
        lambda h: h.sharing == "in turn" and h.group == 2
    ),
    "new accounts": lambda h: h.new,
    "households: 2-3 accounts on one computer, in turn": lambda h: h.sharing == "household",
    f"a school lab: {LAB_SIZE} on one address at once, {LAB_QUITTERS} giving up at 2-5 moves": (
        lambda h: h.sharing == "lab"
    ),
    f"a carrier's NAT: {NAT_SIZE} on one address over the day": lambda h: h.sharing == "nat",
}


def report(
    bench: Bench,
    people: list[Honest],
    attacks: Attacks,
    final: set[int],
    calibration: tuple[float, float],
    seconds: float,
) -> tuple[dict[str, Any], bool]:
    """The figures, and whether every target was met."""
    from games.models import Game

    for attack in attacks.list:
        if attack.judge is not None:
            try:
                attack.judge(attack)
            except BenchError as exc:
                bench.errors.append(f"attack {attack.key}: {exc}")
    played = [(h, h.attempt) for h in people if h.attempt is not None and h.attempt.game]
    rows = {
        row["id"]: row
        for row in Game.objects.filter(pk__in=[a.id for _, a in played]).values(
            "id", "status", "moves", "undos", "flag_reason"
        )
    }
    won = [a for _, a in played if rows[a.id]["status"] == "won"]
    moves = [rows[a.id]["moves"] for _, a in played]
    flagged_ = [h for h, a in played if rows[a.id]["flag_reason"]]
    reasons: Counter[str] = Counter()
    for _, a in played:
        reasons.update(reason_kinds(rows[a.id]["flag_reason"]))
    missing = sum(a.id not in final for _, a in played)
    share = len(flagged_) / len(played) if played else 0.0
    neighbours = HONEST_GROUPS["pairs one after the other (honest neighbours)"]
    by_group = {
        name: {
            "flagged": sum(test(h) for h in flagged_),
            "of": sum(test(h) for h, _ in played),
            "missing_from_final_board": sum(test(h) and a.id not in final for h, a in played),
        }
        for name, test in HONEST_GROUPS.items()
    }
    met = {
        "every attack caught": all(a.caught for a in attacks.list),
        "honest entries flagged ≤ 1 %": share <= FLAG_TARGET,
        "honest entries flagged ≤ 1 % in every group": all(
            g["flagged"] <= FLAG_TARGET * g["of"] for g in by_group.values()
        ),
        "no honest neighbours flagged (case 3)": not any(neighbours(h) for h in flagged_),
        "no honest entry off the final board": missing == 0,
    }
    figures = {
        "day": bench.day.isoformat(),
        "mode": bench.mode,
        "par": bench.daily.par,
        "attacks": [
            {
                "key": a.key,
                "attack": a.title,
                "criterion": a.criterion,
                "caught": bool(a.caught),
                "flags": {role: flag_of(att) for role, att in a.attempts.items() if att.ranked},
                "on_final_board": {
                    role: att.id in final for role, att in a.attempts.items() if att.ranked
                },
                "notes": a.notes,
            }
            for a in attacks.list
        ],
        "honest": {
            "players": len(people),
            "played": len(played),
            "new_accounts": sum(h.new for h, _ in played),
            "won": len(won),
            "win_rate": len(won) / len(played) if played else 0.0,
            "median_moves": statistics.median(moves) if moves else 0,
            "median_moves_won": statistics.median(rows[a.id]["moves"] for a in won) if won else 0,
            "random_deals_win_rate": calibration[0],
            "random_deals_median_moves": calibration[1],
            "gave_up_early": sum(h.give_up_at is not None for h, _ in played),
            "left_open": sum(h.abandon_at is not None for h, _ in played),
            "with_undos": sum(rows[a.id]["undos"] > 0 for _, a in played),
            "undos_refused": sum(a.refused for _, a in played),
            "flagged": len(flagged_),
            "flagged_share": share,
            "flagged_by_group": by_group,
            "flag_reasons": dict(reasons.most_common()),
            "missing_from_final_board": missing,
        },
        "targets_met": met,
        "requests": Attempt.requests,
        "errors": bench.errors,
        "seconds": round(seconds, 1),
    }
    return figures, all(met.values())


def print_report(f: dict[str, Any]) -> None:
    h = f["honest"]
    print(
        f"Integrity bench: {f['mode']} {f['day']} (par {f['par']}), {h['players']} honest "
        f"players and {len(f['attacks'])} attacks\n"
    )
    print("| # | attack | caught? | criterion | flag reasons | on the final board | notes |")
    print("|---|---|---|---|---|---|---|")
    for a in f["attacks"]:
        flags = "; ".join(f"{role}: {reason or '-'}" for role, reason in a["flags"].items())
        board = ", ".join(
            f"{role} {'yes' if on else 'no'}" for role, on in a["on_final_board"].items()
        )
        print(
            f"| {a['key']} | {a['attack']} | {'caught' if a['caught'] else 'NOT CAUGHT'} | "
            f"{a['criterion']} | {flags} | {board or '-'} | {'; '.join(a['notes'])} |"
        )
    rows = [
        ("played", f"{h['played']} of {h['players']} ({h['new_accounts']} new accounts)", ""),
        ("won", f"{h['won']} ({100 * h['win_rate']:.1f} %)", ""),
        ("median moves (won games)", f"{h['median_moves']:.0f} ({h['median_moves_won']:.0f})", ""),
        (
            "the same players on random deals (engine only)",
            f"won {100 * h['random_deals_win_rate']:.1f} %, median moves "
            f"{h['random_deals_median_moves']:.0f}",
            "10-40 % won",
        ),
        ("played with undos / undos refused", f"{h['with_undos']} / {h['undos_refused']}", ""),
        (
            "resigned within 10 moves / left their game open",
            f"{h['gave_up_early']} / {h['left_open']}",
            "",
        ),
        ("entries flagged", f"{h['flagged']} ({100 * h['flagged_share']:.1f} %)", "≤ 1 %"),
        *(
            (
                f"  {name}",
                f"{v['flagged']} of {v['of']}, {v['missing_from_final_board']} off the board",
                "≤ 1 %, 0",
            )
            for name, v in h["flagged_by_group"].items()
        ),
        *((f"  reason: {reason}", str(n), "") for reason, n in h["flag_reasons"].items()),
        ("entries missing from the final board", str(h["missing_from_final_board"]), "0"),
    ]
    print("\n| honest players | figure | target |\n|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    caught = sum(a["caught"] for a in f["attacks"])
    print(f"\nattacks caught: {caught} of {len(f['attacks'])}")
    for name, ok in f["targets_met"].items():
        print(f"target, {name}: {'met' if ok else 'MISSED'}")
    for error in f["errors"]:
        print(f"BENCH ERROR: {error}")
    print(f"{f['requests']} requests, {f['seconds']:.0f} s")


# --- set-up -------------------------------------------------------------------------------------


def django_scratch(var_dir: Path, mode: str, seed: int) -> None:
    """Django set up in this process, embedded mode, migrated into a new SQLite file in
    `var_dir`."""
    for name in ("DATABASE_URL", "DATABASE_MIGRATE_URL", "REDIS_URL", "DAILY_SECRET"):
        os.environ.pop(name, None)
    django_setup_here(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_HTTPS": "0",  # plain HTTP: no redirect to https
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "testserver",
            "KLONDIKE_VAR_DIR": str(var_dir),
            "DAILY_MODES": mode,
            "DAILY_SECRET": hashlib.sha256(f"bench/integrity.py seed {seed}".encode()).hexdigest(),
            "DAILY_SOLVE_BUDGET_S": "2",
            "THROTTLE_MOVES": BENCH_THROTTLE,
            "THROTTLE_GAMES": BENCH_THROTTLE,
            "LOG_LEVEL": "ERROR",
        }
    )
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    # A scratch file: no waiting for the disk at each commit.
    connection.close()
    connection.settings_dict["OPTIONS"]["init_command"] = (
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
    )
    logging.disable(logging.WARNING)  # the 422s of refused undos, the broker's notes
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    call_command("migrate", verbosity=0, interactive=False)


def simulate(args: argparse.Namespace, players: int, t0: float) -> tuple[dict[str, Any], bool]:
    """Play the day, close it, and judge it (Django is set up already); `t0`: when the run
    started (`time.perf_counter`)."""
    import time_machine

    from games import tasks

    traveller = time_machine.travel(
        datetime(args.day.year, args.day.month, args.day.day, tzinfo=UTC), tick=False
    )
    clock = traveller.start()
    with contextlib.ExitStack() as stack:
        stack.callback(traveller.stop)
        stack.enter_context(mock.patch.object(tasks, "analysis_queue", lambda game_id: None))
        rng = random.Random(args.seed)
        bench = Bench(args.day, args.mode, rng)
        people = population(players, rng)
        if not args.no_crowds:  # from a generator of their own: the population stays the same
            addresses = len({h.address for h in people})
            people += crowds(len(people), addresses, random.Random(args.seed + 2))
        for h in people:
            h.account = bench.account("honest", new=h.new)
        attacks = Attacks(bench)
        attacks.build()
        scripts = [(h.start_s, f"honest {h.n}", honest_script(bench, h)) for h in people]
        scripts += [(start, "attack", script) for start, script in attacks.scripts]
        run_day(bench, scripts, clock)
        final = close_day(bench, clock)
        calibration = calibrate(people, args.mode, random.Random(args.seed + 1))
        return report(bench, people, attacks, final, calibration, time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--players", type=int, default=320, help="honest players (default 320)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 40 honest players")
    ap.add_argument(
        "--no-crowds",
        action="store_true",
        help="leave out the households, the school lab and the carrier's NAT",
    )
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--mode", default="D1N", type=str.upper)
    ap.add_argument("--day", type=date.fromisoformat, default=DEFAULT_DAY)
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON (- for stdout)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = ap.parse_args()
    t0 = time.perf_counter()
    var_dir = Path(tempfile.mkdtemp(prefix="klondike-integrity-"))
    try:
        django_scratch(var_dir, args.mode, args.seed)
        figures, met = simulate(args, 40 if args.quick else args.players, t0)
    finally:
        if args.keep:
            print(f"scratch database kept in {var_dir}", file=sys.stderr)
        else:
            shutil.rmtree(var_dir, ignore_errors=True)
    print_report(figures)
    if args.json:
        text = json.dumps(figures, indent=2, ensure_ascii=False)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    if figures["errors"]:
        return 2
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
