"""Hypothesis: invariants over random legal play in every preset and draw mode."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    MAX_NUMBER,
    PILES,
    Action,
    DealCode,
    DoubleTap,
    Draw,
    GameState,
    IllegalMoveError,
    Move,
    Recycle,
    Tap,
    Undo,
    full_view,
    legal_view,
    public_view,
    replay,
)
from games.engine.errors import ILLEGAL_MOVE_REASONS

MODES = [(d, p) for d in (1, 3) for p in "NVCR"]
CANDIDATES: list[Action] = [Draw(), Recycle()]
CANDIDATES += [
    Move(s, d, n)
    for s in PILES
    for d in PILES
    if s != d
    for n in range(1, 14 if s[0] == "t" and d[0] == "t" else 3)
]
QUICK: list[Action] = [Tap(p) for p in ("waste", "t1", "t2", "t3", "t4", "t5", "t6", "t7")]
QUICK += [DoubleTap(p) for p in ("waste", "t1", "t2", "t3", "t4", "t5", "t6", "t7")]


def state_of(g: GameState) -> tuple[object, ...]:
    return (g.position_key(), g.score, g.passes_used, g.status)


def check_cards(g: GameState) -> None:
    tab, down, found, stock, waste = g.raw()
    cards = [x for col in tab for x in col] + list(stock) + list(waste)
    cards += [s * 13 + r for s in range(4) for r in range(found[s])]
    assert sorted(cards) == list(range(52))
    for col, dn in zip(tab, down, strict=True):
        assert dn < len(col) or (dn == 0 and not col)


def check_public_view(g: GameState) -> None:
    v = public_view(g)
    full = full_view(g)
    text = json.dumps(v)
    assert isinstance(v["stock"], int) and v["stock"] == len(full["stock"])
    for col, fcol in zip(v["tableau"], full["tableau"], strict=True):
        assert col[: len(fcol["down"])] == [None] * len(fcol["down"])
        assert col[len(fcol["down"]) :] == fcol["up"]
        for name in fcol["down"]:
            assert f'"{name}"' not in text
    for name in full["stock"]:
        assert f'"{name}"' not in text


def check_refusal(g: GameState, error: IllegalMoveError) -> None:
    """A refusal names a known rule, and its details name no card the player cannot see."""
    assert error.reason in ILLEGAL_MOVE_REASONS, error.reason
    full = full_view(g)
    hidden = set(full["stock"]).union(*(col["down"] for col in full["tableau"]))
    # `next` is the rank a foundation wants, which the rules tell anyone: not where a card lies.
    named = {str(value) for key, value in error.details.items() if key != "next"}
    assert not hidden & named, error.details


def check_legal_moves_exact(g: GameState) -> None:
    legal = g.legal_moves()
    assert len(legal) == len(set(legal)), "duplicates in legal_moves"
    lset = set(legal)
    for a in CANDIDATES:
        c = g.copy()
        before = state_of(c)
        try:
            c.apply(a)
        except IllegalMoveError as error:
            check_refusal(c, error)
            assert a not in lset, f"listed but refused: {a}"
            assert state_of(c) == before, f"refused {a} changed the state"
        else:
            assert a in lset, f"accepted but not listed: {a}"
    for a in QUICK:
        c = g.copy()
        try:
            rec = c.apply(a)
        except IllegalMoveError as error:
            check_refusal(c, error)
            continue
        assert rec.action in lset, f"{a} resolved to unlisted {rec.action}"


def accepted(g: GameState, action: Action) -> bool:
    try:
        g.copy().apply(action)
    except IllegalMoveError:
        return False
    return True


def check_legal_view(g: GameState) -> None:
    """The client's legal list says exactly what the server accepts: every move (count
    included), a tap, a move to "f", and what the stock does."""
    view = legal_view(g)
    moves = view["moves"]
    for a in CANDIDATES:
        if isinstance(a, Move):
            assert accepted(g, a) == (moves.get(a.src, {}).get(a.dst) == a.count), a
    assert accepted(g, Draw()) == (view["stock"] == "draw")
    assert accepted(g, Recycle()) == (view["stock"] == "recycle")
    for pile in ("waste", *(f"t{i}" for i in range(1, 8)), "f1", "f2", "f3", "f4"):
        to_foundation = any(to[0] == "f" for to in moves.get(pile, {}))
        assert accepted(g, Move(pile, "f")) == to_foundation, pile
        if pile[0] != "f":
            assert accepted(g, Tap(pile)) == to_foundation, pile


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from(MODES),
    number=st.integers(0, MAX_NUMBER),
    data=st.data(),
)
def test_random_play(mode: tuple[int, str], number: int, data: st.DataObject) -> None:
    code = DealCode(mode[0], mode[1], number)
    g = GameState.from_code(code)
    log: list[Action] = []
    scores: list[int | None] = []
    steps = data.draw(st.integers(1, 60), label="steps")
    for step in range(steps):
        if g.is_over:
            break
        check_cards(g)
        check_public_view(g)
        if step % 3 == 0:
            check_legal_moves_exact(g)
            check_legal_view(g)
        options: list[Action] = list(g.legal_moves())
        if g.can_undo:
            options.append(Undo())
        if not options:
            break
        # Prefer foundation moves sometimes so games get somewhere.
        found: list[Action] = [m for m in options if isinstance(m, Move) and m.dst[0] == "f"]
        greedy = bool(found) and data.draw(st.booleans(), label="greedy")
        pool = found if greedy else options
        a = pool[data.draw(st.integers(0, len(pool) - 1), label="pick")]
        before = state_of(g)
        moves_before = g.moves
        rec = g.apply(a)
        assert g.moves == moves_before + 1
        log.append(rec.action)
        scores.append(rec.score)
        for x in rec.auto:
            log.append(x.action)
            scores.append(x.score)
        if not isinstance(a, Undo) and not g.is_over:
            c = g.copy()
            c.undo()
            assert state_of(c) == before, "undo did not restore the state and score"
    check_cards(g)
    r = replay(code, log)
    assert state_of(r.state) == state_of(g)
    assert r.scores == scores
    assert (r.outcome.moves, r.outcome.undos) == (g.moves, g.undos)
