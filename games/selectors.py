"""Game reads: what a caller may see, in the shapes the API sends."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Max, Min, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from games import clock, engine
from games.errors import GameNotFoundError
from games.models import Action, DailyStreak, Game
from games.refusals import refusal_message
from games.services import game_code, game_rules, game_setup, game_state, game_undo_refusal

logger = logging.getLogger(__name__)


def daily_board_open(game: Game) -> bool:
    """Whether the game is a daily attempt whose board is not final: until then nothing of
    its deal may reach anyone but what its owner saw while playing (api.md, "Replays")."""
    return game.daily is not None and not game.daily.is_final


def _visible_to(game: Game, user: User | AnonymousUser) -> bool:
    """Who may look at a game (api.md, "Replays"): the owner at any time; anyone else once
    it is over, except a daily attempt while its board is not final (a finished attempt is
    a solution of the day's deal)."""
    if game.user_id == user.pk:
        return True
    return game.is_over and not daily_board_open(game)


def game_get_for_owner(*, game_id: int, user: User) -> Game:
    """The caller's own game.

    :raises GameNotFoundError: no such game of this user.
    """
    game = Game.objects.select_related("deal", "daily").filter(pk=game_id, user=user).first()
    if game is None:
        raise GameNotFoundError(gettext("No such game."))
    return game


def game_get_visible(*, game_id: int, user: User | AnonymousUser) -> Game:
    """A game the caller may look at (see `_visible_to`).

    :raises GameNotFoundError: no such game, or one the caller may not see.
    """
    game = Game.objects.select_related("deal", "daily").filter(pk=game_id).first()
    if game is None or not _visible_to(game, user):
        raise GameNotFoundError(gettext("No such game."))
    return game


def game_code_visible(*, game: Game) -> str | None:
    """The deal code, or None while it must stay secret (an open daily deal)."""
    if daily_board_open(game):
        return None
    return str(game_code(game))


def game_elapsed_ms(*, game: Game) -> int:
    """The game's time, by the server's clock, at its end or (while it is played) now: a
    ranked attempt's from its start, a casual game's as `games.clock.casual_clock_ms` counts."""
    if game.elapsed_ms is not None:
        return game.elapsed_ms
    wall_ms = clock.ms_since(game.started_at, timezone.now())
    if game.daily_id is not None:
        return wall_ms
    return clock.casual_clock_ms(game.clock_ms, game.last_action_ms, wall_ms)


def game_clock_stops_in_ms(*, game: Game) -> int | None:
    """How much longer `game_elapsed_ms` counts if no action comes: None while it counts to
    the game's end (a ranked attempt in play), 0 when it is stopped (a game over; a casual
    game before its first action, or idle for `IDLE_LIMIT_MS` already)."""
    if game.is_over:
        return 0
    if game.daily_id is not None:
        return None
    if game.last_action_ms is None:
        return 0
    wall_ms = clock.ms_since(game.started_at, timezone.now())
    return max(0, clock.IDLE_LIMIT_MS - (wall_ms - game.last_action_ms))


def game_summary(*, game: Game) -> dict[str, Any]:
    """The game resource without the position (for lists)."""
    rules = game_rules(game)
    return {
        "id": game.pk,
        "code": game_code_visible(game=game),
        "kind": game.kind,
        "rules": rules.to_dict(),
        "status": game.status,
        "seq": game.seq,
        "moves": game.moves,
        "score": game.score,
        "score_display": engine.format_score(rules, game.score),
        "passes_used": game.passes_used,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "elapsed_ms": game_elapsed_ms(game=game),
        "clock_stops_in_ms": game_clock_stops_in_ms(game=game),
    }


def game_detail(*, game: Game, state: engine.GameState | None = None) -> dict[str, Any]:
    """The full game resource of the API spec: summary, `can_undo` (and `undo_refusal`, why
    not where the rules alone would allow it, in words too), the public position and its
    legal actions (from the state in hand: no query)."""
    state = state or game_state(game)
    undo_refusal = game_undo_refusal(game=game, state=state)
    return {
        **game_summary(game=game),
        "can_undo": state.can_undo and undo_refusal is None,
        "undo_refusal": undo_refusal,
        "undo_refusal_message": undo_refusal and refusal_message(undo_refusal, {}),
        "state": engine.public_view(state),
        "legal": engine.legal_view(state),
    }


def game_list_for_user(*, user: User) -> QuerySet[Game]:
    """The user's games, newest first."""
    return Game.objects.filter(user=user).select_related("deal", "daily").order_by("-id")


def game_replay_visible(*, game_id: int, user: User | AnonymousUser) -> Game:
    """A finished game whose replay the caller may see (see `_visible_to`).

    :raises GameNotFoundError: no such game, still in play, or not visible to the caller.
    """
    game = Game.objects.select_related("deal", "daily").filter(pk=game_id).first()
    if game is None or not game.is_over or not _visible_to(game, user):
        raise GameNotFoundError(gettext("No such game, or its replay is not available yet."))
    return game


def game_log(*, game: Game) -> list[Action]:
    """The game's whole action log, in order."""
    return list(Action.objects.filter(game=game).order_by("seq"))


def game_replay(*, game: Game) -> dict[str, Any]:
    """The replay document: code, rules, full initial layout, the log with the cards each
    action turned face up, the result, the analysis.

    While the game's daily board is not final the document is *redacted*: no code, deal or
    analysis, only the cards its owner saw. The caller checks who may see it
    (`game_replay_visible`).
    """
    log = game_log(game=game)
    redacted = daily_board_open(game)
    deal, rules = game_setup(game)
    start = engine.GameState.new(deal, rules)
    revealed = engine.replay(start, [row.notation for row in log], track_revealed=True).revealed
    assert revealed is not None
    return {
        "id": game.pk,
        "code": game_code_visible(game=game),
        "rules": rules.to_dict(),
        "redacted": redacted,
        "deal": None if redacted else game.deal.layout,
        "initial": engine.public_view(start),
        "actions": [
            {
                "seq": row.seq,
                "action": engine.action_to_dict(engine.parse_action(row.notation)),
                "notation": row.notation,
                "score_after": row.score_after,
                "at_ms": row.at_ms,
                "revealed": [str(card) for card in cards],
            }
            for row, cards in zip(log, revealed, strict=True)
        ],
        "result": {
            "status": game.status,
            "won": game.status == Game.Status.WON,
            "score": game.score,
            "score_display": engine.format_score(rules, game.score),
            "moves": game.moves,
            "undos": game.undos,
            "elapsed_ms": game_elapsed_ms(game=game),
        },
        "analysis": None if redacted else game.analysis,
    }


def game_export_for_user(*, user: User) -> Iterator[dict[str, Any]]:
    """Every finished game of the user with its log, oldest first, one document at a time;
    a daily attempt whose board is not final is redacted (`game_replay`)."""
    finished = (
        Game.objects.filter(user=user)
        .exclude(status=Game.Status.PLAYING)
        .select_related("deal", "daily")
        .order_by("id")
    )
    for game in finished.iterator(chunk_size=200):
        yield game_replay(game=game)


def game_replay_text(*, game: Game) -> str:
    """The replay as text: a header of comments, then one action per line in the notation."""
    code = game_code_visible(game=game)
    header = [
        f"# Klondike Daily game {game.pk}",
        f"# deal {code}" if code else "# deal hidden until the daily board is final",
        f"# result {game.status}, score {engine.format_score(game_rules(game), game.score)},"
        f" {game.moves} moves",
    ]
    lines = [row.notation for row in game_log(game=game)]
    return "\n".join([*header, *lines]) + "\n"


def _stats_row(
    played: int, won: int, best_score: int | None, rules: engine.Rules, **bests: Any
) -> dict[str, Any]:
    return {
        "played": played,
        "won": won,
        "win_rate": round(won / played, 4) if played else 0.0,
        "best_score": best_score,
        # As the rules write it: points, or Vegas dollars ("+$208"); "" without a score.
        "best_score_display": engine.format_score(rules, best_score)
        if best_score is not None
        else "",
        **bests,
    }


def user_game_stats(*, user: User) -> dict[str, Any]:
    """A player's finished games: played and won, win rate, best score (the leaderboard
    score, which cycling a card cannot pump), fewest moves to win and fastest win, overall
    and per mode (`D1N`, `D3V`, ...), by aggregate queries.

    Points and dollars do not compare, so the overall best score is the best Normal score.
    """
    finished = Game.objects.filter(user=user).exclude(status=Game.Status.PLAYING)
    won = Q(status=Game.Status.WON)
    aggregates = {
        "played": Count("id"),
        "won": Count("id", filter=won),
        "fewest_moves": Min("moves", filter=won),
        "fastest_win_ms": Min("elapsed_ms", filter=won),
    }
    best = "leaderboard_score"  # the score without pumping (games.engine.leaderboard_score)
    totals = finished.aggregate(**aggregates, best_score=Max(best, filter=Q(preset="N")))
    per_mode = (
        finished.values("draw", "preset")
        .annotate(**aggregates, best_score=Max(best))
        .order_by("draw", "preset")
    )
    modes = {}
    for row in per_mode:
        figures: dict[str, Any] = dict(row)
        draw, preset = figures.pop("draw"), figures.pop("preset")
        modes[f"D{draw}{preset}"] = _stats_row(
            **figures, rules=engine.Rules.from_preset(draw, preset)
        )
    return {**_stats_row(**totals, rules=engine.Rules.from_preset(1, "N")), "modes": modes}


def user_stats(*, user: User) -> dict[str, Any]:
    """A player's statistics: games played and won, win rate, bests, per mode, and streaks.

    Zeros and nulls until the player has finished games.
    """
    return {**user_game_stats(user=user), "streaks": user_streaks(user=user)}


def user_streaks(*, user: User) -> dict[str, dict[str, int]]:
    """The user's current and longest daily-win streak per mode."""
    return {
        s.mode: {"current": s.current, "longest": s.longest}
        for s in DailyStreak.objects.filter(user=user).order_by("mode")
    }
