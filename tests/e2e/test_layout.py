"""Layout checks the eye would catch: the landing page's card fan, and the game page on a
landscape phone (one line of site bar, one of game bar, the whole toolbar on screen)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, sign_up, start_casual

pytestmark = pytest.mark.e2e

LANDSCAPE_PHONES = [{"width": 568, "height": 320}, {"width": 740, "height": 360}]


def test_landing_fan_is_laid_out_not_stacked(page: Any) -> None:
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.goto("/")
        boxes = page.eval_on_selector_all(
            ".fan > *", "nodes => nodes.map(n => n.getBoundingClientRect().toJSON())"
        )
        # The board's card style once applied here: four cards stacked in one spot, shrunk.
        assert len(boxes) == 4 and all(b["width"] > 80 for b in boxes), boxes
        assert len({round(b["x"]) for b in boxes}) == 4, boxes


def test_game_page_fits_a_landscape_phone(page: Any) -> None:
    sign_up(page)
    start_casual(page, "KL1-D1N-AAAAAAG")
    for viewport in LANDSCAPE_PHONES:
        page.set_viewport_size(viewport)
        page.wait_for_timeout(250)  # the board re-fans its columns
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(
            path=str(ARTIFACTS / f"landscape-{viewport['width']}x{viewport['height']}.png")
        )
        topbar = page.eval_on_selector(".topbar", "n => n.getBoundingClientRect().toJSON()")
        assert topbar["height"] < 60, topbar  # one line
        tools = page.eval_on_selector_all(
            ".toolbar .tool:not([hidden])",
            "nodes => nodes.map(n => n.getBoundingClientRect().toJSON())",
        )
        status = page.eval_on_selector("[data-status]", "n => n.getBoundingClientRect().toJSON()")
        assert max(t["right"] for t in tools) <= viewport["width"], tools  # nothing cut off
        assert len({round(t["top"]) for t in tools}) == 1, tools  # one row, no wrapped label
        assert tools[0]["top"] < status["bottom"], (tools, status)  # beside the status
        column = page.eval_on_selector(
            '[data-pile="t7"] .card:last-child', "n => n.getBoundingClientRect().toJSON()"
        )
        assert column["bottom"] <= viewport["height"], column  # the dealt tableau is visible
