"""Rules §7: one test per scoring row, the floor, Vegas display, and whole won games."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.engine import CARDS, Draw, GameState, Move, Recycle, Rules, Tap, Undo

PosFn = Callable[..., GameState]

# A hand-made deal (21 face-down cards, 24 in stock) that plays out without a foundation
# return: t7..t4 hold one suit each, low cards on top, so every move to a foundation flips
# the next card. The stock starts with KS, which goes to an empty column first (+5).
WIN_TABLEAU = [["5C"], ["8H"], ["7H"], ["AC"], ["AD"], ["AH"], ["AS"]]
WIN_HIDDEN = [
    [],
    ["6D"],
    ["9S", "8S"],
    ["4C", "3C", "2C"],
    ["5D", "4D", "3D", "2D"],
    ["6H", "5H", "4H", "3H", "2H"],
    ["7S", "6S", "5S", "4S", "3S", "2S"],
]
WIN_STOCK = [
    "KS",
    "10S",
    "JS",
    "QS",
    "9H",
    "10H",
    "JH",
    "QH",
    "KH",
    "7D",
    "8D",
    "9D",
    "10D",
    "JD",
    "QD",
    "KD",
    "6C",
    "7C",
    "8C",
    "9C",
    "10C",
    "JC",
    "QC",
    "KC",
]


def win_position(preset: str) -> GameState:
    return GameState.from_position(
        Rules.from_preset(1, preset), tableau=WIN_TABLEAU, hidden=WIN_HIDDEN, stock=WIN_STOCK
    )


def play_out(g: GameState, *, recycle_first: bool = False) -> None:
    if recycle_first:
        for _ in range(24):
            g.apply(Draw())
        g.apply(Recycle())
    for col in ("t7", "t6", "t5", "t4", "t1", "t3", "t2"):
        while g.raw().tableau[int(col[1]) - 1]:
            g.apply(Tap(col))
    g.apply(Draw())
    g.apply(Move("waste", "t1"))  # KS to the empty column: the one waste-to-column card
    while not g.is_won:
        if g.raw().foundations[0] == 12:
            g.apply(Tap("t1"))
        elif Move("waste", "f1") in g.legal_moves() or any(
            m in g.legal_moves() for m in (Move("waste", f) for f in ("f2", "f3", "f4"))
        ):
            g.apply(Tap("waste"))
        else:
            g.apply(Draw())


def test_7_normal_foundation_plus_10(pos: PosFn) -> None:
    assert pos([["AS"]]).apply(Move("t1", "f1")).score == 10
    assert pos(waste=["AS"]).apply(Move("waste", "f1")).score == 10


def test_7_normal_waste_to_column_plus_5(pos: PosFn) -> None:
    assert pos([["8S"]], waste=["7D"]).apply(Move("waste", "t1")).score == 5


def test_7_normal_flip_plus_5(pos: PosFn) -> None:
    assert pos([["7D"], ["8S"]], hidden=[["2C"]]).apply(Move("t1", "t2")).score == 5


def test_7_normal_column_to_column_zero(pos: PosFn) -> None:
    assert pos([["7D"], ["8S"]], hidden=[[], ["2C"]]).apply(Move("t1", "t2")).score == 0


def test_7_normal_foundation_return_zero(pos: PosFn) -> None:
    g = pos([["8S"]], hidden=[["2C"]], foundations=(0, 7, 0, 0), score=40)
    assert g.apply(Move("f2", "t1")).score == 40


def test_7_normal_recycle_minus_100_with_floor(pos: PosFn) -> None:
    waste = ["5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD"]
    g = pos([["KS"]], stock=[], waste=waste, foundations=(12, 13, 4, 13), score=250)
    assert g.apply(Recycle()).score == 150
    g = pos([["KS"]], stock=[], waste=waste, foundations=(12, 13, 4, 13), score=30)
    assert g.apply(Recycle()).score == 0  # an early recycle costs less than 100
    assert g.apply(Undo()).score == 30


def test_7_vegas_starts_at_minus_52_and_only_foundations_pay() -> None:
    g = GameState.from_code("KL1-D1V-AAAAAAG")
    assert g.score == -52 and g.score_display == "-$52"
    g.apply(Move("t1", "f3"))  # AD; flips nothing (t1 had one card)
    assert g.score == -47 and g.score_display == "-$47"


def test_7_vegas_flips_waste_columns_returns_are_zero(pos: PosFn) -> None:
    g = pos([["7D"], ["8S"]], hidden=[["2C"]], waste=["7H"], preset="V")
    g.apply(Move("t1", "t2"))
    assert g.score == -52  # flip 0
    g2 = pos([["8S"]], waste=["7H"], preset="V")
    g2.apply(Move("waste", "t1"))
    assert g2.score == -52
    g3 = pos([["8S"]], hidden=[["2C"]], foundations=(0, 7, 0, 0), preset="V")
    assert g3.score == -52 + 35
    g3.apply(Move("f2", "t1"))
    assert g3.score == -17


@pytest.mark.parametrize(("score", "shown"), [(208, "+$208"), (0, "$0"), (-52, "-$52"), (3, "+$3")])
def test_7_vegas_display(pos: PosFn, score: int, shown: str) -> None:
    assert pos(preset="V", score=score).score_display == shown


def test_7_vegas_turns_positive_with_the_11th_card() -> None:
    g = GameState.from_position(
        Rules.from_preset(1, "V"),
        tableau=[[]] * 7,
        stock=[str(c) for c in CARDS],
    )
    for i in range(52):
        g.apply(Draw())
        g.apply(Tap("waste"))
        if i == 9:
            assert g.score == -2
        if i == 10:
            assert g.score == 3
    assert g.is_won and g.score == 208 and g.score_display == "+$208"


def test_7_vegas_won_game_ends_at_plus_208() -> None:
    g = win_position("V")
    play_out(g)
    assert g.is_won and g.score_display == "+$208"


def test_7_normal_won_game_scores_625_plus_waste_minus_recycles() -> None:
    g = win_position("N")
    play_out(g)
    assert g.is_won and g.score == 625 + 5 * 1
    g = win_position("N")
    play_out(g, recycle_first=True)  # recycled at 0 points: costs nothing
    assert g.is_won and g.score == 630 and g.passes_used == 1


def test_7_normal_won_game_with_a_costly_recycle() -> None:
    g = win_position("N")
    for col in ("t7", "t6"):
        while g.raw().tableau[int(col[1]) - 1]:
            g.apply(Tap(col))
    assert g.score == 13 * 10 + 11 * 5
    for _ in range(24):
        g.apply(Draw())
    g.apply(Recycle())
    play_out(g)
    assert g.is_won and g.score == 625 + 5 - 100


def test_7_no_scoring_presets(pos: PosFn) -> None:
    for preset in "CR":
        g = pos([["AS"]], hidden=[["2C"]], preset=preset)
        rec = g.apply(Move("t1", "f1"))
        assert rec.score is None and g.score is None and g.score_display == ""
