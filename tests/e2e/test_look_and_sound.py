"""Card backs, table colours and sounds, as players of the big apps expect (#39, item 9):
three of each look in the settings, kept on the device; sounds off until turned on, then a
deal, a move and a refusal each sound."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import drag, sign_up, start_casual, wait_until, watched_page

pytestmark = pytest.mark.e2e

CODE = "KL1-D1N-AAAAAAG"

# The Web Audio API, recording instead of playing: each tone's wave and frequency.
RECORD_SOUNDS = """
window.tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },
                          connect: (next) => next }; }
  createOscillator() {
    const tone = {
      type: "", frequency: { value: 0 }, connect: (next) => next, stop() {},
      start() { window.tones.push(`${tone.type}:${tone.frequency.value}`); },
    };
    return tone;
  }
};
"""


def styles(page: Any) -> dict[str, str]:
    return dict(
        page.evaluate(
            """() => ({
                back: getComputedStyle(document.querySelector('.board .card.down')).backgroundImage,
                table: getComputedStyle(document.querySelector('.board')).backgroundImage,
                bar: getComputedStyle(document.querySelector('.topbar')).backgroundColor,
            })"""
        )
    )


def choose(page: Any, name: str, value: str) -> None:
    page.click("[data-open-dialog=settings-dialog]")
    page.select_option(f'#settings-dialog select[name="{name}"]', value)
    page.keyboard.press("Escape")


def test_card_backs_and_tables_are_chosen_and_kept_on_the_device(
    browser: Any, base_url: str
) -> None:
    with watched_page(browser, base_url) as page:
        sign_up(page)
        game_id = start_casual(page, CODE)
        first = styles(page)
        seen = {(first["back"], first["table"])}
        for back, table in (("red", "blue"), ("slate", "wine")):
            choose(page, "back", back)
            choose(page, "table", table)
            now = styles(page)
            assert now["bar"] == first["bar"]  # the site keeps its colours
            seen.add((now["back"], now["table"]))
        assert len(seen) == 3 and len({b for b, _ in seen}) == 3 and len({t for _, t in seen}) == 3
        page.goto(f"/play/{game_id}")
        page.wait_for_selector(".board .card.down")
        assert styles(page)["back"] == now["back"] and styles(page)["table"] == now["table"]
    with watched_page(browser, base_url) as other:  # another device: the defaults
        sign_up(other)
        start_casual(other, CODE)
        assert (styles(other)["back"], styles(other)["table"]) == (first["back"], first["table"])


def test_sounds_are_off_until_turned_on(page: Any) -> None:
    page.add_init_script(RECORD_SOUNDS)
    sign_up(page)
    start_casual(page, CODE)
    page.click('[data-card="AD"]')  # a tap home
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    assert page.evaluate("window.tones") == []

    page.click("[data-open-dialog=settings-dialog]")
    page.check('#settings-dialog input[name="sounds"]')
    page.keyboard.press("Escape")
    page.click('[data-pile="stock"]')  # a draw: a move's sound
    wait_until(page, "window.tones.length > 0")
    moved = page.evaluate("window.tones.length")
    drag(page, "3S", '[data-pile="t3"]')  # refused: 3♠ does not go on K♦
    wait_until(page, f"window.tones.slice({moved}).some(t => t.startsWith('square'))")
    page.click("[data-new]")
    page.wait_for_selector("#new-game-dialog[open]")
    page.fill("#deal-code", CODE)
    before = page.evaluate("window.tones.length")
    page.click("[data-start]")
    wait_until(page, f"window.tones.length >= {before} + 3")  # the deal's three notes
