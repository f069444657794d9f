"""A newcomer plays at once, as a guest: Play on the landing page is one click from a board;
a guest wins without signing up, then signs up and keeps the game; ranks ask for an account;
after signing in or up the player comes back where they were."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import PASSWORD, follow_hints_to_the_end, pile_cards, sign_up, wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture
def quick_pool(settings: Any, transactional_db: None) -> None:
    """A small pool of proven-winnable draw-1 deals, filled before the page asks: a page's
    first deal then never waits for the solver, nor falls back on a busy machine."""
    from games import pool

    settings.DEAL_POOL_SIZE = 3
    pool.deal_pool_fill(draw=1, preset="N", seconds=120)


def _is_new_game(response: Any) -> bool:
    return bool(response.url.endswith("/api/v1/games") and response.request.method == "POST")


def test_play_is_one_click_from_the_landing_page(page: Any, quick_pool: None) -> None:
    pages: list[str] = []
    page.on("framenavigated", lambda frame: pages.append(frame.url))
    page.goto("/")
    with page.expect_response(_is_new_game) as created:
        page.click("[data-play-now]")  # the one click
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    assert created.value.status == 201
    assert created.value.json()["winnable"] is True  # "Winnable deals only" is on by default
    assert not [url for url in pages if "/signin" in url or "/signup" in url]
    assert page.inner_text("[data-account] .who") == "Guest"
    # The next click moves the first card: the stock's top card onto the waste.
    assert pile_cards(page, "waste") == []
    page.click('[data-pile="stock"]')
    wait_until(page, "klondike.game() && klondike.game().seq === 1")
    page.wait_for_selector('[data-pile="waste"] .card.up')


def test_a_guest_wins_then_signs_up_and_keeps_the_game(
    page: Any, quick_pool: None, settings: Any
) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # a hint a move, faster than 1/s
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "hints": "1000/min"},
    }
    page.goto("/play")
    wait_until(page, "/^\\/play\\/\\d+$/.test(location.pathname)")  # dealt (history.pushState)
    page.wait_for_selector(".board .card.up")
    game_id = int(page.url.rsplit("/", 1)[1])
    state = follow_hints_to_the_end(page)
    assert state == "won"  # a guest wins without signing up
    page.wait_for_selector("#win-dialog[open]")
    page.keyboard.press("Escape")
    page.click("[data-account] [data-guest-signup]")
    page.wait_for_url(re.compile(r"/signup\?next="))
    page.fill("#username", "Winner")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(rf"/play/{game_id}$"))  # back where they were
    wait_until(page, "klondike.game() && klondike.game().status === 'won'")
    me = page.request.get("/api/v1/me").json()
    assert me["username"] == "Winner" and me["is_guest"] is False
    assert me["stats"]["played"] == 1 and me["stats"]["won"] == 1
    assert page.inner_text("[data-account] .who") == "Winner"


def test_a_guest_is_offered_sign_up_for_the_ranked_daily(page: Any, quick_pool: None) -> None:
    page.goto("/play")
    wait_until(page, "/^\\/play\\/\\d+$/.test(location.pathname)")
    page.goto("/daily")
    page.click("[data-challenges] [data-guest-signup]")
    page.wait_for_url(re.compile(r"/signup\?next=%2Fdaily$|/signup\?next=/daily$"))
    page.fill("#username", "Ranked")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/daily$"))
    page.wait_for_selector("[data-challenges] [data-start]")  # now an account: it may start


def test_after_signing_in_the_player_returns_to_a_page_of_this_site_only(page: Any) -> None:
    name = sign_up(page)
    page.click("[data-account] button")  # sign out
    page.wait_for_url(re.compile(r"/$"))
    for target, lands in (("/leaderboards", r"/leaderboards$"), ("//evil.example/", r"/daily$")):
        page.goto(f"/signin?next={target}")
        page.fill("#username", name)
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(lands))
        page.click("[data-account] button")
        page.wait_for_url(re.compile(r"/$"))


def test_a_new_board_has_the_focus_but_no_ring_until_a_key_is_used(
    touch_page: Any, quick_pool: None
) -> None:
    """The board takes the focus as it is dealt, so keys work at once, but its ring is for the
    keyboard only: it once showed on every new board, on phones too (issue 39)."""
    page = touch_page
    page.goto("/play")  # a guest: dealt at once
    page.wait_for_selector(".board .card.up")
    board = "document.querySelector('.board')"
    wait_until(page, f"document.activeElement === {board}")
    assert page.evaluate(f"{board}.matches(':focus-visible')") is False
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # back to the board, by the keyboard
    wait_until(page, f"document.activeElement === {board}")
    assert page.evaluate(f"{board}.matches(':focus-visible')") is True
