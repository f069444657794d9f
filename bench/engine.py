"""Engine benchmark: apply throughput, legal_moves() speed, and 300-action replay time.

Run: .venv/bin/python bench/engine.py [--games 200]

Logs come from random legal play with a fixed seed (draws, recycles, undos included), so
the figures are comparable between runs and machines.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import (
    UNDO,
    Action,
    Auto,
    DealCode,
    GameState,
    Move,
    format_action,
    replay,
)

LOG_LENGTH = 300


def random_log(code: DealCode, rng: random.Random) -> list[Action]:
    """A log of LOG_LENGTH player actions by random legal play (automatic ones included)."""
    g = GameState.from_code(code)
    log: list[Action] = []
    while len(log) < LOG_LENGTH and not g.is_over:
        legal = g.legal_moves()
        if g.can_undo and (not legal or rng.random() < 0.05):
            a: Action = UNDO
        elif not legal:
            break
        else:
            found = [m for m in legal if isinstance(m, Move) and m.dst.startswith("f")]
            a = rng.choice(found) if found and rng.random() < 0.7 else rng.choice(legal)
        rec = g.apply(a)
        log.append(rec.action)
        log.extend(x.action for x in rec.auto)
    return log


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    modes = [(d, p) for d in (1, 3) for p in "NVCR"]
    games: list[tuple[DealCode, list[Action]]] = []
    while len(games) < args.games:
        d, p = modes[len(games) % len(modes)]
        code = DealCode(d, p, rng.randrange(26**7))
        log = random_log(code, rng)
        if len(log) >= LOG_LENGTH or p in "VC":
            games.append((code, log))
    lengths = [len(log) for _, log in games]
    kinds: dict[str, int] = {}
    for _, log in games:
        for a in log:
            kinds[type(a).__name__] = kinds.get(type(a).__name__, 0) + 1
    print(
        f"{len(games)} logs, {statistics.mean(lengths):.0f} actions on average "
        f"({sum(n >= LOG_LENGTH for n in lengths)} reach {LOG_LENGTH}); "
        + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    )

    # Applies per second: the apply loop alone on pre-built actions.
    total, t_apply = 0, 0.0
    for code, log in games:
        g = GameState.new(code.deal, code.rules)
        apply = g.apply
        t0 = time.perf_counter()
        for a in log:
            if not isinstance(a, Auto):
                apply(a)
        t_apply += time.perf_counter() - t0
        total += len(log)
    print(
        f"apply:         {total / t_apply:>12,.0f} actions/s  "
        f"({t_apply / total * 1e6:.2f} µs per action)"
    )

    # legal_moves() on every position of the logs.
    states: list[GameState] = []
    for code, log in games[:50]:
        g = GameState.new(code.deal, code.rules)
        for a in log:
            if g.is_over:
                break
            if not isinstance(a, Auto):
                states.append(g.copy())
                g.apply(a)
    per_call = []
    for s in states:
        lm = s.legal_moves
        t0 = time.perf_counter()
        for _ in range(20):
            lm()
        per_call.append((time.perf_counter() - t0) / 20)
    print(
        f"legal_moves(): {1 / statistics.mean(per_call):>12,.0f} calls/s    "
        f"(median {statistics.median(per_call) * 1e6:.2f} µs over {len(states)} positions)"
    )

    # A whole 300-action game through replay() (deal from its code, every action checked).
    full = [(c, log) for c, log in games if len(log) >= LOG_LENGTH]
    times = []
    for _ in range(5):
        for code, log in full:
            t0 = time.perf_counter()
            replay(code, log)
            times.append(time.perf_counter() - t0)
    print(
        f"replay:        median {statistics.median(times) * 1e3:.3f} ms per "
        f"{LOG_LENGTH}-action game (replay(code, log), {len(times)} runs)"
    )
    texts = []
    for code, log in full[:50]:
        lines = [format_action(a) for a in log]
        t0 = time.perf_counter()
        replay(str(code), lines)
        texts.append(time.perf_counter() - t0)
    print(
        f"replay text:   median {statistics.median(texts) * 1e3:.3f} ms per game "
        "(parsing the notation lines too)"
    )


if __name__ == "__main__":
    main()
