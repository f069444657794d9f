"""Layout checks the eye would catch: the landing page's card fan; the game page on a
landscape phone (one line of site bar, one of game bar, the whole toolbar on screen) and on a
portrait one (a compact head, the board on most of the screen); long columns that fit the
screen with every corner index in view; the leaderboard's every column on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    DESKTOP,
    LANDSCAPE_PHONE,
    PHONE,
    SCREENS,
    pile_cards,
    resign_todays_ranked_attempt,
    settle,
    sign_up,
    start_casual,
)

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
        board = page.eval_on_selector(".board", "n => n.getBoundingClientRect().toJSON()")
        # The status and tools stand beside the board, which has the height below the site bar.
        assert max(t["bottom"] for t in tools) <= viewport["height"], tools  # nothing cut off
        assert max(t["right"] for t in tools) <= board["left"], (tools, board)
        assert board["height"] >= 0.8 * viewport["height"], board
        column = page.eval_on_selector(
            '[data-pile="t7"] .card:last-child', "n => n.getBoundingClientRect().toJSON()"
        )
        assert column["bottom"] <= viewport["height"], column  # the dealt tableau is visible


# ------------------------------------------------------------------ long columns (issue 20, 7)

# KL1-D1N-AAAAAAY, 115 actions (found by random play from the engine, cycles cut): column 7
# ends as 6 face-down cards under a whole run, KS down to AS (19 cards, the longest a column
# can be), and column 1 holds a run of four.
LONG_RUN_CODE = "KL1-D1N-AAAAAAY"
LONG_RUN = (
    "t5-t1 t5-t7 t6-t1 t6-t2 t3-f1 draw f1-t1 draw draw t1-f1 draw f1-t1 waste-f3 draw t1-f1 "
    "draw t1-f3 draw f3-t1 f1-t1 draw draw draw draw draw draw waste-t2 draw draw draw t1-f1 "
    "draw f1-t1 waste-t3 t1-f1 t1-f3 draw f3-t1 waste-t4 f1-t1 draw t1-f1 waste-t2 f1-t1 f3-t2 "
    "draw waste-t3 draw t6-t3 t6-t5 draw waste-t3 t2-f3 t2-t6x2 draw f3-t6 t1-f1 t6-f3 draw "
    "waste-t2 t6-f1 recycle f1-t2 draw f3-t2 f1-t1 waste-t4 t2-t6x2 draw t6-t2x2 draw t2-t6x2 "
    "draw waste-f4 draw t6-t2x2 t2-f3 t1-f1 f4-t1 draw f3-t2 draw t2-t6x2 draw t6-f3 t1-f4 "
    "f3-t6 t6-t2x2 f1-t1 draw t2-t6x2 draw t1-f1 draw f1-t1 t6-t2x2 t1-f1 draw waste-t3 draw "
    "t2-t6x2 t1-t3x3 f4-t3 t6-t2x2 t3-f4 f1-t3 t2-t6x2 waste-f2 t6-f3 waste-t1 draw draw "
    "t4-t1x3 t4-t7 t3-t7x10"
)


def play_notation(page: Any, text: str) -> None:
    """Plays actions written in the move notation through the page's own queue (set-up)."""
    from games.engine import action_to_dict, parse_action

    bodies = [action_to_dict(parse_action(t)) for t in text.split()]
    page.evaluate("async bodies => { for (const b of bodies) await klondike.act(b); }", bodies)
    assert page.evaluate("klondike.game().seq") == len(bodies)


def set_large_cards(page: Any, on: bool) -> None:
    """Ticks "Larger cards" in the settings dialog, as a player does."""
    page.click('.toolbar [data-open-dialog="settings-dialog"]')
    page.set_checked('#settings-dialog input[name="large"]', on)
    page.click('#settings-dialog button[value="close"]')
    page.wait_for_selector("#settings-dialog", state="hidden")


COLUMN_FIT = """() => {
    const rect = (n) => n.getBoundingClientRect();
    const columns = [...document.querySelectorAll('.tableau .pile')].map((pile) => {
        const cards = [...pile.querySelectorAll('.card')];
        // Each face-up card shows its corner index: the next card starts below the index.
        const hidden = cards.slice(0, -1).flatMap((card, i) => {
            if (!card.classList.contains('up')) return [];
            const ix = rect(card.querySelector('.ix'));
            const next = rect(cards[i + 1]).top;
            return next < ix.bottom - 0.5 ? [`${card.dataset.card}: ${next} < ${ix.bottom}`] : [];
        });
        const bottom = cards.length ? rect(cards.at(-1)).bottom : 0;
        return { count: cards.length, bottom, hidden };
    });
    // The longest column's strips: face-down, face-up, and what a face-up card's index needs.
    const cards = [...document.querySelectorAll('[data-pile="t7"] .card')];
    const strip = (kind) => Math.min(...cards.slice(0, -1).flatMap((c, i) =>
        c.classList.contains(kind) ? [rect(cards[i + 1]).top - rect(c).top] : []));
    const up = cards.find((c) => c.classList.contains('up'));
    const board = document.querySelector('.board');
    const scroller = document.scrollingElement;
    return {
        columns, height: innerHeight,
        scroll: scroller.scrollHeight - scroller.clientHeight,
        cardWidth: rect(up).width, cardHeight: rect(up).height,
        fitWidth: parseFloat(board.style.getPropertyValue('--fit-cw')),
        down: strip('down'), up: strip('up'),
        index: rect(up.querySelector('.ix')).bottom - rect(up).top,
    };
}"""


def test_long_columns_fit_the_screen_with_every_corner_index_shown(page: Any) -> None:
    # Error events that are no exception ("ResizeObserver loop completed with undelivered
    # notifications", when the fit resized the board inside the observer's callback).
    page.add_init_script("addEventListener('error', (e) => (window.errors ??= []).push(e.message))")
    sign_up(page)
    start_casual(page, LONG_RUN_CODE)
    play_notation(page, LONG_RUN)
    assert len(pile_cards(page, "t7")) == 19
    widths = {}
    for viewport in SCREENS:
        page.set_viewport_size(viewport)
        for large in (False, True):
            set_large_cards(page, large)
            settle(page)
            label = f"{viewport['width']}x{viewport['height']}{'-large' if large else ''}"
            page.screenshot(path=str(ARTIFACTS / f"long-column-{label}.png"))
            fit = page.evaluate(COLUMN_FIT)
            assert fit["columns"][6]["count"] == 19
            for column in fit["columns"]:
                assert column["bottom"] <= fit["height"], (label, column)  # on screen
                assert not column["hidden"], (label, column)  # no rank or suit cut
            assert fit["scroll"] <= 0, (label, fit["scroll"])  # the page does not scroll
            # Face-down strips close up first, then face-up ones, and only then do the cards
            # get smaller (the fit's width binds): then both strips are at their narrowest.
            if fit["up"] < 0.3 * fit["cardHeight"] - 1:
                assert fit["down"] <= 0.07 * fit["cardHeight"] + 2, (label, fit)
            if abs(fit["cardWidth"] - fit["fitWidth"]) < 1:
                assert fit["up"] <= fit["index"] + 2, (label, fit)
            widths[label] = fit["cardWidth"]
    # "Larger cards" makes the cards larger on a portrait phone too.
    assert widths["390x844-large"] > widths["390x844"] * 1.05, widths
    assert page.evaluate("window.errors ?? []") == []


# ------------------------------------------------------------------ phone layout (issue 20, 8)


def test_the_board_takes_most_of_a_portrait_phone(page: Any) -> None:
    page.set_viewport_size(PHONE)
    sign_up(page)
    start_casual(page, "KL1-D1N-AAAAAAG")
    settle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "game-390x844.png"))
    topbar = page.eval_on_selector(".topbar", "n => n.getBoundingClientRect().toJSON()")
    assert topbar["height"] < 80, topbar  # two short lines: the account, then the pages
    board = page.eval_on_selector(".board", "n => n.getBoundingClientRect().toJSON()")
    assert board["top"] < PHONE["height"] * 0.25, board  # a compact head above it
    assert board["bottom"] <= PHONE["height"], board
    assert board["height"] >= PHONE["height"] * 0.7, board
    tools = page.eval_on_selector_all(
        ".toolbar .tool:not([hidden])",
        "nodes => nodes.map(n => n.getBoundingClientRect().toJSON())",
    )
    assert max(t["right"] for t in tools) <= PHONE["width"], tools
    assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")


def test_the_leaderboard_shows_every_column_on_a_phone(page: Any) -> None:
    name = sign_up(page, "a-longer-name-42")
    day = resign_todays_ranked_attempt(page)
    page.set_viewport_size(PHONE)
    page.goto(f"/leaderboards?date={day}&mode=D1N")
    page.wait_for_selector(f'tr.me[data-user="{name}"]')
    page.screenshot(path=str(ARTIFACTS / "leaderboard-390x844.png"))
    heads = page.eval_on_selector_all(
        "[data-table] th",
        "nodes => nodes.map(n => [n.textContent, n.getBoundingClientRect().right])",
    )
    for label, right in heads:
        assert right <= PHONE["width"], (label, right, heads)  # Undos and Time included
    scroll = page.eval_on_selector(".table-scroll", "n => [n.scrollWidth, n.clientWidth]")
    assert scroll[0] <= scroll[1], (scroll, heads)  # nothing to scroll to


def test_the_new_game_dialog_fits_a_landscape_phone(page: Any) -> None:
    """Its Deal button is on screen without scrolling the dialog (it was below its fold)."""
    sign_up(page)
    page.set_viewport_size({"width": 844, "height": 390})
    page.goto("/play")
    page.wait_for_selector("#new-game-dialog[open]")
    settle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "new-game-844x390.png"))
    deal = page.eval_on_selector("[data-start]", "n => n.getBoundingClientRect().toJSON()")
    assert deal["bottom"] <= 390, deal
    scroll = page.eval_on_selector("#new-game-dialog", "n => [n.scrollHeight, n.clientHeight]")
    assert scroll[0] <= scroll[1], scroll


# ---------------------------------------------------------- the board uses the screen (#39, 4)


def long_column_fit(page: Any, viewport: dict[str, int], name: str) -> dict[str, Any]:
    """The board's fit (COLUMN_FIT) at `viewport`, shot as `name`: every column on screen with
    its corner indexes, in cards of 40 px and more (#39, item 4)."""
    page.set_viewport_size(viewport)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{viewport['width']}x{viewport['height']}.png"))
    fit = dict(page.evaluate(COLUMN_FIT))
    assert fit["cardWidth"] >= 40, (viewport, fit["cardWidth"])
    for column in fit["columns"]:
        assert column["bottom"] <= fit["height"] and not column["hidden"], (viewport, column)
    return fit


def test_the_board_uses_a_landscape_phone(page: Any) -> None:
    """At 844x390 the stock and foundations stand beside the columns, so the board has the
    screen's height, and a long column keeps cards of 40 px and more (they were 31 px, with a
    third of the width left empty)."""
    sign_up(page)
    start_casual(page, LONG_RUN_CODE)
    play_notation(page, LONG_RUN)
    assert len(pile_cards(page, "t7")) == 19  # 6 face down, 13 up: more than 12
    for viewport in (LANDSCAPE_PHONE, PHONE):
        long_column_fit(page, viewport, "board-use")
        board = page.eval_on_selector(".board", "n => n.getBoundingClientRect().toJSON()")
        shorter = min(viewport["width"], viewport["height"])
        used = board["height"] if viewport is LANDSCAPE_PHONE else board["width"]
        assert used >= 0.8 * shorter, (viewport, board)


def test_the_replay_board_uses_a_landscape_phone(page: Any) -> None:
    """The replay's board had about 25 px a card at 844x390, below its head and controls."""
    sign_up(page)
    game_id = start_casual(page, LONG_RUN_CODE)
    play_notation(page, LONG_RUN)
    page.evaluate("klondike.act({action: 'resign'})")
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(".move-list li")
    page.click("[data-last]")
    for viewport in (LANDSCAPE_PHONE, PHONE):
        fit = long_column_fit(page, viewport, "replay-use")
        assert fit["columns"][6]["count"] == 19
