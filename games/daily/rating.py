"""The skill rating across daily boards, defined once (docs/daily.md, "Ratings"): Elo-MMR's two
steps (Ebtekar and Liu, 2021) with a Gaussian update, so that a rating is a mean and a deviation.

1. **Performance.** A final board is one ranking of its counted entries. Each entry's day is
   a *performance*: its skill plus the board's luck, which has the deviation `BETA`. The
   performance `p` of an entry is the one at which its place is the likeliest, given the field's
   ratings: every entry j's performance is logistic around its mean with the deviation
   sqrt(sigma_j^2 + BETA^2), and `p` solves
       sum over all entries j of w_j tanh((p - mu_j) / (2 s_j)) = (sum of w_j below) - (sum above)
   (s_j the logistic scale, w_j = 1 / s_j; the entry itself counts as a tie, a tied entry as half
   a win and half a loss). The left side is one increasing function of `p` for the whole board,
   so it is evaluated once on a grid, and each entry's `p` is read off it: O(n) per board.
2. **Update.** `p` is one noisy look at the player's skill, with the variance of the luck plus
   that of `p`'s own estimate (1 / Fisher information: a board of 3 says less than one of 3,000).
   The rating is the Gaussian posterior: mu moves toward `p` by sigma^2 / (sigma^2 + that
   variance), and sigma shrinks every board, however large the board.

So a rating's change depends on how the player did against the ratings they met: beating
players rated far below changes nothing, a lower-rated winner gains more than a higher-rated
one, and each tied player moves by their own deviation, the expected update over the tie's
orders (exact for ties up to `_TIE_EXACT`; above, every place with the others' mean weight).

No Django here: the service (games.daily.services.ratings) reads and writes the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import combinations

import numpy as np

# A newcomer's rating, as Glicko's: 1500, with a deviation of 350.
NEWCOMER_MU = 1500.0
NEWCOMER_SIGMA = 350.0
# The deviation of one board's luck, in rating points: as large as the spread of skills
# (docs/daily.md, "Ratings": chosen with bench/rating_model.py).
BETA = 350.0
# The skill a player may gain or lose between two boards (sigma^2 grows by its square per
# board): it keeps an established rating able to follow a player who improves; it is also
# the floor of a deviation, about sqrt(DRIFT * BETA).
DRIFT = 5.0
# Each whole day a player misses adds this much uncertainty (in squares, as Glicko's rating
# deviation grows), up to a newcomer's: a month away grows a deviation of 70 to 77. Kept
# small: the simulation's skills stay put, and more forgetting predicted its boards less well.
IDLE_SIGMA_PER_DAY = 6.0
# A rating is provisional while its deviation is above this (lichess: 110 of a newcomer's 500):
# it shows, but not on the rating leaderboard. About 9 boards for a newcomer on a big board.
PROVISIONAL_SIGMA = 110.0
# An established rating leaves the rating leaderboard after this many days without a board,
# until the player plays again.
IDLE_DAYS_OFF_BOARD = 14

_LOGISTIC = math.sqrt(3.0) / math.pi  # a logistic's scale per unit of deviation
_GRID_LIMIT = 20_001  # points of the board's performance curve, at most
_TIE_EXACT = 8  # ties of up to this many entries are averaged over every order


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating: the estimated skill `mu` and its uncertainty `sigma` (one standard deviation)."""

    mu: float = NEWCOMER_MU
    sigma: float = NEWCOMER_SIGMA


def is_provisional(sigma: float) -> bool:
    """Whether a rating of this deviation is still provisional (`PROVISIONAL_SIGMA`).

    >>> is_provisional(NEWCOMER_SIGMA), is_provisional(80.0)
    (True, False)
    """
    return sigma > PROVISIONAL_SIGMA


def skill_after_idle(skill: Skill, *, last_board: date | None, day: date) -> Skill:
    """`skill` as of `day`, grown more uncertain for every day since `last_board` (the day of
    the player's last rated board, which costs nothing) on which the player played no board.

    >>> skill_after_idle(Skill(1600.0, 100.0), last_board=date(2026, 1, 1), day=date(2026, 1, 2))
    Skill(mu=1600.0, sigma=100.0)
    >>> round(skill_after_idle(Skill(1600.0, 70.0), last_board=date(2026, 1, 1),
    ...     day=date(2026, 2, 1)).sigma)
    77
    """
    if last_board is None:
        return skill
    missed = max(0, (day - last_board).days - 1)
    sigma = math.sqrt(skill.sigma**2 + missed * IDLE_SIGMA_PER_DAY**2)
    return Skill(skill.mu, min(sigma, NEWCOMER_SIGMA))


def board_update(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """The ratings after one board whose entries placed at `ranks` (a smaller rank placed
    higher; equal ranks tie), in O(n) plus the ties.

    >>> low, high = board_update([Skill(1400.0, 80.0), Skill(1700.0, 80.0), *[Skill()] * 8],
    ...     [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])[:2]
    >>> low.mu > 1400.0 and high.mu > 1700.0 and low.mu - 1400.0 > high.mu - 1700.0
    True

    :raises ValueError: not one rank per skill.
    """
    n = len(skills)
    if n != len(ranks):
        raise ValueError("one rank per skill")
    if n < 2:
        return list(skills)
    mu = np.array([s.mu for s in skills])
    prior = np.array([s.sigma**2 + DRIFT**2 for s in skills])
    scale = np.sqrt(prior + BETA**2) * _LOGISTIC
    weight = 1.0 / scale
    curve = _PerformanceCurve(mu, scale, weight)

    # c for an entry: the weight of those it beat less the weight of those that beat it, the
    # other members of its tie left out (they are added per order below).
    order = sorted(range(n), key=lambda i: ranks[i])
    above = 0.0
    total = math.fsum(weight.tolist())
    groups: list[list[int]] = []
    for i in order:
        if groups and ranks[groups[-1][0]] == ranks[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    # One row per entry and case of its tie's order: the entry, its right side, the chance.
    rows: list[int] = []
    outcomes: list[float] = []
    chances: list[float] = []
    weights = weight.tolist()
    for members in groups:
        if len(members) == 1:  # most entries: no tie, one row
            i = members[0]
            rows.append(i)
            outcomes.append(total - 2.0 * above - weights[i])
            chances.append(1.0)
            above += weights[i]
            continue
        tie_weight = sum(weights[i] for i in members)
        base = total - 2.0 * above - tie_weight
        above += tie_weight
        for i in members:
            others = [weights[j] for j in members if j != i]
            offsets, odds = _tie_offsets(others)
            rows.extend([i] * len(offsets))
            outcomes.extend(base + offset for offset in offsets)
            chances.extend(odds)
    entry = np.array(rows)
    mean, variance = curve.update(entry, np.array(outcomes), mu[entry], prior[entry])
    odds_of = np.array(chances)
    new_mu = np.bincount(entry, weights=odds_of * mean, minlength=n)
    new_variance = np.bincount(entry, weights=odds_of * variance, minlength=n)
    return [Skill(float(m), math.sqrt(float(v))) for m, v in zip(new_mu, new_variance, strict=True)]


class _PerformanceCurve:
    """The board's left side T(p) = sum_j w_j tanh((p - mu_j) / 2 s_j) and its slope on a grid
    wide enough for any entry's performance, read backwards (p from T) by cubic Hermite
    interpolation: the slope is known exactly, so a grid step of a tenth of the narrowest
    scale is exact to a thousandth of a rating point."""

    def __init__(self, mu: np.ndarray, scale: np.ndarray, weight: np.ndarray) -> None:
        self.mu, self.scale, self.weight = mu, scale, weight
        # The best entry's performance is about its mean plus s ln n; keep a margin past it.
        reach = float(scale.max()) * (math.log(len(mu)) + 12.0)
        low, high = float(mu.min()) - reach, float(mu.max()) + reach
        points = min(_GRID_LIMIT, math.ceil((high - low) / (float(scale.min()) / 10.0)) + 1)
        self.grid = np.linspace(low, high, points)
        self.value = np.zeros(points)
        # sum_j w_j^2 (1 - tanh^2) / 4: the Fisher information of p; the slope of T is twice it.
        self.information = np.zeros(points)
        chunk = max(1, 4_000_000 // points)
        for start in range(0, len(mu), chunk):
            part = slice(start, start + chunk)
            t = np.tanh((self.grid[:, None] - mu[None, part]) / (2.0 * scale[None, part]))
            self.value += t @ weight[part]
            self.information += (1.0 - t * t) @ (weight[part] ** 2 / 4.0)

    def performance(self, outcome: np.ndarray) -> np.ndarray:
        """The p at which T(p) equals each `outcome`: the inverse's cubic Hermite interpolant
        (its slope at a node is 1 / T'), clamped to the grid."""
        value, grid = self.value, self.grid
        outcome = np.clip(outcome, value[0], value[-1])
        k = np.clip(np.searchsorted(value, outcome) - 1, 0, len(value) - 2)
        width = value[k + 1] - value[k]
        u = (outcome - value[k]) / width
        slope0 = width / (2.0 * self.information[k])
        slope1 = width / (2.0 * self.information[k + 1])
        u2, u3 = u * u, u * u * u
        return (
            (2 * u3 - 3 * u2 + 1) * grid[k]
            + (u3 - 2 * u2 + u) * slope0
            + (-2 * u3 + 3 * u2) * grid[k + 1]
            + (u3 - u2) * slope1
        )

    def update(
        self, entry: np.ndarray, outcome: np.ndarray, mu: np.ndarray, prior: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The posterior mean and variance of each `entry` (indices, with their means and prior
        variances) for the right side `outcome` of its row."""
        performance = self.performance(outcome)
        own = np.tanh((performance - self.mu[entry]) / (2.0 * self.scale[entry]))
        information = np.interp(performance, self.grid, self.information)
        information = information - self.weight[entry] ** 2 * (1.0 - own * own) / 4.0
        noise = BETA**2 + 1.0 / np.maximum(information, 1e-300)
        gain = prior / (prior + noise)
        return mu + gain * (performance - mu), gain * noise


def _tie_offsets(others: list[float]) -> tuple[list[float], list[float]]:
    """What a tied entry's other members add to its right side, over the tie's orders, with
    each case's chance: for the members placed above it, minus their weight; below, plus.
    Every order for a tie of up to `_TIE_EXACT`; for a bigger one every place, with the others'
    mean weight (exact for equal deviations, and the same for every member alike)."""
    if not others:
        return [0.0], [1.0]
    whole = sum(others)
    m = len(others) + 1
    if m > _TIE_EXACT:
        mean = whole / len(others)
        return [whole - 2.0 * k * mean for k in range(m)], [1.0 / m] * m
    offsets, chances = [], []
    for k in range(m):  # k of the others above it, each set of k alike
        sets = list(combinations(others, k))
        for placed_above in sets:
            offsets.append(whole - 2.0 * sum(placed_above))
            chances.append(1.0 / (m * len(sets)))
    return offsets, chances


def ranks_of(keys: Sequence[object]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of `keys` already in ranking order; equal keys tie.

    >>> ranks_of(["a", "b", "b", "c"])
    [1, 2, 2, 4]
    """
    ranks: list[int] = []
    for position, key in enumerate(keys, start=1):
        ranks.append(ranks[-1] if ranks and key == keys[position - 2] else position)
    return ranks
