"""Ranking: the spec's order, shared ranks, `me`, paging around me, flags, streaks."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.daily.services import closing as daily_closing
from games.daily.services import deals as daily_deals
from games.daily.services import rankings as daily_rankings
from games.models import DailyStreak, Game, LeaderboardEntry
from tests.games.daily.conftest import DAY, at

pytestmark = pytest.mark.django_db


def _board(client, query=""):
    return client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N{query}").json()


def test_ranking_order_and_shared_ranks(daily, finished_attempt, api_client):
    lost_high = finished_attempt(
        daily, username="lost", won=False, score=900, moves=50, elapsed_ms=1000
    )
    slow = finished_attempt(
        daily, username="slow", won=True, score=700, moves=120, elapsed_ms=90_000
    )
    tie_a = finished_attempt(
        daily, username="tiea", won=True, score=700, moves=100, elapsed_ms=60_000
    )
    tie_b = finished_attempt(
        daily, username="tieb", won=True, score=700, moves=100, elapsed_ms=60_000
    )
    best = finished_attempt(
        daily, username="best", won=True, score=800, moves=130, elapsed_ms=99_000
    )
    # Equal keys: same finish instant too, so they share a rank.
    Game.objects.filter(pk=tie_b.pk).update(finished_at=tie_a.finished_at)
    assert daily_rankings.daily_rank(daily_id=daily.pk) == 5
    entries = _board(api_client)["entries"]
    assert [(e["user"], e["rank"]) for e in entries] == [
        ("best", 1), ("tiea", 2), ("tieb", 2), ("slow", 4), ("lost", 5),
    ]  # fmt: skip
    assert entries[0]["game"] == best.pk and entries[0]["score_display"] == "800"
    del lost_high, slow


def test_earlier_finish_breaks_the_last_tie(daily, finished_attempt, api_client):
    late = finished_attempt(
        daily,
        username="late",
        won=True,
        score=650,
        moves=99,
        elapsed_ms=5000,
        finished_offset_ms=10,
    )
    early = finished_attempt(
        daily, username="early", won=True, score=650, moves=99, elapsed_ms=5000
    )
    Game.objects.filter(pk=late.pk).update(finished_at=early.finished_at + timedelta(seconds=1))
    daily_rankings.daily_rank(daily_id=daily.pk)
    assert [(e["user"], e["rank"]) for e in _board(api_client)["entries"]] == [
        ("early", 1),
        ("late", 2),
    ]


def test_rank_is_idempotent(daily, finished_attempt):
    for i in range(3):
        finished_attempt(daily, won=bool(i % 2), score=100 * i, moves=50, elapsed_ms=1000 * i)

    def current() -> list[tuple[int, int, int]]:
        daily.refresh_from_db()
        rows = LeaderboardEntry.objects.filter(generation=daily.generation).order_by("position")
        return list(rows.values_list("game_id", "rank", "position"))

    daily_rankings.daily_rank(daily_id=daily.pk)
    first = current()
    daily_rankings.daily_rank(daily_id=daily.pk)
    assert current() == first and len(first) == 3


def test_me_percentile_and_around_me(daily, finished_attempt, api_client):
    games = [
        finished_attempt(
            daily, username=f"p{i:02d}", won=True, score=1000 - i, moves=100, elapsed_ms=1000
        )
        for i in range(45)
    ]
    daily_rankings.daily_rank(daily_id=daily.pk)
    me = games[30].user
    from accounts.tokens import token_create

    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=me)[1]}")
    board = _board(api_client)
    assert board["count"] == 45 and board["pages"] == 3 and board["page"] == 1
    assert board["me"]["rank"] == 31
    assert board["me"]["percentile"] == pytest.approx(100 * 15 / 45, abs=0.1)
    around = _board(api_client, "?around=me")
    assert around["page"] == 2
    assert me.username in [e["user"] for e in around["entries"]]
    assert _board(api_client, "?page=3")["entries"][-1]["user"] == "p44"


def test_leaderboard_query_count(
    daily, finished_attempt, api_client, django_assert_max_num_queries
):
    for i in range(25):
        finished_attempt(daily, won=True, score=i, moves=100, elapsed_ms=1000)
    daily_rankings.daily_rank(daily_id=daily.pk)
    with django_assert_max_num_queries(2) as captured:  # the board, a page with its games
        _board(api_client)
    # An entry shows a few of its game's figures: never the engine snapshot or the analysis.
    page_sql = captured.captured_queries[-1]["sql"]
    assert '"games_game"."moves"' in page_sql
    assert '"games_game"."snapshot"' not in page_sql
    assert '"games_game"."analysis"' not in page_sql


def test_integrity_flags_inhuman_timing_and_replay_mismatch(daily, make_user):
    from games import engine
    from games.daily.integrity import game_integrity_check
    from games.daily.services.attempts import daily_start
    from games.models import Action

    user, _ = make_user()
    game, _ = daily_start(user=user, day=DAY, mode="D1N")
    state = engine.GameState.from_code(
        str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
    )
    # Forty actions 20 ms apart: no person plays like that.
    notations = []
    for _ in range(40):
        action = (
            engine.Draw() if state.legal_moves()[0] == engine.Draw() else state.legal_moves()[0]
        )
        if state.raw().stock == ():
            action = engine.Recycle()
        state.apply(action)
        notations.append(engine.format_action(action))
    notations.append("resign")
    state.apply(engine.Resign())
    Action.objects.bulk_create(
        Action(game=game, seq=i, notation=n, score_after=0, at_ms=20 * i)
        for i, n in enumerate(notations, start=1)
    )
    from games.engine import snapshot

    Game.objects.filter(pk=game.pk).update(
        status="resigned", seq=len(notations), moves=state.moves, score=state.score,
        finished_at=game.started_at + timedelta(seconds=1), elapsed_ms=1000,
        snapshot=snapshot.dumps(state),
    )  # fmt: skip
    assert "inhuman timing" in game_integrity_check(game_id=game.pk)
    flagged = Game.objects.get(pk=game.pk)
    assert flagged.under_review and flagged.flag_withheld  # conclusive: off the final board
    # A stored result that the log does not give is flagged too.
    other, _ = daily_start(user=make_user()[0], day=DAY, mode="D1N")
    Action.objects.create(game=other, seq=1, notation="resign", score_after=0, at_ms=5000)
    Game.objects.filter(pk=other.pk).update(
        status="won", seq=1, finished_at=other.started_at + timedelta(seconds=5), elapsed_ms=5000
    )
    assert "replay gives resigned" in game_integrity_check(game_id=other.pk)


def test_streaks_over_three_days(clock, make_user, api_client):
    from games import engine
    from games.daily.services.attempts import daily_start

    user, _ = make_user("streaker")
    day = DAY
    for offset, win in ((0, True), (1, True), (2, False)):
        today = day + timedelta(days=offset)
        clock(at(today, 12))
        game, _ = daily_start(user=user, day=today, mode="D1N")
        Game.objects.filter(pk=game.pk).update(
            status="won" if win else "resigned", finished_at=game.started_at + timedelta(minutes=5),
            elapsed_ms=300_000, leaderboard_score=700 if win else 0,
        )  # fmt: skip
        clock(at(today + timedelta(days=1), 1))
        assert daily_closing.daily_close_due() >= 1
        streak = DailyStreak.objects.get(user=user, mode="D1N")
        expected = {0: (1, 1), 1: (2, 2), 2: (0, 2)}[offset]
        assert (streak.current, streak.longest) == expected
    board = api_client.get("/api/v1/leaderboards/streaks?mode=D1N").json()
    assert board["longest"][0]["user"] == "streaker" and board["longest"][0]["longest"] == 2
    assert board["current"] == []
    profile = api_client.get("/api/v1/users/streaker").json()
    assert profile["stats"]["streaks"] == {"D1N": {"current": 0, "longest": 2}}
    del engine


def test_close_is_idempotent(daily, finished_attempt, clock):
    finished_attempt(daily, won=True, score=700, moves=100, elapsed_ms=1000)
    clock(at(DAY + timedelta(days=1), 1, 30))
    assert daily_closing.daily_close(daily_id=daily.pk) is True
    assert daily_closing.daily_close(daily_id=daily.pk) is False
    assert DailyStreak.objects.get().current == 1


def test_tied_games_take_positions_in_id_order(daily, finished_attempt):
    """Positions among equal keys follow the game id, whatever order the rows are stored in
    (an UPDATE moves a row to the end of PostgreSQL's heap)."""
    tied = [
        finished_attempt(daily, username=f"t{i}", won=True, score=500, moves=90, elapsed_ms=9)
        for i in range(8)
    ]
    at = tied[0].finished_at
    for game in (tied[5], tied[0], tied[3], tied[7]):  # scramble the storage order
        Game.objects.filter(pk=game.pk).update(finished_at=at)
    Game.objects.filter(pk__in=[g.pk for g in tied]).update(finished_at=at)
    assert daily_rankings.daily_rank(daily_id=daily.pk) == 8
    daily.refresh_from_db()
    rows = LeaderboardEntry.objects.filter(generation=daily.generation).order_by("position")
    assert [(r.game_id, r.rank, r.position) for r in rows] == [
        (g.pk, 1, i) for i, g in enumerate(sorted(tied, key=lambda g: g.pk), start=1)
    ]


def _win_through_the_api(client, day):
    from games import engine
    from games.models import DailyDeal

    game = client.post(f"/api/v1/daily/{day.isoformat()}/D1N/start", format="json").json()
    daily = DailyDeal.objects.get(date=day, mode="D1N")
    for notation in daily.solution.split():
        body = {"seq": game["seq"], **engine.action_to_dict(engine.parse_action(notation))}
        game = client.post(f"/api/v1/games/{game['id']}/actions", body, format="json").json()
    assert game["status"] == "won"
    return game


def test_a_win_counts_for_the_streak_when_it_happens(clock, auth_client, api_client):
    """Not a day late, when the board closes: the profile shows it at once."""
    name = auth_client.user.username

    def streak():
        profile = api_client.get(f"/api/v1/users/{name}").json()
        return profile["stats"]["streaks"].get("D1N")

    for offset, expected in ((0, 1), (1, 2)):
        today = DAY + timedelta(days=offset)
        clock(at(today, 12))
        _win_through_the_api(auth_client, today)  # (the integrity check is not run here)
        assert streak() == {"current": expected, "longest": expected}
    clock(at(DAY + timedelta(days=2), 1, 30))  # both boards close: nothing counted twice
    daily_closing.daily_close_due()
    assert streak() == {"current": 2, "longest": 2}
    clock(at(DAY + timedelta(days=2), 12))  # a day the player does not win
    daily_deals.daily_deal_get_or_create(day=DAY + timedelta(days=2), mode="D1N")
    clock(at(DAY + timedelta(days=3), 1, 30))  # its board closes: the streak ends
    daily_closing.daily_close_due()
    assert streak() == {"current": 0, "longest": 2}


def test_a_withheld_win_leaves_the_streak_when_its_board_is_final(clock, auth_client, api_client):
    from games.daily.integrity import game_flag_review
    from games.models import FlagReview

    name = auth_client.user.username
    clock(at(DAY, 12))
    game = _win_through_the_api(auth_client, DAY)
    Game.objects.filter(pk=game["id"]).update(flag_reason="inhuman timing: ...", flag_withheld=True)

    def streak() -> dict[str, int]:
        return api_client.get(f"/api/v1/users/{name}").json()["stats"]["streaks"]["D1N"]

    assert streak() == {"current": 1, "longest": 1}  # under review while the board is open
    clock(at(DAY + timedelta(days=1), 1, 30))
    daily_closing.daily_close_due()
    assert streak() == {"current": 0, "longest": 0}
    game_flag_review(game_id=game["id"], review=FlagReview.CLEARED)  # it counts again
    assert streak()["longest"] == 1
    game_flag_review(game_id=game["id"], review=FlagReview.CONFIRMED)  # and not any more
    assert streak() == {"current": 0, "longest": 0}


def test_a_win_under_review_on_a_link_keeps_its_streak_until_confirmed(
    clock, auth_client, api_client
):
    from games.daily.integrity import game_flag_review
    from games.models import FlagReview

    name = auth_client.user.username
    clock(at(DAY, 12))
    game = _win_through_the_api(auth_client, DAY)
    Game.objects.filter(pk=game["id"]).update(flag_reason="same browser as x's attempt 1")
    clock(at(DAY + timedelta(days=1), 1, 30))
    daily_closing.daily_close_due()
    streaks = api_client.get(f"/api/v1/users/{name}").json()["stats"]["streaks"]["D1N"]
    assert streaks["longest"] == 1  # a neighbour's link is no proof: it counts under review
    game_flag_review(game_id=game["id"], review=FlagReview.CONFIRMED)
    streaks = api_client.get(f"/api/v1/users/{name}").json()["stats"]["streaks"]["D1N"]
    assert streaks == {"current": 0, "longest": 0}
