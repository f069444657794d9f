"""Deal pool benchmark ("winnable deals only", games/pool.py): per mode, how often a request
that finds the pool empty proves a deal within its on-demand budget, how long it waits at
worst, and how many proven deals the fill job adds in a given time.

Run (under the shared lock, so that benchmarks never overlap; one process)::

    flock /tmp/klondike-bench.lock .venv/bin/python bench/deal_pool.py [--tries 10]
        [--fill-seconds 60] [--modes D1N,D3V]

Embedded mode, on a throwaway SQLite database under a temporary directory, with no daily deal
(so no candidate is skipped as an open daily's). Times are wall time on the machine as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=10, help="on-demand proofs per mode")
    parser.add_argument("--fill-seconds", type=float, default=60.0, help="fill time per mode")
    parser.add_argument("--modes", default="", help="e.g. D1N,D3V (default: every mode)")
    args = parser.parse_args()

    os.environ["KLONDIKE_VAR_DIR"] = tempfile.mkdtemp(prefix="klondike-bench-pool-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from games import pool

    call_command("migrate", verbosity=0)
    modes = [(int(m[1]), m[2]) for m in args.modes.split(",") if m] or list(pool.POOL_MODES)
    print(
        f"on-demand budget {pool.ON_DEMAND_BUDGET_S} s ({pool.ON_DEMAND_BUDGET_S_PER_DEAL} s a "
        f"deal); fill: {settings.DEAL_POOL_SOLVE_BUDGET_S} s a deal, up to "
        f"{settings.DEAL_POOL_SIZE}, {args.fill_seconds:g} s"
    )
    print("| mode | on demand: proven | worst wait | fill: added | in |")
    print("|---|---|---|---|---|")
    for draw, preset in modes:
        waits, proven = [], 0
        for _ in range(args.tries):
            started = time.monotonic()
            proven += pool.deal_prove_now(draw=draw, preset=preset) is not None
            waits.append(time.monotonic() - started)
        started = time.monotonic()
        added = pool.deal_pool_fill(draw=draw, preset=preset, seconds=args.fill_seconds)
        took = time.monotonic() - started
        print(
            f"| D{draw}{preset} | {proven}/{args.tries} | {max(waits):.2f} s | {added} | "
            f"{took:.1f} s |"
        )


if __name__ == "__main__":
    main()
