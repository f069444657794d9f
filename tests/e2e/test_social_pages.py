"""The pages of #40's calendar, following, sharing and badges, in English, Croatian, Slovak and
Polish: the month's calendar (each day's result as a sign and a word, the streaks, a final deal
practised; a visitor's without results), yesterday's result on the daily page, following a
player and the boards' following view, the private profile's setting, the Share button of a
finished ranked attempt (spoiler-free while the board is open) and the profile's badges. Every
figure shown is checked against the API's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tests.e2e.conftest import play_rated_boards, sign_up, start_ranked, watched_page

pytestmark = pytest.mark.e2e

LANGUAGES = ["en", "hr", "sk", "pl"]

# The page's words, from the catalogs (locale/*/LC_MESSAGES/djangojs.po and django.po).
WORDS = {
    "en": {"won": "won", "lost": "lost", "none": "not played", "streaks": "Your streaks:",
           "hint": "Sign in to see your results and streaks.", "practise": "Practise",
           "yesterday": "Yesterday", "rating": "Rating", "rank": "#{}", "follow": "Follow",
           "unfollow": "Unfollow", "followers": ["0 followers", "1 follower"],
           "among": "You and the players you follow", "share": "Share", "copied": "Copied",
           "no_badges": "No badges yet", "private": "Your profile is private.",
           "first_day": "Sunday"},
    "hr": {"won": "pobjeda", "lost": "poraz", "none": "nije igrano", "streaks": "Vaši nizovi:",
           "hint": "Prijavite se da biste vidjeli svoje rezultate i nizove.", "practise": "Vježbaj",
           "yesterday": "Jučer", "rating": "Rejting", "rank": "{}.", "follow": "Prati",
           "unfollow": "Prestani pratiti", "followers": ["0 pratitelja", "1 pratitelj"],
           "among": "Vi i igrači koje pratite", "share": "Podijeli", "copied": "Kopirano",
           "no_badges": "Još nema značaka", "private": "Vaš je profil privatan.",
           "first_day": "Ponedjeljak"},
    "sk": {"won": "výhra", "lost": "prehra", "none": "nehrané", "streaks": "Vaše série:",
           "hint": "Prihláste sa a uvidíte svoje výsledky a série.", "practise": "Precvičiť",
           "yesterday": "Včera", "rating": "Rating", "rank": "{}.", "follow": "Sledovať",
           "unfollow": "Prestať sledovať", "followers": ["0 sledujúcich", "1 sledujúci"],
           "among": "Vy a hráči, ktorých sledujete", "share": "Zdieľať", "copied": "Skopírované",
           "no_badges": "Zatiaľ bez odznakov", "private": "Váš profil je súkromný.",
           "first_day": "pondelok"},
    "pl": {"won": "wygrana", "lost": "przegrana", "none": "nie grano", "streaks": "Twoje serie:",
           "hint": "Zaloguj się, by zobaczyć swoje wyniki i serie.", "practise": "Przećwicz",
           "yesterday": "Wczoraj", "rating": "Rating", "rank": "{}.", "follow": "Obserwuj",
           "unfollow": "Przestań obserwować", "followers": ["0 obserwujących", "1 obserwujący"],
           "among": "Ty i gracze, których obserwujesz", "share": "Udostępnij",
           "copied": "Skopiowano",
           "no_badges": "Jeszcze bez odznak", "private": "Twój profil jest prywatny.",
           "first_day": "Poniedziałek"},
}  # fmt: skip

# What a share must never hold while the board is open: a card ("10H", "Q♠"), a suit, a code.
CARD = re.compile(r"\b(?:[A2-9TJQK]|10)[SHDC]\b|[♠♥♦♣]|KL\d-")


def text(page: Any, selector: str) -> str:
    return str(page.text_content(selector)).strip()


@pytest.fixture(params=LANGUAGES)
def lang_page(request: Any, browser: Any, base_url: str) -> Iterator[Any]:
    """A page whose browser asks for the language, allowed to use the clipboard."""
    with watched_page(
        browser, base_url, locale=request.param, permissions=["clipboard-read", "clipboard-write"]
    ) as page:
        page.words = WORDS[request.param]
        page.lang = request.param
        yield page


def field_with(name: str, results: list[bool]) -> list[Any]:
    """Boards 40 days ago on: alpha wins each, then `name` wins or loses, then beta wins."""
    return play_rated_boards([
        [("alpha", True, 500), (name, won, 400 if won else 0), ("beta", True, 300)]
        for won in results
    ])  # fmt: skip


def test_the_calendar_shows_each_days_result_and_practises_a_final_deal(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    days = field_with(name, [True, True, False])
    month = days[0].strftime("%Y-%m")
    calendar = page.request.get(f"/api/v1/daily/calendar?month={month}").json()
    challenges = {d["date"]: d["challenges"][0] for d in calendar["days"]}

    page.goto(f"/daily/calendar?month={month}")
    cell = f'[data-date="{days[0]}"]'
    page.wait_for_selector(f'{cell} .mark[data-mode="D1N"][data-result="won"]')
    assert page.get_attribute("html", "lang") == page.lang
    # The locale's week: Sunday first in English, Monday in the others.
    assert page.get_attribute("table.calendar th:first-child abbr", "title") == words["first_day"]
    assert text(page, f'{cell} .mark[data-mode="D1N"]') == "1✓"
    label = page.get_attribute(cell, "aria-label")
    mine = challenges[str(days[0])]["mine"]
    assert words["won"] in label and words["rank"].format(mine["rank"]) in label
    assert page.get_attribute(cell, "title") == label.split(": ", 1)[1].replace("; ", "\n")
    if str(days[2]) in challenges:  # the lost board, when it falls in the same month
        lost = f'[data-date="{days[2]}"]'
        assert text(page, f'{lost} .mark[data-mode="D1N"]') == "1✗"
        assert words["lost"] in page.get_attribute(lost, "aria-label")
    # A day without a board can't be picked.
    assert page.locator(".day:disabled").count() > 0
    streaks = text(page, "[data-streaks]")
    assert streaks.startswith(words["streaks"])
    # Previous and next as the API says (null: no link).
    for key in ("previous", "next"):
        link = page.locator(f"[data-{key[:4]}]")
        assert link.get_attribute("href") == (f"?month={calendar[key]}" if calendar[key] else None)

    # A day picked: its result, rank, rating change and par; then its deal practised.
    page.click(cell)
    assert page.get_attribute(cell, "aria-pressed") == "true"
    item = '[data-detail] .day-mode[data-mode="D1N"]'
    page.wait_for_selector(f'{item}[data-result="won"]')
    detail = text(page, item)
    assert words["won"] in detail and str(mine["rank"]) in detail
    assert str(mine["rating"]["rating"]) in detail
    assert page.locator(f'{item} a[href="/replay/{mine["game"]}"]').count() == 1
    code = challenges[str(days[0])]["code"]
    button = page.locator(f'{item} [data-practise="{code}"]')
    assert button.text_content() == words["practise"]
    button.click()
    page.wait_for_url(re.compile(r"/play/\d+$"))
    game = page.request.get(f"/api/v1/games/{page.url.rsplit('/', 1)[1]}").json()
    assert (game["code"], game["kind"]) == (code, "casual")


def test_a_visitor_sees_the_calendar_without_results_and_may_practise(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    days = play_rated_boards([[("alpha", True, 500), ("beta", False, 0)]])
    month = days[0].strftime("%Y-%m")
    page.goto(f"/daily/calendar?month={month}")
    cell = f'[data-date="{days[0]}"]'
    page.wait_for_selector(f"{cell}:not([disabled])")
    assert page.locator(".mark[data-result]:not([data-result=''])").count() == 0
    hint = page.locator("[data-streaks] a")
    assert hint.text_content() == words["hint"]
    assert hint.get_attribute("href").startswith("/signin?next=")
    page.click(cell)
    item = '[data-detail] .day-mode[data-mode="D1N"]'
    page.wait_for_selector(item)
    assert page.locator(f"{item} .result").count() == 0  # no result of a visitor's
    page.click(f"{item} [data-practise]")  # played as a guest, as /play does
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    # A month with no calendar says so, with the way back.
    page.goto("/daily/calendar?month=1999-01")
    page.wait_for_selector("[data-notice]:not([hidden]) a[href='/daily/calendar']")


def test_the_daily_page_shows_yesterdays_final_result(lang_page: Any) -> None:
    from django.utils import timezone

    page, words = lang_page, lang_page.words
    name = sign_up(page)
    yesterday = timezone.now().date() - timedelta(days=1)
    play_rated_boards([[("alpha", True, 500), (name, True, 400)]], first=yesterday)
    calendar = page.request.get(
        f"/api/v1/daily/calendar?month={yesterday.strftime('%Y-%m')}"
    ).json()
    day = next(d for d in calendar["days"] if d["date"] == str(yesterday))
    mine = next(c for c in day["challenges"] if c["mode"] == "D1N")["mine"]
    assert mine["rank"] == 2 and mine["rating"]

    page.goto("/rules")  # away from the daily page that signing up opened
    page.wait_for_load_state("networkidle")
    requests: list[str] = []
    page.on("request", lambda r: "/calendar" in r.url and requests.append(r.url))
    page.goto("/daily")
    line = '[data-yesterday] li[data-mode="D1N"]'
    page.wait_for_selector(f'{line}[data-result="won"]')
    assert text(page, "#yesterday-title").startswith(words["yesterday"])
    shown = text(page, line)
    assert words["won"] in shown and words["rank"].format(2) in shown
    assert f"{words['rating']} {mine['rating']['rating']}" in shown
    assert len(requests) == 1  # one request: the calendar of yesterday's month


def test_following_a_player_and_the_boards_following_view(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    days = field_with(name, [True] * 5)

    page.goto("/u/alpha")
    button = page.locator("[data-follow]")
    button.wait_for()
    assert text(page, "[data-follow-counts]").startswith(words["followers"][0])
    assert (
        button.text_content() == words["follow"] and button.get_attribute("aria-pressed") == "false"
    )
    button.click()
    page.wait_for_selector('[data-follow][aria-pressed="true"]')
    assert button.text_content() == words["unfollow"]
    assert text(page, "[data-follow-counts]").startswith(words["followers"][1])
    assert page.request.get("/api/v1/users/alpha").json()["followed"] is True
    page.goto(f"/u/{name}")  # one's own: no button
    page.wait_for_selector("[data-privacy]:not([hidden])")
    assert page.locator("[data-follow]").count() == 0

    # The daily board's following view: alpha and you, ranked among yourselves.
    page.goto(f"/leaderboards?date={days[-1]}&mode=D1N")
    page.wait_for_selector('[data-rows] tr[data-user="beta"]')
    page.click("[data-who-following]")
    page.wait_for_selector('[data-rows]:not(:has(tr[data-user="beta"])) tr.me')
    assert "following=1" in page.url
    assert page.get_attribute("[data-who-following]", "aria-pressed") == "true"
    assert text(page, "[data-summary]").startswith(words["among"])
    api = page.request.get(f"/api/v1/leaderboards/daily/{days[-1]}/D1N?following=1").json()
    for entry in api["entries"]:
        row = f'tr[data-user="{entry["user"]}"]'
        assert text(page, f"{row} td:first-child").startswith(str(entry["rank"]))
        shown = text(page, f"{row} [data-board-rank]")
        assert shown.endswith(words["rank"].format(entry["board_rank"]))
    assert [e["user"] for e in api["entries"]] == ["alpha", name]
    # The rating board's too, and back to everyone.
    page.goto("/leaderboards?board=ratings&following=1")
    page.wait_for_selector("[data-rows] tr.me [data-board-rank]")
    assert page.locator("[data-rows] tr").count() == 2
    page.click("[data-who-all]")
    page.wait_for_selector('[data-rows] tr[data-user="beta"]')
    assert "following" not in page.url


def test_the_private_profile_setting_and_a_visitors_follow(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    name = sign_up(page)
    page.goto(f"/u/{name}")
    box = page.locator("[data-private]")
    box.wait_for()
    assert not box.is_checked() and box.get_attribute("aria-describedby") == "private-note"
    box.check()
    page.wait_for_selector("[data-privacy-status]:not(:empty)")
    assert text(page, "[data-privacy-status]") == words["private"]
    assert page.request.get("/api/v1/me").json()["profile_private"] is True
    page.reload()
    page.wait_for_selector("[data-privacy]:not([hidden])")
    assert page.locator("[data-private]").is_checked()

    # A visitor's Follow goes to sign in, and comes back.
    page.context.clear_cookies()
    play_rated_boards([[("alpha", True, 500)]])
    page.goto("/u/alpha")
    page.click("[data-follow]")
    page.wait_for_url(re.compile(r"/signin\?next=%2Fu%2Falpha$"))


def _share_stub(page: Any) -> None:
    """A Web Share API that records what it was given (Chromium on Linux has none)."""
    page.add_init_script("navigator.share = async (data) => { window.sharedData = data; };")


def test_sharing_a_ranked_attempt_names_no_card_while_the_board_is_open(lang_page: Any) -> None:
    from django.utils import timezone

    from games.daily.services import deals
    from games.engine import DealCode

    page, words = lang_page, lang_page.words
    sign_up(page)
    game_id = start_ranked(page)
    page.evaluate("klondike.act({action: 'resign'})")
    share = f'[data-banner] [data-share="{game_id}"]'
    page.wait_for_selector(share)
    assert text(page, share) == words["share"]
    page.click(share)  # no Web Share here: the clipboard
    page.wait_for_selector("[data-toast]:not([hidden])")
    assert text(page, "[data-toast]").startswith(words["copied"])
    copied = page.evaluate("navigator.clipboard.readText()")
    answer = page.request.get(
        f"/api/v1/games/{game_id}/share", headers={"Accept-Language": page.lang}
    ).json()
    assert copied == answer["text"] and not answer["final"]
    daily = deals.daily_deal_get_or_create(day=timezone.now().date(), mode="D1N")
    code = str(DealCode(daily.draw, daily.preset, daily.deal.number))
    assert code not in copied and not CARD.search(copied), copied
    assert copied.rstrip().endswith(f"/share/{game_id}?lang={page.lang}")

    # The daily page's card of the finished attempt shares through the Web Share API.
    _share_stub(page)
    page.goto("/daily")
    page.click(f'[data-mode="D1N"] [data-share="{game_id}"]')
    page.wait_for_selector('[data-mode="D1N"] [data-share-status]:not(:empty)')
    shared = page.evaluate("window.sharedData")
    assert shared["url"] == answer["url"] and answer["text"].startswith(shared["text"])
    assert not CARD.search(shared["text"]) and code not in shared["text"]

    # The shared page: its row of symbols large.
    page.goto(f"/share/{game_id}")
    size = page.eval_on_selector(".share-row", "n => parseFloat(getComputedStyle(n).fontSize)")
    assert size >= 22


def test_the_win_dialog_of_a_ranked_attempt_offers_share(lang_page: Any) -> None:
    page, words = lang_page, lang_page.words
    sign_up(page)
    game_id = start_ranked(page)

    # The attempt ends (resigned on the server); the page is told it won, to show its dialog.
    def as_won(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        body["status"] = "won"
        route.fulfill(response=response, body=json.dumps(body))

    page.route(re.compile(r"/api/v1/games/\d+/actions$"), as_won)
    page.evaluate("klondike.act({action: 'resign'})")
    share = f'#win-dialog[open] [data-share="{game_id}"]'
    page.wait_for_selector(share)
    assert text(page, share) == words["share"]
    page.click(share)
    page.wait_for_selector("[data-win-status]:not(:empty)")
    assert text(page, "[data-win-status]").startswith(words["copied"])
    assert "/share/" in page.evaluate("navigator.clipboard.readText()")


def test_the_profile_lists_the_badges_and_says_when_there_are_none(lang_page: Any) -> None:
    from accounts.models import User

    page, words = lang_page, lang_page.words
    play_rated_boards([[("alpha", True, 500), ("beta", False, 0)]])
    badges = page.request.get("/api/v1/users/alpha", headers={"Accept-Language": page.lang}).json()[
        "badges"
    ]
    assert badges
    page.goto("/u/alpha")
    page.wait_for_selector("[data-badges] li")
    items = page.locator("[data-badges] li")
    assert items.count() == len(badges) and page.is_hidden("[data-no-badges]")
    for i, badge in enumerate(badges):
        item = items.nth(i)
        assert item.get_attribute("title") == badge["description"]
        assert item.locator("strong").text_content() == badge["name"]
        assert badge["description"] in item.locator(".sr-only").text_content()
    User.objects.create_user(username="loner", password="x-long-password")
    page.goto("/u/loner")
    page.wait_for_selector("[data-badges-section]:not([hidden])")
    assert text(page, "[data-no-badges]").startswith(words["no_badges"])
    assert items.count() == 0
