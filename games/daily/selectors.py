"""Daily challenge reads: the day's challenges, leaderboards, streaks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import Count, Max
from django.utils.translation import gettext, gettext_lazy, ngettext
from rest_framework.exceptions import NotAuthenticated

from accounts.following import following_ids
from accounts.models import User
from config.errors import NotFoundError
from games import clock, engine
from games import selectors as game_selectors
from games.daily import live
from games.daily import rating as rating_model
from games.daily.ranking import RANK_TIES, game_rank_key, rank_key_sql
from games.daily.rating import Skill, is_provisional, ranks_of, skill_after_idle
from games.models import (
    OFF_FINAL_BOARD,
    Badge,
    BadgeKind,
    DailyDeal,
    DailyStreak,
    Game,
    LeaderboardEntry,
    Rating,
    RatingChange,
    RatingNotice,
    draw_boards,
)

PAGE_SIZE = 20
STREAKS_SHOWN = 20


def _my_game(game: Game | None) -> dict[str, Any] | None:
    if game is None:
        return None
    rules = engine.Rules.from_preset(game.draw, game.preset)
    return {
        "id": game.pk,
        "status": game.status,
        "seq": game.seq,
        "moves": game.moves,
        "score": game.score,
        "score_display": engine.format_score(rules, game.score),
        # The owner's private note: no public answer says that an entry is being checked.
        "under_review": game.under_review,
    }


def daily_day(*, day: date, user: User | AnonymousUser, now: datetime) -> dict[str, Any]:
    """The challenges of one day: par, players, commitment, the caller's game; and, once a
    board is final, its code and salt.

    :raises NotFoundError: no challenges on that day.
    """
    dailies = list(
        DailyDeal.objects.filter(date=day, mode__in=settings.DAILY_MODES)
        .select_related("deal")
        .annotate(players=Count("games"))
        .order_by("mode")
    )
    if not dailies:
        raise NotFoundError(gettext("No daily challenges on %(day)s.") % {"day": day})
    mine, changes = _my_attempts(user=user, dailies=dailies)
    challenges = []
    for daily in dailies:
        my_game = _my_game(mine.get(daily.pk))
        if my_game is not None:
            # Written by the rating job once the board is final, never before.
            my_game["rating"] = changes.get(daily.pk)
        challenge: dict[str, Any] = {
            "mode": daily.mode,
            "par": daily.par,
            "players": daily.players,
            "commitment": daily.commitment,
            "final": daily.is_final,
            "my_game": my_game,
        }
        if daily.is_final:
            challenge["code"] = str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
            challenge["salt"] = daily.salt
        challenges.append(challenge)
    return {
        "date": day,
        "opens_at": clock.opens_at(day),
        "closes_at": clock.starts_close_at(day),
        "play_closes_at": clock.play_closes_at(day),
        "open": clock.accepts_starts(day, now),
        "challenges": challenges,
    }


def _my_attempts(
    *, user: User | AnonymousUser, dailies: Sequence[DailyDeal]
) -> tuple[dict[int | None, Game], dict[int, dict[str, int]]]:
    """The caller's ranked attempts at `dailies` and what their final boards did to the
    caller's rating (`_rating_change`), each by board id; nothing for a visitor."""
    if not isinstance(user, User):
        return {}, {}
    games = {g.daily_id: g for g in Game.objects.filter(user=user, daily__in=dailies)}
    changes = {
        change.daily_id: _rating_change(change)
        for change in RatingChange.objects.filter(user=user, daily__in=dailies)
    }
    return games, changes


def _rating_change(change: RatingChange) -> dict[str, int]:
    """A board's effect on a player's rating, as shown: the rating after it, and the change of
    the shown (rounded) ratings."""
    return {
        "rating": round(change.mu_after),
        "change": round(change.mu_after) - round(change.mu_before),
    }


# What a private profile's entry on a public board hides from others: its name and rank show,
# nothing its rating, or its rating history, could be rebuilt from.
_PRIVATE_HIDDEN = ("rating", "deviation", "low", "high", "boards")


def _private_masked(entry: dict[str, Any], *, player: User, viewer: object) -> dict[str, Any]:
    """`entry` of `player` on a public board as `viewer` sees it (the player sees it whole)."""
    if player.profile_private and not (isinstance(viewer, User) and viewer.pk == player.pk):
        entry.update({field: None for field in _PRIVATE_HIDDEN if field in entry})
    return entry


def _entry(
    game: Game, rank: int, rules: engine.Rules, changes: dict[int, dict[str, int]]
) -> dict[str, Any]:
    return {
        "rank": rank,
        "user": game.user.username,
        "won": game.status == Game.Status.WON,
        "score": game.leaderboard_score,
        "score_display": engine.format_score(rules, game.leaderboard_score),
        "moves": game.moves,
        "undos": game.undos,
        "elapsed_ms": game.elapsed_ms,
        "game": game.pk,
        "rating": changes.get(game.user_id),
    }


# What a page shows of an entry's game (a finished game does not change).
_ENTRY_GAME_FIELDS = (
    "status",
    "leaderboard_score",
    "moves",
    "undos",
    "elapsed_ms",
)


def daily_leaderboard(
    *,
    daily: DailyDeal,
    user: User | AnonymousUser,
    page: int | None,
    around_me: bool,
    following: bool = False,
) -> dict[str, Any]:
    """One page of a board's ranking generation, and the caller's place (`me`).

    Pages are ranges of the generation's `position`, so a deep page costs what page 1 costs.
    Everything is read from the generation the board points at (`DailyDeal.generation`), and the
    count is the one stored with it: no COUNT(*) on read.
    While the board is open and Redis is configured, `me` comes from the live sorted set
    when the generation does not have the caller's finished game yet.

    :raises NotFoundError: a page past the end.
    """
    if following:
        return _following_board(daily=daily, user=user, page=page, around_me=around_me)
    rules = engine.Rules.from_preset(daily.draw, daily.preset)
    count = daily.entries_count
    mine = _my_entry(daily=daily, user=user)
    around = mine["position"] if around_me and mine is not None else None
    page, pages, first = _page_window(page=page, count=count, around=around)
    rows = (
        LeaderboardEntry.objects.filter(
            generation_id=daily.generation_id, position__gte=first, position__lt=first + PAGE_SIZE
        )
        .select_related("game__user")
        .only(
            "rank",
            "game_id",
            *(f"game__{field}" for field in _ENTRY_GAME_FIELDS),
            "game__user__username",
            "game__user__profile_private",
        )
        .order_by("position")
        if count
        else []
    )
    wanted = [row.game.user_id for row in rows]
    if mine is not None and user.pk is not None:
        wanted.append(user.pk)
    changes = _final_changes(daily, wanted)
    me = None
    if mine is not None:
        me = {k: v for k, v in mine.items() if k != "position"}
        me["rating"] = changes.get(user.pk or 0)
    return {
        "date": daily.date,
        "mode": daily.mode,
        "final": daily.is_final,
        "following": False,
        "updated_at": daily.ranked_at,
        "difficulty": board_difficulty(daily),
        "count": count,
        "page": page,
        "pages": pages,
        "entries": [
            _private_masked(
                _entry(row.game, row.rank, rules, changes), player=row.game.user, viewer=user
            )
            for row in rows
        ],
        "me": me,
    }


def _final_changes(daily: DailyDeal, user_ids: list[int]) -> dict[int, dict[str, int]]:
    """The rating changes of a final board's players among `user_ids`; none for an open one
    (nothing is rated there)."""
    if not daily.is_final or not user_ids:
        return {}
    return {
        change.user_id: _rating_change(change)
        for change in RatingChange.objects.filter(daily=daily, user_id__in=user_ids)
    }


def _following_page(
    ranked: list[Any], *, mine: int | None, page: int | None, around_me: bool
) -> tuple[int, int, int, list[Any]]:
    """(page, pages, first position, rows of the page) of a following view's `ranked` rows;
    `mine` is the caller's index among them."""
    around = mine + 1 if around_me and mine is not None else None
    page, pages, first = _page_window(page=page, count=len(ranked), around=around)
    return page, pages, first, ranked[first - 1 : first - 1 + PAGE_SIZE]


def _following_me(rank: int, count: int) -> dict[str, Any]:
    return {"rank": rank, "count": count, "percentile": _percentile(rank, count)}


def _following_board(
    *, daily: DailyDeal, user: User | AnonymousUser, page: int | None, around_me: bool
) -> dict[str, Any]:
    """A board's following view: the caller and the players they follow (public ones), ranked
    among themselves by the board's rule, each with their rank on the whole board.

    Ranked from their games, as the board would rank them now, so a game finished since the
    last ranking is in; `board_rank` is the last ranking's (null until it has the game).

    :raises NotAuthenticated: a visitor (a following view is a player's).
    :raises NotFoundError: a page past the end.
    """
    if not isinstance(user, User):
        raise NotAuthenticated()
    rules = engine.Rules.from_preset(daily.draw, daily.preset)
    games = list(
        Game.objects.filter(daily=daily, user_id__in=following_ids(user=user))
        .exclude(status=Game.Status.PLAYING)
        .exclude(OFF_FINAL_BOARD)
        .select_related("user")
    )
    keys = {g.pk: game_rank_key(g) for g in games}
    games.sort(key=lambda g: (keys[g.pk], g.pk))
    ranks = ranks_of([keys[g.pk] for g in games])
    mine = next((i for i, g in enumerate(games) if g.user_id == user.pk), None)
    page, pages, _, shown = _following_page(
        list(zip(games, ranks, strict=True)), mine=mine, page=page, around_me=around_me
    )
    changes = _final_changes(daily, [g.user_id for g, _ in shown] + [user.pk])
    entries = []
    for game, rank in shown:
        placed = _generation_entry(daily=daily, user=game.user)
        entry = {**_entry(game, rank, rules, changes), "board_rank": placed[0] if placed else None}
        entries.append(_private_masked(entry, player=game.user, viewer=user))
    me = None
    if mine is not None:
        me = {
            **_following_me(ranks[mine], len(games)),
            "source": "following",
            "rating": changes.get(user.pk),
        }
    return {
        "date": daily.date,
        "mode": daily.mode,
        "final": daily.is_final,
        "following": True,
        "updated_at": daily.ranked_at,
        "difficulty": board_difficulty(daily),
        "count": len(games),
        "page": page,
        "pages": pages,
        "entries": entries,
        "me": me,
    }


def _percentile(rank: int | None, count: int) -> float | None:
    """The share of a board placed at or below `rank`: 100 for the leader; None without a
    rank or a board."""
    return round(100.0 * (count - rank + 1) / count, 1) if rank and count else None


def _page_window(*, page: int | None, count: int, around: int | None) -> tuple[int, int, int]:
    """(page, pages, the page's first position) of `count` rows in pages of PAGE_SIZE: the
    page of position `around` when given, else `page`, else the first.

    :raises NotFoundError: the page is past the end.
    """
    if around is not None:
        page = (around - 1) // PAGE_SIZE + 1
    page = page or 1
    pages = max(1, -(-count // PAGE_SIZE))
    if page > pages:
        raise NotFoundError(
            ngettext(
                "Page %(page)s is past the end (%(pages)s page).",
                "Page %(page)s is past the end (%(pages)s pages).",
                pages,
            )
            % {"page": page, "pages": pages}
        )
    return page, pages, (page - 1) * PAGE_SIZE + 1


def _my_entry(*, daily: DailyDeal, user: User | AnonymousUser) -> dict[str, Any] | None:
    """The caller's rank and percentile: from the generation, else live, else None."""
    if not user.is_authenticated:
        return None
    row = _generation_entry(daily=daily, user=user)
    if row is not None:
        (rank, position), count = row, daily.entries_count
        source = "snapshot"
    else:
        game = Game.objects.filter(daily=daily, user=user).exclude(status="playing").first()
        ranked = live.live_rank(game=game) if game is not None and not daily.is_final else None
        if ranked is None:
            return None
        (rank, count), position, source = ranked, None, "live"
    return {
        "rank": rank,
        "count": count,
        "percentile": _percentile(rank, count),
        "position": position,
        "source": source,
    }


# A generation's entries lie in ranking order by `position`, so a game's entry is found by a
# binary search over positions (about 20 index probes at 1M, in one statement) instead of an
# index on the user, which cost a fifth of every ranking run at 1M (docs/daily.md).
def _rank_tuple(alias: str) -> str:
    """The ranking order (`games.daily.ranking`, then the game id) as the columns of an
    ascending tuple, for the game `alias`."""
    key = rank_key_sql(alias)
    ties = ", ".join(f"{alias}.{column}" for column in RANK_TIES)
    return f"-({key}), {ties}, {alias}.id"


@functools.cache
def _generation_entry_sql() -> str:
    """The search of `_generation_entry`, built once per process. Parameters: board, user,
    entries count + 1, generation, entries count + 1, generation, generation."""
    q = connection.ops.quote_name
    entries, games = q(LeaderboardEntry._meta.db_table), q(Game._meta.db_table)
    ranked, game = _rank_tuple("ranked"), _rank_tuple("g")
    mine_columns = ", ".join(["key", *RANK_TIES, "id"])
    # lo..hi narrows to the first position whose entry does not rank before the game; each
    # row carries `before`: whether the entry at its midpoint ranks before the game.
    probe = (
        f"(SELECT ({ranked}) < (SELECT * FROM mine) FROM {entries} e"
        f" JOIN {games} ranked ON ranked.id = e.game_id"
        f" WHERE e.generation_id = %s AND e.position = {{at}})"
    )
    lo = "CASE WHEN before THEN (lo + hi) / 2 + 1 ELSE lo END"
    hi = "CASE WHEN before THEN hi ELSE (lo + hi) / 2 END"
    return f"""
        WITH RECURSIVE mine({mine_columns}) AS (
            SELECT {game} FROM {games} g
            WHERE g.daily_id = %s AND g.user_id = %s AND g.status <> 'playing'
        ), search(lo, hi, before) AS (
            SELECT 1, %s, {probe.format(at="(1 + %s) / 2")}
            UNION ALL
            SELECT {lo}, {hi}, {probe.format(at=f"({lo} + {hi}) / 2")}
            FROM search WHERE lo < hi
        )
        SELECT e.rank, e.position FROM {entries} e
        WHERE e.generation_id = %s AND e.position = (SELECT MAX(lo) FROM search)
          AND e.game_id = (SELECT id FROM mine)
    """


def final_rank(*, daily: DailyDeal, user: User) -> tuple[int, int] | None:
    """(rank, entries) of the user's ranked game on a final board; None when the board leaves
    it out (or has no such game)."""
    placed = _generation_entry(daily=daily, user=user)
    return (placed[0], daily.entries_count) if placed is not None else None


def _generation_entry(*, daily: DailyDeal, user: User) -> tuple[int, int] | None:
    """(rank, position) of the user's ranked game in the board's current generation; None when
    it is not in it (no finished game, finished after the ranking, or flagged then)."""
    if daily.generation_id is None or not daily.entries_count:
        return None
    end, generation = daily.entries_count + 1, daily.generation_id
    with connection.cursor() as cursor:
        cursor.execute(
            _generation_entry_sql(),
            [daily.pk, user.pk, end, generation, end, generation, generation],
        )
        row = cursor.fetchone()
    return (int(row[0]), int(row[1])) if row else None


def daily_streaks(*, mode: str) -> dict[str, Any]:
    """The longest and the current daily-win streaks of a mode, best first."""
    rows = DailyStreak.objects.filter(mode=mode).select_related("user")

    def shape(streak: DailyStreak) -> dict[str, Any]:
        return {
            "user": streak.user.username,
            "current": streak.current,
            "longest": streak.longest,
            "last_win": streak.last_win,
        }

    longest = rows.filter(longest__gt=0).order_by("-longest", "last_win", "id")
    current = rows.filter(current__gt=0).order_by("-current", "last_win", "id")
    return {
        "mode": mode,
        "longest": [shape(s) for s in longest[:STREAKS_SHOWN]],
        "current": [shape(s) for s in current[:STREAKS_SHOWN]],
    }


def rating_draws() -> list[int]:
    """The draws that have ratings: those of the daily modes."""
    return sorted({int(mode[1]) for mode in settings.DAILY_MODES})


def rating_draw_check(draw: int) -> int:
    """`draw` when it has ratings.

    :raises NotFoundError: no daily mode plays that draw.
    """
    draws = rating_draws()
    if draw not in draws:
        raise NotFoundError(
            gettext("No ratings for draw %(draw)s; the draws are %(draws)s.")
            % {"draw": draw, "draws": ", ".join(map(str, draws))}
        )
    return draw


# A rating's likely range: this many deviations either side, about 95 % of the skills the
# rating may stand for (Glickman's convention for Glicko: r ± 2 RD).
BAND_DEVIATIONS = 2


def rating_band(mu: float, sigma: float) -> tuple[int, int]:
    """(low, high): where the player's skill likely lies, as shown ("1620, likely between 1540
    and 1700"); rounded as the rating is."""
    return round(mu - BAND_DEVIATIONS * sigma), round(mu + BAND_DEVIATIONS * sigma)


def _rating_figures(rating: Rating, *, today: date) -> dict[str, Any]:
    """A rating as shown on `today`: its uncertainty grown by the days its player has missed
    since (`skill_after_idle`), and the band it spans."""
    skill = skill_after_idle(
        Skill(rating.mu, rating.sigma), last_board=rating.last_board, day=today
    )
    low, high = rating_band(skill.mu, skill.sigma)
    return {
        "rating": round(skill.mu),
        "deviation": round(skill.sigma),
        "low": low,
        "high": high,
        "boards": rating.boards,
        "provisional": is_provisional(rating.sigma),
        "provisional_deviation": round(rating_model.PROVISIONAL_SIGMA),
    }


def rating_leaderboard(
    *,
    draw: int,
    user: User | AnonymousUser,
    page: int | None,
    around_me: bool,
    now: datetime,
    following: bool = False,
) -> dict[str, Any]:
    """One page of a draw's established ratings, best first, and the caller's (`me`).

    Pages are ranges of `Rating.position`, which the rating job numbers after every board,
    so any page costs one index range, and the count is the last position.

    :raises NotFoundError: a draw without ratings, or a page past the end.
    """
    draw = rating_draw_check(draw)
    today = clock.today(now)
    if following:
        return _following_ratings(draw=draw, user=user, page=page, around_me=around_me, today=today)
    established = Rating.objects.filter(draw=draw, position__isnull=False)
    count = established.aggregate(last=Max("position"))["last"] or 0
    mine = Rating.objects.filter(draw=draw, user=user).first() if user.is_authenticated else None
    around = mine.position if around_me and mine is not None else None
    page, pages, first = _page_window(page=page, count=count, around=around)
    rows = (
        established.filter(position__gte=first, position__lt=first + PAGE_SIZE)
        .select_related("user")
        .only(
            "mu",
            "sigma",
            "boards",
            "last_board",
            "position",
            "user__username",
            "user__profile_private",
        )
        .order_by("position")
    )
    me = None
    if mine is not None:
        rank = mine.position
        me = {
            "rank": rank,
            "count": count,
            "percentile": _percentile(rank, count),
            **_rating_figures(mine, today=today),
        }
    return {
        "draw": draw,
        "following": False,
        "updated_at": _rated_at(draw),
        "count": count,
        "page": page,
        "pages": pages,
        "entries": [
            _private_masked(
                {
                    "rank": row.position,
                    "user": row.user.username,
                    **_rating_figures(row, today=today),
                },
                player=row.user,
                viewer=user,
            )
            for row in rows
        ],
        "me": me,
    }


def _rated_at(draw: int) -> datetime | None:
    """When a final board last rated players of `draw`."""
    rated = DailyDeal.objects.filter(draw_boards(draw)).aggregate(at=Max("rated_at"))
    return rated["at"]


def _following_ratings(
    *, draw: int, user: User | AnonymousUser, page: int | None, around_me: bool, today: date
) -> dict[str, Any]:
    """The rating board's following view: the caller and the players they follow who have a
    rating in `draw`, provisional ones too, ranked among themselves, each with their rank on
    the whole board (`board_rank`, null while provisional).

    :raises NotAuthenticated: a visitor.
    :raises NotFoundError: a page past the end.
    """
    if not isinstance(user, User):
        raise NotAuthenticated()
    rows = list(
        Rating.objects.filter(draw=draw, user_id__in=following_ids(user=user))
        .select_related("user")
        .order_by("-mu", "user_id")
    )
    mine = next((i for i, r in enumerate(rows) if r.user_id == user.pk), None)
    page, pages, first, shown = _following_page(rows, mine=mine, page=page, around_me=around_me)
    entries = [
        _private_masked(
            {
                "rank": first + i,
                "user": row.user.username,
                "board_rank": row.position,
                **_rating_figures(row, today=today),
            },
            player=row.user,
            viewer=user,
        )
        for i, row in enumerate(shown)
    ]
    me = None
    if mine is not None:
        me = {**_following_me(mine + 1, len(rows)), **_rating_figures(rows[mine], today=today)}
    return {
        "draw": draw,
        "following": True,
        "updated_at": _rated_at(draw),
        "count": len(rows),
        "page": page,
        "pages": pages,
        "entries": entries,
        "me": me,
    }


# A review's notice shows on the profile for this many days.
REVIEW_NOTICE_DAYS = 30


def user_ratings(*, user: User, now: datetime) -> list[dict[str, Any]]:
    """A player's rating in each draw they have one, with its place among the established,
    its percentile there (null while provisional), and the latest change a review made to it
    (`RatingNotice`, closed in the last REVIEW_NOTICE_DAYS days)."""
    today = clock.today(now)
    rows = list(Rating.objects.filter(user=user, draw__in=rating_draws()).order_by("draw"))
    counts = _established_counts([r.draw for r in rows if r.position is not None])
    reviews: dict[int, dict[str, Any]] = {}
    notices = RatingNotice.objects.filter(
        user=user, mu_after__isnull=False, created_at__gte=now - timedelta(days=REVIEW_NOTICE_DAYS)
    ).order_by("created_at", "id")
    for notice in notices:
        assert notice.mu_after is not None
        reviews[notice.draw] = {
            "date": notice.reviewed_day,
            "change": round(notice.mu_after) - round(notice.mu_before),
        }
    return [
        {
            "draw": rating.draw,
            "rank": rating.position,
            "percentile": _percentile(rating.position, counts.get(rating.draw, 0)),
            **_rating_figures(rating, today=today),
            "review": reviews.get(rating.draw),
        }
        for rating in rows
    ]


def _established_counts(draws: list[int]) -> dict[int, int]:
    """How many established ratings each of `draws` has (its last position); one index
    look-up per draw, in one query, none without draws."""
    if not draws:
        return {}
    rows = (
        Rating.objects.filter(draw__in=draws, position__isnull=False)
        .values("draw")
        .annotate(last=Max("position"))
        .values_list("draw", "last")
    )
    return dict(rows)


# The history a profile charts: at most this many boards, the latest.
HISTORY_SHOWN = 365


def rating_history(*, user: User, draw: int) -> dict[str, Any]:
    """What each final board did to a player's rating in a draw, oldest first (the latest
    HISTORY_SHOWN boards).

    :raises NotFoundError: a draw without ratings.
    """
    draw = rating_draw_check(draw)
    changes = list(
        RatingChange.objects.filter(user=user, draw=draw)
        .select_related("daily")
        .only("date", "daily__mode", "rank", "mu_before", "mu_after", "sigma_after")
        .order_by("-date", "-daily__mode")[:HISTORY_SHOWN]
    )
    return {
        "draw": draw,
        "points": [
            {
                "date": change.date,
                "mode": change.daily.mode,
                "rank": change.rank,
                "deviation": round(change.sigma_after),
                **_rating_change(change),
            }
            for change in reversed(changes)
        ],
    }


def board_difficulty(daily: DailyDeal) -> dict[str, Any] | None:
    """A final board's difficulty: its par, and the win rate among the entries that counted
    for ratings (read from the board, written by the rating job); None while the board is
    open or not rated yet."""
    if not daily.is_final or daily.counted_entries is None or daily.counted_wins is None:
        return None
    entries, wins = daily.counted_entries, daily.counted_wins
    return {
        "par": daily.par,
        "entries": entries,
        "wins": wins,
        "win_rate": round(100.0 * wins / entries, 1) if entries else None,
    }


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _month_after(month: date) -> date:
    return (month + timedelta(days=32)).replace(day=1)


def daily_calendar(*, month: date, user: User | AnonymousUser, now: datetime) -> dict[str, Any]:
    """A month of daily challenges, oldest first, with the caller's result on each: won, lost
    or still playing, with score, moves and time, and rank and rating change once the board
    is final; and the caller's streaks. A guest's has no results. A final board's `code` lets
    anyone practise its deal (an unranked game from the code).

    :raises NotFoundError: a month before the first daily challenge or after this one.
    """
    month = _month_start(month)
    this_month = _month_start(clock.today(now))
    first = DailyDeal.objects.order_by("date").values_list("date", flat=True).first()
    first_month = _month_start(first) if first is not None else this_month
    if not first_month <= month <= this_month:
        raise NotFoundError(
            gettext("No daily challenges in %(month)s.") % {"month": month.strftime("%Y-%m")}
        )
    dailies = list(
        DailyDeal.objects.filter(
            date__gte=month, date__lt=_month_after(month), mode__in=settings.DAILY_MODES
        )
        .select_related("deal")
        .order_by("date", "mode")
    )
    player = user if isinstance(user, User) else None
    games, changes = _my_attempts(user=user, dailies=dailies)
    days: dict[date, list[dict[str, Any]]] = {}
    for daily in dailies:
        challenge: dict[str, Any] = {
            "mode": daily.mode,
            "final": daily.is_final,
            "par": daily.par,
            "difficulty": board_difficulty(daily),
            "mine": _calendar_result(daily, games.get(daily.pk), player, changes),
        }
        if daily.is_final:
            challenge["code"] = str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
        days.setdefault(daily.date, []).append(challenge)
    return {
        "month": month.strftime("%Y-%m"),
        "previous": (month - timedelta(days=1)).strftime("%Y-%m") if month > first_month else None,
        "next": _month_after(month).strftime("%Y-%m") if month < this_month else None,
        "streaks": game_selectors.user_streaks(user=player) if player is not None else None,
        "days": [{"date": day, "challenges": challenges} for day, challenges in days.items()],
    }


def _calendar_result(
    daily: DailyDeal,
    game: Game | None,
    player: User | None,
    changes: dict[int, dict[str, int]],
) -> dict[str, Any] | None:
    """The player's ranked attempt at `daily`, as the calendar shows it; None when not played."""
    if game is None or player is None:
        return None
    rules = engine.Rules.from_preset(game.draw, game.preset)
    placed = _generation_entry(daily=daily, user=player) if daily.is_final else None
    result = {
        Game.Status.WON: "won",
        Game.Status.RESIGNED: "lost",
        Game.Status.PLAYING: "playing",
    }[Game.Status(game.status)]
    return {
        "game": game.pk,
        "result": result,
        "score": game.leaderboard_score if game.is_over else game.score,
        "score_display": engine.format_score(
            rules, game.leaderboard_score if game.is_over else game.score
        ),
        "moves": game.moves,
        "elapsed_ms": game.elapsed_ms,
        "rank": placed[0] if placed is not None else None,
        "rating": changes.get(daily.pk),
    }


# A badge's name and what it rewards, in the reader's language.
BADGE_TEXTS = {
    BadgeKind.FIRST_WIN: (gettext_lazy("First win"), gettext_lazy("Won a daily challenge.")),
    BadgeKind.STREAK_7: (
        gettext_lazy("7-day streak"),
        gettext_lazy("Won the daily challenge of one mode 7 days in a row."),
    ),
    BadgeKind.STREAK_30: (
        gettext_lazy("30-day streak"),
        gettext_lazy("Won the daily challenge of one mode 30 days in a row."),
    ),
    BadgeKind.NO_UNDO_WIN: (
        gettext_lazy("Clean win"),
        gettext_lazy("Won a daily challenge without an undo."),
    ),
    BadgeKind.UNDER_PAR: (
        gettext_lazy("Under par"),
        gettext_lazy("Won a daily challenge in fewer moves than its par."),
    ),
    BadgeKind.TOP_10: (
        gettext_lazy("Top 10"),
        gettext_lazy("Finished in the top 10 of a final daily board."),
    ),
}


def _badge_texts(kind: str) -> tuple[str, str]:
    if kind in BADGE_TEXTS:
        name, description = BADGE_TEXTS[BadgeKind(kind)]
        return str(name), str(description)
    rating = kind.removeprefix("rating_")  # the rating milestones
    return (
        gettext("Rating %(rating)s") % {"rating": rating},
        gettext("Reached a rating of %(rating)s in a draw.") % {"rating": rating},
    )


def user_badges(*, user: User) -> list[dict[str, Any]]:
    """The badges a player earned, oldest first, each with the board that earned it."""
    rows = Badge.objects.filter(user=user).select_related("daily").order_by("earned_on", "kind")
    badges = []
    for badge in rows:
        name, description = _badge_texts(badge.kind)
        badges.append(
            {
                "kind": badge.kind,
                "name": name,
                "description": description,
                "earned_on": badge.earned_on,
                "mode": badge.daily.mode,
            }
        )
    return badges
