"""The skill rating across daily boards, defined once (docs/daily.md, "Ratings"): openskill's
Plackett-Luce model, each final board one free-for-all match of all its counted entries.

openskill's own `PlackettLuce.rate` compares every entry with every other: 0.56 s for a board of
3,000 and about ten minutes for one of 100,000 (docs/benchmarks.md, "Ratings"). For one-player
teams its sums depend only on the rank groups, so `board_update` evaluates the same formulas
with running sums over the groups, in O(n log n); the tests check it against the library's
`rate` on random boards, ties and all.

No Django here: the service (games.daily.services.ratings) reads and writes the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import accumulate, groupby

from openskill.models import PlackettLuce

# openskill's defaults (mu 25, sigma 25/3, beta sigma/2, tau mu/300) times 60, so that a new
# player's rating reads 1500, as on the chess servers players know.
MODEL = PlackettLuce(mu=1500.0, sigma=500.0, beta=250.0, tau=5.0)
# A rating is provisional for its first boards: it shows, but not on the rating leaderboard.
PROVISIONAL_BOARDS = 5
# Each whole day a player misses adds this much uncertainty (added in squares, as Glicko's
# rating deviation grows), up to a newcomer's: about three months away from an uncertainty of
# 100 gets back to 270.
IDLE_SIGMA_PER_DAY = 25.0


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating: the estimated skill `mu` and its uncertainty `sigma` (one standard deviation)."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma


def skill_after_idle(skill: Skill, *, last_board: date | None, day: date) -> Skill:
    """`skill` as of `day`, grown more uncertain for every day since `last_board` (the day of
    the player's last rated board, which costs nothing) on which the player played no board.

    >>> skill_after_idle(Skill(1600.0, 100.0), last_board=date(2026, 1, 1), day=date(2026, 1, 2))
    Skill(mu=1600.0, sigma=100.0)
    >>> round(skill_after_idle(Skill(1600.0, 100.0), last_board=date(2026, 1, 1),
    ...     day=date(2026, 1, 18)).sigma)
    141
    """
    if last_board is None:
        return skill
    missed = max(0, (day - last_board).days - 1)
    sigma = math.sqrt(skill.sigma**2 + missed * IDLE_SIGMA_PER_DAY**2)
    return Skill(skill.mu, min(sigma, MODEL.sigma))


def board_update(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """The ratings after one board whose entries placed at `ranks` (a smaller rank placed
    higher; equal ranks tie), in O(n log n).

    Without ties this is `MODEL.rate([[s] for s in skills], ranks=ranks)` to the last bits.
    A tie the library treats its own way: it counts each tied entry once per member of the
    tie, so that three players tied first gain less than a player alone in second (30 rating
    points against 91 on a board of six equal players). Here a tie is played out in the order
    given (the board's) and its players share the means of their changes: of mu, and of the
    factor that shrinks sigma. So a better rank never gains less, and tied players move alike.
    """
    n = len(skills)
    if n != len(ranks):
        raise ValueError("one rank per skill")
    order = sorted(range(n), key=lambda i: ranks[i])
    played = _update_in_order([skills[i] for i in order])
    result: list[Skill] = [Skill()] * n
    for _, members in groupby(range(n), key=lambda k: ranks[order[k]]):
        places = list(members)
        mu_change = sum(played[k].mu - skills[order[k]].mu for k in places) / len(places)
        shrink = sum(played[k].sigma / _grown(skills[order[k]]) for k in places) / len(places)
        for k in places:
            skill = skills[order[k]]
            result[order[k]] = Skill(skill.mu + mu_change, _grown(skill) * shrink)
    return result


def _grown(skill: Skill) -> float:
    """The uncertainty a board starts from: sigma grown by the model's tau."""
    return math.hypot(skill.sigma, MODEL.tau)


def _update_in_order(skills: list[Skill]) -> list[Skill]:
    """`MODEL.rate` of a board whose i-th entry placed i-th, without ties.

    With e_i = exp(mu_i / c) and S_q the sum of e over the entries placed at q or below, the
    library's sums over every q placed at or above i are running totals down the board:
    sum of 1/S_q and of 1/S_q^2.
    """
    if len(skills) < 2:
        return skills
    variance = [_grown(s) ** 2 for s in skills]
    c = math.sqrt(sum(variance) + len(skills) * MODEL.beta**2)
    strength = [math.exp(s.mu / c) for s in skills]
    at_or_below = list(accumulate(reversed(strength)))[::-1]
    result = []
    inverse_sum = inverse_square_sum = 0.0
    for skill, v, e, total in zip(skills, variance, strength, at_or_below, strict=True):
        inverse_sum += 1.0 / total
        inverse_square_sum += 1.0 / total**2
        omega = (1.0 - e * inverse_sum) * v / c
        delta = (e * inverse_sum - e * e * inverse_square_sum) * v / c**2
        delta *= math.sqrt(v) / c  # the library's default gamma
        result.append(
            Skill(skill.mu + omega, math.sqrt(v) * math.sqrt(max(1.0 - delta, MODEL.kappa)))
        )
    return result


def ranks_of(keys: Sequence[object]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of `keys` already in ranking order; equal keys tie.

    >>> ranks_of(["a", "b", "b", "c"])
    [1, 2, 2, 4]
    """
    ranks: list[int] = []
    for position, key in enumerate(keys, start=1):
        ranks.append(ranks[-1] if ranks and key == keys[position - 2] else position)
    return ranks
