"""Hint benchmark: a player who follows the hints from the deal, per preset (issue #22).

Run (under the shared lock, so that benchmarks never overlap):
     flock /tmp/klondike-bench.lock .venv/bin/python bench/hint_follow.py [--deals 50]
         [--modes D1N,D3N,D1V,D3V,D1C,D3C,D1R,D3R] [--budget 0.5] [--prove 2] [--cpu]

For each mode, deals from 0 up (to ``--last``) are solved with ``--prove`` seconds until
``--deals`` of them are proven winnable (a ``Solved`` verdict is a proof at any budget).
From the start of each, the player asks for a hint with the server's budget (``--budget``, as
``games.hints.HINT_BUDGET_S``), plays it and asks again, passing the last hint's line as the
server does, until the game is
won or the hints run out. Printed per mode: games won, hints asked, the share that came from a
winning line (``source == "solver"``), the first hint's share, and the latency of all hints and
of first hints (median, p95, max). ``--cpu``: budgets and times in CPU seconds (a busy machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Deal, GameState, PlainAction, Rules
from games.engine.solver import Solved, hint, solve

MODES = "D1N,D3N,D1V,D3V,D1C,D3C,D1R,D3R"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def follow(g: GameState, budget: float) -> tuple[bool, list[tuple[float, str]]]:
    """Play the hints from ``g``: (won, [(latency, source) of each hint])."""
    calls: list[tuple[float, str]] = []
    line: tuple[PlainAction, ...] = ()
    for _ in range(1000):
        if g.is_over:
            break
        t = time.perf_counter()
        h = hint(g, budget_s=budget, line=line)
        calls.append((time.perf_counter() - t, h.source))
        if h.action is None:
            break
        g.apply(h.action)
        line = h.line
    return g.is_won, calls


def bench_mode(mode: str, deals: int, budget: float, prove: float, last: int) -> str:
    rules = Rules.from_preset(int(mode[1]), mode[2])
    won = tried = n = 0
    lat: list[float] = []
    first: list[float] = []
    solver_hints = first_solver = 0
    while tried < deals and n <= last:
        g = GameState.new(Deal.from_number(n), rules)
        n += 1
        if not isinstance(solve(g, budget_s=prove), Solved):
            continue
        tried += 1
        ok, calls = follow(g, budget)
        won += ok
        lat.extend(t for t, _ in calls)
        first.append(calls[0][0])
        solver_hints += sum(src == "solver" for _, src in calls)
        first_solver += calls[0][1] == "solver"
    if not tried:
        return f"| {mode} | none proven winnable in deals 0-{n - 1} |"
    return (
        f"| {mode} | {tried} (of deals 0-{n - 1}) | {won} | {len(lat)} | "
        f"{100 * solver_hints / len(lat):.1f} % | {100 * first_solver / tried:.0f} % | "
        f"{statistics.median(lat):.4f} / {pct(lat, 0.95):.3f} / {max(lat):.2f} s | "
        f"{statistics.median(first):.3f} / {pct(first, 0.95):.2f} / {max(first):.2f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=50, help="proven-winnable deals per mode")
    ap.add_argument("--modes", default=MODES)
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per hint search")
    ap.add_argument("--prove", type=float, default=2.0, help="seconds to prove a deal winnable")
    ap.add_argument("--last", type=int, default=199, help="the last deal number tried")
    ap.add_argument("--cpu", action="store_true", help="budgets and times in CPU seconds")
    args = ap.parse_args()
    if args.cpu:
        time.perf_counter = time.process_time  # the solver's clock (see bench/solver.py)
    print(
        "| mode | deals | won | hints | from a winning line | first hint from one | "
        "latency median / p95 / max | first hint median / p95 / max |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for mode in args.modes.split(","):
        print(bench_mode(mode, args.deals, args.budget, args.prove, args.last), flush=True)


if __name__ == "__main__":
    main()
