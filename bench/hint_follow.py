"""Hint benchmark: a player who follows the hints from the deal, per preset (issue #22).

Run (under the shared lock, so that benchmarks never overlap):
     flock /tmp/klondike-bench.lock .venv/bin/python bench/hint_follow.py [--deals 50]
         [--modes D1N,D3N,D1V,D3V,D1C,D3C,D1R,D3R] [--budget 0.5] [--prove 2] [--cpu]
         [--background 10] [--last 199] [--prove-nodes N] [--list]

For each mode, deals from 0 up (to ``--last``) are solved with ``--prove`` seconds until
``--deals`` of them are proven winnable (a ``Solved`` verdict is a proof at any budget).
From the start of each, the player asks for a hint with the server's budget (``--budget``, as
``games.hints.HINT_BUDGET_S``), plays it and asks again, passing the last hint's line as the
server does, until the game is won or the hints run out: once with no line to start from (a
game dealt by its code); once the same, but where the hint's search ran out of time the player
waits, as the page does while it says "still looking", for the server's background search of
the position (``--background`` seconds) and asks again; once with the proof as the first kept
line (a game dealt "winnable only": the pool keeps each deal's proof for its hints). Then
single hints with no kept line
from the positions a quarter, half and three quarters along each proof (winnable positions: a
player who left the line). Printed per mode and row: games won, hints asked, the share that
came from a winning line (``source == "solver"``), the hints' latency (median, p95, max),
the waits for a background search (how many, median and longest), and, for the games from the
deal, how often the first hint was a draw (or recycle) while a visible move (a card to a
foundation, the waste's card played, a column card moved onto another column) also kept the
deal winnable: proven by a search of ``--prove`` seconds after that move (issue #39).
``--cpu``: budgets and times in CPU seconds (a busy machine). ``--list``: only each mode's
proven deal numbers; with ``--prove 600 --prove-nodes 5000`` (a bound in positions, the same
search on any machine), the lists of tests/games/engine/test_solver_hints.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import DRAW, RECYCLE, Deal, GameState, Move, PlainAction, Rules
from games.engine.solver import Solved, hint, solve
from games.engine.solver.hints import NO_LINE_YET

MODES = "D1N,D3N,D1V,D3V,D1C,D3C,D1R,D3R"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def follow(
    g: GameState,
    budget: float,
    line: tuple[PlainAction, ...] = (),
    background: float = 0.0,
    waits: list[float] | None = None,
    firsts: list[tuple[GameState, PlainAction | None]] | None = None,
) -> tuple[bool, list[tuple[float, str]]]:
    """Play the hints from ``g``, the first given ``line`` as its kept line: (won,
    [(latency, source) of each hint]). ``firsts`` gets the start and the first hint's action.

    ``background`` > 0: a hint whose search ran out of time (the page's "still looking") is
    waited for, as the page asks again: the server's background search of the position
    (``background`` seconds, ``settings.HINT_BACKGROUND_BUDGET_S``) runs, and when it finds a
    line the hint is asked again there and follows it. Both answers count as hints; each
    wait's seconds go to ``waits``."""
    calls: list[tuple[float, str]] = []
    for _ in range(1000):
        if g.is_over:
            break
        t = time.perf_counter()
        h = hint(g, budget_s=budget, line=line)
        calls.append((time.perf_counter() - t, h.source))
        if firsts is not None and not calls[1:]:
            firsts.append((g.copy(), h.action))
        if background and h.source != "solver" and NO_LINE_YET in h.reason:
            t = time.perf_counter()
            found = hint(g, budget_s=background)
            if waits is not None:
                waits.append(time.perf_counter() - t)
            if found.line:
                t = time.perf_counter()
                h = hint(g, budget_s=budget, line=found.line)  # the kept line: no search
                calls.append((time.perf_counter() - t, h.source))
        if h.action is None:
            break
        g.apply(h.action)
        line = h.line
    return g.is_won, calls


def proven_deals(
    mode: str, deals: int, prove: float, last: int, nodes: int | None = None
) -> list[tuple[int, Solved]]:
    """The first ``deals`` deals (numbers 0 up to ``last``) that the solver proves winnable
    under ``mode`` within ``prove`` seconds and ``nodes`` positions each (a ``Solved``
    verdict is a proof), with their proofs."""
    rules = Rules.from_preset(int(mode[1]), mode[2])
    out: list[tuple[int, Solved]] = []
    for n in range(last + 1):
        if len(out) == deals:
            break
        v = solve(GameState.new(Deal.from_number(n), rules), budget_s=prove, max_nodes=nodes)
        if isinstance(v, Solved):
            out.append((n, v))
    return out


def draw_though_a_visible_move_wins(g: GameState, action: PlainAction | None, prove: float) -> bool:
    """Is ``action`` a draw or recycle while a visible move of ``g`` (tableau to foundation,
    waste to foundation or tableau, tableau to tableau) keeps the deal winnable (``prove``
    seconds of search after it find a win)?"""
    if action not in (DRAW, RECYCLE):
        return False
    for m in g.legal_moves():
        if isinstance(m, Move) and m.src[0] in "wt" and m.dst[0] in "ft":
            after = g.copy()
            after.apply(m)
            if isinstance(solve(after, budget_s=prove), Solved):
                return True
    return False


NO_LINE = "from the deal, no kept line"
WAITING = "from the deal, no kept line, waiting for the background search"
PROOF_KEPT = "from the deal, the proof kept"


def bench_mode(
    mode: str, deals: int, budget: float, prove: float, last: int, background: float
) -> list[str]:
    """The mode's four table rows: hints followed from the start with no kept line (a game
    dealt by code), the same waiting for the background search where the page says "still
    looking" (``follow``), with the proof as the kept line (a game dealt "winnable only", as
    ``games.services.game_start_winnable`` does), and single hints with no kept line at a
    quarter, half and three quarters of the proof (winnable positions, the hint of a player
    who left the line)."""
    rules = Rules.from_preset(int(mode[1]), mode[2])
    proven = proven_deals(mode, deals, prove, last)
    if not proven:
        return [f"| {mode} | none proven winnable in deals 0-{last} |"]
    sample = f"{len(proven)} (of deals 0-{proven[-1][0]})"
    rows = []
    for how in (NO_LINE, WAITING, PROOF_KEPT):
        won = 0
        calls: list[tuple[float, str]] = []
        waits: list[float] = []
        firsts: list[tuple[GameState, PlainAction | None]] = []
        for n, proof in proven:
            kept = tuple(proof.actions) if how == PROOF_KEPT else ()
            wait = background if how == WAITING else 0.0
            deal = GameState.new(Deal.from_number(n), rules)
            ok, c = follow(deal, budget, kept, wait, waits, firsts)
            won += ok
            calls.extend(c)
        drawn = sum(draw_though_a_visible_move_wins(g, a, prove) for g, a in firsts)
        first = f"{drawn} of {len(firsts)}" if how != WAITING else "-"
        rows.append(_row(mode, how, sample, f"{won} of {len(proven)}", calls, waits, first))
    calls = []
    for n, proof in proven:
        for quarter in (1, 2, 3):
            g = GameState.new(Deal.from_number(n), rules)
            for a in proof.actions[: len(proof.actions) * quarter // 4]:
                g.apply(a)
            t = time.perf_counter()
            h = hint(g, budget_s=budget)
            calls.append((time.perf_counter() - t, h.source))
    rows.append(_row(mode, "mid-game, no kept line", sample, "-", calls))
    return rows


def _row(
    mode: str,
    how: str,
    sample: str,
    won: str,
    calls: list[tuple[float, str]],
    waits: Sequence[float] = (),
    first: str = "-",
) -> str:
    lat = [t for t, _ in calls]
    from_line = sum(src == "solver" for _, src in calls)
    waited = f"{len(waits)}: {statistics.median(waits):.1f} / {max(waits):.1f} s" if waits else "-"
    return (
        f"| {mode} | {how} | {sample} | {won} | {len(calls)} | "
        f"{100 * from_line / len(calls):.1f} % | "
        f"{statistics.median(lat):.4f} / {pct(lat, 0.95):.3f} / {max(lat):.2f} s | {waited} | "
        f"{first} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=50, help="proven-winnable deals per mode")
    ap.add_argument("--modes", default=MODES)
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per hint search")
    ap.add_argument("--prove", type=float, default=2.0, help="seconds to prove a deal winnable")
    ap.add_argument(
        "--background",
        type=float,
        default=10.0,
        help="seconds of the background search waited for (settings.HINT_BACKGROUND_BUDGET_S)",
    )
    ap.add_argument("--last", type=int, default=199, help="the last deal number tried")
    ap.add_argument(
        "--prove-nodes", type=int, default=None, help="positions to prove a deal winnable"
    )
    ap.add_argument("--cpu", action="store_true", help="budgets and times in CPU seconds")
    ap.add_argument(
        "--list",
        action="store_true",
        help="only print each mode's proven-winnable deal numbers (the hint test's lists)",
    )
    args = ap.parse_args()
    if args.cpu:
        time.perf_counter = time.process_time  # the solver's clock (see bench/solver.py)
    if args.list:
        for mode in args.modes.split(","):
            proven = proven_deals(mode, args.deals, args.prove, args.last, args.prove_nodes)
            numbers = [n for n, _ in proven]
            print(f'    "{mode}": "{" ".join(map(str, numbers))}",', flush=True)
        return
    print(
        "| mode | hints | deals | won | hints asked | from a winning line | "
        "latency median / p95 / max | waits: median / max | "
        "first hint a draw, a visible move wins |\n|---|---|---|---|---|---|---|---|---|"
    )
    for mode in args.modes.split(","):
        rows = bench_mode(mode, args.deals, args.budget, args.prove, args.last, args.background)
        for row in rows:
            print(row, flush=True)


if __name__ == "__main__":
    main()
