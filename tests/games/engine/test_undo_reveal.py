"""GameState.last_action_revealed and check_undo_keeps_seen: an undo that would hide a card the
player has seen (a tableau card flipped, a stock card drawn in the first pass) is refused
where the caller enforces the rule (the server: ranked attempts)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    MAX_NUMBER,
    Action,
    DealCode,
    Draw,
    GameState,
    IllegalMoveError,
    Move,
    Recycle,
    Resign,
    Tap,
    Undo,
)
from games.engine.replay import face_up_cards
from games.engine.snapshot import dumps, loads
from games.engine.state import HistoryNotLoadedError

from .conftest import PosFn

MODES = [(d, p) for d in (1, 3) for p in "NVCR"]
CODE = "KL1-D1N-AAAAAAG"  # t1: AD; t7: ... 4D AH (docs/deal-codes.md)


def _refused(g: GameState) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as caught:
        g.check_undo_keeps_seen()
    return caught.value


def test_a_flip_in_the_tableau_may_not_be_undone() -> None:
    g = GameState.from_code(CODE)
    assert g.apply(Tap("t7")).flipped is not None
    before = g.position_key(), g.moves, g.undos, g.score
    assert g.last_action_revealed
    error = _refused(g)
    assert error.reason == "undo_reveal" and error.details == {}
    assert "seen" in str(error)
    assert (g.position_key(), g.moves, g.undos, g.score) == before  # the check changes nothing


def test_a_move_that_turns_nothing_up_may_be_undone() -> None:
    g = GameState.from_code(CODE)
    assert g.apply(Tap("t1")).flipped is None  # AD leaves t1 empty
    assert not g.last_action_revealed
    g.check_undo_keeps_seen()
    g.undo()


def test_a_first_pass_draw_may_not_be_undone_a_later_pass_draw_may(pos: PosFn) -> None:
    g = pos(tableau=[["KS"]], stock=["2H", "3H"])
    g.apply(Draw())
    assert g.last_action_revealed and _refused(g).reason == "undo_reveal"
    while g.legal_moves()[0] == Draw():
        g.apply(Draw())
    g.apply(Recycle())  # turning the waste over hides nothing new: it may be undone
    assert not g.last_action_revealed
    g.check_undo_keeps_seen()
    g.apply(Draw())  # the second pass: every card was seen in the first
    assert g.passes_used == 1 and not g.last_action_revealed
    g.check_undo_keeps_seen()
    g.undo()
    g.undo()  # back across the recycle, into the first pass: its draws stay
    assert g.passes_used == 0 and g.last_action_revealed


def test_draw_three_counts_the_first_pass_too(pos: PosFn) -> None:
    g = pos(tableau=[["KS"]], draw=3)
    g.apply(Draw())
    assert g.last_action_revealed


def test_a_card_from_the_waste_or_a_foundation_reveals_nothing(pos: PosFn) -> None:
    g = pos(tableau=[["KS"], ["3H"]], waste=["QH"], foundations=(2, 0, 0, 0))
    g.apply(Move("waste", "t1"))
    assert not g.last_action_revealed
    g.apply(Move("f1", "t2"))  # 2S back onto 3H (preset N allows it)
    assert not g.last_action_revealed


def test_nothing_to_undo_and_a_game_over_leave_the_refusal_to_undo() -> None:
    g = GameState.from_code(CODE)
    assert not g.last_action_revealed
    g.check_undo_keeps_seen()  # undo() itself says "nothing to undo"
    g.apply(Draw())
    g.apply(Resign())
    g.check_undo_keeps_seen()  # undo() itself says the game is over
    with pytest.raises(IllegalMoveError) as caught:
        g.undo()
    assert caught.value.reason == "game_over"


def test_a_state_loaded_without_the_step_asks_for_the_log() -> None:
    g = GameState.from_code(CODE)
    g.apply(Tap("t7"))
    h = loads(dumps(g, history=False))
    with pytest.raises(HistoryNotLoadedError):
        _ = h.last_action_revealed
    with pytest.raises(HistoryNotLoadedError):
        h.check_undo_keeps_seen()
    kept = loads(dumps(g, history=1))
    assert kept.last_action_revealed


def test_without_the_rule_an_undo_hides_a_card_seen() -> None:
    """What the rule prevents: a draw, undone, puts a card seen back into an unseen stock."""
    g = GameState.from_code(CODE)
    g.apply(Draw())
    seen = set(face_up_cards(g.raw()))
    g.undo()
    assert seen - set(face_up_cards(g.raw())) and g.passes_used == 0


# -- the property ------------------------------------------------------------------------


def _known(g: GameState) -> set[int]:
    """What a player playing under the rule has seen: the face-up cards, and after a recycle
    the whole stock (drawn in the first pass)."""
    _, _, _, stock, _ = g.raw()
    return set(face_up_cards(g.raw())) | (set(stock) if g.passes_used else set())


def _brute_force(g: GameState, seen_before: frozenset[int]) -> bool:
    """Undo on a copy: does it turn face down a card first seen by the action it reverts?"""
    c = g.copy()
    c.undo()
    hidden = set(face_up_cards(g.raw())) - set(face_up_cards(c.raw()))
    return bool(hidden - seen_before)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(MODES), number=st.integers(0, MAX_NUMBER), data=st.data())
def test_under_the_rule_the_cards_seen_only_grow(
    mode: tuple[int, str], number: int, data: st.DataObject
) -> None:
    g = GameState.from_code(DealCode(mode[0], mode[1], number))
    seen = frozenset(face_up_cards(g.raw()))
    # Per undo step of the engine: the cards seen before the action it reverts.
    stack: list[frozenset[int]] = []
    for _ in range(data.draw(st.integers(1, 120), label="steps")):
        if g.is_over:
            break
        if g.can_undo:
            assert g.last_action_revealed == _brute_force(g, stack[-1])
        options: list[Action] = list(g.legal_moves())
        if g.can_undo:
            options += [Undo()] * 3  # undo often: it is what the rule is about
        if not options:
            break
        a = options[data.draw(st.integers(0, len(options) - 1), label="pick")]
        if isinstance(a, Undo):
            try:
                g.check_undo_keeps_seen()
            except IllegalMoveError as error:
                assert error.reason == "undo_reveal" and g.last_action_revealed
                continue
            g.undo()
            stack.pop()
        else:
            rec = g.apply(a)
            stack += [seen] * (1 + len(rec.auto))
        now = _known(g)
        assert seen <= now, "an undo hid a card the player had seen"
        seen = frozenset(now)
