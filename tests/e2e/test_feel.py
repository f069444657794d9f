"""How play feels: refusals that move nothing and speak plainly, moves drawn before their
answer (and taken back when refused), a pending state, a stopped server, smart tap, the new
game dialog's Enter, and the first paint of a game's page."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import (
    drag,
    pile_cards,
    sign_up,
    start_casual,
    start_ranked,
    wait_until,
    watched_page,
)

pytestmark = pytest.mark.e2e

# KL1-D1N-AAAAAAG: t1 AD, t2 [2H] JC, t3 [7C 3D] KD, t4 [7H 5D 8D] 10C, t5 [4C 6H 6S 7D] 9D,
# t6 [9C KH JS 5H KC] 3S, t7 [9H 3C QD 7S QS 4D] AH; the stock draws QH JH AS QC ...
CODE = "KL1-D1N-AAAAAAG"
ACTIONS = "**/api/v1/games/*/actions"
# Developer notation: a card as "5D", a pile as "t3" or "f1", a rules section.
NOTATION = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b|\b[tf][1-7]\b|§|rules")


def settled(page: Any) -> None:
    """Waits until no card is in flight (sliding, shaking)."""
    wait_until(page, "!document.querySelector('.board .card.moving')")


def toast_text(page: Any) -> str:
    page.wait_for_selector("[data-toast]:not([hidden])")
    return str(page.inner_text("[data-toast] span")).strip()


class Held:
    """Holds the page's action requests until released: a slow network, on demand."""

    def __init__(self, page: Any) -> None:
        self.routes: list[Any] = []
        page.route(ACTIONS, lambda route: self.routes.append(route))

    def wait(self, page: Any, count: int = 1) -> None:
        deadline = 300
        while len(self.routes) < count and deadline:
            page.wait_for_timeout(50)
            deadline -= 1
        assert len(self.routes) >= count, "the action's request never left"


# ------------------------------------------------------------------ refusals (issue 20, 4)


def test_an_illegal_move_moves_nothing_on_the_page_and_says_why_plainly(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    settled(page)
    before = page.locator(".board").bounding_box()
    drag(page, "JC", '[data-card="KD"]')  # a black jack needs a red queen
    text = toast_text(page)
    assert text == "J♣ can't go on K♦: a column builds down in alternating colours"  # the server's
    assert not NOTATION.search(text), text
    assert page.locator(".board").bounding_box() == before  # the message takes no room
    assert page.evaluate("getComputedStyle(document.querySelector('[data-toast]')).position") == (
        "fixed"
    )
    settled(page)  # slid back, shaken
    jc = page.locator('[data-card="JC"]').bounding_box()
    column = page.locator('[data-pile="t2"]').bounding_box()
    assert abs(jc["x"] - column["x"]) < 2
    assert pile_cards(page, "t2") == [None, "JC"]


def test_keyboard_status_has_its_own_place_that_moves_nothing(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    settled(page)
    before = page.locator(".board").bounding_box()
    page.focus(".board")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("[data-board-status]:not([hidden]) >> text=column 2")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-board-status] >> text=Picked up jack of clubs")
    assert page.locator(".board").bounding_box() == before
    assert page.is_hidden("[data-toast]")


# ------------------------------------------------------------------ moves drawn at once (14)


def test_a_move_that_reveals_nothing_is_drawn_before_its_answer(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    held = Held(page)
    page.click('[data-card="AD"]')  # to its foundation; t1 is left empty: nothing turns up
    held.wait(page)
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')  # the request is still held
    assert page.get_attribute(".board", "aria-busy") == "true"
    page.wait_for_selector(".board.waiting")  # and the board says it waits
    held.routes[0].continue_()
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '1'")
    page.wait_for_selector(".board:not(.waiting)")
    assert pile_cards(page, "f3") == ["AD"]
    assert page.request.get(f"/api/v1/games/{game_id}").json()["seq"] == 1


def test_a_move_drawn_ahead_is_taken_back_when_refused(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    held = Held(page)
    page.click('[data-card="AD"]')
    held.wait(page)
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    body = (  # a refusal the page could not foresee: the server's word is the last
        '{"error": {"code": "illegal_move", "message": "A♦ is already on its foundation",'
        ' "reason": "foundation_order", "details": {"card": "AD", "onto": "f3"}, "rule": "2.5"}}'
    )
    held.routes[0].fulfill(status=422, content_type="application/json", body=body)
    page.wait_for_selector('[data-pile="t1"] [data-card="AD"]')
    assert pile_cards(page, "f3") == []
    assert toast_text(page) == "A♦ is already on its foundation"
    assert page.inner_text("[data-moves]").strip() == "0"


def test_a_move_drawn_ahead_is_taken_back_when_the_game_moved_on(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    elsewhere = page.request.post(  # another tab draws
        f"/api/v1/games/{game_id}/actions",
        data={"seq": 0, "action": "draw"},
        headers={"X-CSRFToken": token},
    )
    assert elsewhere.ok
    page.click('[data-card="AD"]')  # drawn ahead, then 409: the game is reloaded
    assert "moved on elsewhere" in toast_text(page)
    page.wait_for_selector('[data-pile="waste"] [data-card="QH"]')
    assert pile_cards(page, "t1") == ["AD"]
    assert pile_cards(page, "f3") == []


def test_a_draw_waits_for_its_answer_and_shows_it_is_waiting(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    held = Held(page)
    page.click('[data-pile="stock"]')  # a draw reveals a card only the server knows
    held.wait(page)
    page.wait_for_selector(".board.waiting")
    assert pile_cards(page, "waste") == []
    held.routes[0].continue_()
    page.wait_for_selector('[data-pile="waste"] [data-card="QH"]')
    page.wait_for_selector(".board:not(.waiting)")


# ------------------------------------------------------------------ a stopped server (9)


def test_a_stopped_server_gets_a_plain_message_a_retry_and_a_paused_clock(page: Any) -> None:
    page.clock.install()
    sign_up(page)
    start_casual(page, CODE)
    page.route(ACTIONS, lambda route: route.abort("connectionrefused"))
    page.click('[data-card="AD"]')
    text = toast_text(page)
    assert "fetch" not in text.lower()
    assert text == "The server can't be reached. Check your connection."
    page.wait_for_selector('[data-pile="t1"] [data-card="AD"]')  # drawn ahead, taken back
    clock = page.inner_text("[data-clock]")
    page.clock.run_for(10_000)
    assert page.inner_text("[data-clock]") == clock  # paused while the server is away
    assert page.is_visible("[data-toast] [data-toast-action]")  # Retry stays

    page.unroute(ACTIONS)
    page.click("[data-toast] [data-toast-action]")
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '1'")
    page.wait_for_selector("[data-toast][hidden]", state="attached")
    page.clock.run_for(10_000)
    assert page.inner_text("[data-clock]") != clock  # running again


# ------------------------------------------------------------------ smart tap (13)


def test_smart_tap_sends_a_card_to_its_best_column_with_one_tap(touch_page: Any) -> None:
    page = touch_page
    sign_up(page)
    start_casual(page, CODE)
    page.click("[data-open-dialog='settings-dialog']")
    assert not page.is_checked("#settings-dialog [name=smartTap]")  # off by default
    page.check("#settings-dialog [name=smartTap]")
    page.click("#settings-dialog button[value=close]")

    page.tap('[data-pile="t5"] [data-card="9D"]')  # one tap: onto 10C, the only place
    page.wait_for_selector('[data-pile="t4"] [data-card="9D"]')
    wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '1'")
    page.tap('[data-pile="t1"] [data-card="AD"]')  # fits its foundation: goes there
    page.wait_for_selector('[data-pile="f3"] [data-card="AD"]')

    page.reload()  # kept with the other settings
    page.wait_for_selector(".board .card.up")
    assert page.evaluate("document.documentElement.classList.contains('s-smartTap')")


def test_without_smart_tap_one_tap_is_the_foundation_only(page: Any) -> None:
    sign_up(page)
    start_casual(page, CODE)
    page.click('[data-pile="t5"] [data-card="9D"]')
    text = toast_text(page)  # the tap went to the foundation, which refused it
    assert "9♦" in text and not NOTATION.search(text)
    assert pile_cards(page, "t5")[-1] == "9D"


# ------------------------------------------------------------------ small things (9)


def test_enter_in_the_deal_code_field_deals(page: Any) -> None:
    sign_up(page)
    page.goto("/play")
    page.wait_for_selector("#new-game-dialog[open]")
    page.fill("#deal-code", CODE)
    page.press("#deal-code", "Enter")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector('[data-pile="t1"] [data-card="AD"]')
    assert page.input_value("[data-code]") == CODE


def test_a_games_page_does_not_first_paint_new_game(page: Any) -> None:
    sign_up(page)
    game_id = start_casual(page, CODE)
    html = page.request.get(f"/play/{game_id}").text()
    label = re.search(r"data-deal-label>([^<]*)<", html)
    assert label and "New game" not in label.group(1)
    assert "data-deal-label>New game<" in page.request.get("/play").text()


# ------------------------------------------------------------------ winning (5)


def play_on_server(page: Any, game_id: int, actions: list[Any]) -> None:
    """Plays engine actions on the server, as the page's player (set-up, not what is under
    test), then shows the game again."""
    from django.contrib.auth import get_user_model

    from games.services import game_action_apply

    name = page.evaluate("fetch('/api/v1/me').then(r => r.json())")["username"]
    user = get_user_model().objects.get(username=name)
    seq = page.request.get(f"/api/v1/games/{game_id}").json()["seq"]
    for action in actions:
        game, _ = game_action_apply(game_id=game_id, user=user, seq=seq, action=action)
        seq = game.seq
    page.reload()
    page.wait_for_selector(".board .card.up")
    settled(page)


def near_win(page: Any, code: str) -> dict[str, Any]:
    """Deals `code`, plays the solver's winning line but its last action on the server, and
    returns that last action (the API's JSON form)."""
    from games import engine
    from games.engine import solver

    game_id = start_casual(page, code)
    verdict = solver.solve(engine.GameState.from_code(code), budget_s=30)
    assert isinstance(verdict, solver.Solved)
    play_on_server(page, game_id, list(verdict.actions[:-1]))
    return dict(engine.action_to_dict(verdict.actions[-1]))


def win(page: Any, last: dict[str, Any]) -> None:
    page.evaluate("body => { klondike.act(body); }", last)
    page.wait_for_selector("#win-dialog[open]")


def test_a_win_shows_its_result_without_null_and_celebrates(page: Any) -> None:
    sign_up(page)
    win(page, near_win(page, "KL1-D1N-AAAAACW"))
    assert "null" not in page.inner_text("#win-dialog")
    assert page.locator("#win-dialog .confetti").count() == 1


@pytest.fixture
def calm_page(browser: Any, base_url: str) -> Iterator[Any]:
    with watched_page(browser, base_url, reduced_motion="reduce") as page:
        yield page


def test_a_win_has_no_celebration_for_reduced_motion(calm_page: Any) -> None:
    page = calm_page
    sign_up(page)
    win(page, near_win(page, "KL1-D1N-AAAAACW"))
    assert page.locator(".confetti").count() == 0


def test_an_automatic_finish_sends_the_cards_home_one_by_one(page: Any) -> None:
    """Preset R finishes by itself once every card is face up: 27 cards go home with one
    answer. The page draws them one at a time, and the win dialog opens after the last."""
    sign_up(page)
    last = near_win(page, "KL1-D1R-AAAAAAG")
    page.evaluate(
        """() => {
            window.homes = [];
            const count = () => [...document.querySelectorAll('.found')]
                .reduce((n, pile) => n + Number(pile.dataset.count || 0), 0);
            new MutationObserver(() => {
                const n = count();
                if (homes[homes.length - 1] !== n) homes.push(n);
                if (document.querySelector('#win-dialog[open]') && !window.atWin) window.atWin = n;
            }).observe(document.body, { subtree: true, childList: true, attributes: true });
        }"""
    )
    win(page, last)
    homes = page.evaluate("homes")
    assert homes[-1] == 52
    steps = [b - a for a, b in itertools.pairwise(homes)]
    assert len(steps) >= 20 and set(steps) == {1}, homes  # one card at a time
    assert page.evaluate("window.atWin") == 52  # the dialog opened after the last one


def test_a_daily_win_shows_rank_par_and_the_new_streak(page: Any) -> None:
    from games import engine
    from games.models import DailyDeal

    sign_up(page)  # lands on /daily
    game_id = start_ranked(page)
    daily = DailyDeal.objects.get(mode="D1N", games__id=game_id)
    line = [engine.parse_action(n) for n in daily.solution.splitlines()]
    play_on_server(page, game_id, line[:-1])
    win(page, dict(engine.action_to_dict(line[-1])))
    wait_until(page, "document.querySelector('[data-win=\"par\"]').textContent !== '…'")
    assert page.inner_text('[data-win="par"]') == f"{daily.par} moves"
    wait_until(page, "document.querySelector('[data-win=\"streak\"]').textContent !== '…'")
    assert page.inner_text('[data-win="streak"]') == "1 day"  # counted when won
    # Ranked at once with Redis (the live board); without it, by the next ranking run.
    assert page.inner_text('[data-win="rank"]') in ("1 of 1", "on the board in a moment")
    assert "null" not in page.inner_text("#win-dialog")
