"""A casual game's clock on the page: it waits for the first action and stops a minute after
the last one, as the server counts it (#39, item 3). The page's time is Playwright's fake
clock, jumped forward: no test waits for the wall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import sign_up, start_casual, wait_until

pytestmark = pytest.mark.e2e

CODE = "KL1-D1N-AAAAAAG"


def shown(page: Any) -> str:
    return str(page.text_content("[data-clock]")).strip()


def test_the_casual_clock_starts_at_the_first_action_and_stops_when_idle(page: Any) -> None:
    page.clock.install()
    sign_up(page)
    start_casual(page, CODE)
    page.clock.fast_forward("05:00")  # the game dealt and left alone
    page.clock.run_for(1000)
    assert shown(page) == "0:00"

    page.click('[data-pile="stock"]')
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '1'")
    page.clock.fast_forward("00:10")
    page.clock.run_for(1000)
    assert shown(page) in ("0:10", "0:11")
    page.clock.fast_forward("30:00")  # gone for half an hour: a minute of it counts
    page.clock.run_for(1000)
    assert shown(page) in ("0:59", "1:00")
