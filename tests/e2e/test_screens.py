"""Every page at the three sizes (screenshots kept as CI artifacts), and what Lighthouse
flagged on them: no console error (a signed-out page asked /api/v1/me and logged its 401),
and the daily page's challenge cards taking their place without moving the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SCREENS,
    screenshot,
    settle,
    sign_up,
    start_casual,
    watched_page,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def console_page(browser: Any, base_url: str) -> Iterator[tuple[Any, list[str]]]:
    """A page (see `watched_page`) with the console's errors and the requests to /me listed."""
    with watched_page(browser, base_url) as page:
        seen: list[str] = []
        page.on("console", lambda m: m.type == "error" and seen.append(f"console: {m.text}"))
        page.on("request", lambda r: "/api/v1/me" in r.url and seen.append(f"asked {r.url}"))
        yield page, seen


def shoot(page: Any, name: str) -> None:
    """The page's screenshots at every size; at none is it wider than the screen."""
    screenshot(page, name)
    size = page.viewport_size
    for viewport in SCREENS:
        page.set_viewport_size(viewport)
        settle(page)
        width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], (name, viewport, width)
    page.set_viewport_size(size)


def test_signed_out_pages_log_no_error_and_do_not_ask_who_is_signed_in(
    console_page: tuple[Any, list[str]],
) -> None:
    page, seen = console_page
    for path, ready, name in [
        ("/", "[data-cta] a", "landing"),
        ("/daily", "[data-challenges] [data-mode]", "daily-signed-out"),
        ("/leaderboards", "[data-summary]:not(:empty), [data-notice]:not([hidden])", "boards"),
        ("/signin", "[data-auth-form]", "signin"),
    ]:
        page.goto(path)
        page.wait_for_selector(ready)
        page.wait_for_load_state("networkidle")
        shoot(page, name)
    assert not seen, seen


def test_signed_in_pages_at_every_size(console_page: tuple[Any, list[str]]) -> None:
    page, seen = console_page
    name = sign_up(page)
    page.wait_for_selector("[data-challenges] [data-mode]")
    shoot(page, "daily")
    game_id = start_casual(page, "KL1-D1N-AAAAAAG")
    page.evaluate("klondike.act({action: 'tap', from: 't1'})")
    shoot(page, "play-game")
    # Lighthouse's accessibility audit: a label needs a role (the piles had none).
    assert page.evaluate("document.querySelectorAll('div[aria-label]:not([role])').length") == 0
    page.evaluate("klondike.act({action: 'resign'})")
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(".move-list li")
    shoot(page, "replay-viewer")
    # Lighthouse's touch targets: at least 24 px high (the move list's were 21).
    heights = page.eval_on_selector_all(".move", "ns => ns.map(n => n.offsetHeight)")
    assert heights and min(heights) >= 24, heights
    page.goto(f"/u/{name}")
    page.wait_for_selector("[data-games] tr")
    shoot(page, "profile")
    page.set_viewport_size(PHONE)
    settle(page)
    tables = page.eval_on_selector_all(
        ".table-scroll:not([hidden] *)", "ns => ns.map(n => [n.scrollWidth, n.clientWidth])"
    )
    assert tables and all(w <= c for w, c in tables), tables  # every column on a phone
    page.goto("/play")
    page.wait_for_selector("#new-game-dialog[open]")
    shoot(page, "play-new")
    # Only /me answers 200 here; the pages asked it once each, and logged no error.
    assert not [s for s in seen if s.startswith("console")], seen
    assert any(re.search(r"/api/v1/me$", s) for s in seen), seen


def test_pages_fill_in_without_moving(page: Any) -> None:
    """What a page's script fills in keeps its place while it loads: the daily challenges
    (Lighthouse: CLS 0.48 before), a game's status, a replay's player (CLS 0.14 before)."""
    sign_up(page)
    finished = start_casual(page, "KL1-D1N-AAAAAAG")
    page.evaluate("klondike.act({action: 'resign'})")
    playing = start_casual(page, "KL1-D1N-AAAAAAG")
    pages = [
        ("/daily", "[data-challenges] [data-mode]"),
        (f"/play/{playing}", "[data-status]:not([hidden])"),
        (f"/replay/{finished}", "[data-player]:not([hidden])"),
    ]
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        for path, ready in pages:
            page.goto(path)
            page.wait_for_selector(ready)
            settle(page)
            shifts = page.evaluate(
                """() => {
                    const observer = new PerformanceObserver(() => {});
                    observer.observe({ type: "layout-shift", buffered: true });
                    return observer.takeRecords().map((e) => e.value);
                }"""
            )
            assert sum(shifts) < 0.01, (path, viewport, shifts)
