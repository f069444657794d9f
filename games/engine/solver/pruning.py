"""Pruning: the dead-position check (:func:`_stuck`, and :func:`_stays_open` for when a
child passes it because its parent does) and the cuts of the move generator: the sound chain
rule (:func:`_down_useful`) and the fast cuts, for wins only (:func:`_up_useful`,
:func:`_return_useful`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64, u8

from .positions import (
    _COL_COL,
    _DOWN0,
    _MATE,
    _NONE52,
    _OPP,
    _PARENT_A,
    _PARENT_B,
    _PARENTS,
    _TALON,
    _ZERO52,
    _Cols,
    _Macro,
    _Pos,
)

_SUIT: Final = vec[i64]([c // 13 for c in range(52)])
_RANK: Final = vec[i64]([c % 13 for c in range(52)])
"""A card's suit and rank (0-based), looked up where a division costs."""
_ANY: Final = 52
_ZERO4: Final = vec[i64]([0] * 4)
_ZERO64: Final = vec[i64]([0] * 64)
"""Copied (``[:]``) for :func:`_stuck`'s tables by suit and its lists of cards."""
_NO_FAILURE: Final = vec[u8]([0] * 53)
"""Copied for :func:`_serve`'s ``failed``: a flag by card, and one more at ``_ANY``."""


def _stays_open(
    p: _Pos, child: _Pos, m: _Macro, returns: bool, pile: bytes = b"", parent_pile: bytes = b""
) -> bool:
    """Does ``child`` pass :func:`_stuck` because ``p`` does?  True when the card the move
    put onto another card can leave it at once in the child: its other parent serves
    whatever the rest does (:func:`_serves_now`), or it is the top itself and every lower
    card of its suit is on its foundation, in the talon or on a column top; or when it went
    into an empty column. ``pile`` and ``parent_pile``: the child's and ``p``'s piles (as for
    :func:`_stuck`); never true when the move added cards to the pile.

    Then every derivation of the fixpoint in ``p`` still holds in ``child``: the card under
    its old place, and the card it now covers, are uncovered from the start; a card from
    the talon is now a column top; the automatic foundation moves are safe ones, whose
    cards no card left in a column needs (both cards that could go on them are up).
    """
    kind = m[0]
    if kind == _COL_COL:
        q = p[0][m[1]][-m[2]]
        d = m[3]
    elif kind == _TALON and m[2] >= 0:
        q, d = m[1], m[2]
    else:
        return False
    if pile and not parent_pile.startswith(pile):
        return False  # cards were drawn onto the pile: new constraints
    cols = child[0]
    col = cols[d]
    i = col.find(q, 1)
    if i < 1:
        return False  # the automatic moves took it up: check
    if i == 1:
        return True  # a king into an empty column
    par = col[i - 1]
    covered = _ZERO52[:]  # flagged: the column cards under others, and the pile's
    tops = _ZERO52[:]  # flagged: the column tops
    for c in cols:
        n = len(c)
        if n > 1:
            for j in range(1, n - 1):
                covered[c[j]] = 1
            tops[c[n - 1]] = 1
    for j in range(len(pile) - 1):
        covered[pile[j]] = 1
    found = child[4]
    for tw in _PARENTS[q]:
        if tw != par and _serves_now(tw, covered, tops, found, returns):
            return True
    if i != len(col) - 1:
        return False
    s = q // 13
    return all(not covered[z] for z in range(s * 13 + found[s], q))


def _serves_now(
    p: int, covered: vec[u8], tops: vec[u8], found: Sequence[int], returns: bool
) -> bool:
    """Does ``p`` serve (see :func:`_serve`) whatever the other cards do: a column top, or a
    talon / foundation card whose parents lead to one, or to a king, through talon and
    foundation cards only? (``covered`` and ``tops``: cards flagged.)"""
    if tops[p]:
        return True
    if covered[p] or (not returns and found[p // 13] > p % 13):
        return False
    if p % 13 == 12:
        return True
    return any(_serves_now(x, covered, tops, found, returns) for x in _PARENTS[p])


def _stuck(
    cols: _Cols,
    found: Sequence[int],
    returns: bool,
    hint: Sequence[int] = (),
    order: list[int] | None = None,
    pile: bytes = b"",
    stock: bytes = b"",
    draw: i64 = 1,
) -> bool:
    """Is some column card unable ever to leave the card it lies on?  (Then the position is
    lost: in a win every card leaves its support by a move of its own.)

    A least fixpoint over "card q can leave its support by a move of its own" (``free``):

    * to its foundation: q is uncovered (the card on q can leave) and every lower card of its
      suit can reach the foundation (it is there, in the talon, or uncovered in a column);
    * onto a parent p other than its support: p can become a column top (``serve``: p is
      uncovered in a column; from the talon or a foundation - return allowed - only onto a
      parent of its own that serves, or a king into an empty column);
    * a king into an empty column (always assumed possible);
    * a face-down q must be uncovered first, whatever the route.

    ``pile``: the waste in the last pass (bottom first), a stack that cards leave only from
    the top, one at a time, and that nothing is put onto but cards drawn later: its cards are
    judged like face-down cards of a column (each must be uncovered first, whatever the
    route), and one of them becomes a column top only by moving onto a parent that serves
    (docs/solver.md, "Dead positions"). ``stock``: the cards still to be drawn in that
    pass, in draw order, ``draw`` at a time: each draw puts them onto the pile, so they are
    judged in stages, one a draw. A stage derives what can happen before the next draw
    (the cards still in the stock neither serve nor reach their foundation); the cards it
    drew that cannot leave in it stay on the pile, under the next ones ("The stock of the
    last pass" there).

    Everything else is assumed possible (the talon is fully reachable, empty columns appear),
    so the fixpoint over-approximates: whatever a real line of play does, it derives, by
    induction over the moves of that line. A card it cannot derive never leaves: lost.

    The cards are tried in passes until one adds nothing; ``hint`` (the order in which the
    cards were derived in the parent position, filled into ``order``) only saves passes.
    """
    above = _NONE52[:]  # the card lying on a column card (-1: a top, or not in a column)
    sup = _NONE52[:]  # the card a column card lies on (-1: the column's bottom card)
    incol = _ZERO52[:]  # 1: a column card, 2: a card of the pile, 3: of the stock
    flag = _ZERO52[:]  # 1: a face-up card with a support, 2: a face-down one or the pile's
    # The cards to judge (``pending[:n]``, face-down ones as -1 - card) and those a pass
    # leaves (``left[:nl]``): every card is in one at most, so 64 places do.
    pending = _ZERO64[:]
    left = _ZERO64[:]
    n: i64 = 0
    for xb in stock:
        incol[xb] = 3
    y: i64 = -1
    x: i64
    for xb in pile:
        x = xb
        incol[x] = 2
        flag[x] = 2
        if y >= 0:
            sup[x] = y
            above[y] = x
        y = x
    for j in range(len(pile) - 1, -1, -1):  # top first, as for the columns
        pending[n] = -1 - i64(pile[j])
        n += 1
    for col in cols:
        size: i64 = len(col)
        if size <= 1:
            continue
        down: i64 = col[0] - _DOWN0
        x = col[size - 1]
        incol[x] = 1
        # top first, face-down ones flagged by a negative entry (-1 - card)
        for i in range(size - 2, 0, -1):
            y = col[i]
            incol[y] = 1
            sup[x] = y
            above[y] = x
            if i >= down:
                pending[n] = x
                flag[x] = 1
            else:
                pending[n] = -1 - x
                flag[x] = 2
            n += 1
            x = y
    if not n and not stock:
        return False
    e: i64
    nl: i64 = 0
    if hint:
        for h in hint:
            x = h
            f = flag[x]
            if f:
                left[nl] = x if f == 1 else -1 - x
                nl += 1
                flag[x] = 0
        for i in range(n):
            e = pending[i]
            if flag[e if e >= 0 else -1 - e]:
                left[nl] = e
                nl += 1
        pending, left, n = left, pending, nl
    fnd = _ZERO4[:]
    for s in range(4):
        fnd[s] = found[s]
    free = _ZERO52[:]
    served = _ZERO52[:]  # 1: can become a column top (once true, true for good)
    # fmax[s]: a card of suit s up to this rank has every lower card of its suit able to
    # reach the foundation (on it, in the talon, or uncovered in a column); the card of that
    # rank (if below 13) is the one that stops it. Kept up to date as cards are derived, so
    # that a pass sees what the cards before it derived.
    fmax = _ZERO4[:]
    for s in range(4):
        fmax[s] = _blocker(s * 13 + fnd[s], s * 13 + 13, incol, above, free) - s * 13
    q: i64
    a: i64
    # the pile, bottom first, to ``ntop`` (cards able to leave may linger above it)
    piled = _ZERO64[:]
    ntop: i64 = 0
    for xb in pile:
        piled[ntop] = xb
        ntop += 1
    drawn: i64 = 0  # the stock's cards on the pile so far
    while True:
        failed = _NO_FAILURE[:]  # talon / foundation cards found unable to serve this pass
        nl = 0
        # Another pass can only help when a card was freed after some card (or some talon or
        # foundation card's serving) failed.
        again = False
        for i in range(n):
            e = pending[i]
            q = e if e >= 0 else -1 - e
            a = above[q]
            acc = a < 0 or free[a] != 0
            if (e < 0 and not acc) or not _leaves(
                q, acc, above, sup, incol, free, fmax, fnd, returns, served, failed
            ):
                left[nl] = e  # (when face down: still covered)
                nl += 1
                continue
            # q leaves: to its foundation (a king: into an empty column), or onto a parent
            free[q] = 1
            if not again and (nl or failed[_ANY]):
                again = True  # something judged before may judge otherwise now
            if order is not None:
                order.append(q)
            y = sup[q]
            if y >= 0:
                s = _SUIT[y]
                if fmax[s] == _RANK[y]:
                    # y stopped its suit's reach: it goes further now.
                    fmax[s] = _blocker(y + 1, s * 13 + 13, incol, above, free) - s * 13
        if nl and again:
            pending, left, n = left, pending, nl
            continue
        if drawn >= len(stock):
            return nl > 0
        # The stage is settled: the next draw puts its cards onto the pile, over the top
        # card that could not leave (the ones that could are taken to have left). Unless the
        # new top can leave, nothing else can either (the cards it covers could not, and it
        # serves no card and lets no suit go up without leaving), so the stage needs no
        # passes: draw again.
        first = drawn  # the first card drawn in this stage
        while True:
            while ntop and free[piled[ntop - 1]]:
                ntop -= 1
            y = piled[ntop - 1] if ntop else -1
            last = min(drawn + draw, len(stock))
            for j in range(drawn, last):
                x = stock[j]
                incol[x] = 2
                if y >= 0:
                    sup[x] = y
                    above[y] = x
                    served[y] = 0
                piled[ntop] = x
                ntop += 1
                y = x
            for j in range(drawn, last):
                s = _SUIT[stock[j]]
                fmax[s] = _blocker(s * 13 + fnd[s], s * 13 + 13, incol, above, free) - s * 13
            drawn = last
            failed = _NO_FAILURE[:]
            if _leaves(y, True, above, sup, incol, free, fmax, fnd, returns, served, failed):
                break
            if drawn >= len(stock):
                return True
        # The cards drawn in this stage first, the top first (what they free, the next ones
        # see), then those the last pass left.
        n = 0
        for j in range(drawn - 1, first - 1, -1):
            pending[n] = -1 - i64(stock[j])
            n += 1
        for i in range(nl):
            pending[n] = left[i]
            n += 1


def _leaves(
    q: i64,
    acc: bool,
    above: vec[i64],
    sup: vec[i64],
    incol: vec[u8],
    free: vec[u8],
    fmax: vec[i64],
    fnd: vec[i64],
    returns: bool,
    served: vec[u8],
    failed: vec[u8],
) -> bool:
    """Can ``q`` (uncovered, or ``acc`` false: not yet) leave its support by a move of its
    own, as far as :func:`_stuck` has derived: to its foundation (uncovered, its suit's
    reach up to it), a king into an empty column, or onto a parent other than its support
    that serves (:func:`_serve`). (``fnd``: the foundations.)"""
    r = _RANK[q]
    if r == 12 or (acc and r <= fmax[_SUIT[q]]):
        return True
    sq = sup[q]
    for k in range(2):
        par = _PARENT_A[q] if k == 0 else _PARENT_B[q]
        if par == sq:
            continue
        if incol[par] == 1:
            a = above[par]
            if a < 0 or free[a]:
                return True
        elif served[par] or (
            not failed[par] and _serve(par, above, incol, free, fnd, returns, served, failed)
        ):
            return True
    return False


def _blocker(lo: i64, hi: i64, incol: vec[u8], above: vec[i64], free: vec[u8]) -> i64:
    """The first of cards ``lo..hi-1`` (one suit, rising) that lies in a column or the pile
    under a card that cannot leave it yet, or is still in the last pass's stock (so it
    cannot go up), or ``hi``."""
    for z in range(lo, hi):
        if incol[z]:
            if incol[z] == 3:
                return z  # still in the stock
            a = above[z]
            if a >= 0 and not free[a]:
                return z
    return hi


def _serve(
    p: i64,
    above: vec[i64],
    incol: vec[u8],
    free: vec[u8],
    fnd: vec[i64],
    returns: bool,
    served: vec[u8],
    failed: vec[u8],
) -> bool:
    """Can ``p`` become a column top (so that a card can go on it)?  ``served`` remembers the
    cards found able to (for good: ``free`` only grows), ``failed`` those found unable in this
    pass (and ``failed[_ANY]`` whether any was); ``fnd``: the foundations."""
    if incol[p] == 1:
        a = above[p]
        return a < 0 or free[a] != 0
    if served[p]:
        return True
    if failed[p] or incol[p] == 3:
        return False  # (a card still in the last pass's stock: not before it is drawn)
    # In the talon or on a foundation: it must go onto a column first (from the pile, once
    # uncovered).
    if (not returns and fnd[_SUIT[p]] > _RANK[p]) or (
        incol[p] and above[p] >= 0 and not free[above[p]]
    ):
        ok = False
    elif _RANK[p] == 12:
        ok = True
    else:
        ok = _serve(_PARENT_A[p], above, incol, free, fnd, returns, served, failed) or _serve(
            _PARENT_B[p], above, incol, free, fnd, returns, served, failed
        )
    if ok:
        served[p] = 1
    else:
        failed[p] = 1
        failed[_ANY] = 1
    return ok


def _up_useful(x: int, talon: vec[u8], where: vec[i64]) -> bool:
    """Is there a chain x+1, x+2 ... through the talon (``talon``: its reachable cards,
    flagged) that ends at a column top (``where`` >= 0)?  (Fast search only: not proven.)"""
    while x % 13 != 12:
        x += 1
        if where[x] >= 0:
            return True
        if not talon[x]:
            return False
    return False


def _down_useful(x: int, talon: vec[u8], faceup: vec[u8], ftops: vec[u8]) -> bool:
    """Can something end up on ``x`` from the tableau (directly or through talon cards), or
    come back onto it from a foundation (``ftops``: foundation tops, none without return)?
    Card sets are flags by card.

    A sound cut with every foundation top in ``ftops`` (docs/solver.md, "the chain rule");
    the fast search passes only those whose return is useful by itself."""
    if x % 13 == 0:
        return False
    for s in _OPP[x // 13]:
        y = s * 13 + x % 13 - 1
        if faceup[y] or ftops[y]:
            return True
        if talon[y] and _down_useful(y, talon, faceup, ftops):
            return True
    return False


def _return_useful(
    x: int,
    found: Sequence[int],
    cols: _Cols,
    faceup: vec[u8],
    talon: vec[u8],
    where: vec[i64],
) -> bool:
    """Fast search only, not sound (a win may need two suits taken back in turn, issue #22).

    Taking ``x`` back from its foundation pays only when the next move uses it: a card
    one rank lower of the other colour goes on it (from the tableau, the talon, or itself
    taken back for a use of its own), or the card under ``x`` comes back in turn. A column
    card that lies on ``x``'s twin counts only when that move may be made too: the twin it
    leaves goes up, or the card's own twin can come onto it. (Card sets as for
    :func:`_down_useful`; ``where`` as for :func:`.positions._destinations`.)"""
    r = x % 13
    if r == 0:
        return False
    for s in _OPP[x // 13]:
        y = s * 13 + r - 1
        if talon[y]:
            return True
        if faceup[y]:
            # When y lies on x's twin z, moving it leaves z (a partial run move), which the
            # next move must use in turn: z up, or y's twin onto z.
            z = _MATE[x // 13] * 13 + r
            if not faceup[z] or found[z // 13] == r or not _lies_on(cols, y, z):
                return True
            tw = _MATE[s] * 13 + r - 1
            if faceup[tw] or talon[tw] or found[tw // 13] == r:
                return True
        if found[s] == r and _return_useful(y, found, cols, faceup, talon, where):
            return True
    below = x - 1
    if any(where[p] >= 0 for p in _PARENTS[below]):
        lower = list(found)
        lower[x // 13] -= 1
        return _return_useful(below, lower, cols, faceup, talon, where)
    return False


def _lies_on(cols: _Cols, x: int, y: int) -> bool:
    """Does column card ``x`` lie on card ``y``?"""
    for col in cols:
        i = col.find(x, 2)
        if i > 1:
            return col[i - 1] == y
    return False
