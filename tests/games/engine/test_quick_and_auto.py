"""Rules §5 (tap, double tap) and §9 preset R auto-finish."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.engine import (
    Auto,
    Card,
    DoubleTap,
    Draw,
    GameState,
    IllegalMoveError,
    Move,
    Recycle,
    Rules,
    Tap,
)

PosFn = Callable[..., GameState]


# §5 tap ---------------------------------------------------------------------------------


def test_5_tap_sends_top_card_to_its_foundation(pos: PosFn) -> None:
    g = pos([["AH"]], hidden=[["9C"]], waste=["AD"])
    assert g.apply(Tap("t1")).action == Move("t1", "f2")
    assert g.apply(Tap("waste")).action == Move("waste", "f3")


def test_5_tap_refused_when_it_does_not_fit(pos: PosFn) -> None:
    g = pos([["2H"]], waste=["3D"])
    with pytest.raises(IllegalMoveError, match=r"§2\.5"):
        g.apply(Tap("t1"))
    with pytest.raises(IllegalMoveError, match="empty"):
        g.apply(Tap("t2"))
    assert g.moves == 0


def test_5_tap_only_on_waste_or_column() -> None:
    with pytest.raises(ValueError, match="tap"):
        Tap("f1")


# §5 double tap --------------------------------------------------------------------------


def test_5_double_tap_foundation_first(pos: PosFn) -> None:
    g = pos([["AH"], ["2S"]], foundations=(0, 0, 0, 0))
    assert g.apply(DoubleTap("t1")).action == Move("t1", "f2")


def test_5_double_tap_longest_column(pos: PosFn) -> None:
    # 7H fits on 8S (t2, 1 card) and on 8C (t5, 3 cards incl. face-down): t5 is longer.
    g = pos([["7H"], ["8S"], [], [], ["8C"]], hidden=[[], [], [], [], ["2D", "3D"]])
    assert g.apply(DoubleTap("t1")).action == Move("t1", "t5")


def test_5_double_tap_ties_go_leftmost(pos: PosFn) -> None:
    g = pos([["7H"], [], ["8C"], [], ["8S"]], hidden=[[], [], ["2D"], [], ["3D"]])
    assert g.apply(DoubleTap("t1")).action == Move("t1", "t3")


def test_5_double_tap_king_to_leftmost_empty_column(pos: PosFn) -> None:
    g = pos([["5S"], [], ["6H"], [], []], hidden=[["2D"]], waste=["KD"])
    assert g.apply(DoubleTap("waste")).action == Move("waste", "t2")


def test_5_double_tap_card_inside_a_column_moves_the_run(pos: PosFn) -> None:
    g = pos([["9S", "8H", "7C"], [], ["10D"]], hidden=[["2D"]])
    rec = g.apply(DoubleTap("t1", Card.parse("9S")))
    assert rec.action == Move("t1", "t3", 3) and rec.flipped == Card.parse("2D")


def test_5_double_tap_run_never_goes_to_a_foundation(pos: PosFn) -> None:
    g = pos([["2S", "AH"], [], ["3D"]], foundations=(1, 0, 0, 0))
    assert g.apply(DoubleTap("t1", Card.parse("2S"))).action == Move("t1", "t3", 2)


def test_5_double_tap_nowhere_to_go(pos: PosFn) -> None:
    g = pos([["5S"], ["9H"]], waste=["QD"])
    with pytest.raises(IllegalMoveError, match=r"no place for QD.*§5"):
        g.apply(DoubleTap("waste"))
    with pytest.raises(IllegalMoveError, match=r"§2\.4"):
        g.apply(DoubleTap("waste", Card.parse("5S")))
    assert g.moves == 0


# §9 preset R auto-finish ------------------------------------------------------------------


def test_9_relaxed_draw1_finishes_by_itself_with_stock_left(pos: PosFn) -> None:
    g = pos(
        [["QS"]], hidden=[["KS"]], stock=["KC"], foundations=(11, 13, 13, 12), preset="R", draw=1
    )
    rec = g.apply(Move("t1", "f1"))
    assert rec.flipped == Card.parse("KS")
    assert [a.action for a in rec.auto] == [
        Auto(Move("t1", "f1")),
        Auto(Draw()),
        Auto(Move("waste", "f4")),
    ]
    assert g.is_won and g.moves == 1  # automatic moves are not counted
    assert all(a.score is None for a in rec.auto)


def test_9_relaxed_draw1_recycles_when_needed(pos: PosFn) -> None:
    g = pos(
        [["QS"]],
        hidden=[["KS"]],
        stock=[],
        waste=["QC", "KC"],
        foundations=(11, 13, 13, 11),
        preset="R",
        draw=1,
    )
    rec = g.apply(Move("t1", "f1"))
    acts = [a.action for a in rec.auto]
    assert acts == [
        Auto(Move("t1", "f1")),
        Auto(Recycle()),
        Auto(Draw()),
        Auto(Move("waste", "f4")),
        Auto(Draw()),
        Auto(Move("waste", "f4")),
    ]
    assert g.is_won and g.moves == 1 and g.passes_used == 1


def test_9_relaxed_draw3_waits_for_empty_stock_and_waste(pos: PosFn) -> None:
    g = pos(
        [["QS"]], hidden=[["KS"]], stock=["KC"], foundations=(11, 13, 13, 12), preset="R", draw=3
    )
    assert g.apply(Move("t1", "f1")).auto == ()  # all face up, but the stock is not empty
    assert g.apply(Draw()).auto == ()  # the waste is not empty
    rec = g.apply(Move("waste", "f4"))
    assert [a.action for a in rec.auto] == [Auto(Move("t1", "f1"))]
    assert g.is_won and g.moves == 3


def test_9_no_auto_finish_outside_relaxed(pos: PosFn) -> None:
    for preset in "NVC":
        g = pos(
            [["QS"]], hidden=[["KS"]], stock=["KC"], foundations=(11, 13, 13, 12), preset=preset
        )
        assert g.apply(Move("t1", "f1")).auto == () and not g.is_won


def test_9_auto_moves_are_refused_from_the_player(pos: PosFn) -> None:
    g = pos([["AS"]], hidden=[["2C"]], preset="R")
    with pytest.raises(IllegalMoveError, match="automatic"):
        g.apply(Auto(Move("t1", "f1")))


def test_9_auto_moves_are_logged_and_replayed() -> None:
    # Find a D1R deal position where auto-finish fires by playing the log of a relaxed game
    # built by hand: replay() needs the automatic entries right after their trigger.
    g = GameState.from_position(
        Rules.from_preset(1, "R"),
        tableau=[["QS"]],
        hidden=[["KS"]],
        stock=["KC"],
        foundations=(11, 13, 13, 12),
    )
    rec = g.apply(Move("t1", "f1"))
    log = [rec.action, *(a.action for a in rec.auto)]
    assert isinstance(log[0], Move)
    assert isinstance(log[1], Auto)
