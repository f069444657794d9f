"""The ratings on the pages (#40, item 1, the page's side) in English, Croatian, Slovak and
Polish: the rating board (pages, your row, "Find me", a provisional rating), a final daily
board's rating changes (and none on an open one), the profile's ratings with their chart, and
the daily page's rating line; and (#49, item 8) each rating in words with its likely band, the
profile's percentile, and a final board's par and win rate on the board and the calendar.
Every figure shown is checked against the API's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import (
    play_rated_boards,
    resign_todays_ranked_attempt,
    sign_up,
    wait_until,
    watched_page,
)

pytestmark = pytest.mark.e2e

LANGUAGES = ["en", "hr", "sk", "pl"]

# The page's words, from the catalogs (locale/*/LC_MESSAGES/djangojs.po and django.po).
WORDS = {
    "en": {"tab": "Ratings", "column": "Rating", "yours": "your rating", "draw": "Draw 1",
           "provisional": "provisional, still settling", "history": "Rating history, Draw 1",
           "line": "Rating", "none": "No rating yet",
           "band": "{rating}, likely between {low} and {high}", "par": "Par",
           "win_rate": "Win rate", "counted": "counted entries",
           "percentile": "level with or ahead of {percent} of established ratings"},
    "hr": {"tab": "Rejtinzi", "column": "Rejting", "yours": "vaš rejting", "draw": "Vuča 1",
           "provisional": "privremeni, još se ustaljuje", "history": "Povijest rejtinga, Vuča 1",
           "line": "Rejting", "none": "Još nema rejtinga",
           "band": "{rating}, vjerojatno između {low} i {high}", "par": "Norma",
           "win_rate": "Postotak pobjeda", "counted": "rezultata",
           "percentile": "izjednačeni s {percent} ustaljenih rejtinga ili ispred njih"},
    "sk": {"tab": "Ratingy", "column": "Rating", "yours": "váš rating", "draw": "Ťahanie 1",
           "provisional": "predbežný, ešte sa ustaľuje", "history": "Vývoj ratingu, Ťahanie 1",
           "line": "Rating", "none": "Zatiaľ bez ratingu",
           "band": "{rating}, pravdepodobne medzi {low} a {high}", "par": "Norma",
           "win_rate": "Úspešnosť", "counted": "výsledkov",
           "percentile": "na úrovni alebo pred {percent} ustálených ratingov"},
    "pl": {"tab": "Ratingi", "column": "Rating", "yours": "twój rating", "draw": "Dobierz 1",
           "provisional": "wstępny, jeszcze się ustala", "history": "Historia ratingu, Dobierz 1",
           "line": "Rating", "none": "Jeszcze bez ratingu",
           "band": "{rating}, prawdopodobnie między {low} a {high}", "par": "Norma",
           "win_rate": "Odsetek wygranych", "counted": "wyników",
           "percentile": "na równi lub przed {percent} ustalonych ratingów"},
}  # fmt: skip

MINUS = "\u2212"

# Each board: alpha wins it, then you, then beta; gamma loses it.
FIELD = [("alpha", True, 500), ("beta", True, 300), ("gamma", False, 0)]


@pytest.fixture(autouse=True)
def settle_by_five_boards(monkeypatch: Any) -> None:
    """Boards of four players say little: a rating settles (deviation at most
    rating.PROVISIONAL_SIGMA) after a score of them. Here after five; two stay provisional."""
    from games.daily import rating

    monkeypatch.setattr(rating, "PROVISIONAL_SIGMA", 225.0)


def figure(value: int) -> str:
    """A rating's figure as the page writes it: a real minus."""
    return str(value).replace("-", MINUS)


def band(words: dict[str, str], figures: dict[str, Any]) -> str:
    """ "1620, likely between 1540 and 1700": a rating in words, in the page's language."""
    return words["band"].format(
        rating=figure(figures["rating"]), low=figure(figures["low"]), high=figure(figures["high"])
    )


def rating_cell(page: Any, selector: str, figures: dict[str, Any]) -> None:
    """A rating board's cell: the rating, its band under it ("1540-1700", an en dash), and
    the band in words for a screen reader and in its title."""
    cell = page.locator(selector)
    assert cell.locator('span[aria-hidden="true"]').first.text_content() == str(figures["rating"])
    shown = f"{figure(figures['low'])}\u2013{figure(figures['high'])}"
    assert cell.locator(".band").text_content() == shown
    assert cell.locator(".sr-only").text_content() == band(page.words, figures)
    assert cell.get_attribute("title") == band(page.words, figures)


def change(figures: dict[str, Any]) -> str:
    """ "1623 (+23)", "1600 (\u22129)": a real minus."""
    delta = figures["change"]
    sign = "+" if delta > 0 else MINUS if delta < 0 else ""
    return f"{figures['rating']} ({sign}{abs(delta)})"


def text(page: Any, selector: str) -> str:
    return str(page.text_content(selector)).strip()


@pytest.fixture(params=LANGUAGES)
def lang_page(request: Any, browser: Any, base_url: str) -> Iterator[Any]:
    """A page whose browser asks for the language (Accept-Language); `page.words` its words."""
    with watched_page(browser, base_url, locale=request.param) as page:
        page.words = WORDS[request.param]
        page.lang = request.param
        yield page


def boards_with(name: str, count: int = 5, joins: int = 0) -> list[Any]:
    """`count` final, rated boards of the field, with `name` second from board `joins` on."""
    return play_rated_boards([
        [FIELD[0], *([(name, True, 400)] if k >= joins else []), *FIELD[1:]] for k in range(count)
    ])  # fmt: skip


def test_the_rating_board_pages_and_finds_your_row(lang_page: Any) -> None:
    from accounts.models import User
    from games.daily.services import ratings
    from games.models import Rating

    page, words = lang_page, lang_page.words
    name = sign_up(page)
    days = boards_with(name)
    # Forty-five established players above everyone: your row is on page 3 of 3.
    for i in range(45):
        user = User.objects.create_user(username=f"ace{i}", password="x-long-password")
        Rating.objects.create(
            user=user, draw=1, mu=3000 - i, sigma=80, boards=9, last_board=days[-1]
        )
    ratings._positions_number(1, day=days[-1])
    api = page.request.get("/api/v1/leaderboards/ratings/1?around=me").json()
    me = api["me"]
    assert (me["count"], me["provisional"], api["pages"]) == (49, False, 3)

    page.goto("/leaderboards?board=ratings")
    page.wait_for_selector("[data-rows] tr")
    assert page.get_attribute("html", "lang") == page.lang
    assert text(page, ".tabs [aria-current]") == words["tab"]
    assert words["column"] in text(page, "[data-table] thead")
    assert page.locator("[data-rows] tr").count() == 20
    first = page.request.get("/api/v1/leaderboards/ratings/1").json()["entries"][0]
    rating_cell(page, "[data-rows] tr:first-child td:nth-child(3)", first)
    summary = text(page, "[data-summary]")
    assert f"{words['yours']} {band(words, me)}" in summary and str(me["rank"]) in summary
    assert page.locator("[data-rows] tr.me").count() == 0

    page.click("[data-next]")
    wait_until(page, "new URLSearchParams(location.search).get('page') === '2'")
    page.wait_for_selector("[data-rows] tr:first-child >> text=21")
    page.click("[data-around]")
    page.wait_for_selector(f'[data-rows] tr.me[data-user="{name}"][aria-current="true"]')
    assert "page=3" in page.url and "board=ratings" in page.url and page.is_disabled("[data-next]")
    rating_cell(page, "tr.me td:nth-child(3)", me)
    assert text(page, "tr.me td:nth-child(1)") == str(me["rank"])


def test_a_provisional_rating_says_so(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    boards_with(name, joins=3)  # the last two boards
    me = page.request.get("/api/v1/leaderboards/ratings/1").json()["me"]
    assert (me["boards"], me["provisional"], me["rank"]) == (2, True, None)

    page.goto("/leaderboards?board=ratings")
    page.wait_for_selector("[data-rows] tr")
    summary = text(page, "[data-summary]")
    assert f"{words['yours']} {band(words, me)}" in summary and words["provisional"] in summary
    assert page.is_hidden("[data-around]")  # no row of yours to find yet
    assert page.locator(f'[data-rows] tr[data-user="{name}"]').count() == 0

    page.goto(f"/u/{name}")
    caption = page.locator('[data-ratings] figure[data-draw="1"] figcaption')
    caption.wait_for()
    # No percentile while provisional: it is among the established ratings.
    assert caption.text_content() == f"{words['draw']} {band(words, me)} · {words['provisional']}"


def test_a_final_board_shows_the_rating_changes_and_an_open_one_none(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    last = boards_with(name)[-1]
    board = page.request.get(f"/api/v1/leaderboards/daily/{last}/D1N").json()
    changes = {e["user"]: e["rating"] for e in board["entries"]}
    assert changes["alpha"]["change"] > 0 > changes["gamma"]["change"]

    page.goto(f"/leaderboards?date={last}&mode=D1N")
    page.wait_for_selector("[data-rows] tr .rating-change")
    for user, figures in changes.items():
        shown = text(page, f'tr[data-user="{user}"] .rating-change')
        assert shown == f"{words['column']} {change(figures)}", (
            user
        )  # its first word read aloud only
    assert MINUS in text(page, 'tr[data-user="gamma"] .rating-change')
    assert f"{words['yours']} {change(board['me']['rating'])}" in text(page, "[data-summary]")

    # Today's board is open: nothing about ratings, on the board or on the daily page.
    today = resign_todays_ranked_attempt(page)
    page.goto(f"/leaderboards?date={today}&mode=D1N")
    page.wait_for_selector(f'tr[data-user="{name}"]')
    assert page.locator(".rating-change").count() == 0
    assert words["yours"] not in text(page, "[data-summary]")
    page.goto("/daily")
    page.wait_for_selector('[data-mode="D1N"] [data-my-status]')
    assert page.locator("[data-my-rating]").count() == 0

    # The daily page shows a final board's day as it does today's: with the rating line.
    # (Today's board is never final; the day's answer is the final day's, from the server.)
    page.route(
        re.compile(r"/api/v1/daily$"),
        lambda route: route.fulfill(response=route.fetch(url=route.request.url + f"/{last}")),
    )
    mine = next(
        c["my_game"]
        for c in page.request.get(f"/api/v1/daily/{last}").json()["challenges"]
        if c["mode"] == "D1N"
    )
    page.goto("/daily")
    page.wait_for_selector('[data-mode="D1N"] [data-my-rating]')
    assert (
        text(page, '[data-mode="D1N"] [data-my-rating]')
        == f"{words['line']} {change(mine['rating'])}"
    )


def test_the_profile_shows_each_rating_and_charts_its_history(lang_page: Any) -> None:
    from accounts.models import User

    page, words = lang_page, lang_page.words
    name = sign_up(page)
    days = boards_with(name)
    mine = page.request.get(f"/api/v1/users/{name}").json()["ratings"][0]
    points = page.request.get(f"/api/v1/users/{name}/ratings/1").json()["points"]
    assert len(points) == len(days) and mine["rank"] == 2

    # The history's answer is held back: the chart's box is there before it, and stays.
    held: list[Any] = []
    page.route(re.compile(r"/api/v1/users/[^/]+/ratings/1$"), lambda route: held.append(route))
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"/u/{name}")
    figure = '[data-ratings] figure[data-draw="1"]'
    page.wait_for_selector(f"{figure} svg")
    while not held:  # the request reached the route (Playwright handles it while it waits)
        page.wait_for_timeout(50)
    # What follows the chart: the table by mode (your games' table comes later, below it).
    after = (f"{figure} svg", "[data-modes-section]")
    page.wait_for_selector("[data-modes-section]:not([hidden])")
    boxes = [page.locator(s).bounding_box() for s in after]
    assert page.locator(f"{figure} svg polyline").count() == 0 and len(held) == 1
    held[0].continue_()
    page.wait_for_selector(f"{figure} svg polyline")
    assert [page.locator(s).bounding_box() for s in after] == boxes
    caption = page.locator(f"{figure} figcaption").text_content()
    assert caption.startswith(f"{words['draw']} {band(words, mine)} · ")
    # Its percentile among the draw's established ratings: 2nd of 4, level with or ahead of 75%.
    assert mine["percentile"] == 75.0
    before, after = words["percentile"].split("{percent}")
    share = text(page, f"{figure} figcaption [data-percentile]")
    assert before in share and after in share and "75" in share
    link = page.locator(f"{figure} figcaption a")
    assert link.get_attribute("href") == "/leaderboards?board=ratings&draw=1&page=1"
    assert "2" in link.text_content()

    chart = page.locator(f"{figure} svg")
    assert chart.get_attribute("role") == "img"
    label = chart.get_attribute("aria-label")
    assert label.startswith(f"{words['history']}: ") and str(points[-1]["rating"]) in label
    drawn = page.locator(f"{figure} svg polyline").get_attribute("points").split()
    assert len(drawn) == len(points) and page.locator(f"{figure} svg .chart-band").count() == 1
    # The chart rises with the rating: the highest point is drawn highest.
    ys = [float(p.split(",")[1]) for p in drawn]
    best = max(range(len(points)), key=lambda i: points[i]["rating"])
    assert ys[best] == min(ys)
    box = chart.bounding_box()  # fits the phone
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["height"] == 96

    User.objects.create_user(username="loner", password="x-long-password")
    page.goto("/u/loner")
    page.wait_for_selector("[data-ratings-section]:not([hidden])")
    assert text(page, "[data-no-ratings]").startswith(words["none"])
    assert (
        page.is_hidden("[data-ratings-head]") and page.locator("[data-ratings] figure").count() == 0
    )


def test_a_final_board_and_the_calendar_say_how_hard_the_board_was(lang_page: Any) -> None:
    """Par, and the win rate among the entries that counted: on the final board, and on the
    calendar's day; nothing of it on an open board."""
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    last = boards_with(name)[-1]
    difficulty = page.request.get(f"/api/v1/leaderboards/daily/{last}/D1N").json()["difficulty"]
    assert (difficulty["entries"], difficulty["wins"], difficulty["win_rate"]) == (4, 3, 75.0)

    page.goto(f"/leaderboards?date={last}&mode=D1N")
    page.wait_for_selector("[data-difficulty]:not([hidden])")
    line = text(page, "[data-difficulty]")
    assert line.startswith(f"{words['par']}: {difficulty['par']} "), line  # "104 moves"
    assert f" · {words['win_rate']}: " in line and "75" in line and words["counted"] in line

    page.goto(f"/daily/calendar?month={last:%Y-%m}")
    page.click(f'[data-date="{last}"]')
    facts = page.locator('[data-detail-list] [data-mode="D1N"] .facts')
    facts.wait_for()
    shown = str(facts.text_content())
    assert words["win_rate"] in shown and "75" in shown and words["counted"] in shown
    assert words["par"] in shown and str(difficulty["par"]) in shown

    today = resign_todays_ranked_attempt(page)
    page.goto(f"/leaderboards?date={today}&mode=D1N")
    page.wait_for_selector(f'tr[data-user="{name}"]')
    assert page.is_hidden("[data-difficulty]")
