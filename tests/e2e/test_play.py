"""Playing through the page: gestures, scores, refusals, a whole won game, the keyboard."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import (
    drag,
    follow_hints_to_the_end,
    pile_cards,
    screenshot,
    sign_up,
    start_casual,
    status,
    wait_until,
)

pytestmark = pytest.mark.e2e

# KL1-D1N-AAAAAAG: t1 AD, t2 [2H] JC, t3 [7C 3D] KD, t4 [7H 5D 8D] 10C, t5 [4C 6H 6S 7D] 9D,
# t6 [9C KH JS 5H KC] 3S, t7 [9H 3C QD 7S QS 4D] AH; the stock draws QH JH AS QC 2S 2C 3H 6D
# 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC 10H JD 9S 6C.
CODE = "KL1-D1N-AAAAAAG"


def wait_status(page: Any, **expected: str) -> None:
    """Waits until the status bar shows `expected` (score, moves, passes)."""
    wait_until(
        page,
        """want => Object.entries(want).every(
            ([k, v]) => document.querySelector(`[data-${k}]`).textContent.trim() === v)""",
        arg=expected,
    )


def api_game(page: Any, game_id: int) -> dict[str, Any]:
    response = page.request.get(f"/api/v1/games/{game_id}")
    assert response.ok
    return dict(response.json())


def test_drag_tap_draw_recycle_undo_keep_the_rules_score(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    assert page.input_value("[data-code]") == CODE
    assert status(page) == {"score": "0", "moves": "0", "passes": "1"}

    drag(page, "9D", '[data-card="10C"]')  # 9D onto 10C turns up 7D: +5
    page.wait_for_selector('[data-pile="t4"] [data-card="9D"]')
    wait_status(page, score="5", moves="1")
    assert pile_cards(page, "t5") == [None, None, None, "7D"]

    page.click('[data-card="AD"]')  # a tap: to its foundation, +10
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    wait_status(page, score="15", moves="2")
    assert pile_cards(page, "t1") == []

    page.click('[data-pile="stock"]')  # draw: QH
    page.wait_for_selector('[data-pile="waste"] [data-card="QH"]')
    wait_status(page, score="15", moves="3")
    screenshot(page, "play")

    for moves in range(4, 27):  # the other 23 cards
        page.click('[data-pile="stock"]')
        wait_status(page, moves=str(moves))
    assert page.locator('[data-pile="waste"] [data-card="6C"]').count() == 1
    assert page.locator('[data-pile="stock"] .card').count() == 0

    page.click('[data-pile="stock"]')  # recycle: -100, floored at 0
    wait_status(page, score="0", moves="27", passes="2")
    assert pile_cards(page, "waste") == []
    assert page.inner_text('[data-pile="stock"] .count') == "24"

    page.click("[data-undo]")  # undo gives the 15 points back and counts as a move
    wait_status(page, score="15", moves="28", passes="1")
    assert pile_cards(page, "waste")[-1] == "6C"

    game = api_game(page, game_id)
    assert (game["score"], game["moves"], game["passes_used"]) == (15, 28, 0)
    for i, column in enumerate(game["state"]["tableau"], start=1):
        assert pile_cards(page, f"t{i}") == column


def test_an_illegal_drop_returns_the_card_and_shows_the_reason(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    drag(page, "JC", '[data-card="KD"]')  # a black jack needs a red queen
    page.wait_for_selector("[data-toast]:not([hidden])")
    assert page.inner_text("[data-toast]") == (
        "J♣ can't go on K♦: a column builds down in alternating colours"
    )
    assert pile_cards(page, "t2") == [None, "JC"]
    assert pile_cards(page, "t3") == [None, None, "KD"]
    assert status(page)["moves"] == "0"
    # The card is back in its place on screen, not just in the DOM.
    wait_until(page, "!document.querySelector('.board .card.moving')")
    jc = page.locator('[data-card="JC"]').bounding_box()
    column = page.locator('[data-pile="t2"]').bounding_box()
    assert abs(jc["x"] - column["x"]) < 2
    assert api_game(page, game_id)["seq"] == 0


def test_a_whole_game_to_the_win_screen(page: Any, settings: Any) -> None:
    """Follows the hint endpoint to a win; the win screen shows the rules' score."""
    from games.engine import replay

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # a hint a move, faster than 1/s
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "hints": "1000/min"},
    }

    code = "KL1-D3N-AAAAACW"  # the solver wins it in about 110 actions
    sign_up(page)
    game_id = start_casual(page, code)
    page.click("[data-hint]")  # the button highlights the suggested move
    page.wait_for_selector(".board .hint, .board .pile.hint")
    state = follow_hints_to_the_end(page)
    assert state == "won"
    page.wait_for_selector("#win-dialog[open]")
    shown = page.inner_text('[data-win="score"]')

    game = api_game(page, game_id)
    log = page.request.get(f"/api/v1/games/{game_id}/replay").json()
    predicted = replay(code, [entry["notation"] for entry in log["actions"]]).outcome
    assert predicted.won
    assert shown == game["score_display"] == predicted.score_display
    assert page.inner_text('[data-win="moves"]') == str(game["moves"]) == str(predicted.moves)


def test_a_hint_still_searched_is_asked_again_until_its_line_is_found(
    page: Any, monkeypatch: Any, tmp_path: Any
) -> None:
    """The hint's own search runs out of time (here at once): the page shows the heuristic
    move as "still looking" and asks again, without a click, until the background search's
    winning line serves the hint; after a move it stops asking about the old position."""
    from django.core.cache import cache

    from config.slots import HostSlots
    from games import hints, search_process
    from games.engine import solver

    def search(state: Any, *, budget_s: float, line: Any = (), lane: str = "request") -> Any:
        return solver.hint(state, budget_s=0 if lane == "request" else 5.0, line=line)

    queued: list[tuple[int, str]] = []
    monkeypatch.setattr(search_process, "hint", search)
    # A search slot of this test's own: background work an earlier test left running (a pool
    # fill) could hold the host's one slot, and a hint without a slot does not search at all,
    # so it is never "still looking" (seen in CI, two suites side by side).
    monkeypatch.setattr(hints, "search_slots", HostSlots("solver-search", 1, tmp_path))
    monkeypatch.setattr(hints, "hint_line_search_queue", lambda *args: queued.append(args))
    asked: list[str] = []
    page.on("request", lambda request: "/hint" in request.url and asked.append(request.url))
    sign_up(page)
    start_casual(page, CODE)
    page.click("[data-hint]")
    line = "[data-board-status]"
    wait_until(page, f"document.querySelector('{line}').textContent.includes('still looking')")
    for _ in range(100):  # asked again, with no click
        if len(asked) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(asked) >= 2
    [(game_id, position)] = queued  # once for the position
    assert hints.hint_line_search(game_id=game_id, position=position) == "kept"  # as a worker
    wait_until(
        page,
        f"(() => {{ const t = document.querySelector('{line}').textContent;"
        " return t.startsWith('Hint:') && !t.includes('still looking'); })()",
    )
    assert page.request.get(f"/api/v1/games/{game_id}/hint").json()["source"] == "solver"

    # A new position searched again, then a move: the old position is asked about no more.
    cache.delete(f"{hints.HINT_LINE_KEY}:{game_id}")  # the next hint searches
    page.click("[data-hint]")
    wait_until(page, f"document.querySelector('{line}').textContent.includes('still looking')")
    page.click('[data-pile="stock"]')  # a draw
    wait_until(page, f"!document.querySelector('{line}').textContent")
    settled = len(asked)
    page.wait_for_timeout(3000)  # longer than the page's wait between two asks
    assert len(asked) == settled


def test_keyboard_play_is_announced(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    live = "[data-live]"
    page.focus(".board")
    page.keyboard.press("ArrowRight")  # the cursor starts on column 1 (AD)
    page.keyboard.press("ArrowLeft")
    wait_until(page, f"document.querySelector('{live}').textContent.includes('ace of diamonds')")

    page.keyboard.press("f")  # to the foundation
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    wait_until(
        page,
        f"document.querySelector('{live}').textContent"
        ".startsWith('Ace of diamonds to the diamonds foundation')",
    )

    for _ in range(4):  # to column 5
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")  # pick up 9D
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")  # drop it on column 4
    page.wait_for_selector('[data-pile="t4"] [data-card="9D"]')
    wait_until(
        page,
        f"document.querySelector('{live}').textContent"
        ".startsWith('9 of diamonds to column 4, 7 of diamonds turned up')",
    )

    page.keyboard.press("Space")
    page.wait_for_selector('[data-pile="waste"] [data-card="QH"]')
    wait_until(
        page, f"document.querySelector('{live}').textContent.startsWith('Drew queen of hearts')"
    )

    page.keyboard.press("Control+z")
    wait_until(page, f"document.querySelector('{live}').textContent.startsWith('Undone')")
    assert pile_cards(page, "waste") == []
    assert status(page)["moves"] == "4"
