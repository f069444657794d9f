"""The daily flow end to end, and the replay viewer against the Python engine."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import (
    PHONE,
    pile_cards,
    screenshot,
    sign_up,
    start_casual,
    wait_until,
)

pytestmark = pytest.mark.e2e

CODE = "KL1-D1N-AAAAAAG"


def test_daily_attempt_resign_leaderboard_and_no_second_attempt(page: Any) -> None:
    name = sign_up(page)  # lands on /daily
    page.goto("/")  # signed in, the landing page leads to play rather than to sign-up
    page.wait_for_selector("[data-cta] >> text=Play today's challenge")
    assert page.locator("[data-cta] >> text=Sign up").count() == 0
    page.goto("/daily")
    page.wait_for_selector('[data-mode="D1N"] [data-start]')
    page.click('[data-mode="D1N"] [data-start]')
    page.wait_for_selector("dialog[open] >> text=one attempt")  # the warning comes first
    # The server's clock starts with the attempt (games.clock, started_at), and so says the text.
    assert "clock starts as soon as you start it" in page.inner_text("dialog[open]")
    page.click("dialog[open] [data-confirm]")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    assert "ranked" in page.inner_text("[data-deal-label]")
    assert page.locator("[data-hint]").is_hidden()  # no hints in a ranked attempt
    assert page.locator("[data-code-box]").is_hidden()  # the deal's code stays secret

    page.click('[data-pile="stock"]')
    page.wait_for_selector('[data-pile="waste"] .card.up')
    drawn = pile_cards(page, "waste")[-1]
    page.click("[data-resign]")
    page.click("dialog[open] [data-confirm]")
    page.wait_for_selector("[data-banner]:not([hidden]) >> text=resigned")
    game_id = int(page.url.rsplit("/", 1)[1])

    # The board is open: my replay shows only what I saw, and says so.
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("[data-notice]:not([hidden]) >> text=only the cards you saw")
    assert page.get_attribute('[data-pile="stock"]', "data-count") == "24"
    page.click("[data-forward]")
    wait_until(page, "location.hash === '#m=1'")
    assert pile_cards(page, "waste")[-1] == drawn
    assert page.get_attribute('[data-pile="stock"]', "data-count") == "23"
    screenshot(page, "replay-redacted")

    day = page.request.get("/api/v1/daily").json()["date"]
    from django.conf import settings

    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):  # scaled run: be the worker
        from games.tasks import rank_daily

        rank_daily(day, "D1N")
    page.goto(f"/leaderboards?date={day}&mode=D1N")
    mine = page.wait_for_selector(f'tr.me[data-user="{name}"]')
    assert mine.query_selector("td").inner_text() == "1"
    # A finished attempt is a solution: no replay on the board until it is final.
    assert not mine.query_selector('a[href^="/replay/"]')
    assert "you: #1 of 1" in page.inner_text("[data-summary]")
    screenshot(page, "leaderboard")

    page.goto("/daily")
    page.wait_for_selector('[data-mode="D1N"] [data-my-status="resigned"]')
    assert page.locator('[data-mode="D1N"] [data-start]').count() == 0
    assert page.locator('[data-mode="D3N"] [data-start]').count() == 1
    refused = page.evaluate(
        """async (day) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const r = await fetch(`/api/v1/daily/${day}/D1N/start`, {
                method: "POST", headers: {"X-CSRFToken": token}});
            return [r.status, (await r.json()).error.code];
        }""",
        day,
    )
    assert refused == [409, "already_played"]


def rendered(page: Any) -> dict[str, Any]:
    """What the board shows: whole columns, pile sizes, the top of waste and foundations."""
    view: dict[str, Any] = {"tableau": [pile_cards(page, f"t{i}") for i in range(1, 8)]}
    for pile in ("stock", "waste", "f1", "f2", "f3", "f4"):
        count = int(page.get_attribute(f'[data-pile="{pile}"]', "data-count"))
        top = pile_cards(page, pile)[-1] if count and pile != "stock" else None
        view[pile] = (count, top)
    return view


def expected(notations: list[str]) -> dict[str, Any]:
    from games.engine import public_view, replay

    state = public_view(replay(CODE, notations).state)
    view: dict[str, Any] = {"tableau": state["tableau"], "stock": (state["stock"], None)}
    view["waste"] = (len(state["waste"]), state["waste"][-1] if state["waste"] else None)
    for i, pile in enumerate(state["foundations"], start=1):
        view[f"f{i}"] = (len(pile), pile[-1] if pile else None)
    return view


def test_replay_steps_match_the_engine(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    actions = [
        {"action": "tap", "from": "t1"},
        {"action": "move", "from": "t5", "to": "t4"},
        {"action": "tap", "from": "t7"},
        {"action": "draw"},
        {"action": "draw"},
        {"action": "draw"},
        {"action": "tap", "from": "waste"},
        {"action": "undo"},
        {"action": "double_tap", "from": "t6", "card": "3S"},  # onto 4D
        {"action": "resign"},
    ]
    for action in actions:
        page.evaluate("a => klondike.act(a)", action)
    log = page.request.get(f"/api/v1/games/{game_id}/replay").json()
    notations = [entry["notation"] for entry in log["actions"]]
    assert len(notations) == len(actions)

    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(".move-list li")
    assert rendered(page) == expected([])
    assert " · 1 undo · " in page.inner_text("[data-result]")  # not "1 undos"
    for k in range(1, len(notations) + 1):  # forward, one step at a time
        page.click("[data-forward]")
        wait_until(page, f"location.hash === '#m={k}'")
        assert rendered(page) == expected(notations[:k]), f"after step {k}: {notations[k - 1]}"
    for k in (9, 8, 7, 6):  # and back across the undo
        page.click("[data-back]")
        wait_until(page, f"location.hash === '#m={k}'")
        assert rendered(page) == expected(notations[:k]), f"back at step {k}"

    page.goto(f"/replay/{game_id}#m=4")  # a shared link opens at its move
    page.wait_for_selector(".move-list li.current")
    assert rendered(page) == expected(notations[:4])
    assert page.input_value("[data-scrubber]") == "4"
    page.fill("[data-scrubber]", "9")  # the scrubber jumps
    wait_until(page, "location.hash === '#m=9'")
    assert rendered(page) == expected(notations[:9])
    screenshot(page, "replay")


def test_replay_steps_scroll_only_the_move_list_and_keys_work_after_a_click(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    actions = [
        {"action": "tap", "from": "t1"},
        {"action": "move", "from": "t5", "to": "t4"},
        {"action": "tap", "from": "t7"},
        {"action": "double_tap", "from": "t6", "card": "3S"},  # onto 4D
        *[{"action": "draw"} for _ in range(24)],
        {"action": "resign"},
    ]
    page.evaluate("async list => { for (const a of list) await klondike.act(a); }", actions)
    page.set_viewport_size(PHONE)  # the move list lies below the board
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(".move-list li")
    labels = page.eval_on_selector_all(
        ".move-list li .move span:first-child", "n => n.map(x => x.textContent)"
    )
    assert labels[:5] == [
        "A♦ → foundation",
        "9♦ → column 4",
        "A♥ → foundation",
        "3♠ → column 7",
        "Draw",
    ]
    assert page.evaluate("window.scrollY") == 0
    page.click("[data-forward]")
    wait_until(page, "location.hash === '#m=1'")
    for k in range(2, 28):  # the arrows keep stepping after a button's click
        page.keyboard.press("ArrowRight")
        wait_until(page, f"location.hash === '#m={k}'")
    assert page.evaluate("window.scrollY") == 0  # only the move list scrolled
    assert page.evaluate("document.querySelector('.move-list').scrollTop") > 0


def test_the_profile_writes_a_vegas_best_score_in_dollars(page: Any) -> None:
    name = sign_up(page)
    game_id = start_casual(page, "KL1-D3V-AAAAAAG")
    page.evaluate("a => klondike.act(a)", {"action": "resign"})
    assert page.request.get(f"/api/v1/games/{game_id}").json()["status"] == "resigned"
    page.goto(f"/u/{name}")
    page.wait_for_selector("[data-modes] tr")
    assert "-$52" in page.inner_text("[data-modes]")  # the Vegas start, never "-52"
