"""Every page fits a 360 and a 390 px phone in every language (#39, item 2): no sideways
scroll, and no control cut off or with its label clipped, for a guest and for a player.
Slovak and Polish words are long: the site bar overflowed at 390 px (399-423 px wide)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    play_rated_boards,
    settle,
    sign_up,
    start_casual,
    watched_page,
)

pytestmark = pytest.mark.e2e

LANGUAGES = ["en", "hr", "sk", "pl"]
WIDTHS = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]

# What sticks out: the page's own width past the screen's, and each control shown (outside a
# scrolling table) that reaches past an edge or whose label does not fit in it.
# The screen's width comes from the test: a phone's browser zooms a page out to show what
# sticks out, so `innerWidth` grows with it.
OVERFLOW = """width => {
  const out = [];
  if (document.scrollingElement.scrollWidth > width) {
    out.push(`page ${document.scrollingElement.scrollWidth} px wide`);
  }
  const controls = "a, button, input, select, textarea, summary, label, [role=button], [role=tab]";
  for (const node of document.querySelectorAll(controls)) {
    const box = node.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(node).visibility === "hidden") continue;
    if (box.right <= 0) continue;  // kept off screen on purpose, as the skip link until focused
    if (node.closest(".table-scroll, .move-list, .visually-hidden, .sr-only")) continue;
    const text = (node.innerText || node.value || "").trim().slice(0, 30);
    const name = `${node.tagName.toLowerCase()} "${text}"`;
    if (box.left < -0.5 || box.right > width + 0.5) {
      out.push(`${name} at ${Math.round(box.left)}-${Math.round(box.right)}`);
    } else if (node.scrollWidth > node.clientWidth + 1
               && getComputedStyle(node).overflowX !== "visible") {
      out.push(`${name} clipped: ${node.scrollWidth} > ${node.clientWidth}`);
    }
  }
  // A heading wraps between words only: a word too long for its column widens the table
  // (caught below), never breaks ("Poništa-vanja" was: data-short gives a short form).
  for (const th of document.querySelectorAll("table.data th")) {
    const style = getComputedStyle(th);
    if (th.offsetParent && (style.overflowWrap !== "normal" || style.wordBreak !== "normal")) {
      out.push(`heading "${th.textContent.trim()}" may break mid-word`);
    }
  }
  for (const scroller of document.querySelectorAll(".table-scroll")) {
    if (scroller.offsetParent && scroller.scrollWidth > scroller.clientWidth + 1) {
      out.push(`a table ${scroller.scrollWidth} px wide in ${scroller.clientWidth}`);
    }
  }
  return out;
}"""


@pytest.fixture
def quick_pool(settings: Any, transactional_db: None) -> None:
    """One proven-winnable draw-1 deal ready, so that a guest's first deal never waits."""
    from games import pool

    settings.DEAL_POOL_SIZE = 1
    pool.deal_pool_fill(draw=1, preset="N", seconds=120)


def overflow_at_phone_widths(page: Any, label: str) -> list[str]:
    """What sticks out of the page at each phone width (with a screenshot of each)."""
    found = []
    ARTIFACTS.mkdir(exist_ok=True)
    for viewport in WIDTHS:
        page.set_viewport_size(viewport)
        settle(page)
        found += [
            f"{label} @{viewport['width']}: {item}"
            for item in page.evaluate(OVERFLOW, viewport["width"])
        ]
        page.screenshot(path=str(ARTIFACTS / f"narrow-{label}-{viewport['width']}.png"))
    return found


@pytest.fixture(params=LANGUAGES)
def phone(request: Any, browser: Any, base_url: str) -> Iterator[Any]:
    with watched_page(
        browser,
        base_url,
        locale=request.param,
        has_touch=True,
        is_mobile=True,
        viewport=WIDTHS[0],
    ) as page:
        page.lang = request.param
        yield page


def visit(page: Any, path: str, ready: str) -> None:
    page.goto(path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")


def test_a_guests_pages_fit_a_phone(phone: Any, quick_pool: None) -> None:
    page, found = phone, []
    for path, ready, label in [
        ("/", "[data-play-now]", "landing"),
        ("/signin", "[data-auth-form]", "signin"),
        ("/signup", "[data-auth-form]", "signup"),
        ("/rules", "main h1", "rules"),
    ]:
        visit(page, path, ready)
        found += overflow_at_phone_widths(page, f"{page.lang}-{label}")
    page.goto("/")
    page.click("[data-play-now]")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    page.wait_for_selector("[data-account] .who", state="attached")
    found += overflow_at_phone_widths(page, f"{page.lang}-guest-play")
    visit(page, "/daily", "[data-challenges] [data-mode]")
    found += overflow_at_phone_widths(page, f"{page.lang}-guest-daily")
    assert found == [], "\n".join(found)


def test_a_players_pages_fit_a_phone(phone: Any) -> None:
    page, found = phone, []
    name = sign_up(page)
    page.wait_for_selector("[data-challenges] [data-mode]")
    found += overflow_at_phone_widths(page, f"{page.lang}-daily")
    page.goto("/play")
    page.wait_for_selector("#new-game-dialog[open]")
    found += overflow_at_phone_widths(page, f"{page.lang}-new-game")
    game_id = start_casual(page, "KL1-D1N-AAAAAAG")
    page.evaluate("klondike.act({action: 'tap', from: 't1'})")
    found += overflow_at_phone_widths(page, f"{page.lang}-play")
    page.evaluate("klondike.act({action: 'resign'})")
    page.wait_for_selector("[data-banner]:not([hidden])")
    found += overflow_at_phone_widths(page, f"{page.lang}-resigned")
    page.click("[data-open-dialog=settings-dialog]")
    found += overflow_at_phone_widths(page, f"{page.lang}-settings")
    page.keyboard.press("Escape")
    visit(page, f"/replay/{game_id}", ".move-list li")
    found += overflow_at_phone_widths(page, f"{page.lang}-replay")
    visit(page, f"/u/{name}", "[data-games] tr")
    found += overflow_at_phone_widths(page, f"{page.lang}-profile")
    visit(page, "/leaderboards", "[data-summary]:not(:empty), [data-notice]:not([hidden])")
    found += overflow_at_phone_widths(page, f"{page.lang}-leaderboards")
    assert found == [], "\n".join(found)


def test_the_rating_pages_fit_a_phone(phone: Any) -> None:
    """The rating board, a final board with its rating changes under the names (a long name
    among them), and a profile's ratings with their chart (another's: no games table)."""
    page, found = phone, []
    name = sign_up(page)
    field = [("alpha", True, 500), (name, True, 400), ("a-player-with-a-long-name", False, 0)]
    last = play_rated_boards([field] * 5)[-1]
    visit(page, "/leaderboards?board=ratings", "[data-rows] tr.me")
    found += overflow_at_phone_widths(page, f"{page.lang}-ratings")
    visit(page, f"/leaderboards?date={last}&mode=D1N", "[data-rows] .rating-change")
    found += overflow_at_phone_widths(page, f"{page.lang}-final-board")
    visit(page, "/u/alpha", "[data-ratings] svg polyline")
    found += overflow_at_phone_widths(page, f"{page.lang}-profile-ratings")
    assert found == [], "\n".join(found)


def test_the_calendar_and_the_social_pages_fit_a_phone(phone: Any) -> None:
    """The calendar (a player's, with results, and a visitor's), the daily page with
    yesterday's line, a profile with its Follow button and badges, and a board's following
    view with the whole board's ranks."""
    from django.utils import timezone

    page, found = phone, []
    field = [("alpha", True, 500), ("a-player-with-a-long-name", False, 0)]
    month = play_rated_boards([field] * 2)[0].strftime("%Y-%m")
    visit(page, f"/daily/calendar?month={month}", ".day:not([disabled])")
    found += overflow_at_phone_widths(page, f"{page.lang}-calendar-visitor")
    name = sign_up(page)
    yesterday = timezone.now().date() - timedelta(days=1)
    last = play_rated_boards([[*field, (name, True, 400)]], first=yesterday)[-1]
    visit(page, "/daily", '[data-yesterday] li[data-result="won"]')
    found += overflow_at_phone_widths(page, f"{page.lang}-daily-yesterday")
    visit(page, f"/daily/calendar?month={last.strftime('%Y-%m')}", ".mark[data-result=won]")
    page.click(f'[data-date="{last}"]')
    page.wait_for_selector("[data-detail] [data-practise]")
    found += overflow_at_phone_widths(page, f"{page.lang}-calendar")
    visit(page, "/u/alpha", "[data-follow]")
    page.click("[data-follow]")
    page.wait_for_selector('[data-follow][aria-pressed="true"]')
    found += overflow_at_phone_widths(page, f"{page.lang}-profile-follow")
    visit(page, f"/leaderboards?date={last}&mode=D1N&following=1", "[data-board-rank]")
    found += overflow_at_phone_widths(page, f"{page.lang}-board-following")
    visit(page, f"/u/{name}", "[data-privacy]:not([hidden])")
    found += overflow_at_phone_widths(page, f"{page.lang}-profile-private")
    assert found == [], "\n".join(found)
