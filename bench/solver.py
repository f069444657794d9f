"""Solver benchmark: shares solved / proven unwinnable / unknown and solve times.

Run (under the shared lock, so that benchmarks never overlap):
     flock /tmp/klondike-bench.lock .venv/bin/python bench/solver.py [--from 0] [--to 999]
         [--modes D1N,D3N] [--budgets 1,10] [--jobs 2 | --workers 2] [--hints 50]
     .venv/bin/python bench/solver.py --hints 50 --modes ""   (hint latency only)
     .venv/bin/python bench/solver.py --speed 40000           (positions per second only)
     flock /tmp/klondike-bench.lock .venv/bin/python bench/solver.py --from 0 --to 199 \
         --modes D1V,D1C,D3V,D3C --budgets 10 --jobs 1 --cpu   (any preset; CPU-time budgets)
     ... --modes D1N,D3N --oracle ../shared/data/solvitaire-verdicts.csv  (against Solvitaire)

Deal numbers FROM..TO inclusive; one process per core (``--jobs``), or one deal at a time
with ``--workers`` processes each. For every mode and budget it prints
one table row (shares, median and p95 time per deal and on solved deals) and the 95 %
confidence interval of the solved share for the sample size, next to the literature figure,
then the deal numbers left unknown. ``--hints N`` adds the hint latency (one process).
``--cpu``: budgets and times in CPU seconds of the solving process instead of wall time, so
that a machine shared with other work does not eat the budget (one process per deal: with
``--workers`` the helper's CPU would not count; ``--jobs 1``).
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import DealCode, GameState
from games.engine.solver import (
    SUMMARY_HEADER,
    BatchRow,
    batch,
    format_summary,
    hint,
    native,
    solve,
    summarize,
)

LITERATURE = {
    1: (0.90, "≈ 90 % (draw 1, unlimited passes)"),
    3: (0.81945, "81.945 % ± 0.084 % (Blake & Gent, draw 3, unlimited passes)"),
}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a share k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def bench_hints(per_mode: int, seed: int = 7) -> None:
    """hint() latency at the default budget: for deals 0..per_mode-1 in D1N and D3N, the
    position after 0-29 random legal actions (seeded). Then, from each position with a solver
    hint, the next 20 hints of a player who follows them (each given the last hint's line)."""
    rng = random.Random(seed)
    times: list[float] = []
    follow: list[float] = []
    sources: dict[str, int] = {}
    for mode in ("D1N", "D3N"):
        for n in range(per_mode):
            g = GameState.from_code(DealCode(int(mode[1]), mode[2], n))
            for _ in range(rng.randrange(0, 30)):
                legal = g.legal_moves()
                if not legal:
                    break
                g.apply(rng.choice(legal))
            t = time.perf_counter()
            h = hint(g)
            times.append(time.perf_counter() - t)
            assert h.action is None or h.action in g.legal_moves()
            sources[h.source] = sources.get(h.source, 0) + 1
            for _ in range(20):
                if h.source != "solver" or h.action is None or g.is_over:
                    break
                g.apply(h.action)
                t = time.perf_counter()
                h = hint(g, line=h.line)
                follow.append(time.perf_counter() - t)
                assert g.is_over or h.source == "solver", "a followed line lost its way"
    for label, xs in (("hints", times), ("following hints", follow)):
        xs.sort()
        p95 = xs[round(0.95 * (len(xs) - 1))]
        print(
            f"{label}: {len(xs)} positions, median {statistics.median(xs):.4f} s, "
            f"p95 {p95:.4f} s, max {xs[-1]:.4f} s" + (f", sources {sources}" if xs is times else "")
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--from", dest="lo", type=int, default=0)
    ap.add_argument("--to", dest="hi", type=int, default=999)
    ap.add_argument("--deals", help="these deal numbers (comma-separated) instead of --from..--to")
    ap.add_argument("--modes", default="D1N,D3N")
    ap.add_argument("--budgets", default="1,10")
    ap.add_argument("--jobs", type=int, default=None, help="deals at a time (default: cores)")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes per deal; more than 1 runs one deal at a time (solve(workers=N))",
    )
    ap.add_argument("--hints", type=int, default=0, help="measure hint() on N deals per mode")
    ap.add_argument(
        "--speed",
        metavar="POSITIONS",
        type=int,
        default=0,
        help="search speed only: CPU time per deal to search POSITIONS positions (D3N, "
        "--speed-deals, best of 3, one process); the same positions on any machine",
    )
    ap.add_argument("--speed-deals", default="1,43,104,137")
    ap.add_argument(
        "--oracle",
        metavar="CSV",
        help="another solver's verdicts (code,verdict,...) to check ours against",
    )
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="budgets and times in CPU seconds of the solving process (a busy machine)",
    )
    args = ap.parse_args()
    print(f"solver: {'compiled (mypyc)' if native.is_native() else 'pure Python'}")
    if args.cpu:
        if args.workers > 1 or (args.jobs or 1) > 1:
            ap.error("--cpu times one process: no --workers, --jobs 1")
        args.jobs = 1
        # The solver reads its clock through time.perf_counter (budget and elapsed times).
        time.perf_counter = time.process_time
    if args.speed:
        bench_speed(args.speed, [int(x) for x in args.speed_deals.split(",")])
        return
    modes = [m for m in args.modes.split(",") if m]
    if modes:
        batches(args, modes)
    if args.hints:
        bench_hints(args.hints)


def bench_speed(positions: int, deals: list[int]) -> None:
    """The searches' speed, free of the budget's luck: a node budget fixes what is searched
    (the schedule divides nodes as it divides time), so only the time per position varies."""
    total = 0.0
    cells = []
    for n in deals:
        g = GameState.from_code(DealCode(3, "N", n))
        best = math.inf
        for _ in range(3):
            t = time.process_time()
            v = solve(g, budget_s=3600, max_nodes=positions)
            best = min(best, time.process_time() - t)
        total += best
        cells.append(f"{n}: {v.verdict} {v.nodes} positions {best:.2f} s")
    print("; ".join(cells))
    print(f"total {total:.2f} s CPU, {len(deals) * positions / total:.0f} positions/s")


def against_oracle(path: str, draw: int, preset: str, rows: list[BatchRow]) -> str:
    """Our verdicts against another solver's (a CSV of ``code,verdict,...`` with verdicts
    ``winnable`` / ``unwinnable`` / anything else for undecided): the contradictions (a bug
    in one of the two) and the deals it decides that we leave unknown."""
    with open(path, newline="") as f:
        theirs = {r["code"]: r["verdict"] for r in csv.DictReader(f)}
    wrong, missed, compared = [], [], 0
    for r in rows:
        v = theirs.get(str(DealCode(draw, preset, r.number)))
        if v not in ("winnable", "unwinnable"):
            continue
        compared += 1
        ours = {"solved": "winnable", "unwinnable": "unwinnable"}.get(r.verdict)
        if ours is None:
            missed.append(r.number)
        elif ours != v:
            wrong.append(r.number)
    return (
        f"oracle: {compared} deals compared, contradictions: {' '.join(map(str, wrong)) or 'none'}"
        f"; decided there, unknown here: {' '.join(map(str, missed)) or '-'}"
    )


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (pool workers, helpers)."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def batches(args: argparse.Namespace, modes: list[str]) -> None:
    """One table row per mode and budget, then the notes (intervals, unknown deals)."""
    print(SUMMARY_HEADER)
    notes = []
    if args.deals:
        numbers: Sequence[int] = [int(x) for x in args.deals.split(",")]
        span = f"{len(numbers)} deals"
    else:
        numbers, span = range(args.lo, args.hi + 1), f"{args.lo}-{args.hi}"
    for mode in modes:
        draw, preset = int(mode[1]), mode[2]
        for b in (float(x) for x in args.budgets.split(",")):
            t0 = time.perf_counter()
            cpu0 = cpu_seconds()
            rows = batch(
                numbers,
                draw=draw,
                preset=preset,
                budget_s=b,
                jobs=args.jobs,
                workers=args.workers,
            )
            cpu = cpu_seconds() - cpu0
            s = summarize(rows)
            print(format_summary(f"{mode} {span} @{b:g}s", s), flush=True)
            n = len(rows)
            k = sum(r.verdict == "solved" for r in rows)
            u = sum(r.verdict == "unknown" for r in rows)
            lo, hi = wilson(k, n)
            lit = LITERATURE.get(draw) if preset in "NR" else None
            note = (
                f"{mode} @{b:g}s: solved {k}/{n} = {100 * k / n:.1f} % "
                f"(95 % CI {100 * lo:.1f}-{100 * hi:.1f} %); {u} unknown; "
                f"wall {time.perf_counter() - t0:.0f} s, CPU {cpu:.0f} s"
            )
            if lit:
                p = lit[0]
                h = 1.96 * math.sqrt(p * (1 - p) / n)
                note += (
                    f"; literature {lit[1]}: expected "
                    f"{100 * (p - h):.1f}-{100 * (p + h):.1f} % for {n} deals"
                )
            notes.append(note)
            unknown = [r.number for r in rows if r.verdict == "unknown"]
            notes.append(f"  unknown: {' '.join(map(str, unknown)) or '-'}")
            if args.oracle:
                notes.append("  " + against_oracle(args.oracle, draw, preset, rows))
    print()
    for x in notes:
        print(x)


if __name__ == "__main__":
    main()
