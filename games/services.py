"""Game writes: start a game, apply an action, finish by replay. The server is the referee.

Every write is atomic. An action reads its game, checks `seq`, applies the action to the
game's engine snapshot (no full replay on the hot path), then appends the log rows and updates
the cached counters only if `seq` is unchanged. When a game ends, it does so under the row's
lock, and the whole log is replayed from the stored deal and must agree.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Field
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import forget_process_token, user_check_active
from accounts.models import User
from config.api import ApplicationError, ConflictError
from config.hooks import Hook
from config.memo import ProcessMemo
from games import clock, engine
from games.engine import snapshot, solver
from games.errors import (
    GameNotFoundError,
    GameOverError,
    IllegalMoveApiError,
    ReplayMismatchError,
    SeqMismatchError,
)
from games.models import Action, DailyDeal, Deal, Game

logger = logging.getLogger("games.services")

# Called inside the transaction that ends a game, under its row's lock, with the game (its
# figures final, its row not saved yet: a receiver may set `leaderboard_score`) and its whole
# log. The layers above connect to it in `games.apps`: the daily boards (a ranked attempt's
# score and ranking) and the tasks (a lost game's analysis).
game_ended: Hook[[Game, list[str]]] = Hook("games.services.game_ended")


class DailyDealOpenError(ConflictError):
    code = "daily_deal_open"


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


def _applied(game: Game, action: engine.Action) -> tuple[engine.GameState, engine.Applied]:
    """`action` applied to the game's state: the new state and what the action did. The state
    is the snapshot's, or for an undo that reaches past the steps the snapshot keeps, the
    state rebuilt from the log, which has the whole history.

    :raises IllegalMoveApiError: the rules refuse the action; the message names the rule.
    """
    state = game_state(game)
    try:
        try:
            return state, state.apply(action)
        except engine.HistoryNotLoadedError:
            state = _replay(game, _log_notations(game)).state
            return state, state.apply(action)
    except engine.IllegalMoveError as exc:
        raise IllegalMoveApiError(str(exc)) from None


def game_create(
    *, user: User, deal: Deal, rules: engine.Rules, kind: str, daily: DailyDeal | None = None
) -> Game:
    """Create a game at the start of `deal` under `rules`. The caller holds the transaction."""
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
    _keep_live(game)
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
            raise ApplicationError(str(exc), fields={"code": [str(exc)]}) from None
        if _open_daily_number(deal_code.number):
            raise DailyDealOpenError(
                "This deal is an open daily challenge; play it from the daily page, or as a "
                "casual game once its board is final."
            )
    else:
        assert draw is not None and preset is not None
        number = secrets.randbelow(engine.MAX_NUMBER + 1)
        # A casual game has hints and a public replay: never on an open daily's deal.
        while _open_daily_number(number):
            number = secrets.randbelow(engine.MAX_NUMBER + 1)
        deal_code = engine.DealCode(draw=draw, preset=preset, number=number)
    deal = deal_get_or_create(number=deal_code.number)
    return game_create(user=user, deal=deal, rules=deal_code.rules, kind=Game.Kind.CASUAL)


def _open_daily_number(number: int) -> bool:
    """Whether a KL1 deal number is the deal of a daily board that is not final."""
    return DailyDeal.objects.filter(
        deal__scheme=1, deal__number=number, finalized_at__isnull=True
    ).exists()


@dataclass(frozen=True)
class _Entry:
    notation: str
    score_after: int | None


def _entries(applied: engine.Applied) -> list[_Entry]:
    """The log rows of one applied action: the action itself, then its automatic moves."""
    rows = [_Entry(engine.format_action(applied.action), applied.score)]
    rows += [_Entry(engine.format_action(a.action), a.score) for a in applied.auto]
    return rows


def _elapsed_ms(game: Game, now: datetime) -> int:
    return max(0, int((now - game.started_at).total_seconds() * 1000))


# --- The move's hot path: SQL written once, from the models ---------------------------------
# A move is the API's hottest write, and Django's query compiler cost more CPU than all the
# rest of a move: about 1.5 ms for the SELECT with its join, 1 ms each for the INSERT and the
# UPDATE, against 0.4 ms for a whole request to a constant view (measured with bench/stack.py).
# So these statements are the ones the ORM would send (or, for the commit of a move, one
# statement in place of a transaction of two), written from the models' metadata (a new field
# is picked up), and the rows become model instances through Django's own converters and
# `Model.from_db`. A move in play costs one round trip to PostgreSQL, the commit: the game's
# row is kept in this process's memory as of its last committed action (`_live_games`), and
# read from the database only when that copy is missing or not the one the caller has seen.

_DEAL_FIELDS = ("id", "scheme", "number")  # the layout is needed only when the game ends
_DAILY_FIELDS = ("id", "date", "finalized_at")  # what a move needs of a daily board


@dataclass(frozen=True)
class _GameQuery:
    sql: str
    converters: tuple[tuple[Any, ...], ...]  # per column of `_row_fields`: Django's converters


@functools.cache
def _row_fields() -> tuple[Field[Any, Any], ...]:
    """What a move reads of a game: its concrete fields, then _DEAL_FIELDS[1:] of its deal
    and _DAILY_FIELDS[1:] of its daily board."""
    return (
        *Game._meta.concrete_fields,
        *(Deal._meta.get_field(name) for name in _DEAL_FIELDS[1:]),
        *(DailyDeal._meta.get_field(name) for name in _DAILY_FIELDS[1:]),
    )


class _TokenCheck(NamedTuple):
    """The caller's API token as a move's statements check it: its digest, alive at `now`."""

    digest: str
    now: datetime

    def params(self) -> list[object]:
        """The parameters of `_token_check_sql`."""
        return [self.digest, connection.ops.adapt_datetimefield_value(self.now)]


@functools.cache
def _token_check_sql() -> str:
    """`EXISTS (...)`: the token whose digest is the first parameter exists, has not expired
    at the second, is the game owner's, and that account is active. The move statements
    carry it, so a token kept in a process's memory (`ProcessTokenAuthentication`) is checked
    by the database all the same: revoked, expired or deactivated, it moves nothing."""
    q = connection.ops.quote_name
    token, user, game = AuthToken._meta, User._meta, Game._meta
    t, u = q(token.db_table), q(user.db_table)
    return (
        f"EXISTS (SELECT 1 FROM {t} INNER JOIN {u} ON {t}.{q(token.get_field('user').column)}"
        f" = {u}.{q(user.pk.column)} WHERE {t}.{q(token.pk.column)} = %s"
        f" AND {t}.{q(token.get_field('expiry').column)} > %s"
        f" AND {u}.{q(user.pk.column)} = {q(game.db_table)}.{q(game.get_field('user').column)}"
        f" AND {u}.{q(user.get_field('is_active').column)})"
    )


@functools.cache
def _game_query(*, for_user: bool, lock: bool, token: bool = False) -> _GameQuery:
    """`SELECT game.*, deal.scheme, deal.number, daily.date, ... [FOR UPDATE OF game]` by id
    (and owner, and with `token` the owner's token): what `Game.objects[.select_for_update(
    of=("self",))].select_related("deal", "daily").only(<game fields>, "deal__scheme",
    "deal__number", "daily__date", "daily__finalized_at")` sends, built once per process."""
    q = connection.ops.quote_name
    game, deal, daily = Game._meta, Deal._meta, DailyDeal._meta
    fields = _row_fields()
    columns = ", ".join(f"{q(f.model._meta.db_table)}.{q(f.column)}" for f in fields)

    def join(kind: str, fk: str, target: Any) -> str:
        return (
            f" {kind} JOIN {q(target.db_table)} ON {q(game.db_table)}."
            f"{q(game.get_field(fk).column)} = {q(target.db_table)}.{q(target.pk.column)}"
        )

    sql = (
        f"SELECT {columns} FROM {q(game.db_table)}"
        + join("INNER", "deal", deal)
        + join("LEFT OUTER", "daily", daily)
        + f" WHERE {q(game.db_table)}.{q(game.pk.column)} = %s"
    )
    if for_user:
        sql += f" AND {q(game.db_table)}.{q(game.get_field('user').column)} = %s"
    if token:
        sql += " AND " + _token_check_sql()
    if lock and connection.features.has_select_for_update:  # SQLite locks the whole database
        of = (q(game.db_table),) if connection.features.has_select_for_update_of else ()
        sql += " " + connection.ops.for_update_sql(of=of)
    converters = []
    for f in fields:
        col = f.get_col(f.model._meta.db_table)
        converters.append(
            (col, *connection.ops.get_db_converters(col), *col.get_db_converters(connection))
        )
    return _GameQuery(sql, tuple(converters))


@contextlib.contextmanager
def _hot_cursor() -> Iterator[Any]:
    """A cursor for a move's statements. On PostgreSQL it binds parameters on the server, so
    each statement is parsed and planned once per connection (prepared, see the database
    OPTIONS in config/settings.py): a third of the database's CPU per move, and half of the
    driver's. It is made once per connection and kept on it. Elsewhere, Django's usual
    cursor."""
    db = connections[DEFAULT_DB_ALIAS]  # once: each `connection.x` looks the thread's up
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            yield cursor
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    db.ensure_connection()
    db.validate_thread_sharing()
    # Django's wrapper, as `connection.cursor()` gives: errors become django.db errors, and
    # the statements are recorded where queries are (DEBUG, tests).
    if db.queries_logged:
        with db.make_debug_cursor(ServerBindingCursor(db.connection)) as cursor:
            yield cursor
        return
    kept = getattr(db, "_klondike_hot_cursor", None)
    if kept is None or kept[0] is not db.connection:  # none yet, or a new connection since
        kept = (db.connection, db.make_cursor(ServerBindingCursor(db.connection)))
        db._klondike_hot_cursor = kept  # type: ignore[attr-defined]
    yield kept[1]


def _game_read(
    *, game_id: int, user: User | None = None, lock: bool = False, token: _TokenCheck | None = None
) -> Game | None:
    """The game with its deal (the layout is loaded on first use) and a daily game's board
    (its date; the rest is loaded on first use); with `lock`, its row is locked until the
    transaction ends. With `token`, only if that token is the owner's (see _token_check_sql).
    """
    query = _game_query(for_user=user is not None, lock=lock, token=token is not None)
    params: list[object] = [game_id] if user is None else [game_id, user.pk]
    with _hot_cursor() as cursor:
        cursor.execute(query.sql, params if token is None else [*params, *token.params()])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for value, (col, *converters) in zip(row, query.converters, strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        values.append(value)
    return _game_from_row(tuple(values))


@functools.cache
def _game_attnames() -> tuple[str, ...]:
    """The attribute names of Game's concrete fields, the first of `_row_fields`."""
    return tuple(f.attname for f in Game._meta.concrete_fields)


def _game_from_row(values: tuple[Any, ...]) -> Game:
    """The game (with its deal and daily board) from its values in `_row_fields` order."""
    n = len(Game._meta.concrete_fields)
    d = n + len(_DEAL_FIELDS) - 1
    game = Game.from_db(DEFAULT_DB_ALIAS, _game_attnames(), values[:n])
    game.deal = Deal.from_db(DEFAULT_DB_ALIAS, _DEAL_FIELDS, [game.deal_id, *values[n:d]])
    if game.daily_id is not None:
        game.daily = DailyDeal.from_db(
            DEFAULT_DB_ALIAS, _DAILY_FIELDS, [game.daily_id, *values[d:]]
        )
    return game


def _game_row(game: Game) -> tuple[Any, ...]:
    """The values `_game_from_row` takes, from a game with its deal and daily board."""
    daily = game.daily
    return (
        *(getattr(game, name) for name in _game_attnames()),
        *(getattr(game.deal, name) for name in _DEAL_FIELDS[1:]),
        *(getattr(daily, name) if daily is not None else None for name in _DAILY_FIELDS[1:]),
    )


# Games in play by id, as of the last action this process committed (a row in `_row_fields`
# order). A game's row at a given `seq` never changes while it is in play: its actions only
# append, and each one moves `seq` on. So a kept row is either the one the database holds,
# or older; a move checks that its `seq` is the caller's, and its commit happens only if the
# database's `seq` and status still match (`_move_commit`). Gunicorn keeps a client's
# connection on one worker, so its next move finds the row here. Rows are kept only once
# committed (`on_commit`), never from a transaction that may still roll back.
LIVE_GAMES_PER_PROCESS = 10_000  # ~1.5 KB each
_live_games: ProcessMemo[int, tuple[Any, ...]] = ProcessMemo(max_entries=LIVE_GAMES_PER_PROCESS)


def _keep_live(game: Game) -> None:
    """Keep the game's row in this process's memory once the transaction commits."""
    transaction.on_commit(functools.partial(_live_games.put, game.pk, _game_row(game)))


def _live_game(*, game_id: int, user: User, seq: int) -> Game | None:
    """The caller's game from this process's memory, if kept there at the caller's `seq`."""
    row = _live_games.get(game_id)
    if row is None:
        return None
    game = _game_from_row(row)
    return game if game.user_id == user.pk and game.seq == seq else None


_LOG_COLUMNS = ("game", "seq", "notation", "score_after", "at_ms")


def _log_rows(game: Game, entries: Sequence[_Entry], after_seq: int, at_ms: int) -> list[object]:
    """The parameters of the log rows of one action, in `_LOG_COLUMNS` order, numbered from
    `after_seq` + 1."""
    params: list[object] = []
    for i, entry in enumerate(entries, start=1):
        params += [game.pk, after_seq + i, entry.notation, entry.score_after, at_ms]
    return params


def _log_append(game: Game, entries: Sequence[_Entry], after_seq: int, at_ms: int) -> None:
    """INSERT the log rows of one action (what `Action.objects.bulk_create` sends)."""
    q = connection.ops.quote_name
    action = Action._meta
    columns = ", ".join(q(action.get_field(name).column) for name in _LOG_COLUMNS)
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(entries))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {q(action.db_table)} ({columns}) VALUES {values}",
            _log_rows(game, entries, after_seq, at_ms),
        )


def _game_update_sql(
    fields: Sequence[str], *, in_play_at_seq: bool = False, token: bool = False
) -> tuple[str, list[Field[Any, Any]]]:
    """`UPDATE game SET <fields> WHERE id = %s [AND seq = %s AND status = 'playing'] [AND
    <the token is the owner's>]` and the fields it sets."""
    q = connection.ops.quote_name
    meta = Game._meta
    targets = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{q(f.column)} = %s" for f in targets)
    sql = f"UPDATE {q(meta.db_table)} SET {assignments} WHERE {q(meta.pk.column)} = %s"
    if in_play_at_seq:
        sql += f" AND {q(meta.get_field('seq').column)} = %s"
        sql += f" AND {q(meta.get_field('status').column)} = '{Game.Status.PLAYING}'"
    if token:
        sql += " AND " + _token_check_sql()
    return sql, targets


def _game_update_params(game: Game, targets: Sequence[Field[Any, Any]]) -> list[object]:
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in targets]
    return [*params, game.pk]


def _game_update(game: Game, fields: Sequence[str]) -> None:
    """UPDATE the game's row with these fields (what `game.save(update_fields=...)` sends)."""
    sql, targets = _game_update_sql(fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, _game_update_params(game, targets))


# What a move in play changes; the end of a game sets more (see `_apply_and_log`).
_IN_PLAY_FIELDS = (
    "seq",
    "moves",
    "score",
    "undos",
    "passes_used",
    "foundations",
    "status",
    "snapshot",
)


@functools.cache
def _move_commit_sql(rows: int, *, token: bool) -> str:
    """PostgreSQL: one statement that updates the game if it is still in play at the `seq`
    read (and `token` is its owner's), and only then appends the log rows (`rows` of them);
    it inserts nothing otherwise."""
    q = connection.ops.quote_name
    update, _ = _game_update_sql(_IN_PLAY_FIELDS, in_play_at_seq=True, token=token)
    action = Action._meta
    fields = [action.get_field(name) for name in _LOG_COLUMNS]
    columns = ", ".join(q(f.column) for f in fields)
    # Typed, so that a column of NULLs (no scoring) is not taken for text.
    row = "(" + ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in fields) + ")"
    names = ", ".join(f"c{i}" for i in range(len(fields)))
    sql = (
        f"WITH updated AS ({update} RETURNING 1) "
        f"INSERT INTO {q(action.db_table)} ({columns}) "
        f"SELECT {names} FROM updated, (VALUES {', '.join([row] * rows)}) AS v({names})"
    )
    return sql


def _move_commit(
    game: Game, entries: Sequence[_Entry], *, read_seq: int, at_ms: int, token: _TokenCheck | None
) -> bool:
    """Append the log rows of one action and save the game's figures, atomically, if the
    game is still in play at `read_seq` (and `token`, if given, is still its owner's); False
    (nothing written) otherwise, as when another action came first.

    `game` holds the new figures (`_record`)."""
    # The in-play fields are ints, text and bytes, which both drivers bind as they are.
    update = [*(getattr(game, name) for name in _IN_PLAY_FIELDS), game.pk]
    checks: list[object] = [read_seq] if token is None else [read_seq, *token.params()]
    if connection.vendor == "postgresql":  # one round trip, no transaction to open and close
        sql = _move_commit_sql(len(entries), token=token is not None)
        log_params = _log_rows(game, entries, read_seq, at_ms)
        with _hot_cursor() as cursor:
            cursor.execute(sql, [*update, *checks, *log_params])
            return cursor.rowcount == len(entries)
    sql, _ = _game_update_sql(_IN_PLAY_FIELDS, in_play_at_seq=True, token=token is not None)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [*update, *checks])
        if cursor.rowcount != 1:
            return False
        _log_append(game, entries, read_seq, at_ms)
    return True


def _record(game: Game, state: engine.GameState, logged: int) -> None:
    """Copy the state's figures (`_IN_PLAY_FIELDS`) into the game, `logged` rows later."""
    game.seq += logged
    game.moves = state.moves
    game.score = state.score
    game.undos = state.undos
    game.passes_used = state.passes_used
    game.foundations = state.foundation_count
    game.status = state.status
    game.snapshot = _snapshot_dumps(state)


def _check_token(token: _TokenCheck | None) -> None:
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
    game: Game | None, seq: int, now: datetime, token: _TokenCheck | None = None
) -> Game:
    """The game, if `seq` may be applied to it now."""
    if game is None:
        _check_token(token)
        raise GameNotFoundError("No such game.")
    if seq != game.seq:
        raise SeqMismatchError(
            f"This game's log has {game.seq} actions, not {seq}: reload the game.",
            expected=game.seq,
        )
    if game.is_over:
        raise GameOverError(f"The game is over ({game.status}); no action applies any more.")
    if game.daily is not None and not clock.accepts_play(game.daily.date, now):
        raise GameOverError(
            "The daily challenge has closed (games may be finished until 01:00 UTC); "
            "this attempt is recorded as it stands."
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
    token = _TokenCheck(token_digest, now) if token_digest is not None else None
    kept = _live_game(game_id=game_id, user=user, seq=seq)
    game = _check_playable(
        kept or _game_read(game_id=game_id, user=user, token=token), seq, now, token
    )
    try:
        state, applied = _applied(game, action)
    except IllegalMoveApiError:
        if kept is None:
            raise
        # The kept row may be older than the database's (another process applied an action
        # since): a stale `seq` answers 409 first, whatever the action.
        _live_games.discard(game_id)
        _check_playable(_game_read(game_id=game_id, user=user, token=token), seq, now, token)
        raise
    if state.is_over:
        return _game_action_apply_locked(
            game_id=game_id, user=user, seq=seq, action=action, token=token
        )
    entries = _entries(applied)
    _record(game, state, len(entries))
    if not _move_commit(game, entries, read_seq=seq, at_ms=_elapsed_ms(game, now), token=token):
        _live_games.discard(game_id)
        # Says why: the token, the game's end or its closed board; else another action won.
        _check_playable(_game_read(game_id=game_id, user=user, token=token), seq, now, token)
        raise SeqMismatchError("Another action was applied first: reload the game.")
    _keep_live(game)
    return game, state


@transaction.atomic
def _game_action_apply_locked(
    *, game_id: int, user: User, seq: int, action: engine.Action, token: _TokenCheck | None
) -> tuple[Game, engine.GameState]:
    """`game_action_apply` with the game's row locked for the whole transaction."""
    now = timezone.now()
    game = _game_read(game_id=game_id, user=user, lock=True, token=token)
    game = _check_playable(game, seq, now, token)
    return game, _apply_and_log(game, action, now)


@transaction.atomic
def game_finish_as_it_stands(*, game_id: int) -> Game | None:
    """Resign a game in play on the player's behalf (a daily board closing). Idempotent."""
    game = _game_read(game_id=game_id, lock=True)
    if game is None or game.is_over:
        return game
    _apply_and_log(game, engine.Resign(), timezone.now())
    return game


def _apply_and_log(game: Game, action: engine.Action, now: datetime) -> engine.GameState:
    """Apply `action` to the locked game's snapshot, append the log rows, save the counters;
    on the game's end, check it by a full replay."""
    state, applied = _applied(game, action)
    at_ms = _elapsed_ms(game, now)
    entries = _entries(applied)
    _log_append(game, entries, game.seq, at_ms)
    _record(game, state, len(entries))
    if state.is_over:
        _live_games.discard(game.pk)
        game.finished_at = now
        game.elapsed_ms = at_ms
        log = _log_notations(game)
        _check_by_replay(game, state, log)
        game_ended(game, log)
    _game_update(game, [*_IN_PLAY_FIELDS, "finished_at", "elapsed_ms", "leaderboard_score"])
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
        raise ReplayMismatchError("The game's replay disagrees with play; the result was refused.")


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
