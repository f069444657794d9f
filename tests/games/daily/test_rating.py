"""The rating's arithmetic (games.daily.rating): openskill's Plackett-Luce, evaluated in linear
time, and the properties a board's update must have."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from games.daily.rating import MODEL, Skill, board_update, ranks_of, skill_after_idle

skills_strategy = st.builds(
    Skill, st.floats(min_value=500, max_value=3500), st.floats(min_value=20, max_value=500)
)


def _library(skills: list[Skill], ranks: list[int]) -> list[Skill]:
    rated = MODEL.rate([[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills], ranks=ranks)
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


@settings(max_examples=150, deadline=None)
@given(st.lists(skills_strategy, min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_equals_the_library_without_ties(skills, random):
    ranks = random.sample(range(1, 4 * len(skills)), len(skills))
    for ours, theirs in zip(board_update(skills, ranks), _library(skills, ranks), strict=True):
        assert math.isclose(ours.mu, theirs.mu, rel_tol=1e-12, abs_tol=1e-9)
        assert math.isclose(ours.sigma, theirs.sigma, rel_tol=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(skills_strategy, st.integers(min_value=1, max_value=6)), min_size=2, max_size=30
    )
)
def test_a_tie_shares_the_library_update_of_the_board_played_out(entries):
    """A tie is played out in the board's order (the library's update of the untied board),
    and its players share the means of their changes."""
    skills, ranks = [s for s, _ in entries], [r for _, r in entries]
    order = sorted(range(len(ranks)), key=lambda i: ranks[i])
    untied = [0] * len(ranks)
    for place, i in enumerate(order, start=1):
        untied[i] = place
    ours, theirs = board_update(skills, ranks), _library(skills, untied)
    groups = defaultdict(list)
    for i, rank in enumerate(ranks):
        groups[rank].append(i)
    for members in groups.values():
        mean_mu = sum(theirs[i].mu - skills[i].mu for i in members) / len(members)
        mean_shrink = sum(
            theirs[i].sigma / math.hypot(skills[i].sigma, MODEL.tau) for i in members
        ) / len(members)
        for i in members:
            assert math.isclose(ours[i].mu - skills[i].mu, mean_mu, abs_tol=1e-6)
            grown = math.hypot(skills[i].sigma, MODEL.tau)
            assert math.isclose(ours[i].sigma, grown * mean_shrink, rel_tol=1e-9)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=12), min_size=2, max_size=60),
    skills_strategy,
)
def test_ratings_move_in_rank_order(ranks, prior):
    """Over random final boards of equal players: a better rank never gains less, a strictly
    better one gains more, and tied players move alike; nobody becomes more uncertain than
    before the board (sigma grown by tau)."""
    after = board_update([prior] * len(ranks), ranks)
    by_rank = sorted(zip(ranks, (s.mu - prior.mu for s in after), strict=True))
    for (rank_a, gain_a), (rank_b, gain_b) in itertools.pairwise(by_rank):
        if rank_a == rank_b:
            assert math.isclose(gain_a, gain_b, abs_tol=1e-9)
        else:
            assert gain_a > gain_b
    assert all(s.sigma <= math.hypot(prior.sigma, MODEL.tau) + 1e-9 for s in after)


def test_a_newcomer_moves_faster_than_an_established_player():
    established, newcomer = Skill(1500.0, 80.0), Skill()
    field = [Skill(1500.0, 80.0)] * 20
    top_established = board_update([established, *field], list(range(1, 22)))[0]
    top_newcomer = board_update([newcomer, *field], list(range(1, 22)))[0]
    assert top_newcomer.mu - 1500 > 10 * (top_established.mu - 1500) > 0
    assert top_newcomer.sigma < newcomer.sigma


def test_a_board_of_one_changes_nothing():
    assert board_update([Skill(1700.0, 90.0)], [1]) == [Skill(1700.0, 90.0)]


def test_missed_days_add_uncertainty_up_to_a_newcomers():
    skill = Skill(1800.0, 100.0)
    played_yesterday = skill_after_idle(skill, last_board=date(2026, 3, 1), day=date(2026, 3, 2))
    assert played_yesterday == skill
    a_month_away = skill_after_idle(skill, last_board=date(2026, 3, 1), day=date(2026, 4, 1))
    assert a_month_away.mu == 1800.0 and 160 < a_month_away.sigma < 170
    years_away = skill_after_idle(skill, last_board=date(2020, 1, 1), day=date(2026, 1, 1))
    assert years_away.sigma == MODEL.sigma
    assert skill_after_idle(skill, last_board=None, day=date(2026, 1, 1)) == skill


def test_competition_ranks():
    assert ranks_of([]) == []
    assert ranks_of([(0, 1), (0, 1), (0, 2), (1, 0), (1, 0)]) == [1, 1, 3, 4, 4]
