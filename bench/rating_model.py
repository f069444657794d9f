"""The rating model on populations whose true skills are known (issue #49's targets), side by
side with the model it replaced: openskill's Plackett-Luce over the whole board.

How to run (no database, no Redis)::

    .venv/bin/python bench/rating_model.py     # 50, 300, 3,000 a year; 100,000 for 45 days
    .venv/bin/python bench/rating_model.py --sizes 50 300 --days 120

Each player has a true skill, drawn once from N(0, 1); each board, a player's performance is
the skill plus luck from N(0, 1) (luck as large as the skill spread), and the board ranks the
performances, a few of them tied. Every day a board of `size` entries is drawn from a
population of 1.5 x `size` players, so a player plays about two days in three and idles the
rest. Both models rate the same boards, in the same order. Reported per board size:

- the median deviation of the players who have played 30 boards, at their 30th, over a
  newcomer's (target: at most a third);
- at the end, the share of established ratings within 3 newcomer deviations of the start value
  (target: 99 %), and how far their mean moved from it (target: under 50 points);
- Spearman's correlation of the ratings with the true skills among the players with 30 boards or
  more, when they reach 30 (target: 0.9 or more);
- how often the ratings before a board predict its order of two random entries (target: at
  least the old model's);
- sybils: 10 accounts that resign at move 0 on every board of 20 (10 of them honest players of a
  pool of 15), and 10 that play a few moves and lose: what they add to a mid-field player's and a
  90th-percentile player's rating after 1, 5 and 30 boards (target: at most +25 after 30, 0 on
  the first), against the same seasons without them;
- a lower-rated winner's gain against a higher-rated one's, on the same board.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, groupby
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.daily import rating  # noqa: E402
from games.daily.rating import Skill, ranks_of  # noqa: E402


# The model before #49: openskill's Plackett-Luce (mu 1500, sigma 500, beta 250, tau 5) over the
# whole board, evaluated with running sums (exact to the library's `rate`), a tie played out in
# order and its players given the mean change; provisional for 5 boards; idle 25 a day.
@dataclass(frozen=True)
class _Old:
    mu: float = 1500.0
    sigma: float = 500.0
    beta: float = 250.0
    tau: float = 5.0
    kappa: float = 0.0001
    idle: float = 25.0

    def update(self, skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
        n = len(skills)
        if n < 2:
            return list(skills)
        order = sorted(range(n), key=lambda i: ranks[i])
        played = self._in_order([skills[i] for i in order])
        result = [Skill()] * n
        for _, members in groupby(range(n), key=lambda k: ranks[order[k]]):
            places = list(members)
            mu_change = sum(played[k].mu - skills[order[k]].mu for k in places) / len(places)
            shrink = sum(played[k].sigma / self._grown(skills[order[k]]) for k in places)
            shrink /= len(places)
            for k in places:
                skill = skills[order[k]]
                result[order[k]] = Skill(skill.mu + mu_change, self._grown(skill) * shrink)
        return result

    def _grown(self, skill: Skill) -> float:
        return math.hypot(skill.sigma, self.tau)

    def _in_order(self, skills: list[Skill]) -> list[Skill]:
        variance = [self._grown(s) ** 2 for s in skills]
        c = math.sqrt(sum(variance) + len(skills) * self.beta**2)
        strength = [math.exp(s.mu / c) for s in skills]
        at_or_below = list(accumulate(reversed(strength)))[::-1]
        result = []
        inverse_sum = inverse_square_sum = 0.0
        for skill, v, e, total in zip(skills, variance, strength, at_or_below, strict=True):
            inverse_sum += 1.0 / total
            inverse_square_sum += 1.0 / total**2
            omega = (1.0 - e * inverse_sum) * v / c
            delta = (e * inverse_sum - e * e * inverse_square_sum) * v / c**2
            delta *= math.sqrt(v) / c
            result.append(
                Skill(skill.mu + omega, math.sqrt(v) * math.sqrt(max(1.0 - delta, self.kappa)))
            )
        return result


@dataclass(frozen=True)
class Model:
    name: str
    newcomer: Skill
    update: Callable[[Sequence[Skill], Sequence[int]], list[Skill]]
    idle_per_day: float
    established: Callable[[float, int], bool]  # (sigma, boards)


OLD = _Old()
MODELS = (
    Model(
        "openskill PL (before)",
        Skill(OLD.mu, OLD.sigma),
        OLD.update,
        OLD.idle,
        lambda sigma, boards: boards >= 5,
    ),
    Model(
        "Elo-MMR Gaussian (now)",
        Skill(),
        rating.board_update,
        rating.IDLE_SIGMA_PER_DAY,
        lambda sigma, boards: not rating.is_provisional(sigma),
    ),
)


class Season:
    """One model's ratings of a population over a season of daily boards."""

    def __init__(self, model: Model, players: int) -> None:
        self.model = model
        self.mu = np.full(players, model.newcomer.mu)
        self.sigma = np.full(players, model.newcomer.sigma)
        self.boards = np.zeros(players, dtype=int)
        self.last = np.full(players, -1)
        self.sigma_at_30 = np.full(players, np.nan)
        self.mu_at_30 = np.full(players, np.nan)

    def skills(self, entries: np.ndarray, day: int) -> list[Skill]:
        result = []
        for i in entries.tolist():
            sigma = float(self.sigma[i])
            if self.last[i] >= 0:
                missed = max(0, day - int(self.last[i]) - 1)
                sigma = min(
                    math.sqrt(sigma**2 + missed * self.model.idle_per_day**2),
                    self.model.newcomer.sigma,
                )
            result.append(Skill(float(self.mu[i]), sigma))
        return result

    def rate(self, entries: np.ndarray, ranks: list[int], day: int) -> None:
        after = self.model.update(self.skills(entries, day), ranks)
        self.mu[entries] = [s.mu for s in after]
        self.sigma[entries] = [s.sigma for s in after]
        self.boards[entries] += 1
        self.last[entries] = day
        reached = entries[self.boards[entries] == 30]
        self.sigma_at_30[reached] = self.sigma[reached]
        self.mu_at_30[reached] = self.mu[reached]


def board_ranks(performance: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The board's order (indices into `performance`, best first) and competition ranks; a
    performance is rounded to a thousandth of the spread, so that a few entries tie."""
    rounded = np.round(performance, 3)
    order = np.argsort(-rounded, kind="stable")
    return order, ranks_of(rounded[order].tolist())


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def season_run(size: int, days: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    population = int(size * 1.5)
    skill = rng.normal(0.0, 1.0, population)
    seasons = [Season(model, population) for model in MODELS]
    hits = [0, 0]
    pairs = 0
    for day in range(days):
        entries = np.sort(rng.choice(population, size, replace=False))
        performance = skill[entries] + rng.normal(0.0, 1.0, size)
        order, ranks = board_ranks(performance)
        ordered = entries[order]
        if day >= 30:
            a, b = rng.integers(0, size, 500), rng.integers(0, size, 500)
            keep = performance[a] != performance[b]
            a, b = a[keep], b[keep]
            truth = performance[a] > performance[b]
            for k, s in enumerate(seasons):
                hits[k] += int(np.sum((s.mu[entries[a]] > s.mu[entries[b]]) == truth))
            pairs += int(keep.sum())
        for s in seasons:
            s.rate(ordered, ranks, day)
    out = {}
    for k, s in enumerate(seasons):
        model = s.model
        thirty = ~np.isnan(s.sigma_at_30)
        established = np.array(
            [model.established(float(sg), int(b)) for sg, b in zip(s.sigma, s.boards, strict=True)]
        ) & (s.boards > 0)
        start, spread = model.newcomer.mu, 3.0 * model.newcomer.sigma
        ratings = s.mu[established]
        out[model.name] = {
            "deviation_30": float(np.median(s.sigma_at_30[thirty])) / model.newcomer.sigma
            if thirty.any()
            else float("nan"),
            "within_3": float(np.mean(np.abs(ratings - start) <= spread)) if len(ratings) else 0.0,
            "drift": float(ratings.mean() - start) if len(ratings) else float("nan"),
            "range": (float(ratings.min()), float(ratings.max())) if len(ratings) else (0, 0),
            "spearman_30": spearman(s.mu_at_30[thirty], skill[thirty])
            if thirty.sum() > 2
            else float("nan"),
            "spearman_end": spearman(s.mu[s.boards >= 30], skill[s.boards >= 30])
            if (s.boards >= 30).sum() > 2
            else float("nan"),
            "pairwise": hits[k] / pairs if pairs else float("nan"),
        }
    return out


def sybil_run(*, seeds: int, boards: int = 30) -> dict[str, dict[str, list[float]]]:
    """What 10 sybils on every board of 20 add to a mid-field and a 90th-percentile player."""
    result: dict[str, dict[str, list[float]]] = {}
    for model in MODELS:
        for attack in ("resign at move 0", "play and lose"):
            for target_q in (0.5, 0.9):
                gains = {1: [], 5: [], boards: []}
                for seed in range(seeds):
                    rng = np.random.default_rng(seed)
                    skill = rng.normal(0.0, 1.0, 15)
                    skill[0] = float(np.quantile(rng.normal(0.0, 1.0, 100_000), target_q))
                    luck = rng.normal(0.0, 1.0, (boards, 15))
                    pick = [
                        np.concatenate(([0], rng.choice(np.arange(1, 15), 9, replace=False)))
                        for _ in range(boards)
                    ]
                    runs = {}
                    for with_sybils in (False, True):
                        s = Season(model, 25)
                        for day in range(boards):
                            honest = pick[day]
                            order, _ = board_ranks(skill[honest] + luck[day, honest])
                            ordered = list(honest[order])
                            if with_sybils:
                                sybils = list(range(15, 25))
                                if attack == "play and lose":
                                    ordered = ordered + sybils  # below every honest entry
                                elif model is MODELS[0]:
                                    # Before: 0 moves and 0 points ranked above the honest
                                    # entries that lost with 0 points (the lower 40 %).
                                    cut = 6
                                    ordered = ordered[:cut] + sybils + ordered[cut:]
                                # Now an abort is no entry of the rated field at all.
                            entries = np.array(ordered)
                            s.rate(entries, list(range(1, len(entries) + 1)), day)
                            if day + 1 in gains:
                                runs.setdefault(with_sybils, {})[day + 1] = float(s.mu[0])
                    for b in gains:
                        gains[b].append(runs[True][b] - runs[False][b])
                key = f"{model.name} | {attack} | target at {int(target_q * 100)} %"
                result[key] = {str(b): v for b, v in gains.items()}
    return result


def winner_gains() -> tuple[float, float]:
    """The gain of a winner rated 1400 and of one rated 1700 (both established, deviation 80)
    on the same board of 20 newcomers."""
    field = [Skill()] * 19
    low = rating.board_update([Skill(1400.0, 80.0), *field], list(range(1, 21)))[0].mu - 1400.0
    high = rating.board_update([Skill(1700.0, 80.0), *field], list(range(1, 21)))[0].mu - 1700.0
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 300, 3000, 100_000])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument(
        "--big-days",
        type=int,
        default=45,
        help="days for boards of 10,000 or more (a board of 100,000 takes seconds)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sybil-seeds", type=int, default=40)
    args = parser.parse_args()

    print(f"newcomer deviation: before {OLD.sigma:.0f}, now {rating.NEWCOMER_SIGMA:.0f}")
    header = (
        f"{'board':>7} {'days':>4}  {'model':24} {'dev@30':>7} {'in 3 dev':>6} {'drift':>7} "
        f"{'min..max':>13} {'rho30':>5} {'rho end':>5} {'pairs':>6}"
    )
    print(header)
    for size in args.sizes:
        days = args.days if size < 10_000 else args.big_days
        started = time.perf_counter()
        results = season_run(size, days, args.seed)
        for name, r in results.items():
            lo, hi = r["range"]
            print(
                f"{size:>7} {days:>4}  {name:24} {r['deviation_30']:>7.2f} "
                f"{r['within_3'] * 100:>5.1f}% {r['drift']:>+7.1f} "
                f"{lo:>6.0f}..{hi:<6.0f} {r['spearman_30']:>5.2f} {r['spearman_end']:>5.2f} "
                f"{r['pairwise'] * 100:>5.1f}%"
            )
        print(f"{'':>13}({time.perf_counter() - started:.0f} s)")
    low, high = winner_gains()
    print(
        f"\nwinner of a board of 20 newcomers: rated 1400 gains {low:+.1f}, rated 1700 {high:+.1f}"
    )
    print(
        f"\nsybils (mean gain over {args.sybil_seeds} seeds, after 1 / 5 / 30 boards; "
        "max after 30):"
    )
    for key, gains in sybil_run(seeds=args.sybil_seeds).items():
        means = " / ".join(f"{np.mean(v):+7.1f}" for v in gains.values())
        print(f"  {key:62} {means}   max {max(gains['30']):+.1f}")


if __name__ == "__main__":
    main()
