"""Pointer input on the board: what lies over a card never takes its press (a foundation's
suit mark, a card in flight), and taps act at once and are never swallowed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import (
    centre,
    pile_cards,
    sign_up,
    start_casual,
    touch_drag,
    wait_until,
)

pytestmark = pytest.mark.e2e

# KL1-D1N-AAAAAAG: t1 AD, t2 [2H] JC, t3 [7C 3D] KD, t4 [7H 5D 8D] 10C, t5 [4C 6H 6S 7D] 9D,
# t6 [9C KH JS 5H KC] 3S, t7 [9H 3C QD 7S QS 4D] AH; the stock draws QH JH AS QC 2S 2C 3H 6D
# 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC 10H JD 9S 6C. Preset N allows foundation returns.
CODE = "KL1-D1N-AAAAAAG"

# Draw QH, AH to its foundation (4D turns up), 3S onto 4D (KC turns up), QH onto KC, JC onto
# QH (2H turns up): 2H fits its foundation (on AH) and column 7 (on 3S).
TO_2H = [
    {"action": "draw"},
    {"action": "move", "from": "t7", "to": "f"},
    {"action": "move", "from": "t6", "to": "t7"},
    {"action": "move", "from": "waste", "to": "t6"},
    {"action": "move", "from": "t2", "to": "t6"},
]


def play(page: Any, bodies: list[dict[str, Any]], settle: bool = True) -> None:
    """Plays actions through the page's own queue (set-up, not what is under test); with
    `settle`, waits until no card is in flight any more, so cards are where they are drawn."""
    before = page.evaluate("klondike.game().moves")
    page.evaluate("async bodies => { for (const b of bodies) await klondike.act(b); }", bodies)
    moves = str(page.evaluate("klondike.game().moves"))
    assert moves == str(before + len(bodies))
    wait_until(
        page, "want => document.querySelector('[data-moves]').textContent.trim() === want", moves
    )
    if settle:
        wait_until(page, "!document.querySelector('.board .card.moving')")


# ------------------------------------------------------------------ foundation cards


def test_a_foundation_card_can_be_dragged_back_with_the_mouse(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    play(page, [*TO_2H, {"action": "move", "from": "t2", "to": "f"}])
    assert pile_cards(page, "f2") == ["AH", "2H"]

    x, y = centre(page, '[data-pile="f2"] [data-card="2H"]')  # where the suit mark was
    tx, ty = centre(page, '[data-pile="t7"] [data-card="3S"]', dy=12)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(tx, ty, steps=10)
    page.mouse.up()
    page.wait_for_selector('[data-pile="t7"] [data-card="2H"]')
    assert pile_cards(page, "f2") == ["AH"]
    assert pile_cards(page, "t7")[-2:] == ["3S", "2H"]


def test_a_foundation_card_can_be_dragged_back_with_a_finger(touch_page: Any) -> None:
    page = touch_page
    sign_up(page)
    start_casual(page, CODE)
    play(page, [*TO_2H, {"action": "move", "from": "t2", "to": "f"}])

    touch_drag(
        page,
        centre(page, '[data-pile="f2"] [data-card="2H"]'),
        centre(page, '[data-pile="t7"] [data-card="3S"]', dy=12),
    )
    page.wait_for_selector('[data-pile="t7"] [data-card="2H"]')
    assert pile_cards(page, "f2") == ["AH"]

    # A tap is a touch too: AD goes to its foundation.
    page.touchscreen.tap(*centre(page, '[data-pile="t1"] [data-card="AD"]'))
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')


# ------------------------------------------------------------------ cards in flight


def test_two_stock_clicks_in_a_row_draw_two_cards(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    x, y = centre(page, '[data-pile="stock"]')
    page.mouse.click(x, y)
    page.mouse.click(x, y)  # no wait: it may land while the first card slides out
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '2'")
    wait_until(page, "document.querySelectorAll('[data-pile=\"waste\"] .card').length === 2")
    assert pile_cards(page, "waste") == ["QH", "JH"]
    assert page.is_hidden("[data-toast]")


def test_a_press_during_the_draw_animation_reaches_the_stock(page: Any) -> None:
    """The drawn card slides from the stock to the waste; a click on the stock meanwhile is a
    draw, not a tap on the sliding card. Animations are slowed down so the click surely lands
    inside one (the test waits for the state "a card is sliding", never for a duration)."""
    sign_up(page)
    start_casual(page, CODE)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.01})
    x, y = centre(page, '[data-pile="stock"]')
    page.mouse.click(x, y)
    wait_until(page, "!!document.querySelector('[data-pile=\"waste\"] .card.moving')")
    page.mouse.click(x, y)
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '2'")
    assert pile_cards(page, "waste") == ["QH", "JH"]
    assert page.is_hidden("[data-toast]")

    # A drag from the waste while its card still slides in moves that card.
    # AS, after QH and JH: it goes on the empty spade foundation.
    play(page, [{"action": "draw"}], settle=False)
    wait_until(page, '!!document.querySelector(\'[data-pile="waste"] [data-card="AS"].moving\')')
    waste = page.locator('[data-pile="waste"]').bounding_box()
    stock = page.locator('[data-pile="stock"]').bounding_box()
    sx, sy = waste["x"] + stock["width"] / 2, waste["y"] + 20  # where AS lands; it is in flight
    tx, ty = centre(page, '[data-pile="f1"]')
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(tx, ty, steps=10)
    page.mouse.up()
    page.wait_for_selector('[data-pile="f1"] [data-card="AS"]')
    assert pile_cards(page, "waste")[-1] == "JH"
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})


# ------------------------------------------------------------------ taps


def test_quick_taps_on_two_piles_both_land(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    ad = centre(page, '[data-pile="t1"] [data-card="AD"]')
    ah = centre(page, '[data-pile="t7"] [data-card="AH"]')
    page.mouse.click(*ad)
    page.mouse.click(*ah)
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    page.wait_for_selector('[data-pile="f2"] [data-card="AH"]')
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '2'")


def test_a_double_click_is_one_gesture_whatever_its_first_click_did(page: Any) -> None:
    """t2 ends 2H AS with AH on its foundation: a double click on AS sends AS home, and its
    second click, landing on 2H, does nothing (it once sent 2H home too: issue 39). The page's
    clock is paused, so both clicks are within the double click's time whatever the machine's
    speed."""
    sign_up(page)
    page.clock.install()
    start_casual(page, CODE)
    # Draw QH, AH up, 3S onto 4D, QH onto KC, draw JH and AS, JC onto QH, AS onto 2H.
    play(
        page,
        [
            *TO_2H[:4],
            {"action": "draw"},
            {"action": "draw"},
            {"action": "move", "from": "t2", "to": "t6"},
            {"action": "move", "from": "waste", "to": "t2"},
        ],
    )
    assert pile_cards(page, "t2") == ["2H", "AS"]
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.post_data or ""))
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    # AS's top edge: on 2H once AS has gone, so the second click hits 2H.
    point = centre(page, '[data-pile="t2"] [data-card="AS"]', dy=10)
    page.mouse.click(*point)
    page.wait_for_selector('[data-pile="f1"] [data-card="AS"]')
    page.mouse.click(*point)
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '9'")
    page.clock.run_for(1000)  # past the double click's time: nothing was waiting to act
    wait_until(page, "!document.querySelector('.board').getAttribute('aria-busy').includes('t')")
    assert pile_cards(page, "t2") == ["2H"]
    assert len(posts) == 1, posts
    assert page.is_hidden("[data-toast]")


def test_a_tap_that_fits_a_foundation_acts_at_once(page: Any) -> None:
    """2H fits its foundation and also column 7: the tap still plays it at once, without
    waiting to see whether a second tap follows. The page's timers are frozen, so a tap that
    only acted after a timeout would never act."""
    sign_up(page)
    page.clock.install()
    start_casual(page, CODE)
    play(page, TO_2H)
    now = page.evaluate("Date.now()")
    page.clock.pause_at(now + 1000)
    page.mouse.click(*centre(page, '[data-pile="t2"] [data-card="2H"]'))
    wait_until(
        page, '!!document.querySelector(\'[data-pile="f2"] [data-card="2H"]\')', timeout_s=10
    )
    assert pile_cards(page, "t7")[-1] == "3S"
    # Drawn before its answer (it reveals no card); the answer then counts the move.
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '6'")
