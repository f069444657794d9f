"""The rating's arithmetic (games.daily.rating): Elo-MMR's performance from the whole ranking,
then a Gaussian update, and the properties a board's update must have."""

from __future__ import annotations

import itertools
import math
from datetime import date

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from games.daily import rating
from games.daily.rating import Skill, board_update, is_provisional, ranks_of, skill_after_idle

skills_strategy = st.builds(
    Skill, st.floats(min_value=500, max_value=3500), st.floats(min_value=20, max_value=350)
)


def _performance_exact(skills: list[Skill], ranks: list[int], i: int) -> float:
    """Entry i's performance by bisection on the exact left side (no grid): the second
    encoding of `board_update`'s first step."""
    grown = [s.sigma**2 + rating.DRIFT**2 for s in skills]
    scale = [math.sqrt(v + rating.BETA**2) * math.sqrt(3.0) / math.pi for v in grown]
    right = sum(1 / s for j, s in enumerate(scale) if ranks[j] > ranks[i]) - sum(
        1 / s for j, s in enumerate(scale) if ranks[j] < ranks[i]
    )

    def left(p: float) -> float:
        return sum(
            math.tanh((p - sk.mu) / (2 * s)) / s for sk, s in zip(skills, scale, strict=True)
        )

    low, high = -50_000.0, 50_000.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if left(middle) < right else (low, middle)
    return (low + high) / 2


@settings(max_examples=60, deadline=None)
@given(st.lists(skills_strategy, min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_the_grid_performance_equals_the_exact_one(skills, random):
    """Without ties, each entry's new mean is its prior moved toward the exact performance:
    solve the gain back out and compare the two encodings of the performance."""
    ranks = random.sample(range(1, 4 * len(skills)), len(skills))
    after = board_update(skills, ranks)
    curve_free = [_performance_exact(skills, ranks, i) for i in range(len(skills))]
    for before, new, exact in zip(skills, after, curve_free, strict=True):
        prior = before.sigma**2 + rating.DRIFT**2
        # mu' - mu = gain (p - mu) and sigma'^2 = gain * noise, gain = prior / (prior + noise)
        shrink = prior - new.sigma**2
        if shrink < 1e-6 * prior:  # a board that says nothing of this entry: nothing moves
            assert math.isclose(new.mu, before.mu, abs_tol=1e-3)
            continue
        noise = prior * new.sigma**2 / shrink
        gain = prior / (prior + noise)
        assert math.isclose(before.mu + gain * (exact - before.mu), new.mu, abs_tol=1e-3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=12), min_size=2, max_size=60),
    skills_strategy,
)
def test_ratings_move_in_rank_order(ranks, prior):
    """Over random final boards of equal players: a better rank never gains less, a strictly
    better one gains more, and tied players move alike; every deviation shrinks."""
    after = board_update([prior] * len(ranks), ranks)
    by_rank = sorted(zip(ranks, (s.mu - prior.mu for s in after), strict=True))
    for (rank_a, gain_a), (rank_b, gain_b) in itertools.pairwise(by_rank):
        if rank_a == rank_b:
            assert math.isclose(gain_a, gain_b, abs_tol=1e-9)
        else:
            assert gain_a > gain_b
    assert all(s.sigma < math.hypot(prior.sigma, rating.DRIFT) for s in after)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(min_value=2, max_value=7), st.integers(min_value=0, max_value=10), skills_strategy
)
def test_a_tie_of_equal_players_is_the_mean_of_its_orders(size, below, prior):
    """For equal players the expected update over the tie's orders is the mean of the
    updates of its places played out (the rule before #49)."""
    tied = board_update([prior] * (size + below), [1] * size + [size + 1 + k for k in range(below)])
    played = board_update([prior] * (size + below), list(range(1, size + below + 1)))
    mean_mu = sum(s.mu for s in played[:size]) / size
    mean_variance = sum(s.sigma**2 for s in played[:size]) / size
    for s in tied[:size]:
        assert math.isclose(s.mu, mean_mu, abs_tol=1e-6)
        assert math.isclose(s.sigma, math.sqrt(mean_variance), rel_tol=1e-9)


def test_each_tied_player_moves_by_its_own_deviation_whatever_the_order():
    veteran, newcomer = Skill(1500.0, 60.0), Skill()
    field = [Skill(1500.0, 100.0)] * 10
    first = board_update([veteran, newcomer, *field], [1, 1, *range(3, 13)])
    swapped = board_update([newcomer, veteran, *field], [1, 1, *range(3, 13)])
    assert (first[0], first[1]) == (swapped[1], swapped[0])
    assert first[1].mu - 1500 > 10 * (first[0].mu - 1500) > 0


@settings(max_examples=100, deadline=None)
@given(
    st.floats(min_value=800, max_value=2200),
    st.floats(min_value=10, max_value=600),
    st.floats(min_value=40, max_value=350),
    st.integers(min_value=2, max_value=60),
)
def test_a_lower_rated_winner_gains_more(low, gap, sigma, field_size):
    field = [Skill()] * field_size
    ranks = list(range(1, field_size + 2))
    lower = board_update([Skill(low, sigma), *field], ranks)[0].mu - low
    higher = board_update([Skill(low + gap, sigma), *field], ranks)[0].mu - (low + gap)
    assert lower > higher


def test_beating_players_rated_far_below_changes_little():
    """Sybils that play and always lose sink; beating them then says almost nothing."""
    player, field = Skill(1500.0, 70.0), [Skill(1500.0, 70.0)] * 9
    alone = board_update([player, *field], list(range(1, 11)))[0]
    sybils = [Skill(300.0, 70.0)] * 10
    farmed = board_update([player, *field, *sybils], list(range(1, 21)))[0]
    assert abs(farmed.mu - alone.mu) < 1.0


def test_the_deviation_shrinks_whatever_the_board_size():
    for size in (3, 50, 3000):
        after = board_update([Skill()] * size, list(range(1, size + 1)))
        assert float(np.median([s.sigma for s in after])) < 0.9 * rating.NEWCOMER_SIGMA


def test_a_newcomer_moves_faster_than_an_established_player():
    established, newcomer = Skill(1500.0, 80.0), Skill()
    field = [Skill(1500.0, 80.0)] * 20
    top_established = board_update([established, *field], list(range(1, 22)))[0]
    top_newcomer = board_update([newcomer, *field], list(range(1, 22)))[0]
    assert top_newcomer.mu - 1500 > 10 * (top_established.mu - 1500) > 0
    assert top_newcomer.sigma < newcomer.sigma


def test_a_board_of_one_changes_nothing():
    assert board_update([Skill(1700.0, 90.0)], [1]) == [Skill(1700.0, 90.0)]


def test_provisional_by_deviation():
    assert is_provisional(rating.NEWCOMER_SIGMA)
    assert not is_provisional(rating.PROVISIONAL_SIGMA)


def test_missed_days_add_uncertainty_up_to_a_newcomers():
    skill = Skill(1800.0, 100.0)
    played_yesterday = skill_after_idle(skill, last_board=date(2026, 3, 1), day=date(2026, 3, 2))
    assert played_yesterday == skill
    a_month_away = skill_after_idle(skill, last_board=date(2026, 3, 1), day=date(2026, 4, 1))
    assert a_month_away.mu == 1800.0 and 104 < a_month_away.sigma < 107
    years_away = skill_after_idle(skill, last_board=date(2000, 1, 1), day=date(2026, 1, 1))
    assert years_away.sigma == rating.NEWCOMER_SIGMA
    assert skill_after_idle(skill, last_board=None, day=date(2026, 1, 1)) == skill


def test_competition_ranks():
    assert ranks_of([]) == []
    assert ranks_of([(0, 1), (0, 1), (0, 2), (1, 0), (1, 0)]) == [1, 1, 3, 4, 4]
