"""A ranked attempt's Undo on the page: off, and saying why, after an action that turned a card
face up (docs/daily.md, "One ranked attempt"); the keyboard's undo says the same."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import sign_up, start_ranked, wait_until

pytestmark = pytest.mark.e2e

WHY = "In a ranked game an undo can't hide a card you have already seen"  # the server's words


def undo_button(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => {
                const b = document.querySelector("[data-undo]");
                const note = document.getElementById(b.getAttribute("aria-describedby") || "-");
                return {disabled: b.disabled, title: b.getAttribute("title"),
                        note: note ? note.textContent : null};
            }"""
        )
    )


def test_undo_is_off_after_a_ranked_draw_and_says_why(page: Any) -> None:
    sign_up(page)  # lands on /daily
    game_id = start_ranked(page)
    assert undo_button(page) == {"disabled": True, "title": None, "note": None}  # nothing yet

    page.click('[data-pile="stock"]')  # the first pass: a card never seen
    page.wait_for_selector('[data-pile="waste"] .card.up')
    wait_until(page, "klondike.game().seq === 1")
    assert undo_button(page) == {"disabled": True, "title": WHY, "note": WHY}

    page.keyboard.press("Control+z")  # the keyboard's undo says why, and sends nothing
    page.wait_for_selector("[data-toast]:not([hidden])")
    assert page.inner_text("[data-toast]") == WHY
    assert page.request.get(f"/api/v1/games/{game_id}").json()["seq"] == 1

    # Should the server refuse one anyway, its reason is worded like any refusal's.
    page.evaluate("() => document.querySelector('[data-toast]').hidden = true")
    page.evaluate("() => klondike.act({action: 'undo'}).catch(() => {})")
    page.wait_for_selector("[data-toast]:not([hidden])")
    assert page.inner_text("[data-toast]") == WHY
    assert page.request.get(f"/api/v1/games/{game_id}").json()["seq"] == 1

    # Through the stock and back over: turning the waste over hides no card seen.
    page.evaluate(
        """async () => {
            while (klondike.game().state.stock) await klondike.act({action: "draw"});
            await klondike.act({action: "recycle"});
        }"""
    )
    wait_until(page, "klondike.game().passes_used === 1")
    assert undo_button(page) == {"disabled": False, "title": None, "note": None}
