"""Move generation: the game as a search sees it (:class:`_Game`), with the moves worth
trying from a position, best first (docs/solver.md, "Move order"), and their application."""

from __future__ import annotations

from collections.abc import Sequence

from librt.vecs import vec
from mypy_extensions import i64, u8

from ..state import GameState
from .positions import (
    _COL_COL,
    _COL_F,
    _DOWN0,
    _MATE,
    _NONE52,
    _OPP,
    _PARENTS,
    _RETURN,
    _TALON,
    _UNLIMITED,
    _ZERO52,
    _at_bottom,
    _Cols,
    _destinations,
    _faceup,
    _Macro,
    _pop,
    _Pos,
)
from .pruning import _down_useful, _return_useful, _up_useful


class _Game:
    """The game a search plays from one start position: its rules in the search's terms, and
    the moves worth trying from a position and their application (safe foundation moves
    played automatically). Not thread-safe; cheap to build."""

    def __init__(self, state: GameState, *, relax: bool = False, sound: bool | None = None) -> None:
        """``relax``: the relaxed game where the talon is a set (draw 1, unlimited passes)
        instead: it allows every move of the real one and more, so a proof that the relaxed
        game is lost is a proof for the real one (a win proves nothing).

        ``sound``: generate moves with the proven cuts only, so that running dry is a proof
        of a loss; otherwise also with the fast cuts (:func:`_return_useful` for foundation
        returns, and for the foundation cards that may end a talon chain; :func:`_up_useful`),
        which find wins sooner but may cut every winning line. Default: fast only in draw 1
        with unlimited passes, where the talon is a set (the relaxed game, which only ever
        proves losses, is sound)."""
        rules = state.rules
        self.state = state
        self.relax = relax
        self.sound = relax if sound is None else sound
        self.draw = 1 if relax else rules.draw
        self.returns = rules.foundation_return
        mr = None if relax else rules.max_recycles
        self.recycles = _UNLIMITED if mr is None else mr
        self.unlimited = mr is None
        # Draw 1 with unlimited passes: every talon card is reachable at any time.
        self.talon_is_set = self.unlimited and self.draw == 1
        if sound is None and not self.talon_is_set:
            # The fast cuts are about foundation returns and a talon that is a set: without
            # either they cut nothing more than the sound ones. Under a pass limit they win
            # no deal sooner (deals 0-59, D1V and D3V at 2 s) but make a proof of a loss
            # exhaust the space twice (see schedule._schedule); in draw 3 with unlimited
            # passes they win deals sooner but decide fewer (docs/solver.md, "Two move
            # generators").
            self.sound = True
        raw = state.raw()
        cols = tuple(
            bytes((_DOWN0 + d,)) + bytes(col) for col, d in zip(raw.tableau, raw.down, strict=True)
        )
        talon = bytes(raw.waste) + bytes(reversed(raw.stock))
        pos = len(raw.waste)
        if self.talon_is_set:
            talon, pos = bytes(sorted(talon)), 0
        self.start: _Pos = (cols, talon, pos, state.passes_used, tuple(raw.foundations))

    # -- helpers ----------------------------------------------------------------------------

    def _safe(self, x: int, found: Sequence[int]) -> bool:
        """Can card ``x`` (next on its foundation) go up without losing any win?

        Aces and twos: nothing needs them in a column. Otherwise both cards one rank lower of
        the other colour must be up (nothing left that could go on ``x``); with foundation
        return also the other same-colour suit two ranks lower, so that no chain of cards
        taken back could ever want ``x`` as a base.
        """
        r = x % 13 + 1
        if r <= 2:
            return True
        o1, o2 = _OPP[x // 13]
        if found[o1] < r - 1 or found[o2] < r - 1:
            return False
        return not (self.returns and found[_MATE[x // 13]] < r - 2)

    def _won(self, p: _Pos) -> bool:
        cols, talon, _, _, found = p
        if sum(found) == 52:
            return True
        for col in cols:
            if col[0] != _DOWN0:
                return False
        # Every card face up: with the talon gone (or all of it always reachable) the smallest
        # card still needed is always on top of a column or in the talon, so it finishes.
        return not talon or self.talon_is_set

    def _last_pass(self, p: _Pos) -> bool:
        """Is ``p`` in the last pass of a pass limit (no recycle left)?"""
        return p[3] >= self.recycles and not self.talon_is_set

    def _pile(self, p: _Pos) -> bytes:
        """The waste in the last pass (bottom first; empty before it): a stack whose cards
        can leave only from the top (see :func:`_stuck`)."""
        return p[1][: p[2]] if self._last_pass(p) else b""

    def _stock(self, p: _Pos) -> bytes:
        """The stock in the last pass (in draw order; empty before it): drawn onto the pile
        ``self.draw`` cards at a time (see :func:`_stuck`)."""
        return p[1][p[2] :] if self._last_pass(p) else b""

    def _reach(self, talon: bytes, pos: int, passes: int) -> list[int]:
        """The talon index of every card that can become the waste top (with a recycle if
        need be)."""
        n: i64 = len(talon)
        if not n:
            return []
        if self.talon_is_set:
            return list(range(n))
        d: i64 = self.draw
        out: list[int] = []
        seen: i64 = 0  # bit i: index i is in out (talons hold at most 24 cards)
        if pos:
            out.append(pos - 1)
            seen |= i64(1) << (pos - 1)
        k: i64 = pos + d
        while k < n:
            out.append(k - 1)
            seen |= i64(1) << (k - 1)
            k += d
        if n > pos and not seen >> (n - 1) & 1:
            out.append(n - 1)
            seen |= i64(1) << (n - 1)
        if passes < self.recycles:
            k = d
            while k < n:
                if not seen >> (k - 1) & 1:
                    out.append(k - 1)
                    seen |= i64(1) << (k - 1)
                k += d
            if not seen >> (n - 1) & 1:
                out.append(n - 1)
        return out

    def _auto(
        self,
        cols: list[bytes],
        talon: bytes,
        pos: int,
        found: list[int],
        autos: list[_Macro],
        last: bool = False,
    ) -> tuple[bytes, int]:
        """Play safe foundation moves (columns; the waste top in draw 1, or in the ``last``
        pass; any talon card when the talon is a set) until none is left."""
        # In draw 3 taking the waste top shifts the grouping of the next pass, not this one's.
        draw1 = self.draw == 1 or last
        talon_set = self.talon_is_set
        while True:
            f0, f1, f2, f3 = found
            need = (
                f0 if f0 < 13 else -1,
                13 + f1 if f1 < 13 else -1,
                26 + f2 if f2 < 13 else -1,
                39 + f3 if f3 < 13 else -1,
            )
            for c in range(7):
                col = cols[c]
                if len(col) > 1 and col[-1] in need and self._safe(col[-1], found):
                    x = col[-1]
                    found[x // 13] += 1
                    cols[c] = _pop(col, 1)
                    autos.append((_COL_F, c, 0, 0))
                    break
            else:
                if not (draw1 and talon):
                    return talon, pos
                if talon_set:
                    for x in need:
                        if x >= 0 and x in talon and self._safe(x, found):
                            i = talon.index(x)
                            found[x // 13] += 1
                            talon = talon[:i] + talon[i + 1 :]
                            autos.append((_TALON, x, -1, 0))
                            break
                    else:
                        return talon, pos
                elif pos and talon[pos - 1] in need and self._safe(talon[pos - 1], found):
                    x = talon[pos - 1]
                    found[x // 13] += 1
                    talon = talon[: pos - 1] + talon[pos:]
                    pos -= 1
                    autos.append((_TALON, x, -1, 0))
                else:
                    return talon, pos

    # -- move generation ---------------------------------------------------------------------

    def _moves(self, p: _Pos, talon_first: bool = False) -> list[_Macro]:
        """The moves worth trying from ``p``, best first (see docs/solver.md, "Move order");
        ``talon_first``: the talon's moves before those that turn a card up."""
        cols, talon, pos, passes, found = p
        where = _NONE52[:]  # card -> its column when on top
        empty = -1
        for c in range(7):
            col = cols[c]
            if len(col) > 1:
                where[col[-1]] = c
            elif empty < 0:
                empty = c
        reach = self._reach(talon, pos, passes)
        reach_cards = _ZERO52[:]  # flagged
        for i in reach:
            reach_cards[talon[i]] = 1

        f_flip: list[_Macro] = []
        flips: list[_Macro] = []  # moves that turn a card up, and kings to an empty column
        flips_down: list[int] = []  # their columns' face-down counts
        f_other: list[_Macro] = []
        talon_moves: list[_Macro] = []
        emptying: list[_Macro] = []
        partial: list[_Macro] = []
        returns: list[_Macro] = []
        king_now = -1  # -1: not computed yet, 0/1 afterwards
        faceup: vec[u8] | None = None
        sound = self.sound
        lazy = self.talon_is_set
        ftops = _ZERO52[:]
        if lazy:
            # Draw 1, unlimited passes: a talon card can wait in the talon until the move
            # that needs it, so play it to a column only as the start of a chain of talon
            # cards that ends at a card that can follow from the tableau or a foundation
            # (_down_useful); unsound only: to its foundation only when a chain ending at a
            # column top can follow (_up_useful).
            faceup = _faceup(cols)
            if self.returns:
                # Foundation tops that could come back onto a talon card: any of them, or
                # (unsound) those whose return is useful by itself.
                for s, f in enumerate(found):
                    x = s * 13 + f - 1
                    if f and (sound or _return_useful(x, found, cols, faceup, reach_cards, where)):
                        ftops[x] = 1

        for c in range(7):
            col = cols[c]
            n = len(col) - 1
            if n <= 0:
                continue
            down = col[0] - _DOWN0
            top = col[-1]
            if found[top // 13] == top % 13:
                if n - 1 == down and down > 0:
                    f_flip.append((_COL_F, c, 0, 0))
                else:
                    f_other.append((_COL_F, c, 0, 0))
            for k in range(down, n):
                x = col[k + 1]
                cnt = n - k
                if x % 13 == 12:
                    # A king at the bottom of its column never needs another empty column.
                    if empty >= 0 and k > 0:
                        flips.append((_COL_COL, c, cnt, empty))
                        flips_down.append(down)
                    continue
                for par in _PARENTS[x]:
                    d = where[par]
                    if d < 0:
                        continue
                    m = (_COL_COL, c, cnt, d)
                    if k == down:
                        if down:
                            flips.append(m)
                            flips_down.append(down)
                            continue
                        # Emptying a column only pays when a king moves in right after.
                        if king_now < 0:
                            king_now = int(self._king_ready(cols, reach_cards, found))
                        if king_now:
                            emptying.append(m)
                        continue
                    # A partial run move (x leaves y for its twin y'): only worth it when the
                    # next move uses y - y up to its foundation, or the twin of x onto y.
                    # (Moving y on can always be done first, with the run still on it.)
                    y = col[k]
                    if found[y // 13] == y % 13:
                        partial.append(m)
                        continue
                    tw = _MATE[x // 13] * 13 + x % 13
                    if faceup is None:
                        faceup = _faceup(cols)
                    if faceup[tw]:
                        # A twin at the bottom of a column would empty it: a king must be
                        # ready to move in (see emptying moves).
                        if not _at_bottom(cols, tw):
                            partial.append(m)
                            continue
                        if king_now < 0:
                            king_now = int(self._king_ready(cols, reach_cards, found))
                        if king_now:
                            partial.append(m)
                    elif reach_cards[tw]:
                        if not lazy or _down_useful(tw, reach_cards, faceup, ftops):
                            partial.append(m)
                    elif (
                        self.returns
                        and found[tw // 13] == tw % 13 + 1
                        and (sound or _return_useful(tw, found, cols, faceup, reach_cards, where))
                    ):
                        partial.append(m)

        for i in reach:
            x = talon[i]
            if found[x // 13] == x % 13 and (
                not lazy or sound or _up_useful(x, reach_cards, where)
            ):
                f_other.append((_TALON, x, -1, 0))
            if lazy and faceup is not None and not _down_useful(x, reach_cards, faceup, ftops):
                continue
            talon_moves.extend((_TALON, x, d, 0) for d in _destinations(x, empty, where))

        if self.returns:
            for s in range(4):
                k = found[s]
                if not k:
                    continue
                x = s * 13 + k - 1
                if not sound:
                    if faceup is None:
                        faceup = _faceup(cols)
                    if not _return_useful(x, found, cols, faceup, reach_cards, where):
                        continue
                returns.extend((_RETURN, s, d, 0) for d in _destinations(x, empty, where))

        out = f_flip
        if talon_first:
            out.extend(f_other)
            out.extend(talon_moves)
            _extend_most_down_first(out, flips, flips_down)
        else:
            _extend_most_down_first(out, flips, flips_down)
            out.extend(f_other)
            out.extend(talon_moves)
        out.extend(emptying)
        out.extend(partial)
        out.extend(returns)
        return out

    def _king_ready(self, cols: _Cols, reach_cards: vec[u8], found: Sequence[int]) -> bool:
        """Could a king move into an empty column right now (from above other cards in a
        column, from the talon, or back from a foundation)?"""
        for s in range(4):
            k = s * 13 + 12
            if found[s] == 13:
                if self.returns:
                    return True
            elif reach_cards[k]:
                return True
        for col in cols:
            for k in (12, 25, 38, 51):
                i = col.find(k)
                if i > 1 and i > col[0] - _DOWN0:
                    return True
        return False

    def _apply(self, p: _Pos, m: _Macro, autos: list[_Macro]) -> _Pos:
        cols_t, talon, pos, passes, found_t = p
        cols = list(cols_t)
        kind = m[0]
        if kind == _COL_COL:
            _, c, cnt, d = m
            src = cols[c]
            cols[d] = cols[d] + src[-cnt:]
            rest = cols[c] = _pop(src, cnt)
            # The position was closed under the automatic moves and no foundation changed:
            # only the card turned up or uncovered can go up now.
            x = rest[-1]
            if len(rest) == 1 or found_t[x // 13] != x % 13 or not self._safe(x, found_t):
                return (tuple(cols), talon, pos, passes, found_t)
        # From here a foundation may change (by the move or the automatic moves after it).
        found = list(found_t)
        if kind == _COL_F:
            c = m[1]
            x = cols[c][-1]
            found[x // 13] += 1
            cols[c] = _pop(cols[c], 1)
        elif kind == _TALON:
            _, x, d, _ = m
            i = talon.index(x)
            if not self.talon_is_set:
                if not (
                    i == pos - 1
                    or (i >= pos and ((i + 1 - pos) % self.draw == 0 or i == len(talon) - 1))
                ):
                    passes += 1
                pos = i
            talon = talon[:i] + talon[i + 1 :]
            if d < 0:
                found[x // 13] += 1
            else:
                cols[d] = cols[d] + bytes((x,))
        elif kind == _RETURN:
            _, s, d, _ = m
            found[s] -= 1
            cols[d] = cols[d] + bytes((s * 13 + found[s],))
        talon, pos = self._auto(cols, talon, pos, found, autos, passes >= self.recycles)
        return (tuple(cols), talon, pos, passes, tuple(found))

    def _start(self) -> tuple[_Pos, list[_Macro]]:
        autos: list[_Macro] = []
        cols = list(self.start[0])
        found = list(self.start[4])
        talon, pos = self._auto(
            cols, self.start[1], self.start[2], found, autos, self.start[3] >= self.recycles
        )
        return (tuple(cols), talon, pos, self.start[3], tuple(found)), autos


def _extend_most_down_first(out: list[_Macro], flips: list[_Macro], downs: list[int]) -> None:
    """Append ``flips`` to ``out``, those of the columns with the most face-down cards
    (``downs``) first, in their order otherwise."""
    if not downs:
        return
    for d in range(max(downs), -1, -1):
        for j in range(len(flips)):
            if downs[j] == d:
                out.append(flips[j])
