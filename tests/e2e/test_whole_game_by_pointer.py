"""A whole game won by pointer alone, once with the mouse and once with a finger: clicks or
taps on the stock, cards dragged onto their piles, foundation returns included (issue #20).
The server is the referee: the game must end "won" there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.engine import Move, parse_actions
from tests.e2e.conftest import (
    centre,
    pile_cards,
    settle,
    sign_up,
    start_casual,
    touch_drag,
    wait_until,
)

pytestmark = pytest.mark.e2e

# The deal of test_pointer.py (draw 1, preset N: foundation returns allowed, no automatic
# moves). The line is the solver's: `python -m games.engine solve KL1-D1N-AAAAAAG --moves`
# (202 actions; the five f?-t? moves near the end take cards back from the foundations).
CODE = "KL1-D1N-AAAAAAG"
LINE = """
t1-f3 t7-f2 draw draw draw waste-f1 draw draw waste-f1 draw draw draw draw draw draw draw draw
draw draw draw draw waste-f3 draw draw draw waste-f4 draw draw draw draw recycle draw draw draw
draw waste-f4 t6-f1 t5-t4 t6-t1 draw draw draw draw draw draw draw draw draw draw waste-t4
t5-t4 t6-t5 t5-t4x2 draw waste-t5 t7-t5 t7-t3 t5-t7x3 draw draw waste-t6 draw draw waste-t6
draw recycle draw draw draw draw draw draw draw draw draw draw waste-t6 t7-t6x4 t6-t7x8
t7-t1x9 t7-f4 t5-f4 t3-t5x2 t3-f3 t1-f3 draw draw draw draw draw recycle draw draw draw draw
draw draw waste-f1 t1-f1 draw waste-f4 draw draw draw draw draw draw draw waste-f4 t3-f4
t6-t3 recycle draw draw draw draw draw draw draw draw waste-f4 t6-f4 waste-t6 draw draw draw
recycle draw draw waste-t5 t4-t5x6 waste-t6 t2-t6 t2-f2 draw draw waste-f2 draw draw waste-f2
t5-f2 t1-f2 t5-f1 t1-f1 draw draw waste-t6 draw recycle draw waste-t3 draw draw draw waste-t3
waste-t3 t1-t6x2 t5-t3x3 t5-f4 t3-t5x4 f1-t6 t5-t3x4 f4-t5 t6-t1x3 t1-f1 t5-f4 t3-t5x4 f1-t1
f4-t3 t1-f1 t1-t6x2 f1-t6 f4-t1 t4-t1 t4-f3 t4-f2 waste-f3 t5-f3 t6-f1 t1-f3 t5-f1 t5-f3 t6-f2
t1-f4 t6-f1 t6-f3 t7-f2 t1-f2 t3-f4 t5-f1 t1-f1 t3-f3 t5-f2 t5-f1 t6-f4 t1-f3 t3-f4 t5-f3
t6-f2 t1-f4 t3-f2 t6-f1
"""
ACTIONS = parse_actions("\n".join(LINE.split()))
assert any(isinstance(a, Move) and a.src[0] == "f" for a in ACTIONS)  # returns, as promised

Point = tuple[float, float]
Press = Callable[[Any, Point], None]
Drag = Callable[[Any, Point, Point], None]


def mouse_press(page: Any, at: Point) -> None:
    page.mouse.click(*at)


def mouse_drag(page: Any, start: Point, end: Point) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=10)
    page.mouse.up()


def finger_press(page: Any, at: Point) -> None:
    page.touchscreen.tap(*at)


def card_move(page: Any, src: str, dst: str, count: int, drag: Drag) -> None:
    """Drags the card `count` from the top of `src` (a run's first card) so that the point
    the board drops by (the card's upper middle, see pointer.js `dropTarget`) lands in `dst`:
    on its last card, or its empty slot (a foundation: always its slot)."""
    card = pile_cards(page, src)[-count]
    settle(page)  # cards in flight are not yet where the drag must start or end
    box = page.locator(f'[data-pile="{src}"] [data-card="{card}"]').bounding_box()
    grab = (box["x"] + box["width"] / 2, box["y"] + 8)  # a run's first card shows a strip
    onto = f'[data-pile="{dst}"]'
    if dst[0] == "t" and pile_cards(page, dst):
        onto += " .card:last-child"
    tx, ty = centre(page, onto)
    drag(page, grab, (tx, ty - box["height"] / 3 + 8))
    page.wait_for_selector(f'[data-pile="{dst}"] [data-card="{card}"]')


def win_by_pointer(page: Any, press: Press, drag: Drag) -> None:
    # Without the cards' flights a move is ready for the next gesture at once: these two
    # games are the slowest tests of CI otherwise. The gestures during a flight have tests
    # of their own (test_pointer.py).
    page.emulate_media(reduced_motion="reduce")
    sign_up(page)
    game_id = start_casual(page, CODE)
    stock = centre(page, '[data-pile="stock"]')
    for n, action in enumerate(ACTIONS, start=1):
        if isinstance(action, Move):
            card_move(page, action.src, action.dst, action.count, drag)
        else:  # draw, or recycle (a press on the empty stock)
            press(page, stock)
        wait_until(page, "n => document.querySelector('[data-moves]').textContent.trim() == n", n)
    page.wait_for_selector("#win-dialog[open]")
    assert page.request.get(f"/api/v1/games/{game_id}").json()["status"] == "won"


def test_a_whole_game_is_won_with_the_mouse_alone(page: Any) -> None:
    win_by_pointer(page, mouse_press, mouse_drag)


def test_a_whole_game_is_won_with_a_finger_alone(touch_page: Any) -> None:
    win_by_pointer(touch_page, finger_press, touch_drag)
