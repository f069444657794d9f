"""Badges (games.daily.services.badges): each kind earned on the first final board that
qualifies, counted at close with the ratings, and the same rows from a recount."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.daily import integrity, rating
from games.daily.services import ratings
from games.daily.services.badges import badges_recount
from games.models import Badge, BadgeKind, FlagReview, Game, RatingChange

pytestmark = pytest.mark.django_db

START = date(2026, 10, 1)


def _badges(user: Any = None) -> dict[tuple[str, str], date]:
    rows = Badge.objects.select_related("user")
    if user is not None:
        rows = rows.filter(user=user)
    return {(b.user.username, b.kind): b.earned_on for b in rows}


@pytest.fixture
def month(make_user: Any, play_board: Any, settle_fast: None) -> dict[str, Any]:
    """Eight days: ace wins every day (with undos on day 1), deuce wins days 3 (under par) and
    5; twelve extras lose each day, so ranks go past 10. Every other game is over par."""
    ace, _ = make_user("ace")
    deuce, _ = make_user("deuce")
    extras = [make_user(f"extra{i}")[0] for i in range(12)]
    for k in range(8):
        day = START + timedelta(days=k)
        results = [(ace, True, 900), (deuce, k in (2, 4), 500)]
        results += [(user, False, 10 * i) for i, user in enumerate(extras)]
        board = play_board(day, results)
        Game.objects.filter(daily=board).update(moves=board.par + 10)  # over par, but:
        if k == 0:
            Game.objects.filter(daily=board, user=ace).update(undos=3)
        if k == 2:
            Game.objects.filter(daily=board, user=deuce).update(moves=board.par - 1)
    ratings.ratings_update(draw=1)
    return {"ace": ace, "deuce": deuce, "extras": extras}


def test_each_badge_on_the_first_board_that_earns_it(month):
    ace = _badges(month["ace"])
    assert ace[("ace", BadgeKind.FIRST_WIN)] == START
    assert ace[("ace", BadgeKind.NO_UNDO_WIN)] == START + timedelta(days=1)
    assert ace[("ace", BadgeKind.STREAK_7)] == START + timedelta(days=6)
    assert ("ace", BadgeKind.STREAK_30) not in ace and ("ace", BadgeKind.UNDER_PAR) not in ace
    assert ace[("ace", BadgeKind.TOP_10)] == START
    first_milestone = (
        RatingChange.objects.filter(
            user=month["ace"], mu_after__gte=1699.5, sigma_after__lte=rating.PROVISIONAL_SIGMA
        )
        .order_by("date")
        .first()
    )
    assert ace[("ace", BadgeKind.RATING_1700)] == first_milestone.date
    deuce = _badges(month["deuce"])
    assert deuce[("deuce", BadgeKind.FIRST_WIN)] == START + timedelta(days=2)
    assert deuce[("deuce", BadgeKind.UNDER_PAR)] == START + timedelta(days=2)
    assert ("deuce", BadgeKind.STREAK_7) not in deuce
    last = month["extras"][0]  # always last: no top 10
    assert ("extra0", BadgeKind.TOP_10) not in _badges(last)


def test_a_recount_from_nothing_gives_the_same_badges(month):
    counted = _badges()
    assert len(counted) > 10
    Badge.objects.all().delete()
    badges_recount(users=Game.objects.values("user_id"))
    assert _badges() == counted
    assert badges_recount(users=Game.objects.values("user_id")) == 0  # nothing to change


def test_a_confirmed_cheat_loses_the_badge_it_earned(month):
    first = Game.objects.get(user=month["deuce"], daily__date=START + timedelta(days=2))
    integrity.game_flag(game_id=first.pk, reasons=["inhuman timing"], conclusive=False)
    integrity.game_flag_review(game_id=first.pk, review=FlagReview.CONFIRMED)
    ratings.ratings_update(draw=1, since=first.daily.date)
    deuce = _badges(month["deuce"])
    assert deuce[("deuce", BadgeKind.FIRST_WIN)] == START + timedelta(days=4)
    assert ("deuce", BadgeKind.UNDER_PAR) not in deuce


def test_the_profile_lists_badges_in_the_readers_language(month):
    body = APIClient().get("/api/v1/users/ace").json()
    kinds = [b["kind"] for b in body["badges"]]
    assert kinds[0] == BadgeKind.FIRST_WIN and BadgeKind.STREAK_7 in kinds
    first = body["badges"][0]
    assert (first["name"], first["earned_on"], first["mode"]) == (
        "First win",
        START.isoformat(),
        "D1N",
    )


def test_an_entry_under_review_earns_no_top_10(make_user, play_board):
    """An entry still under review shows on its final board but earns no badge until a
    reviewer clears it: a top-10 finish neither."""
    suspect, _ = make_user("suspect")
    others = [make_user(f"other{i}")[0] for i in range(3)]
    board = play_board(START, [(suspect, True, 900), *[(u, False, 10) for u in others]])
    game = Game.objects.get(daily=board, user=suspect)
    integrity.game_flag(game_id=game.pk, reasons=["shared browser"], conclusive=False)
    ratings.ratings_update(draw=1)
    assert game.daily.generation.entries.filter(game=game).exists()  # on the board
    assert ("suspect", BadgeKind.TOP_10) not in _badges(suspect)
    assert ("other0", BadgeKind.TOP_10) in _badges(others[0])
    integrity.game_flag_review(game_id=game.pk, review=FlagReview.CLEARED)
    ratings.ratings_update(draw=1, since=START)
    assert ("suspect", BadgeKind.TOP_10) in _badges(suspect)


def test_a_provisional_rating_earns_no_milestone(make_user, play_board):
    """One lucky board lifts a newcomer past 1700; the badge waits until the rating is
    established (#49: 145 of 300 players had reached 1700 within six weeks)."""
    lucky, _ = make_user("lucky")
    field = [make_user(f"field{i}")[0] for i in range(20)]
    play_board(START, [(lucky, True, 900)] + [(u, False, 10 * i) for i, u in enumerate(field)])
    ratings.ratings_update(draw=1)
    change = RatingChange.objects.get(user=lucky)
    assert change.mu_after >= 1700 and rating.is_provisional(change.sigma_after)
    assert ("lucky", BadgeKind.RATING_1700) not in _badges(lucky)
