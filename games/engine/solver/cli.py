"""The solver's command line (``python -m games.engine solve``) and its batch runner."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..codes import DealCode
from ..deal import Deal
from ..notation import format_action
from ..rules import Rules
from ..state import GameState
from . import __doc__ as _PACKAGE_DOC
from .schedule import solve
from .verdicts import Solved, SolverError, Unwinnable, replay_wins


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One deal of a batch run."""

    number: int
    verdict: str
    elapsed_s: float
    nodes: int
    length: int


def _batch_one(job: tuple[int, int, str, float, int]) -> BatchRow:
    number, draw, preset, budget, workers = job
    g = GameState.new(Deal.from_number(number), Rules.from_preset(draw, preset))
    t0 = time.perf_counter()
    v = solve(g, budget_s=budget, workers=workers)
    dt = time.perf_counter() - t0
    n = len(v.actions) if isinstance(v, Solved) else 0
    if isinstance(v, Solved) and not replay_wins(g, v.actions):
        raise SolverError(f"deal {number}: the solution does not replay to a win")
    return BatchRow(number, v.verdict, dt, v.nodes, n)


def batch(
    numbers: Iterable[int],
    *,
    draw: int,
    preset: str,
    budget_s: float,
    jobs: int | None = None,
    workers: int = 1,
) -> list[BatchRow]:
    """Solve many deals, rows in deal order: ``jobs`` deals at a time, one process each (by
    default one per core), or with ``workers`` > 1 one deal at a time, each with up to
    ``workers`` processes (see :func:`solve`)."""
    work = [(n, draw, preset, budget_s, workers) for n in numbers]
    jobs = 1 if workers > 1 else jobs or os.cpu_count() or 1
    if jobs <= 1:
        return [_batch_one(w) for w in work]
    import multiprocessing

    with multiprocessing.Pool(jobs) as pool:
        rows = list(pool.imap_unordered(_batch_one, work, chunksize=1))
    rows.sort(key=lambda r: r.number)
    return rows


def _pct(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summarize(rows: Sequence[BatchRow]) -> dict[str, float]:
    """Shares and time percentiles of a batch."""
    n = len(rows) or 1
    times = [r.elapsed_s for r in rows]
    won = [r.elapsed_s for r in rows if r.verdict == "solved"]
    return {
        "deals": len(rows),
        "solved": sum(r.verdict == "solved" for r in rows) / n,
        "unwinnable": sum(r.verdict == "unwinnable" for r in rows) / n,
        "unknown": sum(r.verdict == "unknown" for r in rows) / n,
        "median_s": statistics.median(times) if times else float("nan"),
        "p95_s": _pct(times, 0.95),
        "median_won_s": statistics.median(won) if won else float("nan"),
        "p95_won_s": _pct(won, 0.95),
    }


def format_summary(label: str, s: Mapping[str, float]) -> str:
    """One table row: label, deals, shares, median and p95 times."""
    return (
        f"| {label} | {int(s['deals'])} | {100 * s['solved']:.1f} % | "
        f"{100 * s['unwinnable']:.1f} % | {100 * s['unknown']:.1f} % | "
        f"{s['median_s']:.3f} s | {s['p95_s']:.2f} s | {s['median_won_s']:.3f} s | "
        f"{s['p95_won_s']:.2f} s |"
    )


SUMMARY_HEADER = (
    "| run | deals | solved | unwinnable | unknown | median | p95 | median (won) | p95 (won) |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main_solve(argv: list[str]) -> int:
    """``solve CODE [--budget S] [--moves] [--workers N]`` or
    ``solve --batch FROM TO --preset N --draw 1 [--budget S] [--jobs N] [--workers N]``.

    Returns the exit status (0 done, 2 bad arguments).
    """
    if argv and argv[0] == "solve":
        argv = argv[1:]
    ap = argparse.ArgumentParser(prog="python -m games.engine solve", description=_PACKAGE_DOC)
    ap.add_argument("code", nargs="?", help="a deal code, e.g. KL1-D1N-AAAAAAG")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per deal")
    ap.add_argument("--moves", action="store_true", help="print the winning line")
    ap.add_argument("--batch", nargs=2, type=int, metavar=("FROM", "TO"))
    ap.add_argument("--preset", default="N")
    ap.add_argument("--draw", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="deals at a time (default: cores)")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes per deal (default: 2 for one code, 1 in a batch; a batch with more "
        "runs one deal at a time)",
    )
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    if args.batch:
        a, b = args.batch
        try:
            Rules.from_preset(args.draw, args.preset)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        rows = batch(
            range(a, b + 1),
            draw=args.draw,
            preset=args.preset.upper(),
            budget_s=args.budget,
            jobs=args.jobs,
            workers=args.workers or 1,
        )
        label = f"D{args.draw}{args.preset.upper()} {a}-{b} @{args.budget:g}s"
        print(SUMMARY_HEADER)
        print(format_summary(label, summarize(rows)))
        print(f"wall time {time.perf_counter() - t0:.1f} s")
        return 0
    if not args.code:
        print("error: give a deal code or --batch FROM TO", file=sys.stderr)
        return 2
    try:
        code = DealCode.parse(args.code)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    g = GameState.from_code(code)
    v = solve(g, budget_s=args.budget, workers=args.workers or min(2, os.cpu_count() or 1))
    if isinstance(v, Solved):
        summary = f"{code}: solved, {len(v.actions)} actions, {v.nodes} nodes, {v.elapsed_s:.2f} s"
        if args.moves:  # a replay text: the summary as a comment, then one action a line
            print(f"# {summary}")
            print("\n".join(format_action(x) for x in v.actions))
        else:
            print(summary)
    elif isinstance(v, Unwinnable):
        print(f"{code}: unwinnable (proven), {v.nodes} nodes, {v.elapsed_s:.2f} s")
    else:
        print(
            f"{code}: unknown (budget {args.budget:g} s ran out), {v.nodes} nodes, "
            f"{v.elapsed_s:.2f} s"
        )
    return 0
