"""One test per rule of rules.md §1-§4a and §6 (positions built by hand)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.engine import (
    UNDO_LIMIT,
    Card,
    Deal,
    DoubleTap,
    Draw,
    GameState,
    IllegalMoveError,
    Move,
    Recycle,
    Resign,
    Tap,
    Undo,
    public_view,
)

PosFn = Callable[..., GameState]


def assert_refused(g: GameState, action: object, match: str) -> None:
    before = (g.position_key(), g.score, g.moves, g.passes_used, g.status, g.undos)
    with pytest.raises(IllegalMoveError, match=match):
        g.apply(action)  # type: ignore[arg-type]
    assert before == (g.position_key(), g.score, g.moves, g.passes_used, g.status, g.undos)


# §1 setup -----------------------------------------------------------------------------


def test_setup_1_deal_shape() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    v = public_view(g)
    assert [len(c) for c in v["tableau"]] == [1, 2, 3, 4, 5, 6, 7]
    assert sum(x is None for c in v["tableau"] for x in c) == 21
    assert all(c[-1] is not None for c in v["tableau"])
    assert v["stock"] == 24 and v["waste"] == [] and v["foundations"] == [[], [], [], []]
    assert g.score == 0 and g.moves == 0 and g.passes_used == 0 and g.status == "playing"


# §2.1 tableau build ---------------------------------------------------------------------


def test_2_1_seven_hearts_on_black_eights_only(pos: PosFn) -> None:
    layout = [["7H"], ["8S"], ["8C"], ["8D"], ["8H"], ["9S"], []]
    g = pos(layout)
    g.apply(Move("t1", "t2"))
    assert public_view(g)["tableau"][1] == ["8S", "7H"]
    g = pos(layout)
    g.apply(Move("t1", "t3"))
    assert public_view(g)["tableau"][2] == ["8C", "7H"]
    for dst in ("t4", "t5", "t6"):
        assert_refused(pos(layout), Move("t1", dst), r"alternating colours \(rules §2\.1\)")


# §2.2 runs ------------------------------------------------------------------------------


def test_2_2_whole_and_partial_runs(pos: PosFn) -> None:
    layout = [["9S", "8H", "7C"], ["10D"], ["9C"], ["8D"], [], [], []]
    g = pos(layout, hidden=[["2D"]])
    legal = set(g.legal_moves())
    assert {Move("t1", "t2", 3), Move("t1", "t3", 2), Move("t1", "t4", 1)} <= legal
    rec = g.apply(Move("t1", "t2", 3))
    assert rec.flipped == Card.parse("2D")
    assert public_view(g)["tableau"][1] == ["10D", "9S", "8H", "7C"]
    g = pos(layout, hidden=[["2D"]])
    g.apply(Move("t1", "t3", 2))
    assert public_view(g)["tableau"][0] == [None, "9S"]
    assert public_view(g)["tableau"][2] == ["9C", "8H", "7C"]


def test_2_2_face_down_cards_never_move(pos: PosFn) -> None:
    g = pos([["9S", "8H"], ["10D"], [], [], [], [], ["KH"]], hidden=[["2D"]])
    assert_refused(g, Move("t1", "t2", 3), r"only face-up cards move.*§2\.2")
    # Same message for a face-down card and a card elsewhere: errors never locate hidden cards.
    assert_refused(g, Move("t1", "t2", card=Card.parse("2D")), r"not a face-up card of t1.*§2\.2")
    assert_refused(g, Move("t1", "t2", card=Card.parse("3D")), r"not a face-up card of t1.*§2\.2")


def test_2_2_move_by_card_names_the_run(pos: PosFn) -> None:
    g = pos([["9S", "8H", "7C"], ["10D"], [], [], [], [], []])
    rec = g.apply(Move("t1", "t2", card=Card.parse("9S")))
    assert rec.action == Move("t1", "t2", 3)
    g = pos([["9S", "8H", "7C"], ["10D"], [], [], [], [], []])
    assert_refused(g, Move("t1", "t2", 2, Card.parse("9S")), "does not match")


# §2.3 empty column ----------------------------------------------------------------------


def test_2_3_empty_column_takes_only_a_king(pos: PosFn) -> None:
    layout = [["QH"], [], ["KS", "QD"], ["JC"], [], [], []]
    g = pos(layout, hidden=[["2D"]], waste=["5H"])
    msg = r"an empty column accepts only a king \(rules §2\.3\)"
    assert_refused(g, Move("t1", "t2"), msg)  # not even to uncover a face-down card
    assert_refused(g, Move("waste", "t2"), msg)
    assert_refused(g, Move("t3", "t2", 1), msg)
    g.apply(Move("t3", "t2", 2))  # a king with its run
    assert public_view(g)["tableau"][1] == ["KS", "QD"]


def test_2_3_king_from_waste_to_empty_column(pos: PosFn) -> None:
    g = pos([["5S"], [], [], [], [], [], []], waste=["KD"])
    assert g.apply(Move("waste", "t2")).score == 5


# §2.4 waste -----------------------------------------------------------------------------


def test_2_4_only_the_waste_top_is_playable(pos: PosFn) -> None:
    g = pos([["7H"], ["6D"], [], [], [], [], []], waste=["6S", "5S"])
    assert_refused(g, Move("waste", "t1", 2), r"only the top card of the waste.*§2\.4")
    assert_refused(g, Move("waste", "t1", card=Card.parse("6S")), r"§2\.4")
    g.apply(Move("waste", "t2"))
    g.apply(Move("waste", "t1"))
    assert public_view(g)["waste"] == []


def test_2_4_draw_three_only_top_playable_and_fewer_than_three(pos: PosFn) -> None:
    g = pos([["7H"], [], [], [], [], [], ["10D"]], draw=3, stock=["6S", "AH", "9C", "3D", "4D"])
    g.apply(Draw())
    assert public_view(g)["waste"] == ["6S", "AH", "9C"]
    assert g.raw().stock  # more to come
    assert_refused(g, Move("waste", "t1"), r"alternating colours")  # 9C on 7H: no
    assert_refused(g, Move("waste", "f2", card=Card.parse("AH")), r"§2\.4")
    g.apply(Move("waste", "t7"))  # 9C onto 10D frees AH beneath
    g.apply(Move("waste", "f2"))
    g.apply(Move("waste", "t1"))  # 6S onto 7H
    assert public_view(g)["waste"] == []


def test_3_draw_three_takes_fewer_when_fewer_remain(pos: PosFn) -> None:
    g = pos(draw=3, stock=["9S", "10S", "JS", "QS", "KS"], foundations=(8, 13, 13, 13))
    g.apply(Draw())
    assert public_view(g)["waste"] == ["9S", "10S", "JS"] and public_view(g)["stock"] == 2
    g.apply(Draw())
    assert public_view(g)["waste"] == ["9S", "10S", "JS", "QS", "KS"]
    assert public_view(g)["stock"] == 0


# §2.5 foundations -----------------------------------------------------------------------


def test_2_5_foundation_one_suit_ace_to_king(pos: PosFn) -> None:
    g = pos([["AS"], ["2S"], ["AH"], ["3S"], [], [], []], waste=["2H"])
    assert_refused(g, Move("t2", "f1"), r"built in suit from A to K.*§2\.5")
    assert_refused(g, Move("t3", "f1"), r"f1 holds spades.*§2\.5")
    assert g.apply(Move("t1", "f1")).score == 10
    assert_refused(g, Move("t4", "f1"), r"2S comes next.*§2\.5")
    g.apply(Move("t2", "f1"))
    g.apply(Move("t3", "f2"))
    assert g.apply(Move("waste", "f2")).score == 40  # from the waste too
    assert public_view(g)["foundations"][:2] == [["AS", "2S"], ["AH", "2H"]]


def test_2_5_one_card_at_a_time(pos: PosFn) -> None:
    g = pos([["2S", "AH"], [], [], [], [], [], []], foundations=(1, 0, 0, 0))
    assert_refused(g, Move("t1", "f1", 2), r"one card at a time \(rules §2\.5\)")


def test_move_to_f_means_the_cards_suit(pos: PosFn) -> None:
    g = pos([["AD"], [], [], [], [], [], []])
    assert g.apply(Move("t1", "f")).action == Move("t1", "f3")


# §2.6 foundation return ----------------------------------------------------------------


@pytest.mark.parametrize("preset", ["N", "V", "R"])
def test_2_6_foundation_return_allowed(pos: PosFn, preset: str) -> None:
    # A face-down card keeps preset R from finishing by itself.
    g = pos(
        [["8S"], [], [], [], [], [], []], hidden=[["2D"]], foundations=(0, 7, 0, 0), preset=preset
    )
    assert Move("f2", "t1") in g.legal_moves()
    before = g.score
    g.apply(Move("f2", "t1"))
    assert public_view(g)["tableau"][0] == [None, "8S", "7H"]
    assert g.score == before  # 0 points, 0 dollars


def test_2_6_foundation_return_king_to_empty_column(pos: PosFn) -> None:
    g = pos([["QS"]], foundations=(0, 13, 0, 0))
    assert Move("f2", "t2") in g.legal_moves() and Move("f2", "t1") not in g.legal_moves()
    g.apply(Move("f2", "t2"))
    g.apply(Move("t1", "t2"))


@pytest.mark.parametrize("draw", [1, 3])
def test_2_6_foundation_return_forbidden_in_classic(pos: PosFn, draw: int) -> None:
    g = pos([["8S"], [], [], [], [], [], []], foundations=(0, 7, 0, 0), preset="C", draw=draw)
    assert not any(isinstance(m, Move) and m.src.startswith("f") for m in g.legal_moves())
    assert_refused(g, Move("f2", "t1"), r"preset C forbids.*§2\.6")


def test_2_6_return_then_replace_scores_again(pos: PosFn) -> None:
    g = pos([["8S"], [], [], [], [], [], []], foundations=(0, 7, 0, 0), score=70)
    g.apply(Move("f2", "t1"))
    assert g.score == 70
    g.apply(Move("t1", "f2"))
    assert g.score == 80


# §2.7 auto-flip -------------------------------------------------------------------------


def test_2_7_auto_flip_is_part_of_the_move_and_scores_5(pos: PosFn) -> None:
    g = pos([["AS"], [], [], [], [], [], []], hidden=[["QH", "9D"]])
    rec = g.apply(Move("t1", "f1"))
    assert rec.flipped == Card.parse("9D")
    assert rec.score == 15 and g.moves == 1
    assert public_view(g)["tableau"][0] == [None, "9D"]


def test_2_7_undo_turns_the_card_down_again(pos: PosFn) -> None:
    g = pos([["AS"], [], [], [], [], [], []], hidden=[["QH", "9D"]])
    g.apply(Move("t1", "f1"))
    g.apply(Undo())
    assert public_view(g)["tableau"][0] == [None, None, "AS"]
    assert g.score == 0


# §3 stock, waste and passes ----------------------------------------------------------------


def test_3_draw_one_and_recycle_keeps_order() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAA")
    order = [str(c) for c in g.deal.stock] if g.deal else []
    for _ in range(24):
        g.apply(Draw())
    assert public_view(g)["waste"] == order
    assert_refused(g, Draw(), r"stock is empty.*§3")
    g.apply(Recycle())
    assert public_view(g)["stock"] == 24 and public_view(g)["waste"] == []
    assert g.passes_used == 1
    g.apply(Draw())
    assert public_view(g)["waste"] == order[:1]


def test_3_draw_three_recycle_keeps_order() -> None:
    g = GameState.from_code("KL1-D3N-AAAAAAA")
    order = [str(c) for c in Deal.from_number(0).stock]
    for _ in range(8):
        g.apply(Draw())
    g.apply(Recycle())
    g.apply(Draw())
    assert public_view(g)["waste"] == order[:3]


def test_3_recycle_only_on_empty_stock(pos: PosFn) -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAA")
    assert_refused(g, Recycle(), r"stock still has cards.*§3")
    assert Recycle() not in g.legal_moves()


def test_3_nothing_to_recycle(pos: PosFn) -> None:
    g = pos([["KS"]], stock=[], foundations=(12, 13, 13, 13))
    g2 = pos([["QS"]], stock=[], foundations=(11, 13, 13, 13), waste=["KS"])
    assert Recycle() not in g.legal_moves()
    assert_refused(g, Recycle(), r"nothing to recycle")
    assert Recycle() in g2.legal_moves()


@pytest.mark.parametrize("draw", [1, 3])
def test_3_normal_unlimited_passes(draw: int) -> None:
    g = GameState.from_code(f"KL1-D{draw}N-AAAAAAB")
    for _ in range(6):
        while g.raw().stock:
            g.apply(Draw())
        assert Recycle() in g.legal_moves()
        g.apply(Recycle())
    assert g.passes_used == 6


@pytest.mark.parametrize(
    ("draw", "preset", "recycles"),
    [
        (1, "V", 0),
        (3, "V", 0),
        (1, "C", 0),
        (3, "C", 2),
    ],
)
def test_3_and_9_pass_limits(draw: int, preset: str, recycles: int) -> None:
    g = GameState.from_code(f"KL1-D{draw}{preset}-AAAAAAB")
    for _ in range(recycles):
        while g.raw().stock:
            g.apply(Draw())
        g.apply(Recycle())
    while g.raw().stock:
        g.apply(Draw())
    assert Recycle() not in g.legal_moves()
    assert_refused(g, Recycle(), r"no recycle left.*pass.*§3")
    assert g.passes_used == recycles


# §4 end of a game ------------------------------------------------------------------------


def test_4_won_when_all_52_on_foundations_and_nothing_applies_after(pos: PosFn) -> None:
    g = pos([["KC"]], foundations=(13, 13, 13, 12))
    assert g.status == "playing"
    g.apply(Tap("t1"))
    assert g.status == "won" and g.is_won and g.is_over and not g.can_undo
    assert g.legal_moves() == []
    for a in (Undo(), Draw(), Resign(), Move("f4", "t1")):
        assert_refused(g, a, r"game is over \(won\)")


def test_4_resign_ends_the_game_and_is_not_a_move() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    g.apply(Draw())
    rec = g.apply(Resign())
    assert rec.action == Resign()
    assert g.status == "resigned" and g.moves == 1 and not g.is_won
    for a in (Undo(), Draw(), Resign()):
        assert_refused(g, a, r"game is over \(resigned\)")


def test_4_main_rules_no_automation(pos: PosFn) -> None:
    g = pos(
        [["2S"], [], [], [], [], [], []], hidden=[["KC"]], foundations=(1, 13, 13, 12), stock=[]
    )
    rec = g.apply(Move("t1", "f1"))
    assert rec.auto == () and g.status == "playing"


# §4a counting moves ---------------------------------------------------------------------


def test_4a_move_counter_counts_undo_not_resign(pos: PosFn) -> None:
    g = pos([["AS"], ["KH"], [], [], [], [], []], waste=["AH"])
    g.apply(Tap("waste"))
    g.apply(Draw())
    g.apply(DoubleTap("t1"))
    g.apply(Move("t2", "t3"))
    g.apply(Undo())
    assert g.moves == 5 and g.undos == 1
    while g.raw().stock:
        g.apply(Draw())
    g.apply(Recycle())
    n = g.moves
    g.apply(Undo())
    assert g.moves == n + 1  # never goes down
    g.apply(Resign())
    assert g.moves == n + 1


# §6 undo --------------------------------------------------------------------------------


def test_6_undo_restores_points_with_the_floor(pos: PosFn) -> None:
    g = pos([["AS"], [], [], [], [], [], []], stock=["5D"])
    g.apply(Move("t1", "f1"))
    g.apply(Draw())
    # draw the whole stock so it is empty
    while g.raw().stock:
        g.apply(Draw())
    assert g.score == 10
    g.apply(Recycle())
    assert g.score == 0  # floor: the recycle cost only 10
    g.apply(Undo())
    assert g.score == 10  # gives back exactly what it cost, not 100
    assert g.passes_used == 0


def test_6_undo_reverts_each_kind_of_action(pos: PosFn) -> None:
    g = GameState.from_code("KL1-D3N-AAAAAAG")
    keys = [g.position_key()]
    scores = [g.score]
    for a in [*g.legal_moves()[:1], Draw(), Draw()]:
        g.apply(a)
        keys.append(g.position_key())
        scores.append(g.score)
    for i in range(len(keys) - 1, 0, -1):
        g.apply(Undo())
        assert g.position_key() == keys[i - 1] and g.score == scores[i - 1]
    assert not g.can_undo
    assert_refused(g, Undo(), r"nothing to undo \(rules §6\)")


def test_6_undo_reaches_back_100_actions() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAB")
    start_keys = []
    for _ in range(150):
        start_keys.append(g.position_key())
        g.apply(Draw() if g.raw().stock else Recycle())
    for i in range(UNDO_LIMIT):
        g.undo()
        assert g.position_key() == start_keys[149 - i]
    assert not g.can_undo
    assert_refused(g, Undo(), r"at most 100 actions \(rules §6\)")
    g.apply(Draw() if g.raw().stock else Recycle())
    g.apply(Undo())  # new actions can be undone again
