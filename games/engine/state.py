"""The game state: one mutable object with ``legal_moves``, ``apply`` and ``undo``.

Internal representation (shared with the solver through :meth:`GameState.raw`); cards are the
compact ints of :mod:`cards` (``suit * 13 + rank - 1``):

* ``tableau``: 7 tuples, bottom card first; ``down[c]`` of column ``c`` are face down, so the
  face-up run is ``tableau[c][down[c]:]``. A non-empty column always ends face up.
* ``foundations``: 4 ints, the number of cards on f1..f4 (♠ ♥ ♦ ♣); the top card of
  foundation ``s`` is ``s * 13 + n - 1``.
* ``stock``: tuple with the NEXT card to be turned LAST; ``waste``: tuple, playable card last.

Every pile is an immutable tuple, so an undo snapshot is one tuple of references.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from itertools import pairwise
from typing import Final, NamedTuple

from .actions import (
    DRAW,
    PILE_INDEX,
    PILES,
    RECYCLE,
    RESIGN,
    UNDO,
    Action,
    Auto,
    DoubleTap,
    Draw,
    Move,
    PlainAction,
    Recycle,
    Resign,
    Tap,
    Undo,
)
from .cards import CARD_NAMES, CARDS, Card, card_index
from .codes import DealCode
from .deal import Deal
from .errors import IllegalMoveError
from .rules import Rules, format_score

__all__ = ["UNDO_LIMIT", "Applied", "GameState", "HistoryNotLoadedError", "RawPosition"]

UNDO_LIMIT: Final = 100
"""How many actions back undo reaches (rules §6)."""

STOCK: Final = 0
WASTE: Final = 1
F0: Final = 2
T0: Final = 6
_UNLIMITED: Final = 1 << 62
_SUITS: Final = ("spades", "hearts", "diamonds", "clubs")

_EMPTY_COLUMN: Final = "an empty column accepts only a king (rules §2.3)"
_WASTE_TOP: Final = "only the top card of the waste is playable (rules §2.4)"
_ONE_AT_A_TIME: Final = "a foundation takes one card at a time (rules §2.5)"


def _parents(c: int) -> tuple[int, ...]:
    r, red = c % 13, c // 13 in (1, 2)
    if r == 12:
        return ()
    return tuple(s * 13 + r + 1 for s in range(4) if (s in (1, 2)) != red)


_PARENTS: Final = tuple(_parents(c) for c in range(52))
"""The two cards a card may be put on in a column (none for a king)."""


def _key(si: int, di: int, n: int) -> int:
    return (si << 9) | (di << 5) | n


def _build_moves() -> dict[int, Move]:
    out: dict[int, Move] = {}
    for si in range(WASTE, T0 + 7):
        for di in range(F0, T0 + 7):
            if si == di:
                continue
            top = 13 if si >= T0 and di >= T0 else 1
            for n in range(1, top + 1):
                out[_key(si, di, n)] = Move(PILES[si], PILES[di], n)
    return out


_MOVES: Final = _build_moves()
"""One shared Move per (source, destination, count): legal_moves allocates no actions."""
_AUTO: Final[dict[PlainAction, Auto]] = {}


def _auto(a: PlainAction) -> Auto:
    x = _AUTO.get(a)
    if x is None:
        x = _AUTO[a] = Auto(a)
    return x


class Applied(NamedTuple):
    """What one action did: the resolved plain action (or Undo/Resign/Auto), the score after
    it, the card it turned face up, and the automatic actions it set off (each an ``Applied``
    whose action is an :class:`Auto`)."""

    action: Action
    score: int | None
    flipped: Card | None = None
    auto: tuple[Applied, ...] = ()


class RawPosition(NamedTuple):
    """The position in the engine's internal int encoding (see the module docstring)."""

    tableau: tuple[tuple[int, ...], ...]
    down: tuple[int, ...]
    foundations: tuple[int, ...]
    stock: tuple[int, ...]
    waste: tuple[int, ...]


_Snapshot = tuple[
    tuple[tuple[int, ...], ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    int,
    int,
    int,
]


class HistoryNotLoadedError(RuntimeError):
    """An undo reached a step of the history that was not loaded (see
    :attr:`GameState.history_complete`): a caller's mistake, not a rule."""


class GameState:
    """A Klondike game: position, score, counters and the undo history.

    >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
    >>> rec = g.apply(g.legal_moves()[0])
    >>> g.moves
    1
    """

    __slots__ = (
        "_depth",
        "_down",
        "_draw",
        "_floor",
        "_found",
        "_hidden",
        "_history",
        "_moves",
        "_passes",
        "_pf",
        "_pflip",
        "_pw",
        "_recycle_limit",
        "_return",
        "_rules",
        "_score",
        "_status",
        "_stock",
        "_tab",
        "_undos",
        "_unloaded",
        "_waste",
        "deal",
    )

    def __init__(
        self,
        rules: Rules,
        tableau: Sequence[tuple[int, ...]],
        down: Sequence[int],
        foundations: Sequence[int],
        stock: tuple[int, ...],
        waste: tuple[int, ...],
        *,
        score: int | None = None,
        moves: int = 0,
        passes_used: int = 0,
        deal: Deal | None = None,
    ) -> None:
        """Low-level constructor over the internal encoding, unchecked; prefer :meth:`new`,
        :meth:`from_code` or :meth:`from_position`."""
        self._rules = rules
        self.deal = deal
        self._draw = rules.draw
        self._return = rules.foundation_return
        mr = rules.max_recycles
        self._recycle_limit = _UNLIMITED if mr is None else mr
        self._floor = rules.scoring == "normal"
        if rules.scoring == "normal":
            self._pf, self._pw, self._pflip = 10, 5, 5
        elif rules.scoring == "vegas":
            self._pf, self._pw, self._pflip = 5, 0, 0
        else:
            self._pf, self._pw, self._pflip = 0, 0, 0
        self._tab = list(tableau)
        self._down = tuple(down)
        self._found = list(foundations)
        self._stock = stock
        self._waste = waste
        self._hidden = sum(self._down)
        if score is None:
            score = -52 + 5 * sum(self._found) if rules.scoring == "vegas" else 0
        self._score = score
        self._moves = moves
        self._undos = 0
        self._passes = passes_used
        self._status = "won" if sum(self._found) == 52 else "playing"
        self._history: deque[_Snapshot] = deque(maxlen=UNDO_LIMIT)
        # Undo steps that exist but are not in `_history`: the oldest ones, left out of a
        # snapshot saved without its history (see `history_complete`).
        self._unloaded = 0
        self._depth = 0

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def new(cls, deal: Deal, rules: Rules) -> GameState:
        """A new game on ``deal`` under ``rules``.

        >>> GameState.new(Deal.from_number(6), Rules.from_preset(1, "N")).score
        0
        """
        tab = [tuple(c.index for c in col) for col in deal.columns]
        stock = tuple(c.index for c in reversed(deal.stock))
        return cls(rules, tab, [len(c) - 1 for c in tab], (0, 0, 0, 0), stock, (), deal=deal)

    @classmethod
    def from_code(cls, code: DealCode | str) -> GameState:
        """A new game from a deal code, e.g. ``GameState.from_code("KL1-D3V-AAAAAAG")``.

        :raises DealCodeError: a malformed code.
        """
        dc = code if isinstance(code, DealCode) else DealCode.parse(code)
        return cls.new(dc.deal, dc.rules)

    @classmethod
    def from_position(
        cls,
        rules: Rules,
        *,
        tableau: Sequence[Sequence[Card | str]],
        hidden: Sequence[Sequence[Card | str]] | None = None,
        stock: Sequence[Card | str] = (),
        waste: Sequence[Card | str] = (),
        foundations: Sequence[int] = (0, 0, 0, 0),
        score: int | None = None,
        moves: int = 0,
        passes_used: int = 0,
    ) -> GameState:
        """A game in an explicit position (for tests, puzzles and the solver).

        ``tableau``: up to 7 face-up runs, bottom first (missing columns are empty);
        ``hidden``: the face-down cards under each (bottom first); ``stock`` in draw order;
        ``waste`` bottom first (last is playable);
        ``foundations``: cards on f1..f4 (♠ ♥ ♦ ♣) as counts. All 52 cards must appear once.
        ``score`` defaults to 0 (Vegas: -52 + 5 per foundation card).

        >>> g = GameState.from_position(Rules(), tableau=[["KS"], [], [], [], [], [], []],
        ...     foundations=(12, 13, 13, 13))
        >>> g.apply(Tap("t1")).action
        Move(src='t1', dst='f1', count=1, card=None)

        :raises ValueError: missing or repeated cards, a bad run, a column hidden without a
            face-up card, wrong sizes.
        """
        if len(tableau) > 7 or (hidden is not None and len(hidden) > 7):
            raise ValueError("a position has 7 columns")
        # Columns left out are empty, so a test can name only the columns it uses.
        tableau = [*tableau, *[()] * (7 - len(tableau))]
        hid = [*(hidden or ()), *[()] * (7 - len(hidden or ()))]
        if len(foundations) != 4 or any(not 0 <= int(f) <= 13 for f in foundations):
            raise ValueError("foundations are 4 counts 0..13")
        tab: list[tuple[int, ...]] = []
        down: list[int] = []
        for c in range(7):
            h = tuple(card_index(x) for x in hid[c])
            up = tuple(card_index(x) for x in tableau[c])
            if h and not up:
                raise ValueError(f"t{c + 1}: face-down cards need a face-up card on top")
            for a, b in pairwise(up):
                if a not in _PARENTS[b]:
                    raise ValueError(f"t{c + 1}: face-up cards must form a run (rules §2.1)")
            tab.append(h + up)
            down.append(len(h))
        st = tuple(card_index(x) for x in reversed(stock))
        wa = tuple(card_index(x) for x in waste)
        found = tuple(int(f) for f in foundations)
        seen = [s * 13 + r for s in range(4) for r in range(found[s])]
        seen += [x for col in tab for x in col] + list(st) + list(wa)
        if len(seen) != 52 or len(set(seen)) != 52:
            dup = sorted({CARD_NAMES[x] for x in seen if seen.count(x) > 1})
            missing = sorted(set(CARD_NAMES) - {CARD_NAMES[x] for x in seen})
            raise ValueError(f"a position holds each card once; repeated {dup}, missing {missing}")
        return cls(
            rules, tab, down, found, st, wa, score=score, moves=moves, passes_used=passes_used
        )

    def copy(self) -> GameState:
        """An independent copy, history and counters included (for search and what-ifs).

        >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
        >>> c = g.copy(); _ = c.apply(Draw()); (g.moves, c.moves)
        (0, 1)
        """
        g = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(g, name, getattr(self, name))
        g._tab = list(self._tab)
        g._found = list(self._found)
        g._history = deque(self._history, maxlen=UNDO_LIMIT)
        return g

    # -- reading --------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rule set."""
        return self._rules

    @property
    def score(self) -> int | None:
        """Points (normal), dollars (vegas) or None (no scoring)."""
        return None if self._rules.scoring == "none" else self._score

    @property
    def score_display(self) -> str:
        """``"35"``; Vegas ``"+$208"``, ``"$0"``, ``"-$52"``; ``""`` without scoring."""
        return format_score(self._rules, self._score)

    @property
    def moves(self) -> int:
        """Player actions so far (draws, recycles, moves, undos; not resign or automatic ones)."""
        return self._moves

    @property
    def undos(self) -> int:
        """Undos applied."""
        return self._undos

    @property
    def passes_used(self) -> int:
        """Recycles done (0 at the start)."""
        return self._passes

    @property
    def status(self) -> str:
        """``"playing"``, ``"won"`` or ``"resigned"``."""
        return self._status

    @property
    def is_won(self) -> bool:
        """All 52 cards on the foundations."""
        return self._status == "won"

    @property
    def is_over(self) -> bool:
        """Won or resigned: no action applies any more."""
        return self._status != "playing"

    @property
    def can_undo(self) -> bool:
        """True when an Undo would be accepted now."""
        return self._status == "playing" and bool(self._history or self._unloaded)

    @property
    def last_action_revealed(self) -> bool:
        """True when the action an undo would revert turned a card face up for the first
        time: a tableau card it flipped, or a stock card it drew in the first pass through
        the stock (no recycle yet). False when there is nothing to undo.

        Exact as long as no such undo was ever applied (:meth:`check_undo_keeps_seen`): a
        flipped tableau card then stays face up, and every card in the stock after a recycle
        was drawn in the first pass. Otherwise it may say True of a card seen before, never
        False of a card not seen.

        >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
        >>> _ = g.apply(Tap("t1")); g.last_action_revealed  # AD to f3: t1 had no other card
        False
        >>> _ = g.apply(Tap("t7")); g.last_action_revealed  # AH to f2 turns 4D face up
        True

        :raises HistoryNotLoadedError: the step an undo would restore was not loaded (see
            :attr:`history_complete`): rebuild the state from the log.
        """
        if not self._history:
            if self._unloaded:
                raise HistoryNotLoadedError(
                    "this state was loaded without its undo history: rebuild it from the log"
                )
            return False
        before = self._history[-1]
        if before[7] > self._hidden:  # `_hidden`: fewer face-down tableau cards
            return True
        # A draw of the first pass: the stock shrank, and no recycle before or after.
        return before[6] == 0 and self._passes == 0 and len(before[3]) > len(self._stock)

    def check_undo_keeps_seen(self) -> None:
        """Refuse, before :meth:`undo`, an undo that would hide a card the player has seen
        (see :attr:`last_action_revealed`); the caller decides where this rule applies.
        Does nothing when the undo would be refused anyway (game over, nothing to undo).

        >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
        >>> _ = g.apply(Draw())  # the first pass: the drawn card was never seen before
        >>> try:
        ...     g.check_undo_keeps_seen()
        ... except IllegalMoveError as e:
        ...     print(e.reason)
        undo_reveal

        :raises IllegalMoveError: reason ``undo_reveal``: the last action turned a card face
            up for the first time.
        :raises HistoryNotLoadedError: as :attr:`last_action_revealed`.
        """
        if self._status == "playing" and self.last_action_revealed:
            raise IllegalMoveError(
                "an undo here may not hide a card the player has seen: the last action turned "
                "one face up for the first time",
                "undo_reveal",
            )

    @property
    def history_complete(self) -> bool:
        """False when undo steps exist that are not in memory: the state was loaded from a
        snapshot saved without its history. :meth:`undo` may then need the state rebuilt
        from the log (:func:`~games.engine.replay.replay`), which has them all.

        >>> GameState.from_code("KL1-D1N-AAAAAAG").history_complete
        True
        """
        return not self._unloaded

    @property
    def foundation_count(self) -> int:
        """Cards on the foundations."""
        return sum(self._found)

    def raw(self) -> RawPosition:
        """The position in the internal int encoding (tuples, safe to keep).

        >>> GameState.from_code("KL1-D1N-AAAAAAG").raw().down
        (0, 1, 2, 3, 4, 5, 6)
        """
        return RawPosition(
            tuple(self._tab), self._down, tuple(self._found), self._stock, self._waste
        )

    def position_key(self) -> tuple[object, ...]:
        """A hashable key of everything the rules look at (position and passes used)."""
        return (
            tuple(self._tab),
            self._down,
            tuple(self._found),
            self._stock,
            self._waste,
            self._passes,
        )

    def __repr__(self) -> str:
        return (
            f"<GameState {self._status} moves={self._moves} score={self.score_display!r}"
            f" foundations={sum(self._found)}>"
        )

    # -- move generation ------------------------------------------------------------------

    def legal_moves(self) -> list[PlainAction]:
        """Every legal plain action: draw or recycle, then moves (all run lengths).

        >>> len(GameState.from_code("KL1-D1N-AAAAAAA").legal_moves()) > 0
        True
        """
        if self._status != "playing":
            return []
        out: list[PlainAction] = []
        if self._stock:
            out.append(DRAW)
        elif self._waste and self._passes < self._recycle_limit:
            out.append(RECYCLE)
        moves = _MOVES
        parents = _PARENTS
        tab = self._tab
        found = self._found
        where: dict[int, int] = {}
        empties: list[int] = []
        for c, col in enumerate(tab, T0):
            if col:
                where[col[-1]] = c
            else:
                empties.append(c)
        waste = self._waste
        if waste:
            w = waste[-1]
            if found[w // 13] == w % 13:
                out.append(moves[512 | ((F0 + w // 13) << 5) | 1])
            for p in parents[w]:
                d = where.get(p)
                if d is not None:
                    out.append(moves[512 | (d << 5) | 1])
            if w % 13 == 12:
                for d in empties:
                    out.append(moves[512 | (d << 5) | 1])
        down = self._down
        for c in range(7):
            col = tab[c]
            if not col:
                continue
            n = len(col)
            si = (T0 + c) << 9
            top = col[-1]
            if found[top // 13] == top % 13:
                out.append(moves[si | ((F0 + top // 13) << 5) | 1])
            for k in range(down[c], n):
                x = col[k]
                for p in parents[x]:
                    d = where.get(p)
                    if d is not None:
                        out.append(moves[si | (d << 5) | (n - k)])
                if empties and x % 13 == 12:
                    for d in empties:
                        out.append(moves[si | (d << 5) | (n - k)])
        if self._return:
            for s in range(4):
                k = found[s]
                if k:
                    x = s * 13 + k - 1
                    si = (F0 + s) << 9
                    for p in parents[x]:
                        d = where.get(p)
                        if d is not None:
                            out.append(moves[si | (d << 5) | 1])
                    if k == 13:
                        for d in empties:
                            out.append(moves[si | (d << 5) | 1])
        return out

    # -- applying -------------------------------------------------------------------------

    def apply(self, action: Action) -> Applied:
        """Check and play one action; returns what happened. The state is unchanged on error.

        >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
        >>> g.apply(Draw()).action
        Draw()

        :raises IllegalMoveError: the rules forbid it (the message names the rule), or the
            game is over.
        """
        if self._status != "playing":
            raise IllegalMoveError(
                f"the game is over ({self._status}); no action applies any more (rules §4)",
                "game_over",
                status=self._status,
            )
        flipped = -1
        if type(action) is Move:
            mv = action if action.card is None and action.dst != "f" else self._resolve(action)
            flipped = self._move(PILE_INDEX[mv.src], PILE_INDEX[mv.dst], mv.count)
            done: Action = mv
        elif type(action) is Draw:
            self._do_draw()
            done = DRAW
        elif type(action) is Undo:
            return self.undo()
        elif isinstance(action, Recycle):
            self._do_recycle()
            done = RECYCLE
        elif isinstance(action, Tap):
            mv = self._resolve_tap(action)
            flipped = self._move(PILE_INDEX[mv.src], PILE_INDEX[mv.dst], 1)
            done = mv
        elif isinstance(action, DoubleTap):
            mv = self._resolve_double_tap(action)
            flipped = self._move(PILE_INDEX[mv.src], PILE_INDEX[mv.dst], mv.count)
            done = mv
        elif isinstance(action, Resign):
            self._status = "resigned"
            return Applied(RESIGN, self.score)
        elif isinstance(action, Auto):
            raise IllegalMoveError(
                "automatic actions are played by the game itself (rules §9)", "automatic"
            )
        else:
            raise TypeError(f"not an action: {action!r}")
        self._moves += 1
        auto: tuple[Applied, ...] = ()
        if (
            self._hidden == 0
            and self._rules.auto_finish
            and self._status == "playing"
            and (self._draw == 1 or not (self._stock or self._waste))
        ):
            auto = self._auto_finish()
        return Applied(
            done,
            None if self._rules.scoring == "none" else self._score,
            CARDS[flipped] if flipped >= 0 else None,
            auto,
        )

    def undo(self) -> Applied:
        """Revert the last action (at most 100 back); counts as a move.

        :raises IllegalMoveError: nothing to undo, past the limit, or the game is over.
        """
        if self._status != "playing":
            raise IllegalMoveError(
                f"the game is over ({self._status}); no action applies any more (rules §4)",
                "game_over",
                status=self._status,
            )
        if not self._history:
            if self._unloaded:
                raise HistoryNotLoadedError(
                    "this state was loaded without its undo history: rebuild it from the log"
                )
            if self._depth:
                raise IllegalMoveError(
                    f"undo reaches back at most {UNDO_LIMIT} actions (rules §6)",
                    "undo_limit",
                    limit=UNDO_LIMIT,
                )
            raise IllegalMoveError("nothing to undo (rules §6)", "nothing_to_undo")
        (
            tab,
            self._down,
            found,
            self._stock,
            self._waste,
            self._score,
            self._passes,
            self._hidden,
        ) = self._history.pop()
        self._tab = list(tab)
        self._found = list(found)
        self._depth -= 1
        self._moves += 1
        self._undos += 1
        return Applied(UNDO, None if self._rules.scoring == "none" else self._score)

    # -- internals ------------------------------------------------------------------------

    def _push(self) -> None:
        if self._unloaded and len(self._history) + self._unloaded >= UNDO_LIMIT:
            self._unloaded -= 1  # the oldest step falls out of reach, as the deque's would
        self._history.append(
            (
                tuple(self._tab),
                self._down,
                tuple(self._found),
                self._stock,
                self._waste,
                self._score,
                self._passes,
                self._hidden,
            )
        )
        self._depth += 1

    def _do_draw(self) -> None:
        stock = self._stock
        if not stock:
            raise IllegalMoveError(
                "the stock is empty: recycle the waste instead (rules §3)", "stock_empty"
            )
        self._push()
        if self._draw == 1:
            self._waste += stock[-1:]
            self._stock = stock[:-1]
        else:
            k = 3 if len(stock) >= 3 else len(stock)
            # The first card turned is the stock's last element, so the third ends on top.
            self._waste += stock[: -k - 1 : -1]
            self._stock = stock[:-k]

    def _do_recycle(self) -> None:
        if self._stock:
            raise IllegalMoveError(
                "the stock still has cards: draw instead (rules §3)", "stock_not_empty"
            )
        if not self._waste:
            raise IllegalMoveError(
                "nothing to recycle: the stock and the waste are empty (rules §3)",
                "nothing_to_recycle",
            )
        if self._passes >= self._recycle_limit:
            p = self._rules.passes
            raise IllegalMoveError(
                f"no recycle left: preset {self._rules.preset} with draw {self._draw} allows "
                f"{p} pass{'' if p == 1 else 'es'} through the stock (rules §3, §9)",
                "no_pass_left",
                passes=p or 0,
            )
        self._push()
        self._stock = self._waste[::-1]
        self._waste = ()
        self._passes += 1
        if self._floor:
            self._score = self._score - 100 if self._score > 100 else 0

    def _check_found(self, card: int, di: int) -> None:
        s = card // 13
        if di - F0 != s:
            raise IllegalMoveError(
                f"{PILES[di]} holds {_SUITS[di - F0]}; {CARD_NAMES[card]} goes to f{s + 1} "
                "(rules §1, §2.5)",
                "foundation_suit",
                card=CARD_NAMES[card],
                onto=PILES[di],
            )
        have = self._found[s]
        if have != card % 13:
            need = CARD_NAMES[s * 13 + have] if have < 13 else "nothing"
            raise IllegalMoveError(
                f"{CARD_NAMES[card]} cannot go on f{s + 1}: a foundation is built in suit from "
                f"A to K, and {need} comes next (rules §2.5)",
                "foundation_order",
                card=CARD_NAMES[card],
                onto=f"f{s + 1}",
                **({"next": need} if have < 13 else {}),
            )

    def _check_column(self, card: int, d: int) -> None:
        dcol = self._tab[d]
        if dcol:
            top = dcol[-1]
            if top not in _PARENTS[card]:
                raise IllegalMoveError(
                    f"{CARD_NAMES[card]} does not fit on {CARD_NAMES[top]}: a column builds down "
                    "by one rank in alternating colours (rules §2.1)",
                    "column_build",
                    card=CARD_NAMES[card],
                    onto=CARD_NAMES[top],
                )
        elif card % 13 != 12:
            raise IllegalMoveError(_EMPTY_COLUMN, "empty_column_king", card=CARD_NAMES[card])

    def _move(self, si: int, di: int, n: int) -> int:
        """Check and play a plain move; returns the card turned face up, or -1."""
        tab = self._tab
        if si >= T0:
            c = si - T0
            col = tab[c]
            size = len(col)
            if n > size - self._down[c]:
                if not size:
                    raise IllegalMoveError(f"{PILES[si]} is empty", "pile_empty", pile=PILES[si])
                raise IllegalMoveError(
                    f"only face-up cards move: {PILES[si]} has {size - self._down[c]} face up, "
                    f"not {n} (rules §2.2)",
                    "face_up_only",
                    pile=PILES[si],
                    face_up=size - self._down[c],
                    count=n,
                )
            card = col[size - n]
            if di >= T0:
                if di == si:
                    raise IllegalMoveError("a move needs two different piles", "same_pile")
                d = di - T0
                dcol = tab[d]
                if dcol:
                    if dcol[-1] not in _PARENTS[card]:
                        self._check_column(card, d)
                elif card % 13 != 12:
                    raise IllegalMoveError(
                        _EMPTY_COLUMN, "empty_column_king", card=CARD_NAMES[card]
                    )
                self._push()
                tab[d] = dcol + col[size - n :]
            elif di >= F0:
                if n != 1:
                    raise IllegalMoveError(_ONE_AT_A_TIME, "one_at_a_time")
                found = self._found
                if found[card // 13] != card % 13 or di - F0 != card // 13:
                    self._check_found(card, di)
                self._push()
                found[card // 13] += 1
                self._score += self._pf
                if found[card // 13] == 13 and sum(found) == 52:
                    self._status = "won"
            else:
                raise IllegalMoveError(
                    f"cards cannot be put on the {PILES[di]} (rules §2)",
                    "not_a_target",
                    pile=PILES[di],
                )
            rest = col[: size - n]
            tab[c] = rest
            if rest and len(rest) == self._down[c]:
                dn = list(self._down)
                dn[c] -= 1
                self._down = tuple(dn)
                self._hidden -= 1
                self._score += self._pflip
                return rest[-1]
            return -1
        if si == WASTE:
            waste = self._waste
            if not waste:
                raise IllegalMoveError("the waste is empty", "pile_empty", pile="waste")
            if n != 1:
                raise IllegalMoveError(_WASTE_TOP, "waste_top")
            card = waste[-1]
            if di >= T0:
                d = di - T0
                dcol = tab[d]
                if dcol:
                    if dcol[-1] not in _PARENTS[card]:
                        self._check_column(card, d)
                elif card % 13 != 12:
                    raise IllegalMoveError(
                        _EMPTY_COLUMN, "empty_column_king", card=CARD_NAMES[card]
                    )
                self._push()
                tab[d] = dcol + waste[-1:]
                self._score += self._pw
            elif di >= F0:
                found = self._found
                if found[card // 13] != card % 13 or di - F0 != card // 13:
                    self._check_found(card, di)
                self._push()
                found[card // 13] += 1
                self._score += self._pf
                if found[card // 13] == 13 and sum(found) == 52:
                    self._status = "won"
            else:
                raise IllegalMoveError(
                    f"cards cannot be put on the {PILES[di]} (rules §2)",
                    "not_a_target",
                    pile=PILES[di],
                )
            self._waste = waste[:-1]
            return -1
        if si >= F0:
            if not self._return:
                raise IllegalMoveError(
                    f"preset {self._rules.preset} forbids taking a card back from a foundation "
                    "(rules §2.6, §9)",
                    "no_foundation_return",
                )
            s = si - F0
            k = self._found[s]
            if not k:
                raise IllegalMoveError(f"{PILES[si]} is empty", "pile_empty", pile=PILES[si])
            if n != 1:
                raise IllegalMoveError(
                    "a foundation gives back one card at a time (rules §2.6)", "one_at_a_time"
                )
            if di < T0:
                raise IllegalMoveError(
                    "a card taken back from a foundation goes onto a column (rules §2.6)",
                    "return_to_column",
                )
            card = s * 13 + k - 1
            self._check_column(card, di - T0)
            self._push()
            self._found[s] = k - 1
            tab[di - T0] += (card,)
            return -1
        raise IllegalMoveError(
            "cards leave the stock only by drawing (rules §3)", "stock_draw_only"
        )

    def _top(self, si: int) -> int:
        if si >= T0:
            col = self._tab[si - T0]
            if not col:
                raise IllegalMoveError(f"{PILES[si]} is empty", "pile_empty", pile=PILES[si])
            return col[-1]
        if si == WASTE:
            if not self._waste:
                raise IllegalMoveError("the waste is empty", "pile_empty", pile="waste")
            return self._waste[-1]
        if si >= F0:
            k = self._found[si - F0]
            if not k:
                raise IllegalMoveError(f"{PILES[si]} is empty", "pile_empty", pile=PILES[si])
            return (si - F0) * 13 + k - 1
        raise IllegalMoveError(
            "cards leave the stock only by drawing (rules §3)", "stock_draw_only"
        )

    def _run_of(self, si: int, card: Card) -> int:
        """How many cards move when ``card`` is the first card of the run taken from ``si``."""
        ci = card.index
        if si >= T0:
            c = si - T0
            col = self._tab[c]
            # One message whether the card is elsewhere or face down here: an error must not
            # tell a client where a hidden card lies.
            k = col.index(ci) if ci in col else -1
            if k < self._down[c]:
                raise IllegalMoveError(
                    f"{card} is not a face-up card of {PILES[si]}; "
                    "a run starts at a face-up card (rules §2.2)",
                    "not_face_up",
                    card=str(card),
                    pile=PILES[si],
                )
            return len(col) - k
        if self._top(si) != ci:
            if si == WASTE:
                raise IllegalMoveError(_WASTE_TOP, "waste_top")
            raise IllegalMoveError(
                f"{card} is not the top card of {PILES[si]}",
                "not_top",
                card=str(card),
                pile=PILES[si],
            )
        return 1

    def _resolve(self, m: Move) -> Move:
        si = PILE_INDEX[m.src]
        n = m.count
        if m.card is not None:
            run = self._run_of(si, m.card)
            if n != 1 and n != run:
                raise IllegalMoveError(
                    f"count {n} does not match the run from {m.card} ({run} cards)",
                    "count_mismatch",
                    card=str(m.card),
                    count=n,
                    run=run,
                )
            n = run
        if m.dst == "f":
            if n != 1:
                raise IllegalMoveError(_ONE_AT_A_TIME, "one_at_a_time")
            di = F0 + self._top(si) // 13
        else:
            di = PILE_INDEX[m.dst]
        return _MOVES.get(_key(si, di, n)) or Move(m.src, PILES[di], n)

    def _resolve_tap(self, t: Tap) -> Move:
        si = PILE_INDEX[t.src]
        card = self._top(si)
        self._check_found(card, F0 + card // 13)
        return _MOVES[_key(si, F0 + card // 13, 1)]

    def _resolve_double_tap(self, t: DoubleTap) -> Move:
        si = PILE_INDEX[t.src]
        if t.card is None:
            card, n = self._top(si), 1
        else:
            card, n = t.card.index, self._run_of(si, t.card)
        if n == 1 and self._found[card // 13] == card % 13:
            return _MOVES[_key(si, F0 + card // 13, 1)]
        best, best_len = -1, -1
        for d, col in enumerate(self._tab):
            # Strictly longer wins, so ties stay with the leftmost column.
            if col and col[-1] in _PARENTS[card] and len(col) > best_len:
                best, best_len = d, len(col)
        if best < 0 and card % 13 == 12:
            for d, col in enumerate(self._tab):
                if not col and T0 + d != si:
                    best = d
                    break
        if best < 0:
            raise IllegalMoveError(
                f"no place for {CARD_NAMES[card]}: no foundation, column or empty column takes "
                "it (rules §5)",
                "no_place",
                card=CARD_NAMES[card],
            )
        return _MOVES[_key(si, T0 + best, n)]

    def _auto_finish(self) -> tuple[Applied, ...]:
        """Play the decided rest to the foundations (preset R, rules §9; source 003).

        Each step plays the first card that fits its foundation, looking at the waste, then
        t1..t7; with none, it draws, or recycles an empty stock. It stops when a whole pass
        brings nothing (cannot happen in a reachable position).
        """
        out: list[Applied] = []
        found = self._found
        tab = self._tab
        idle = 0
        scored = self._rules.scoring != "none"
        while self._status == "playing":
            si = -1
            w = self._waste
            if w and found[w[-1] // 13] == w[-1] % 13:
                si, card = WASTE, w[-1]
            else:
                for c in range(7):
                    col = tab[c]
                    if col and found[col[-1] // 13] == col[-1] % 13:
                        si, card = T0 + c, col[-1]
                        break
            if si >= 0:
                self._move(si, F0 + card // 13, 1)
                act: PlainAction = _MOVES[_key(si, F0 + card // 13, 1)]
                idle = 0
            else:
                if idle > len(self._stock) + len(self._waste) + 1:
                    break
                if self._stock:
                    self._do_draw()
                    act = DRAW
                elif self._waste and self._passes < self._recycle_limit:
                    self._do_recycle()
                    act = RECYCLE
                else:
                    break
                idle += 1
            out.append(Applied(_auto(act), self._score if scored else None))
        return tuple(out)
