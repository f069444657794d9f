"""Game writes: start a game, apply an action, finish by replay. The server is the referee.

Every write is atomic. An action reads its game, checks `seq`, applies the action to the
game's engine snapshot (no full replay on the hot path), then appends the log rows and updates
the cached counters only if `seq` is unchanged. When a game ends, it does so under the row's
lock, and the whole log is replayed from the stored deal and must agree.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import forget_process_token, user_check_active
from accounts.errors import AccountRequiredError
from accounts.models import User
from config.errors import ApplicationError
from config.hooks import Hook
from config.memo import ProcessMemo
from games import clock, engine, pool
from games.engine import snapshot, solver
from games.errors import (
    DailyDealOpenError,
    GameNotFoundError,
    GameOverError,
    IllegalMoveApiError,
    ReplayMismatchError,
    SeqMismatchError,
)
from games.game_rows import (
    IN_PLAY_FIELDS,
    LogEntry,
    TokenCheck,
    game_from_row,
    game_read,
    game_row,
    game_update,
    log_append,
    move_commit,
)
from games.models import Action, DailyDeal, Deal, Game
from games.refusals import refusal_message, refusal_rule

logger = logging.getLogger("games.services")

# Called inside the transaction that ends a game, under its row's lock, with the game (its
# figures final, its row not saved yet: a receiver may set `leaderboard_score`) and its whole
# log. The layers above connect to it in `games.apps`: the daily boards (a ranked attempt's
# score and ranking) and the tasks (a lost game's analysis).
game_ended: Hook[[Game, list[str]]] = Hook("games.services.game_ended")


def deal_get_or_create(*, number: int) -> Deal:
    """The stored deal for a KL1 deal number, created with its full layout on first use.

    Race-safe: two requests creating the same deal end with one row.
    """
    deal = Deal.objects.filter(scheme=1, number=number).first()
    if deal is not None:
        return deal
    layout = engine.Deal.from_number(number).to_dict()
    try:
        with transaction.atomic():
            return Deal.objects.create(scheme=1, number=number, layout=layout)
    except IntegrityError:
        return Deal.objects.get(scheme=1, number=number)


def game_rules(game: Game) -> engine.Rules:
    """The engine's rules of a game."""
    return engine.Rules.from_preset(game.draw, game.preset)


def game_code(game: Game) -> engine.DealCode:
    """The deal code of a game (whether the caller may see it is the selectors' business)."""
    return engine.DealCode(draw=game.draw, preset=game.preset, number=game.deal.number)


def game_state(game: Game) -> engine.GameState:
    """The game's engine state, from its snapshot (with only the last steps of its undo
    history, see `_applied`)."""
    return snapshot.loads(bytes(game.snapshot))


# Undo steps a game row's snapshot keeps. The whole history is nine tenths of the bytes and
# of the time to save and load a move; a few steps let most undos go without a replay.
SNAPSHOT_UNDO_STEPS = 4


def _snapshot_dumps(state: engine.GameState) -> bytes:
    return snapshot.dumps(state, history=SNAPSHOT_UNDO_STEPS)


def _log_notations(game: Game) -> list[str]:
    """The game's whole log, in order."""
    return list(Action.objects.filter(game=game).order_by("seq").values_list("notation", flat=True))


def game_setup(game: Game) -> tuple[engine.Deal, engine.Rules]:
    """The game's stored deal and its rules: what its log replays from."""
    return engine.Deal.from_dict(game.deal.layout), game_rules(game)


def _replay(game: Game, log: list[str]) -> engine.ReplayResult:
    """`log` replayed from the game's stored deal under its rules.

    :raises engine.ReplayError: a log the engine refuses.
    """
    return engine.replay(game_setup(game), log)


def undo_keeps_seen(game: Game) -> bool:
    """Whether the game's undo may not hide a card its player has seen: so in a ranked
    attempt (docs/daily.md, "One ranked attempt"), where an undo that would turn a card face
    down again is refused (`GameState.check_undo_keeps_seen`). A casual game's undo reaches
    back 100 actions, whatever they turned up."""
    return game.daily_id is not None


def game_undo_refusal(*, game: Game, state: engine.GameState) -> str | None:
    """The reason an Undo the engine's rules would take is refused in this game now:
    `undo_reveal` (see `undo_keeps_seen`), else None. `state` is the game's; one loaded
    without the step an undo would restore is rebuilt from the log to tell."""
    if not (state.can_undo and undo_keeps_seen(game)):
        return None
    try:
        revealed = state.last_action_revealed
    except engine.HistoryNotLoadedError:
        revealed = _replay(game, _log_notations(game)).state.last_action_revealed
    return "undo_reveal" if revealed else None


def _applied(game: Game, action: engine.Action) -> tuple[engine.GameState, engine.Applied]:
    """`action` applied to the game's state: the new state and what the action did. The state
    is the snapshot's, or for an undo that reaches past the steps the snapshot keeps, the
    state rebuilt from the log, which has the whole history. An undo of a ranked attempt is
    checked first (`undo_keeps_seen`); a refused action changes nothing.

    :raises IllegalMoveApiError: the rules refuse the action; the message names the rule.
    """
    keep_seen = type(action) is engine.Undo and undo_keeps_seen(game)

    def play(state: engine.GameState) -> tuple[engine.GameState, engine.Applied]:
        if keep_seen:
            state.check_undo_keeps_seen()
        return state, state.apply(action)

    try:
        try:
            return play(game_state(game))
        except engine.HistoryNotLoadedError:
            return play(_replay(game, _log_notations(game)).state)
    except engine.IllegalMoveError as exc:
        raise IllegalMoveApiError(
            refusal_message(exc.reason, exc.details),
            reason=exc.reason,
            details=exc.details,
            rule=refusal_rule(exc.reason),
        ) from None


def game_create(
    *, user: User, deal: Deal, rules: engine.Rules, kind: str, daily: DailyDeal | None = None
) -> Game:
    """Create a game at the start of `deal` under `rules`. The caller holds the transaction.

    :raises AccountRequiredError: a guest's ranked daily attempt: ranks are for accounts.
    """
    if kind == Game.Kind.DAILY and user.is_guest:
        raise AccountRequiredError(
            gettext(
                "Ranked daily challenges need an account: sign up (free) to play them; your "
                "games so far stay yours."
            )
        )
    state = engine.GameState.new(engine.Deal.from_dict(deal.layout), rules)
    game = Game.objects.create(
        user=user,
        deal=deal,
        draw=rules.draw,
        preset=rules.preset,
        kind=kind,
        daily=daily,
        score=state.score,
        snapshot=_snapshot_dumps(state),
        started_at=timezone.now(),
    )
    _keep_row(game)
    return game


@transaction.atomic
def game_start(
    *,
    user: User,
    code: str | None = None,
    draw: int | None = None,
    preset: str | None = None,
) -> Game:
    """Start a casual game from a deal code, or on a random deal for `draw` and `preset`.

    :raises AuthenticationFailed: the account was deactivated.
    :raises ApplicationError: a malformed code (code `invalid`).
    :raises DailyDealOpenError: the code is an open daily challenge's deal.
    """
    user_check_active(user_id=user.pk)
    if code is not None:
        try:
            deal_code = engine.DealCode.parse(code)
        except engine.DealCodeError as exc:
            message = gettext(
                "That is not a deal code: a code looks like KL1-D1N-AAAAAAG (draw D1 or D3, "
                "preset N, V, C or R)."
            )
            raise ApplicationError(message, fields={"code": [message, str(exc)]}) from None
        if pool.deal_number_is_open_daily(deal_code.number):
            raise DailyDealOpenError(
                gettext(
                    "This deal is an open daily challenge; play it from the daily page, or as "
                    "a casual game once its board is final."
                )
            )
    else:
        assert draw is not None and preset is not None
        deal_code = engine.DealCode(draw=draw, preset=preset, number=pool.deal_number_random())
    deal = deal_get_or_create(number=deal_code.number)
    return game_create(user=user, deal=deal, rules=deal_code.rules, kind=Game.Kind.CASUAL)


def games_unplayed_delete(*, users: QuerySet[User]) -> int:
    """Delete the games of `users` in which nothing was played (no action logged: the log
    is append-only, a game with one is kept); returns how many. For the purge of idle
    guests (`accounts.tasks.purge_idle_guests`)."""
    _, deleted = Game.objects.filter(user__in=users, seq=0).delete()
    return deleted.get(Game._meta.label, 0)


def game_start_winnable(*, user: User, draw: int, preset: str) -> tuple[Game, bool]:
    """Start a casual game of the mode on a deal the solver has proven winnable ("winnable
    deals only"): from the mode's pool, else one proven now within a short budget, else a
    random deal. Returns the game and whether its deal is proven winnable. The proof's winning
    line becomes the game's kept hint line, so that its first hint follows the proof without a
    search. Solves outside any transaction; queues a fill of the pool when it runs low.

    :raises AuthenticationFailed: the account was deactivated.
    """
    # games.hints imports this module (game_state): imported here, not at the top.
    from games.hints import hint_line_keep

    user_check_active(user_id=user.pk)
    proven = pool.deal_pool_take(draw=draw, preset=preset)
    if proven is None:
        proven = pool.deal_prove_now(draw=draw, preset=preset)
    if pool.deal_pool_low(draw=draw, preset=preset):
        pool.deal_pool_fill_queue(draw, preset)
    number = proven.number if proven is not None else pool.deal_number_random()
    deal_code = engine.DealCode(draw=draw, preset=preset, number=number)
    with transaction.atomic():
        deal = deal_get_or_create(number=deal_code.number)
        game = game_create(user=user, deal=deal, rules=deal_code.rules, kind=Game.Kind.CASUAL)
    if proven is not None and proven.line:  # committed: a cache entry, best effort
        hint_line_keep(game_id=game.pk, line_text=proven.line)
    return game, proven is not None


def _entries(applied: engine.Applied) -> list[LogEntry]:
    """The log rows of one applied action: the action itself, then its automatic moves."""
    rows = [LogEntry(engine.format_action(applied.action), applied.score)]
    rows += [LogEntry(engine.format_action(a.action), a.score) for a in applied.auto]
    return rows


def _wall_ms(game: Game, now: datetime) -> int:
    """Time since the game's start: an action's `at_ms`."""
    return clock.ms_since(game.started_at, now)


# Games in play by id, as of the last action this process committed (a row as `game_row`
# gives it). A game's row at a given `seq` never changes while it is in play: its actions only
# append, and each one moves `seq` on. So a kept row is either the one the database holds,
# or older; a move checks that its `seq` is the caller's, and its commit happens only if the
# database's `seq` and status still match (`move_commit`). Gunicorn keeps a client's
# connection on one worker, so its next move finds the row here. Rows are kept only once
# committed (`on_commit`), never from a transaction that may still roll back.
KEPT_GAMES_PER_PROCESS = 10_000  # ~1.5 KB each
_kept_games: ProcessMemo[int, tuple[Any, ...]] = ProcessMemo(max_entries=KEPT_GAMES_PER_PROCESS)


def _keep_row(game: Game) -> None:
    """Keep the game's row in this process's memory once the transaction commits."""
    transaction.on_commit(functools.partial(_kept_games.put, game.pk, game_row(game)))


def _live_game(*, game_id: int, user: User, seq: int) -> Game | None:
    """The caller's game from this process's memory, if kept there at the caller's `seq`."""
    row = _kept_games.get(game_id)
    if row is None:
        return None
    game = game_from_row(row)
    return game if game.user_id == user.pk and game.seq == seq else None


def _record(game: Game, state: engine.GameState, logged: int, at_ms: int) -> None:
    """Copy the state's figures (`IN_PLAY_FIELDS`) into the game, `logged` rows later, and
    move its casual clock on to the action made at `at_ms`."""
    game.clock_ms = clock.casual_clock_ms(game.clock_ms, game.last_action_ms, at_ms)
    game.last_action_ms = at_ms
    game.seq += logged
    game.moves = state.moves
    game.score = state.score
    game.undos = state.undos
    game.passes_used = state.passes_used
    game.foundations = state.foundation_count
    game.status = state.status
    game.snapshot = _snapshot_dumps(state)


def _check_token(token: TokenCheck | None) -> None:
    """Refuse a token the database no longer knows (revoked, expired, or its account
    deactivated) that this process still kept.

    :raises AuthenticationFailed: the token is not an active account's live token.
    """
    if token is None:
        return
    alive = AuthToken.objects.filter(
        digest=token.digest, expiry__gt=token.now, user__is_active=True
    ).exists()
    if not alive:
        forget_process_token(token.digest)
        raise AuthenticationFailed("Invalid token.")


def _check_playable(
    game: Game | None, seq: int, now: datetime, token: TokenCheck | None = None
) -> Game:
    """The game, if `seq` may be applied to it now."""
    if game is None:
        _check_token(token)
        raise GameNotFoundError(gettext("No such game."))
    if seq != game.seq:
        raise SeqMismatchError(
            gettext("This game moved on (another tab or device?): reload it."),
            expected=game.seq,
        )
    if game.is_over:
        raise GameOverError(gettext("This game is over: no action applies any more."))
    if game.daily is not None and not clock.accepts_play(game.daily.date, now):
        raise GameOverError(
            gettext(
                "The daily challenge has closed (games may be finished until 01:00 UTC); "
                "this attempt is recorded as it stands."
            )
        )
    return game


def game_action_apply(
    *,
    game_id: int,
    user: User,
    seq: int,
    action: engine.Action,
    token_digest: str | None = None,
) -> tuple[Game, engine.GameState]:
    """Apply one player action to the caller's game and append it to the log.

    Optimistic: the game is read without a lock, the action applied to its snapshot, and the
    log rows and the game's new figures are written in one atomic step that happens only if
    the game's `seq` is still the one read, so exactly one of several requests with the same
    `seq` is applied. An action that ends the game is applied again under the row's lock
    instead (`_apply_and_log`), where the end is checked by a full replay. Returns the game
    and its new engine state.

    The game is read from this process's memory when it holds the game at `seq`, else from
    the database. `token_digest` is the digest of the API token the caller authenticated
    with (a header's, or the one its session is bound to), if any: every statement then
    checks it is still the owner's and alive (see `ProcessTokenAuthentication`).

    :raises AuthenticationFailed: the token was revoked or expired, or its account
        deactivated.
    :raises GameNotFoundError: no such game of this user.
    :raises SeqMismatchError: `seq` is not the log's length (stale or repeated request).
    :raises GameOverError: the game is won or resigned, or its daily board has closed.
    :raises IllegalMoveApiError: the rules refuse the action; the message names the rule.
    """
    now = timezone.now()
    token = TokenCheck(token_digest, now) if token_digest is not None else None
    kept = _live_game(game_id=game_id, user=user, seq=seq)
    game = _check_playable(
        kept or game_read(game_id=game_id, user=user, token=token), seq, now, token
    )
    try:
        state, applied = _applied(game, action)
    except IllegalMoveApiError:
        if kept is None:
            raise
        # The kept row may be older than the database's (another process applied an action
        # since): a stale `seq` answers 409 first, whatever the action.
        _kept_games.discard(game_id)
        _check_playable(game_read(game_id=game_id, user=user, token=token), seq, now, token)
        raise
    if state.is_over:
        return _game_action_apply_locked(
            game_id=game_id, user=user, seq=seq, action=action, token=token
        )
    entries = _entries(applied)
    at_ms = _wall_ms(game, now)
    _record(game, state, len(entries), at_ms)
    if not move_commit(game, entries, read_seq=seq, at_ms=at_ms, token=token):
        _kept_games.discard(game_id)
        # Says why: the token, the game's end or its closed board; else another action won.
        _check_playable(game_read(game_id=game_id, user=user, token=token), seq, now, token)
        raise SeqMismatchError(gettext("Another action was applied first: reload the game."))
    _keep_row(game)
    return game, state


def game_action_check(
    *, game_id: int, user: User, seq: int, action: engine.Action, token_digest: str | None = None
) -> dict[str, Any]:
    """Whether the rules accept `action` in the caller's game at `seq`, and if not why, as a
    refusal says it (`reason`, `message` in the request's language, `rule`): what a 422 of
    `game_action_apply` would say, answered as a finding, not an error. Nothing is written.

    A page that knows from the game's `legal` list that a gesture is refused asks this
    instead of sending the action: the browser logs every failed request in its console.

    `token_digest` as for `game_action_apply`. The game is read from the database, with the
    token checked in the same statement: unlike a move, a check writes nothing that would
    check a token kept in this process's memory.

    :raises AuthenticationFailed: the token was revoked or expired, or its account
        deactivated.
    :raises GameNotFoundError: no such game of this user.
    :raises SeqMismatchError: `seq` is not the log's length.
    :raises GameOverError: the game is over, or its daily board has closed.
    """
    now = timezone.now()
    token = TokenCheck(token_digest, now) if token_digest is not None else None
    game = _check_playable(game_read(game_id=game_id, user=user, token=token), seq, now, token)
    try:
        _applied(game, action)
    except IllegalMoveApiError as exc:
        return {"legal": False, "message": exc.message, **exc.extra}
    return {"legal": True, "reason": None, "message": None, "details": {}, "rule": None}


@transaction.atomic
def _game_action_apply_locked(
    *, game_id: int, user: User, seq: int, action: engine.Action, token: TokenCheck | None
) -> tuple[Game, engine.GameState]:
    """`game_action_apply` with the game's row locked for the whole transaction."""
    now = timezone.now()
    game = game_read(game_id=game_id, user=user, lock=True, token=token)
    game = _check_playable(game, seq, now, token)
    return game, _apply_and_log(game, action, now)


@transaction.atomic
def game_finish_as_it_stands(*, game_id: int) -> Game | None:
    """Resign a game in play on the player's behalf (a daily board closing). Idempotent."""
    game = game_read(game_id=game_id, lock=True)
    if game is None or game.is_over:
        return game
    _apply_and_log(game, engine.Resign(), timezone.now())
    return game


def _apply_and_log(game: Game, action: engine.Action, now: datetime) -> engine.GameState:
    """Apply `action` to the locked game's snapshot, append the log rows, save the counters;
    on the game's end, check it by a full replay and compute its leaderboard score."""
    state, applied = _applied(game, action)
    at_ms = _wall_ms(game, now)
    entries = _entries(applied)
    log_append(game, entries, game.seq, at_ms)
    _record(game, state, len(entries), at_ms)
    if state.is_over:
        _kept_games.discard(game.pk)
        game.finished_at = now
        game.elapsed_ms = at_ms if game.daily_id is not None else game.clock_ms
        log = _log_notations(game)
        _check_by_replay(game, state, log)
        # What ranks a daily attempt and what the profile's best score reads, for every game:
        # cycling a card between a foundation and a column earns nothing there.
        game.leaderboard_score = engine.leaderboard_score(game_setup(game), log)
        game_ended(game, log)
    game_update(game, [*IN_PLAY_FIELDS, "finished_at", "elapsed_ms", "leaderboard_score"])
    return state


def game_replay_disagreement(*, game: Game, log: list[str], live: engine.GameState) -> str:
    """Replay `log` from the game's stored deal, and say what differs from the game's stored
    figures (status, score, moves, undos, seq) or from `live`'s position; "" when all agree.

    The referee's check when a game ends, and the integrity job's when it audits one.
    """
    try:
        result = _replay(game, log)
    except engine.ReplayError as exc:
        return f"log does not replay: {exc}"
    outcome = result.outcome
    stored = (game.status, game.score, game.moves, game.undos)
    if (outcome.status, outcome.score, outcome.moves, outcome.undos) != stored:
        return (
            f"replay gives {outcome.status}/{outcome.score}/{outcome.moves}/{outcome.undos}, "
            f"stored {stored}"
        )
    if len(log) != game.seq:
        return f"the log has {len(log)} entries, the game's seq is {game.seq}"
    if result.state.position_key() != live.position_key():
        return "replay ends in another position than the stored game"
    return ""


def _check_by_replay(game: Game, live: engine.GameState, log: list[str]) -> None:
    """Refuse the end of a game whose whole log (`log`), replayed from the deal, disagrees
    with play.

    The game's figures must already hold the live state's.
    """
    reason = game_replay_disagreement(game=game, log=log, live=live)
    if reason:
        logger.error("game %s: %s", game.pk, reason)
        raise ReplayMismatchError(
            gettext("The game's replay disagrees with play; the result was refused.")
        )


# Per position the analysis may try; a binary search tries about log2(actions) positions.
ANALYSIS_BUDGET_S_PER_POSITION = 0.5


def game_analyse(*, game_id: int) -> dict[str, object] | None:
    """Find where a lost or resigned game went wrong, and store it on the game.

    Idempotent: a game analysed once keeps its analysis. Returns it (None for a game that is
    in play, won, or missing).
    """
    game = Game.objects.select_related("deal").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RESIGNED:
        return None
    if game.analysis is not None:
        return dict(game.analysis)
    analysis = solver.analyse(
        *game_setup(game),
        _log_notations(game),
        budget_s_per_position=ANALYSIS_BUDGET_S_PER_POSITION,
    ).to_dict()
    Game.objects.filter(pk=game_id, analysis__isnull=True).update(analysis=analysis)
    return analysis
