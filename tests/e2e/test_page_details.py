"""The page's smaller things (#39, item 8), each as the eye caught it: the board kept its
place when the game ended, "Larger cards" kept the phone's margins, the leaderboard's result
sat out of line with its row, and a flag is the owner's private note, no public mark (#50)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import (
    PHONE,
    drag,
    resign_todays_ranked_attempt,
    settle,
    sign_up,
    start_casual,
    watched_page,
)

pytestmark = pytest.mark.e2e

CODE = "KL1-D1N-AAAAAAG"


def box(page: Any, selector: str) -> dict[str, float]:
    return dict(page.eval_on_selector(selector, "n => n.getBoundingClientRect().toJSON()"))


def test_the_board_keeps_its_place_when_the_game_ends(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    for viewport in (PHONE, {"width": 1280, "height": 800}):
        page.set_viewport_size(viewport)
        settle(page)
        before = box(page, ".board")
        if viewport is PHONE:
            page.evaluate("klondike.act({action: 'resign'})")
            page.wait_for_selector("[data-banner]:not([hidden])")
            settle(page)
        assert box(page, ".board")["top"] == before["top"], viewport
        banner = box(page, "[data-banner]")
        assert banner["bottom"] <= viewport["height"] and banner["right"] <= viewport["width"]


def test_larger_cards_keep_the_phones_margins(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    page.set_viewport_size(PHONE)
    widths = {}
    for large in (False, True):
        page.click("[data-open-dialog=settings-dialog]")
        page.set_checked('#settings-dialog input[name="large"]', large)
        page.keyboard.press("Escape")
        settle(page)
        board = box(page, ".board")
        # A board against the screen's edge takes the phone's "back" swipe for a drag.
        assert board["left"] >= 6 and board["right"] <= PHONE["width"] - 6, (large, board)
        widths[large] = box(page, '[data-card="AD"]')["width"]
    assert widths[True] > widths[False], widths


def test_a_leaderboard_row_is_in_line_and_a_flag_is_the_owners_private_note(page: Any) -> None:
    from games.models import Game

    name = sign_up(page)
    day = resign_todays_ranked_attempt(page)
    for viewport in ({"width": 1280, "height": 800}, PHONE):
        page.set_viewport_size(viewport)
        page.goto(f"/leaderboards?date={day}&mode=D1N")
        page.wait_for_selector(f'tr.me[data-user="{name}"]')
        cells = page.eval_on_selector_all(
            "tr.me td",
            "ns => ns.map(n => [getComputedStyle(n).display, n.getBoundingClientRect().top])",
        )
        assert {display for display, _ in cells} == {"table-cell"}, cells
        assert len({round(top) for _, top in cells}) == 1, cells

    # A flag is no public mark (issue 50): the board shows the row as before, and only the
    # owner's daily page says that a reviewer is checking the attempt.
    Game.objects.filter(user__username=name).update(flag_reason="moves as regular as a clock")
    page.reload()
    page.wait_for_selector(f'tr.me[data-user="{name}"]')
    assert page.query_selector(f'tr.me[data-user="{name}"] .review') is None
    assert "review" not in page.inner_text(f'tr.me[data-user="{name}"]')
    page.goto("/daily")
    note = page.wait_for_selector("[data-my-review]")
    assert note is not None and "reviewer" in note.inner_text()


def test_the_profile_tiles_fill_their_rows(page: Any) -> None:
    """Eight stat tiles: none alone on a row, on a desktop or a phone."""
    name = sign_up(page)
    for viewport in ({"width": 1280, "height": 800}, {"width": 1024, "height": 768}, PHONE):
        page.set_viewport_size(viewport)
        page.goto(f"/u/{name}")
        page.wait_for_selector("[data-stats] dd")
        tops = page.eval_on_selector_all(
            "[data-stats] > div", "ns => ns.map(n => Math.round(n.getBoundingClientRect().top))"
        )
        rows = {top: tops.count(top) for top in tops}
        assert len(tops) == 8 and min(rows.values()) > 1, (viewport, rows)


def test_play_now_is_above_the_fold_on_a_landscape_phone(page: Any) -> None:
    for viewport in ({"width": 844, "height": 390}, {"width": 740, "height": 360}, PHONE):
        page.set_viewport_size(viewport)
        page.goto("/")
        play_now = box(page, "[data-play-now]")
        assert play_now["bottom"] <= viewport["height"], (viewport, play_now)


def test_a_refused_move_logs_no_console_error(page: Any) -> None:
    """The page knows a refused gesture from the legal list and asks the server why (200)
    instead of sending it (a 422, which the browser logs as an error)."""
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    sign_up(page)
    start_casual(page, CODE)
    drag(page, "3S", '[data-pile="t3"]')  # 3♠ on K♦: refused
    page.wait_for_selector("[data-toast]:not([hidden])")
    assert page.inner_text("[data-toast]").strip()
    with page.expect_response(lambda r: "/actions" in r.url) as answer:
        page.click('[data-card="KD"]')  # a tap: K♦ cannot go home
    assert answer.value.status == 200, answer.value.url
    assert errors == [], errors


@pytest.mark.parametrize(("lang", "word"), [("en", "Par"), ("sk", "Norma"), ("pl", "Norma")])
def test_the_daily_page_says_what_par_is(browser: Any, base_url: str, lang: str, word: str) -> None:
    """Par was a bare number ("Par 245"), unexplained and untranslated (#39, items 7 and 8)."""
    from games.models import DailyDeal

    with watched_page(browser, base_url, locale=lang) as page:
        page.goto("/daily")
        page.wait_for_selector("[data-challenges] [data-mode] dd")
        par = DailyDeal.objects.filter(mode="D1N").latest("date").par
        tile = page.inner_text('[data-challenges] [data-mode="D1N"]')
        assert word in tile and str(par) in tile, tile
        note = page.inner_text("[data-par-note]")
        assert page.is_visible("[data-par-note]") and word in note, note
