"""Ratings across final boards (games.daily.services.ratings): what counts, in which order, and
that a review, a retry or a recount from scratch gives the same ratings."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest

from games.daily import integrity
from games.daily.rating import Skill, board_update
from games.daily.services import closing as daily_closing
from games.daily.services import ratings
from games.models import Badge, DailyDeal, FlagReview, Game, Rating, RatingChange, RatingNotice

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)


@pytest.fixture
def players(make_user: Any) -> list[Any]:
    return [make_user(f"rater{i}")[0] for i in range(4)]


def _ratings(draw: int = 1) -> dict[str, tuple[float, float, int, int | None]]:
    return {
        r.user.username: (round(r.mu, 6), round(r.sigma, 6), r.boards, r.position)
        for r in Rating.objects.filter(draw=draw).select_related("user")
    }


def _badges() -> list[tuple[Any, ...]]:
    return sorted(Badge.objects.values_list("user_id", "kind", "daily_id", "earned_on"))


def _changes() -> list[tuple[Any, ...]]:
    return sorted(
        RatingChange.objects.values_list(
            "user_id", "daily_id", "rank", "boards", "mu_before", "mu_after", "sigma_after"
        )
    )


def test_closing_has_the_rating_job_rate_the_board(players, play_board, monkeypatch):
    queued: list[tuple[int, date | None]] = []
    monkeypatch.setattr(daily_closing, "ratings_queue", lambda *args: queued.append(args))
    board = play_board(START, [(players[0], True, 500), (players[1], False, 100)])
    assert queued == [(1, None)] and board.rated_at is None
    assert ratings.draws_unrated() == [1]
    assert ratings.ratings_update(draw=1) == 1
    assert ratings.draws_unrated() == [] and ratings.ratings_update(draw=1) == 0
    winner, loser = (Rating.objects.get(user=p, draw=1) for p in players[:2])
    expected = board_update([Skill(), Skill()], [1, 2])
    assert (winner.mu, winner.sigma) == (expected[0].mu, expected[0].sigma)
    assert winner.mu > 1500 > loser.mu and winner.boards == loser.boards == 1
    assert winner.position is None  # provisional for its first boards


def test_ratings_chain_day_after_day_and_become_established(players, play_board, settle_fast):
    a, b, c, d = players
    for k in range(5):
        play_board(START + timedelta(days=k), [(a, True, 600), (b, True, 500), (c, False, 50)])
        ratings.ratings_update(draw=1)
    history = list(RatingChange.objects.filter(user=a).order_by("date"))
    assert [h.boards for h in history] == [1, 2, 3, 4, 5]
    for earlier, later in itertools.pairwise(history):
        assert later.mu_before == earlier.mu_after  # played every day: no uncertainty added
    mu = {name: figures[0] for name, figures in _ratings().items()}
    assert mu["rater0"] > mu["rater1"] > mu["rater2"]
    assert [_ratings()[p.username][3] for p in (a, b, c)] == [1, 2, 3]
    assert d.username not in _ratings()
    # d's first board, after a week away for the others: their uncertainty grew first.
    play_board(START + timedelta(days=12), [(d, True, 900), (a, False, 0)])
    ratings.ratings_update(draw=1)
    last = RatingChange.objects.get(user=a, date=START + timedelta(days=12))
    assert last.sigma_before > history[-1].sigma_after and last.mu_before == history[-1].mu_after
    assert _ratings()["rater3"][3] is None and _ratings()["rater0"][3] == 1


def test_draws_rate_apart_and_presets_of_a_draw_together(players, play_board, settings):
    settings.DAILY_MODES = ["D1N", "D3N", "D1V"]
    play_board(START, [(players[0], True, 500), (players[1], False, 0)], mode="D1N")
    play_board(START, [(players[0], True, 500), (players[1], False, 0)], mode="D1V")
    play_board(START, [(players[1], True, 500), (players[0], False, 0)], mode="D3N")
    assert ratings.draws_unrated() == [1, 3]
    assert ratings.ratings_update(draw=1) == 2 and ratings.ratings_update(draw=3) == 1
    assert _ratings(1)["rater0"][2] == 2 and _ratings(3)["rater0"][2] == 1
    assert _ratings(1)["rater0"][0] > _ratings(3)["rater0"][0]


def test_under_review_counts_once_cleared_and_confirmed_never(players, play_board):
    a, b, c, _ = players
    first = play_board(START, [(a, True, 700), (b, True, 500), (c, False, 0)])
    second = play_board(START + timedelta(days=1), [(c, True, 700), (b, True, 500), (a, False, 0)])
    flagged = Game.objects.get(daily=first, user=a)
    integrity.game_flag(game_id=flagged.pk, reasons=["looked odd"], conclusive=False)
    ratings.ratings_update(draw=1)
    assert not RatingChange.objects.filter(daily=first, user=a).exists()
    # The board's rank: a shows above b, under review (board_places).
    assert RatingChange.objects.get(daily=first, user=b).rank == 2
    assert RatingChange.objects.get(daily=second, user=a).boards == 1

    integrity.game_flag_review(game_id=flagged.pk, review=FlagReview.CLEARED)
    ratings.ratings_update(draw=1, since=first.date)
    assert RatingChange.objects.get(daily=first, user=a).rank == 1
    assert RatingChange.objects.get(daily=second, user=a).boards == 2
    cleared = _ratings()

    integrity.game_flag_review(game_id=flagged.pk, review=FlagReview.CONFIRMED)
    ratings.ratings_update(draw=1, since=first.date)
    assert not RatingChange.objects.filter(daily=first, user=a).exists()
    assert RatingChange.objects.get(daily=first, user=b).rank == 1  # a left the board
    assert _ratings()["rater0"] != cleared["rater0"]


def test_a_review_on_a_final_board_has_its_day_rated_again(players, play_board, monkeypatch):
    board = play_board(START, [(players[0], True, 700), (players[1], False, 0)])
    queued: list[tuple[int, date | None]] = []
    monkeypatch.setattr(integrity, "ratings_queue", lambda *args: queued.append(args))
    game = Game.objects.get(daily=board, user=players[0])
    integrity.game_flag(game_id=game.pk, reasons=["too fast"], conclusive=True)
    integrity.game_flag_review(game_id=game.pk, review=FlagReview.CLEARED)
    assert queued == [(1, START), (1, START)]


def test_a_recount_from_scratch_gives_the_same_ratings(players, play_board, settle_fast):
    """A month of boards (every third day skipped by someone), then everything deleted and
    rated again from the logs' outcomes: the same ratings, changes, positions and badges. A run
    rated again from any day gives them too, and so does a retry."""
    a, b, c, d = players
    for k in range(30):
        field = [(a, k % 3 != 0, 300 + k), (b, True, 400 - k), (c, k % 2 == 0, 350), (d, False, k)]
        if k % 3 == 1:
            field.pop(2)
        play_board(START + timedelta(days=k), field)
        if k % 7 == 0:
            ratings.ratings_update(draw=1)
    ratings.ratings_update(draw=1)
    kept, kept_changes, kept_badges = _ratings(), _changes(), _badges()
    assert len(kept_changes) == 110 and len(kept_badges) > 8

    ratings.ratings_update(draw=1, since=START + timedelta(days=17))
    assert (_ratings(), _changes()) == (kept, kept_changes)

    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    Badge.objects.all().delete()
    DailyDeal.objects.update(rated_at=None)
    assert ratings.ratings_update(draw=1) == 30
    assert (_ratings(), _changes(), _badges()) == (kept, kept_changes, kept_badges)
    assert sorted(p for *_, p in kept.values()) == [1, 2, 3, 4]


def _resign_at_once(daily: DailyDeal, user: Any) -> Game:
    """A ranked attempt given up at move 0 (an abort)."""
    from games.daily.services import attempts

    game, _ = attempts.daily_start(user=user, day=daily.date, mode=daily.mode)
    Game.objects.filter(pk=game.pk).update(
        status="resigned",
        leaderboard_score=0,
        moves=0,
        foundations=0,
        elapsed_ms=500,
        finished_at=game.started_at,
    )
    return game


def test_an_abort_counts_for_no_rating_and_buys_nobody_anything(make_user, play_board, clock):
    """Ten accounts that resign at move 0 on every board (#49, "Farming"): before, they ranked
    above every player who played and lost with 0 points, and both gained from it. Now they
    rate nobody and nobody rates on them: the same ratings as without them, board after board."""
    honest = [make_user(f"honest{i}")[0] for i in range(4)]
    sybils = [make_user(f"sybil{i}")[0] for i in range(10)]
    results = [(honest[0], True, 500), (honest[1], False, 0), (honest[2], False, 0)]
    alone = []
    for k in range(3):
        play_board(START + timedelta(days=k), results)
        ratings.ratings_update(draw=1)
        alone.append(_ratings())
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    for k in range(3):
        day = START + timedelta(days=40 + k)
        from games.daily.services import deals

        daily = deals.daily_deal_get_or_create(day=day, mode="D1N")
        clock(datetime.combine(day, time(12), tzinfo=UTC))
        for sybil in sybils:
            _resign_at_once(daily, sybil)
        play_board(day, results)
        ratings.ratings_update(draw=1)
        now = _ratings()
        assert not any(name.startswith("sybil") for name in now)
        assert {n: f[:3] for n, f in now.items()} == {n: f[:3] for n, f in alone[k].items()}


def test_an_abort_ranks_below_every_entry_that_played(daily, finished_attempt):
    from games.daily.services import rankings
    from games.models import LeaderboardEntry

    played = finished_attempt(daily, username="played", won=False, score=0, moves=40, elapsed_ms=9)
    quitter = finished_attempt(
        daily, username="quitter", won=False, score=0, moves=0, elapsed_ms=1, foundations=0
    )
    rankings.daily_rank(daily_id=daily.pk)
    daily.refresh_from_db()
    ranks = dict(
        LeaderboardEntry.objects.filter(generation_id=daily.generation_id).values_list(
            "game_id", "rank"
        )
    )
    assert (ranks[played.pk], ranks[quitter.pk]) == (1, 2)


def test_a_review_re_rates_in_steps_and_notices_the_players(players, play_board):
    """A run with a budget rates as many boards as it may, each committed; the next run goes
    on; the result equals one run's. Each player whose shown rating moved gets a notice."""
    a, b, c, _ = players
    for k in range(4):
        play_board(START + timedelta(days=k), [(a, True, 600), (b, True, 500), (c, False, 0)])
    first = DailyDeal.objects.get(date=START)
    ratings.ratings_update(draw=1)
    before = _ratings()
    flagged = Game.objects.get(daily=first, user=a)
    integrity.game_flag(game_id=flagged.pk, reasons=["looked odd"], conclusive=True)
    integrity.game_flag_review(game_id=flagged.pk, review=FlagReview.CONFIRMED)

    assert ratings.ratings_update(draw=1, since=START, budget_s=0) == 0
    assert ratings.ratings_pending(1) and RatingNotice.objects.filter(mu_after=None).count() == 3
    assert ratings.ratings_update(draw=1) == 4 and not ratings.ratings_pending(1)
    stepped, stepped_changes = _ratings(), _changes()

    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    DailyDeal.objects.update(rated_at=None)
    ratings.ratings_update(draw=1)
    assert (_ratings(), _changes()) == (stepped, stepped_changes)

    notices = {n.user.username: n for n in RatingNotice.objects.select_related("user")}
    assert set(notices) == {"rater0", "rater1", "rater2"}
    for name, notice in notices.items():
        assert notice.reviewed_day == START and notice.mu_after is not None
        assert round(notice.mu_before) == round(before[name][0])
        assert round(notice.mu_after) != round(notice.mu_before)


def test_the_profile_shows_a_reviews_change(players, play_board, api_client):
    a, b, c, _ = players
    first = play_board(START, [(a, True, 600), (b, True, 500), (c, False, 0)])
    ratings.ratings_update(draw=1)
    before = round(Rating.objects.get(user=b, draw=1).mu)
    flagged = Game.objects.get(daily=first, user=a)
    integrity.game_flag(game_id=flagged.pk, reasons=["looked odd"], conclusive=True)
    integrity.game_flag_review(game_id=flagged.pk, review=FlagReview.CONFIRMED)
    ratings.ratings_update(draw=1, since=START)
    after = round(Rating.objects.get(user=b, draw=1).mu)
    review = api_client.get(f"/api/v1/users/{b.username}").json()["ratings"][0]["review"]
    assert review == {"date": START.isoformat(), "change": after - before} and after > before


def test_an_idle_rating_leaves_the_rating_board_until_it_plays_again(
    players, play_board, settle_fast
):
    a, b, c, d = players
    assert d.username not in _ratings()
    for k in range(3):
        play_board(START + timedelta(days=k), [(a, True, 600), (b, True, 500), (c, False, 0)])
    ratings.ratings_update(draw=1)
    assert [_ratings()[p.username][3] for p in (a, b, c)] == [1, 2, 3]
    day = START + timedelta(days=2 + 15)  # a and b played; c has been away 15 days
    play_board(day, [(a, True, 600), (b, True, 500), (d, False, 0)])
    ratings.ratings_update(draw=1)
    assert _ratings()["rater2"][3] is None and _ratings()["rater0"][3] == 1
    play_board(day + timedelta(days=1), [(c, True, 600), (a, True, 500), (b, False, 0)])
    ratings.ratings_update(draw=1)
    assert _ratings()["rater2"][3] is not None
