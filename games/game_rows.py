"""A game's row and its log's rows, as the move's hot path reads and writes them: in SQL, the
statements a move sends, written once per process from the models' metadata.

A move is the API's hottest write, and Django's query compiler cost more CPU than all the
rest of a move: about 1.5 ms for the SELECT with its join, 1 ms each for the INSERT and the
UPDATE, against 0.4 ms for a whole request to a constant view (measured with bench/stack.py).
So these statements are the ones the ORM would send (or, for the commit of a move, one
statement in place of a transaction of two), written from the models' metadata (a new field
is picked up), and the rows become model instances through Django's own converters and
`Model.from_db`. A move in play costs one round trip to PostgreSQL, the commit: the game's
row is kept in the process's memory as of its last committed action
(`games.services._kept_games`), and read from the database (`game_read`) only when that copy
is missing or not the one the caller has seen.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Field
from knox.models import AuthToken

from accounts.models import User
from games.models import Action, DailyDeal, Deal, Game


@dataclass(frozen=True)
class LogEntry:
    """One row of the move log to append: the action in notation, and the score after it."""

    notation: str
    score_after: int | None


_DEAL_FIELDS = ("id", "scheme", "number")  # the layout is needed only when the game ends
_DAILY_FIELDS = ("id", "date", "finalized_at")  # what a move needs of a daily board


@dataclass(frozen=True)
class _GameQuery:
    sql: str
    converters: tuple[tuple[Any, ...], ...]  # per column of `_row_fields`: Django's converters


def _field(meta: Any, name: str) -> Field[Any, Any]:
    """A model's concrete field (a column of its table) by name."""
    field = meta.get_field(name)
    assert isinstance(field, Field), name
    return field


def _column(meta: Any, name: str) -> str:
    """The column of a model's concrete field."""
    return _column_of(_field(meta, name))


def _column_of(field: Any) -> str:
    assert field.column is not None, field
    return str(field.column)


def _quote(name: str | None) -> str:
    """`connection.ops.quote_name` of a name the models give (never None here)."""
    assert name is not None
    return str(connection.ops.quote_name(name))


@functools.cache
def _row_fields() -> tuple[Field[Any, Any], ...]:
    """What a move reads of a game: its concrete fields, then _DEAL_FIELDS[1:] of its deal
    and _DAILY_FIELDS[1:] of its daily board."""
    return (
        *Game._meta.concrete_fields,
        *(_field(Deal._meta, name) for name in _DEAL_FIELDS[1:]),
        *(_field(DailyDeal._meta, name) for name in _DAILY_FIELDS[1:]),
    )


class TokenCheck(NamedTuple):
    """The caller's API token as a move's statements check it: its digest, alive at `now`."""

    digest: str
    now: datetime

    def params(self) -> list[Any]:
        """The parameters of `token_check_sql`."""
        return [self.digest, connection.ops.adapt_datetimefield_value(self.now)]


@functools.cache
def token_check_sql() -> str:
    """`EXISTS (...)`: the token whose digest is the first parameter exists, has not expired
    at the second, is the game owner's, and that account is active. The move statements
    carry it, so a token kept in a process's memory (`ProcessTokenAuthentication`) is checked
    by the database all the same: revoked, expired or deactivated, it moves nothing."""
    q = _quote
    token, user, game = AuthToken._meta, User._meta, Game._meta
    t, u = q(token.db_table), q(user.db_table)
    return (
        f"EXISTS (SELECT 1 FROM {t} INNER JOIN {u} ON {t}.{q(_column(token, 'user'))}"
        f" = {u}.{q(user.pk.column)} WHERE {t}.{q(token.pk.column)} = %s"
        f" AND {t}.{q(_column(token, 'expiry'))} > %s"
        f" AND {u}.{q(user.pk.column)} = {q(game.db_table)}.{q(_column(game, 'user'))}"
        f" AND {u}.{q(_column(user, 'is_active'))})"
    )


@functools.cache
def _game_query(*, for_user: bool, lock: bool, token: bool = False) -> _GameQuery:
    """`SELECT game.*, deal.scheme, deal.number, daily.date, ... [FOR UPDATE OF game]` by id
    (and owner, and with `token` the owner's token): what `Game.objects[.select_for_update(
    of=("self",))].select_related("deal", "daily").only(<game fields>, "deal__scheme",
    "deal__number", "daily__date", "daily__finalized_at")` sends, built once per process."""
    q = _quote
    game, deal, daily = Game._meta, Deal._meta, DailyDeal._meta
    fields = _row_fields()
    columns = ", ".join(f"{q(f.model._meta.db_table)}.{q(f.column)}" for f in fields)

    def join(kind: str, fk: str, target: Any) -> str:
        return (
            f" {kind} JOIN {q(target.db_table)} ON {q(game.db_table)}."
            f"{q(_column(game, fk))} = {q(target.db_table)}.{q(target.pk.column)}"
        )

    sql = (
        f"SELECT {columns} FROM {q(game.db_table)}"
        + join("INNER", "deal", deal)
        + join("LEFT OUTER", "daily", daily)
        + f" WHERE {q(game.db_table)}.{q(game.pk.column)} = %s"
    )
    if for_user:
        sql += f" AND {q(game.db_table)}.{q(_column(game, 'user'))} = %s"
    if token:
        sql += " AND " + token_check_sql()
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

    server_binding: Any = ServerBindingCursor  # psycopg's cursor class; its stubs say less

    db.ensure_connection()
    db.validate_thread_sharing()
    # Django's wrapper, as `connection.cursor()` gives: errors become django.db errors, and
    # the statements are recorded where queries are (DEBUG, tests).
    if db.queries_logged:
        with db.make_debug_cursor(server_binding(db.connection)) as cursor:
            yield cursor
        return
    kept = getattr(db, "_klondike_hot_cursor", None)
    if kept is None or kept[0] is not db.connection:  # none yet, or a new connection since
        kept = (db.connection, db.make_cursor(server_binding(db.connection)))
        db._klondike_hot_cursor = kept  # type: ignore[attr-defined]
    yield kept[1]


def game_read(
    *, game_id: int, user: User | None = None, lock: bool = False, token: TokenCheck | None = None
) -> Game | None:
    """The game with its deal (the layout is loaded on first use) and a daily game's board
    (its date; the rest is loaded on first use); with `lock`, its row is locked until the
    transaction ends. With `token`, only if that token is the owner's (see token_check_sql).
    """
    query = _game_query(for_user=user is not None, lock=lock, token=token is not None)
    params: list[Any] = [game_id] if user is None else [game_id, user.pk]
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
    return game_from_row(tuple(values))


@functools.cache
def _game_attnames() -> tuple[str, ...]:
    """The attribute names of Game's concrete fields, the first of `_row_fields`."""
    return tuple(f.attname for f in Game._meta.concrete_fields)


def game_from_row(values: tuple[Any, ...]) -> Game:
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


def game_row(game: Game) -> tuple[Any, ...]:
    """The values `game_from_row` takes, from a game with its deal and daily board."""
    daily = game.daily
    return (
        *(getattr(game, name) for name in _game_attnames()),
        *(getattr(game.deal, name) for name in _DEAL_FIELDS[1:]),
        *(getattr(daily, name) if daily is not None else None for name in _DAILY_FIELDS[1:]),
    )


_LOG_COLUMNS = ("game", "seq", "notation", "score_after", "at_ms")


def _log_rows(game: Game, entries: Sequence[LogEntry], after_seq: int, at_ms: int) -> list[Any]:
    """The parameters of the log rows of one action, in `_LOG_COLUMNS` order, numbered from
    `after_seq` + 1."""
    params: list[Any] = []
    for i, entry in enumerate(entries, start=1):
        params += [game.pk, after_seq + i, entry.notation, entry.score_after, at_ms]
    return params


def log_append(game: Game, entries: Sequence[LogEntry], after_seq: int, at_ms: int) -> None:
    """INSERT the log rows of one action (what `Action.objects.bulk_create` sends)."""
    q = _quote
    action = Action._meta
    columns = ", ".join(q(_column(action, name)) for name in _LOG_COLUMNS)
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(entries))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {q(action.db_table)} ({columns}) VALUES {values}",
            _log_rows(game, entries, after_seq, at_ms),
        )


def game_update_sql(
    fields: Sequence[str], *, in_play_at_seq: bool = False, token: bool = False
) -> tuple[str, list[Field[Any, Any]]]:
    """`UPDATE game SET <fields> WHERE id = %s [AND seq = %s AND status = 'playing'] [AND
    <the token is the owner's>]` and the fields it sets."""
    q = _quote
    meta = Game._meta
    targets = [_field(meta, name) for name in fields]
    assignments = ", ".join(f"{q(f.column)} = %s" for f in targets)
    sql = f"UPDATE {q(meta.db_table)} SET {assignments} WHERE {q(meta.pk.column)} = %s"
    if in_play_at_seq:
        sql += f" AND {q(_column(meta, 'seq'))} = %s"
        sql += f" AND {q(_column(meta, 'status'))} = '{Game.Status.PLAYING}'"
    if token:
        sql += " AND " + token_check_sql()
    return sql, targets


def _game_update_params(game: Game, targets: Sequence[Field[Any, Any]]) -> list[Any]:
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in targets]
    return [*params, game.pk]


def game_update(game: Game, fields: Sequence[str]) -> None:
    """UPDATE the game's row with these fields (what `game.save(update_fields=...)` sends)."""
    sql, targets = game_update_sql(fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, _game_update_params(game, targets))


# What a move in play changes; the end of a game sets more (see `_apply_and_log`).
IN_PLAY_FIELDS = (
    "seq",
    "moves",
    "score",
    "undos",
    "passes_used",
    "foundations",
    "status",
    "snapshot",
    "clock_ms",
    "last_action_ms",
)


@functools.cache
def move_commit_sql(rows: int, *, token: bool) -> str:
    """PostgreSQL: one statement that updates the game if it is still in play at the `seq`
    read (and `token` is its owner's), and only then appends the log rows (`rows` of them);
    it inserts nothing otherwise."""
    q = _quote
    update, _ = game_update_sql(IN_PLAY_FIELDS, in_play_at_seq=True, token=token)
    action = Action._meta
    fields = [_field(action, name) for name in _LOG_COLUMNS]
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


def move_commit(
    game: Game, entries: Sequence[LogEntry], *, read_seq: int, at_ms: int, token: TokenCheck | None
) -> bool:
    """Append the log rows of one action and save the game's figures, atomically, if the
    game is still in play at `read_seq` (and `token`, if given, is still its owner's); False
    (nothing written) otherwise, as when another action came first.

    `game` holds the new figures (`_record`)."""
    # The in-play fields are ints (or NULL), text and bytes, which both drivers bind as they are.
    update = [*(getattr(game, name) for name in IN_PLAY_FIELDS), game.pk]
    checks: list[Any] = [read_seq] if token is None else [read_seq, *token.params()]
    if connection.vendor == "postgresql":  # one round trip, no transaction to open and close
        sql = move_commit_sql(len(entries), token=token is not None)
        log_params = _log_rows(game, entries, read_seq, at_ms)
        with _hot_cursor() as cursor:
            cursor.execute(sql, [*update, *checks, *log_params])
            return cursor.rowcount == len(entries)
    sql, _ = game_update_sql(IN_PLAY_FIELDS, in_play_at_seq=True, token=token is not None)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [*update, *checks])
        if cursor.rowcount != 1:
            return False
        log_append(game, entries, read_seq, at_ms)
    return True
