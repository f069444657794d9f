"""Hints: the next action to play, from a winning line when the solver finds one within
the budget, else by simple rules; with the reason a player reads, as a stable code.

A winning line draws whenever its order says so, and a player puzzled by "draw from the stock"
while a card could go somewhere helps nobody. So among the moves that keep the deal winnable, a
hint prefers a move the player can see to a draw (:func:`_visible_first`): when its line starts
with a draw or a recycle, a visible move that a line proven by replay to win can start with
takes its place, and that line is the hint's line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..actions import DRAW, FOUNDATIONS, RECYCLE, Move, PlainAction
from ..errors import IllegalMoveError
from ..notation import format_action
from ..state import GameState, RawPosition
from .moves import _Game
from .positions import _PARENTS
from .schedule import solve
from .verdicts import Solved, Unwinnable, replay_wins

CARD_IN_STOCK: Final = "card_in_stock"
"""A draw or recycle: a card the line (or the heuristic) plays lies in the stock or waste."""
FREES_FACE_DOWN: Final = "frees_face_down"
"""A move that leaves a face-down card on top of its column, to be turned up."""
EMPTIES_COLUMN: Final = "empties_column"
"""A move of a whole column with no face-down card (a king can go there next)."""
KING_TO_EMPTY: Final = "king_to_empty"
"""A king (from the waste or a column) to an empty column."""
BUILDS_FOUNDATION: Final = "builds_foundation"
"""A card to its foundation."""
PLAYS_WASTE: Final = "plays_waste"
"""The waste's top card onto a column."""
FREES_CARD: Final = "frees_card"
"""Part of a column's face-up run onto another column, uncovering the face-up card under it."""
FROM_FOUNDATION: Final = "from_foundation"
"""A card back from a foundation onto a column."""
WINNING_LINE: Final = "winning_line"
"""A winning line's action that none of the codes above describes."""
NOTHING_LEFT: Final = "nothing_left"
"""No action: nothing productive is left (or the game is over)."""
REASON_CODES: Final = (
    CARD_IN_STOCK,
    FREES_FACE_DOWN,
    EMPTIES_COLUMN,
    KING_TO_EMPTY,
    BUILDS_FOUNDATION,
    PLAYS_WASTE,
    FREES_CARD,
    FROM_FOUNDATION,
    WINNING_LINE,
    NOTHING_LEFT,
)
"""Every :attr:`Hint.reason_code`, stable: the API sends them (a client words each)."""

VISIBLE_SEARCHES: Final = 2
"""How many visible moves get a tiny search after them, where no reordering of a line the hint
searched for starts with one (:func:`_visible_first`)..."""
VISIBLE_SEARCH_NODES: Final = 300
"""... of at most this many positions (a few milliseconds; the wins it finds mostly take a few
dozen)..."""
VISIBLE_SEARCH_S: Final = 0.05
"""... and at most this long (a bound for a slow machine)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested next action; ``source`` says where it comes from.

    ``"solver"``: the first action of a winning line. ``"heuristic"``: no line within the
    budget (or the deal is lost), so a productive move by simple rules. ``"none"``: nothing
    productive is left (``action`` is None) - never a suggestion to cycle the stock forever.
    The ``reason`` (for developers, in English) of the last two ends with :data:`LOST` only
    when the solver proved the position lost, else with :data:`NO_LINE_YET`.
    ``reason_code``: why a player would play it, one of :data:`REASON_CODES`.

    :raises ValueError: ``reason_code`` is not one of :data:`REASON_CODES`.
    """

    action: PlainAction | None
    source: Literal["solver", "heuristic", "none"]
    reason: str = ""
    line: tuple[PlainAction, ...] = ()
    """``"solver"``: the whole winning line, ``action`` first (for the next :func:`hint`)."""
    reason_code: str = field(kw_only=True)

    def __post_init__(self) -> None:
        if self.reason_code not in REASON_CODES:
            raise ValueError(f"unknown reason code {self.reason_code!r}: see REASON_CODES")

    def to_dict(self) -> dict[str, Any]:
        """The API's ``hint`` object (the action in notation, or None)."""
        return {
            "action": None if self.action is None else format_action(self.action),
            "source": self.source,
            "reason": self.reason,
            "reason_code": self.reason_code,
        }


def hint(
    state: GameState,
    *,
    budget_s: float = 0.5,
    line: Sequence[PlainAction] = (),
    max_nodes: int | None = None,
) -> Hint:
    """The next action to play from ``state``.

    ``line``: the winning line of an earlier hint in the same game (``Hint.line``). When the
    player has since played its first action, or nothing, and the rest of it (or all of it)
    still replays to a win from ``state``, the hint continues that line: at once, and
    consistent with the hint before, instead of searching again and perhaps switching to
    another solution. ``budget_s`` and ``max_nodes`` bound the search as for :func:`solve`
    (positions, unlike seconds, give the same search on any machine).

    A winning line that starts with a draw or a recycle gives way to a visible move that keeps
    the deal winnable, when one is found cheaply (:func:`_visible_first`): the hint's line then
    starts with that move. That costs a few replays of the line; after a search, also a tiny
    one (:data:`VISIBLE_SEARCHES` of :data:`VISIBLE_SEARCH_NODES` positions). A hint that
    continues ``line`` searches nothing at all.

    >>> h = hint(GameState.from_code("KL1-D1N-AAAAAAG"))
    >>> h.source in ("solver", "heuristic") and h.reason_code in REASON_CODES
    True
    """
    if state.is_over:
        return Hint(None, "none", "the game is over", reason_code=NOTHING_LEFT)
    rest = line_rest(state, line)
    if rest:
        return _solver_hint(state, _visible_first(state, rest, search=False))
    v = solve(state, budget_s=budget_s, max_nodes=max_nodes)
    if isinstance(v, Solved) and v.actions:
        return _solver_hint(state, _visible_first(state, tuple(v.actions), search=True))
    # Only a proof says the deal is lost; a search out of time found no line yet.
    verdict = LOST if isinstance(v, Unwinnable) else NO_LINE_YET
    a, why = _heuristic(state)
    if a is None:
        return Hint(None, "none", f"{why}; {verdict}", reason_code=NOTHING_LEFT)
    code = _move_code(state.raw(), a) if isinstance(a, Move) else CARD_IN_STOCK
    return Hint(a, "heuristic", f"{why} ({verdict})", reason_code=code)


def _solver_hint(state: GameState, line: tuple[PlainAction, ...]) -> Hint:
    """The hint of a winning line from ``state``, with the reason of its first action."""
    a = line[0]
    if isinstance(a, Move):
        code = _move_code(state.raw(), a)
    elif any(isinstance(b, Move) and b.src == "waste" for b in line[1:]):
        code = CARD_IN_STOCK  # the waste's cards all come from the stock and waste of now
    else:
        code = WINNING_LINE  # (preset R: a draw that sets off the automatic finish)
    return Hint(a, "solver", "leads to a win", line, reason_code=code)


def _visible_first(
    state: GameState, line: tuple[PlainAction, ...], *, search: bool
) -> tuple[PlainAction, ...]:
    """``line`` (a winning line from ``state``), or, when it starts with a draw or a recycle,
    a winning line that starts with a visible move instead, when one is found cheaply.

    The visible moves (:func:`_visible_moves`: a card turned up, a card to its foundation, a
    column emptied, the waste's card played, preferred in that order) are each tried first in
    the line (:func:`_visible_lines`, cheapest first): with the line's later move of the same
    card onto the same card taken out, else the line's first later move of that card; then so,
    but with the line's moves played as a player names them (:func:`_by_card`: this card onto
    that one, wherever they now lie), its draws as they are, then as many as bring each waste
    card it plays to the top; then before the whole line, in the same three ways. With
    ``search`` (the hint searched for ``line`` already), last, for the first
    :data:`VISIBLE_SEARCHES` of them, followed by the line of a tiny search after it, when that
    line takes no card back from a foundation. A line is returned only when it replays to a
    win from ``state``.

    So hints that follow one another cannot go round in circles: between two visible moves
    the player follows one line, which gets shorter with each hint; a visible move turns a
    card up, plays a stock card, builds a foundation or empties a column (for good: only a
    king fills it again); and only a card taken back from a foundation undoes any of that,
    which a line does only as often as the first line did (a searched one, never).
    """
    if line[0] not in (DRAW, RECYCLE):
        return line
    moves = _visible_moves(state)
    if not moves:
        return line
    for new in _visible_lines(state, line, moves):
        if new and replay_wins(state, new):
            return new
    for m in moves[: VISIBLE_SEARCHES if search else 0]:
        after = state.copy()
        after.apply(m)
        v = solve(after, budget_s=VISIBLE_SEARCH_S, max_nodes=VISIBLE_SEARCH_NODES)
        if not isinstance(v, Solved) or any(_is_return(b) for b in v.actions):
            continue
        new = (m, *v.actions)
        if replay_wins(state, new):
            return new
    return line


def _visible_lines(
    state: GameState, line: tuple[PlainAction, ...], moves: list[Move]
) -> Iterator[tuple[PlainAction, ...]]:
    """The lines :func:`_visible_first` tries, cheapest first, each move of ``moves`` in turn
    (``()``: none for that move)."""
    keys: list[tuple[int, int] | None] = []  # each action's move as a player names it
    g = state.copy()
    for a in line:
        keys.append(
            None if not isinstance(a, Move) or _is_return(a) else _same_move_key(g.raw(), a)
        )
        g.apply(a)
    raw = state.raw()
    later: list[list[int]] = []  # per move: where the line plays it, or that card, first
    for m in moves:
        key = _same_move_key(raw, m)
        same = next((i for i in range(1, len(line)) if keys[i] == key), 0)
        card = next((i for i, k in enumerate(keys) if i and k and k[0] == key[0]), 0)
        later.append(list(dict.fromkeys(i for i in (same, card) if i)))

    def without(i: int) -> tuple[tuple[PlainAction, ...], tuple[tuple[int, int] | None, ...]]:
        return (*line[:i], *line[i + 1 :]), (*keys[:i], *keys[i + 1 :])

    for m, at in zip(moves, later, strict=True):
        for i in at:
            yield (m, *without(i)[0])
    for talon in (False, True):
        for m, at in zip(moves, later, strict=True):
            for i in at:
                yield _by_card(state, m, *without(i), talon=talon)
    for m in moves:
        yield (m, *line)
    for talon in (False, True):
        for m in moves:
            yield _by_card(state, m, line, keys, talon=talon)


def _by_card(
    state: GameState,
    first: Move,
    line: Sequence[PlainAction],
    keys: Sequence[tuple[int, int] | None],
    *,
    talon: bool,
) -> tuple[PlainAction, ...]:
    """``first``, then ``line`` with each move of a column or waste card (``keys``: the card and
    where it went, as :func:`_same_move_key`) played from wherever that card now lies, with
    the cards now on it, onto the same card (its foundation, or an empty column); until the
    game is won. ``talon``: the line's draws and recycles are not played as they are, but as
    many as bring the card of its next waste move to the top of the waste (an earlier move of
    a waste card changes which draws do). ``()`` where a move cannot be named so or is
    illegal."""
    g = state.copy()
    g.apply(first)
    out: list[PlainAction] = [first]
    try:
        for a, key in zip(line, keys, strict=True):
            if g.is_won:
                break
            if talon and a in (DRAW, RECYCLE):
                continue
            if talon and key and isinstance(a, Move) and a.src == "waste":
                for _ in range(3 * (len(g.raw().stock) + len(g.raw().waste)) + 3):
                    raw = g.raw()
                    if raw.waste and raw.waste[-1] == key[0]:
                        break
                    turn = DRAW if raw.stock else RECYCLE
                    g.apply(turn)
                    out.append(turn)
            b = _named_move(g.raw(), key, a) if key and isinstance(a, Move) else a
            if b is None:
                return ()
            g.apply(b)
            out.append(b)
    except IllegalMoveError:
        return ()
    return tuple(out)


def _named_move(raw: RawPosition, key: tuple[int, int], a: Move) -> Move | None:
    """The move of ``key``'s card onto ``key``'s target in ``raw`` (see :func:`_same_move_key`;
    an empty column: ``a``'s, else the first), or None where there is none."""
    card, onto = key
    if a.src == "waste":
        src, count = ("waste", 1) if raw.waste and raw.waste[-1] == card else ("", 0)
    else:
        src, count = "", 0
        for c, col in enumerate(raw.tableau):
            if card in col[raw.down[c] :]:
                src, count = f"t{c + 1}", len(col) - col.index(card)
    if not src:
        return None
    if onto == -1:
        return Move(src, FOUNDATIONS[card // 13], count)
    empty = [f"t{c + 1}" for c, col in enumerate(raw.tableau) if not col]
    if onto == -2:
        dst = a.dst if a.dst in empty else next(iter(empty), "")
    else:
        dst = next(
            (f"t{c + 1}" for c, col in enumerate(raw.tableau) if col and col[-1] == onto), ""
        )
    return Move(src, dst, count) if dst and dst != src else None


def _is_return(a: PlainAction) -> bool:
    """A card taken back from a foundation?"""
    return isinstance(a, Move) and a.src.startswith("f")


def _visible_moves(state: GameState) -> list[Move]:
    """The legal moves a player sees at once, in the order a hint prefers them: a face-down
    card turned up, a card to its foundation, a column emptied, the waste's card onto a
    column. Not a part of a run moved from one column to another, a king moved from one
    empty column to another, or a card back from a foundation."""
    raw = state.raw()
    ranked: list[tuple[int, int, Move]] = []
    for i, m in enumerate(state.legal_moves()):
        if not isinstance(m, Move) or m.src.startswith("f"):
            continue
        code = _move_code(raw, m)
        if code == FREES_FACE_DOWN:
            rank = 0
        elif m.dst.startswith("f"):
            rank = 1
        elif code == EMPTIES_COLUMN:
            rank = 2
        elif m.src == "waste":
            rank = 3
        else:
            continue
        ranked.append((rank, i, m))
    return [m for _, _, m in sorted(ranked, key=lambda r: r[:2])]


def _same_move_key(raw: RawPosition, m: Move) -> tuple[int, int]:
    """What makes two moves the same for a player: the card moved and where it lands (its
    foundation -1, an empty column -2, else the card it goes onto)."""
    if m.src == "waste":
        card = raw.waste[-1]
    else:
        col = raw.tableau[int(m.src[1:]) - 1]
        card = col[len(col) - m.count]
    if m.dst.startswith("f"):
        return card, -1
    dst = raw.tableau[int(m.dst[1:]) - 1]
    return card, dst[-1] if dst else -2


def _move_code(raw: RawPosition, m: Move) -> str:
    """The reason code of a legal plain move in ``raw``: what it does to the position, the
    first that holds of a face-down card left on top, a card to its foundation, a column
    emptied, a king to an empty column."""
    if m.src.startswith("f"):
        return FROM_FOUNDATION
    to_empty = m.dst.startswith("t") and not raw.tableau[int(m.dst[1:]) - 1]
    if m.src == "waste":
        if m.dst.startswith("f"):
            return BUILDS_FOUNDATION
        return KING_TO_EMPTY if to_empty else PLAYS_WASTE
    c = int(m.src[1:]) - 1
    left = len(raw.tableau[c]) - m.count  # the cards under the ones moved
    if left and left == raw.down[c]:
        return FREES_FACE_DOWN
    if m.dst.startswith("f"):
        return BUILDS_FOUNDATION
    if not left:  # (a king from one empty column to another: the solver never moves it)
        return KING_TO_EMPTY if to_empty else EMPTIES_COLUMN
    return FREES_CARD


def line_rest(state: GameState, line: Sequence[PlainAction]) -> tuple[PlainAction, ...]:
    """What :func:`hint` continues of an earlier hint's ``line`` from ``state``: its rest after
    its first action (the player played it), else all of it (the player played nothing), when
    that still replays to a win; else ``()``."""
    for rest in (tuple(line[1:]), tuple(line)):
        if rest and replay_wins(state, rest):
            return rest
    return ()


LOST = "the deal can no longer be won"
"""A heuristic hint's reason says this only when the solver proved the position lost."""
NO_LINE_YET = "no line found yet"
"""... and this when its search ran out of time (or had none) without a verdict."""


def _heuristic(state: GameState) -> tuple[PlainAction | None, str]:
    """A productive legal action by simple rules, or None with the reason."""
    raw = state.raw()
    legal = state.legal_moves()
    moves = [m for m in legal if isinstance(m, Move)]
    found = raw.foundations
    for m in moves:
        if m.dst.startswith("f") and m.src != "waste":
            col = raw.tableau[int(m.src[1:]) - 1]
            return m, f"{_name(col[-1])} goes to its foundation"
    for m in moves:
        if m.dst.startswith("f") and m.src == "waste":
            return m, f"{_name(raw.waste[-1])} goes to its foundation"
    best: tuple[int, Move] | None = None
    for m in moves:
        if m.src.startswith("t") and m.dst.startswith("t"):
            c = int(m.src[1:]) - 1
            col, d = raw.tableau[c], raw.down[c]
            if len(col) - m.count == d and d > 0 and (best is None or d > best[0]):
                best = (d, m)
    if best is not None:
        return best[1], "turns a face-down card up"
    for m in moves:
        if m.src == "waste" and m.dst.startswith("t"):
            return m, f"plays {_name(raw.waste[-1])} from the waste"
    for m in moves:
        if m.src.startswith("t") and m.dst.startswith("t"):
            c = int(m.src[1:]) - 1
            col, d = raw.tableau[c], raw.down[c]
            k = len(col) - m.count
            if k == d and k > 0 and not raw.tableau[int(m.dst[1:]) - 1]:
                return m, "moves a king to the empty column"
    # Draw only when a card further in the stock (or after a recycle) can be played.
    if DRAW in legal or RECYCLE in legal:
        s = _Game(state)
        s.talon_is_set = False
        cols, talon, pos, passes, _ = s.start
        tops = {col[-1] for col in cols if len(col) > 1}
        empty = any(len(col) == 1 for col in cols)
        for i in s._reach(talon, pos, passes):
            if i == pos - 1:
                continue
            x = talon[i]
            if (
                found[x // 13] == x % 13
                or any(p in tops for p in _PARENTS[x])
                or (x % 13 == 12 and empty)
            ):
                a = DRAW if DRAW in legal else RECYCLE
                return a, f"{'draws' if a is DRAW else 'recycles'} towards {_name(x)}"
    return None, "no productive move is left"


def _name(x: int) -> str:
    from ..cards import CARD_NAMES

    return CARD_NAMES[x]
