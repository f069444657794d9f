"""Par benchmark (issue #39): how often a simple greedy player wins a daily deal in fewer
moves than its par, with par the solver's first line (before) and the shortest line found
(after: ``games.engine.solver.shorten``, as the daily publishes it). Target: 0 %.

Run (one process; under the shared lock, so that benchmarks never overlap):
     flock /tmp/klondike-bench.lock .venv/bin/python bench/par.py [--deals 200]
         [--modes D1N,D3N] [--seeds 3] [--budget 5] [--cpu] [--first 2027-01-01]

Per mode, ``--deals`` consecutive days from ``--first``, each day's deal chosen as the daily
chooses it (``games.daily.services.deals``): the first candidate is
``daily_first_candidate`` under a fixed bench secret, and the next number is tried until the
solver proves one winnable within ``--budget`` seconds (``DAILY_SOLVE_BUDGET_S``). So every
deal counted is proven winnable, and the set is the same on every run. The greedy player is
the honest player of bench/integrity_player.py at full skill (no mistakes, no undos, it
resigns when stuck), its ties broken at random: ``--seeds`` games a deal, seeds 0, 1, ...;
a deal counts as beaten when one of them wins in fewer moves than par. Printed per mode:
deals, median par before and after, the deals some seed wins and their median moves, the
share of deals beaten before and after, and what shortening cost a deal (median and max, in
seconds; CPU seconds of this process with ``--cpu``, which also makes the solver's budget CPU
time so that a busy machine does not change the deals).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import django_setup_here
from bench.integrity_player import play_offline
from games.engine import MAX_NUMBER, DealCode, GameState, PlainAction
from games.engine.solver import Solved, native, replay_wins, shorten, solve

SECRET = hashlib.sha256(b"bench/par.py").hexdigest()


def daily_deal(day: date, mode: str, budget: float) -> tuple[str, list[PlainAction]]:
    """The day's deal in ``mode`` as the daily picks it, and the solver's winning line."""
    from games.daily.services.deals import MAX_CANDIDATES, daily_first_candidate

    number = daily_first_candidate(day=day, mode=mode)
    for _ in range(MAX_CANDIDATES):
        code = str(DealCode(int(mode[1]), mode[2], number))
        verdict = solve(GameState.from_code(code), budget_s=budget)
        if isinstance(verdict, Solved):
            return code, verdict.actions
        number = (number + 1) % (MAX_NUMBER + 1)
    raise RuntimeError(f"no winnable deal for {day} {mode}")


def greedy_best(code: str, seeds: int) -> int | None:
    """The fewest moves in which the greedy player wins ``code`` over ``seeds`` seeds, or
    None when no seed wins."""
    wins = []
    for seed in range(seeds):
        status, actions, _ = play_offline(code, random.Random(seed), skill=1.0)
        if status == "won":
            wins.append(actions)
    return min(wins) if wins else None


def bench_mode(mode: str, args: argparse.Namespace) -> str:
    """The mode's table row."""
    before: list[int] = []
    after: list[int] = []
    costs: list[float] = []
    greedy: list[int] = []
    beaten_before = beaten_after = 0
    for i in range(args.deals):
        code, line = daily_deal(args.first + timedelta(days=i), mode, args.budget)
        state = GameState.from_code(code)
        started = time.perf_counter()
        short = shorten(state, line)
        costs.append(time.perf_counter() - started)
        if not replay_wins(state, short) or len(short) > len(line):
            raise RuntimeError(f"{code}: the shortened line does not win, or is longer")
        before.append(len(line))
        after.append(len(short))
        best = greedy_best(code, args.seeds)
        if best is not None:
            greedy.append(best)
            beaten_before += best < len(line)
            beaten_after += best < len(short)
    n = len(after)
    return (
        f"| {mode} | {n} | {statistics.median(before):g} | {statistics.median(after):g} | "
        f"{len(greedy)} ({statistics.median(greedy) if greedy else 0:g} moves) | "
        f"{beaten_before} ({100 * beaten_before / n:.1f} %) | "
        f"{beaten_after} ({100 * beaten_after / n:.1f} %) | "
        f"{statistics.median(costs):.2f} / {max(costs):.2f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=200, help="days (deals) per mode")
    ap.add_argument("--modes", default="D1N,D3N")
    ap.add_argument("--seeds", type=int, default=3, help="greedy games per deal")
    ap.add_argument("--budget", type=float, default=5.0, help="solver seconds per candidate")
    ap.add_argument("--first", type=date.fromisoformat, default=date(2027, 1, 1))
    ap.add_argument("--cpu", action="store_true", help="budgets and times in CPU seconds")
    args = ap.parse_args()
    if args.cpu:
        time.perf_counter = time.process_time  # the solver's clock (see bench/solver.py)
    # Django only for the daily's choice of deals (its settings; no database is opened).
    for name in ("DATABASE_URL", "DATABASE_MIGRATE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    django_setup_here(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_HTTPS": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "KLONDIKE_VAR_DIR": tempfile.mkdtemp(prefix="klondike-bench-par-"),
            "DAILY_SECRET": SECRET,
            "LOG_LEVEL": "ERROR",
        }
    )
    print(
        f"{args.deals} days from {args.first} per mode, greedy seeds 0-{args.seeds - 1}, "
        f"solver {args.budget:g} s{' CPU' if args.cpu else ''} a candidate, "
        f"compiled solver: {native.is_native()}"
    )
    print(
        "| mode | deals | par before (median) | par after (median) | greedy wins | "
        "greedy under par, before | greedy under par, after (0 %) | shortening: median / max |"
    )
    print("|---|---|---|---|---|---|---|---|")
    started = time.monotonic()
    for mode in args.modes.split(","):
        print(bench_mode(mode, args), flush=True)
    print(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
