"""The rest of the site in Croatian, Slovak and Polish (issue 21): the landing page, the daily,
a leaderboard, a profile, sign-in, sign-up and the rules, with no English word of the pages'
own left in the text, the aria labels, titles, placeholders, the title and the description;
the language picker; a signed-in player's choice kept on the profile; the daily's close on the
player's own clock."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.conftest import (
    PASSWORD,
    screenshot,
    sign_up,
    start_ranked,
    wait_until,
    watched_page,
)

pytestmark = pytest.mark.e2e

LANGUAGES = ["hr", "sk", "pl"]
BRAND = "Klondike Daily"
PERCENT_ZERO = {"hr": "0\u00a0%", "sk": "0\u00a0%", "pl": "0%"}

# The English words these pages had, which a translation replaced: none may be left (whole
# words, any case). Not listed: the brand, user names, card and deal codes, "UTC", "API",
# "sha256", the names of the languages in the picker, and the scoring names "Normal" and
# "Vegas" and "Par", which the translations keep.
ENGLISH = [
    "Skip", "content", "Main", "Play", "Daily", "Leaderboards", "Leaderboard", "Profile",
    "Account", "Sign in", "Sign up", "Sign out", "Guest", "Language", "Rules", "Exact rules",
    "referee", "challenge", "challenges", "Today", "Everyone", "ranked", "attempt", "attempts",
    "Loading", "deal", "deals", "winnable", "Commitment", "Players", "Watch", "replay",
    "Continue", "Rank", "Player", "Result", "Score", "Moves", "Undos", "Time", "Previous",
    "Next", "Pages", "Page", "Find me", "Mode", "Day", "Won", "Not won", "final", "still open",
    "players", "you", "level", "ahead", "Nobody", "By mode", "Played", "Win rate", "Best",
    "Fewest", "Fastest", "streak", "Longest", "Your", "games", "Started", "Game", "Open",
    "Newer", "Older", "since", "Resigned", "progress", "Back", "start page", "Draw", "close",
    "closed", "new", "moves", "solitaire", "the", "and", "of", "is", "with", "for", "every",
]  # fmt: skip
ENGLISH_WORD = re.compile(r"\b(?:" + "|".join(map(re.escape, ENGLISH)) + r")\b", re.IGNORECASE)

# Every text a person meets on the page: what is shown, the title and description, and what
# assistive technology reads.
COLLECT = """() => {
  const texts = [document.body.innerText, document.title,
    document.querySelector('meta[name="description"]').content];
  for (const node of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = node.getAttribute(name);
      if (value) texts.push(value);
    }
  }
  return texts;
}"""


def english_left(page: Any, name: str) -> list[str]:
    """The English words left on the page, each with its context; `name` (a user's) and the
    brand are no words of a language."""
    found = []
    for text in page.evaluate(COLLECT):
        text = text.replace(BRAND, " ").replace(name, " ")
        for m in ENGLISH_WORD.finditer(text):
            around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            found.append(f"{m.group(0)!r} in {around!r}")
    return found


def ranked_attempt_resigned(page: Any) -> str:
    """The signed-in page starts today's draw-1 ranked attempt and resigns it; returns the day,
    ranked (in the scaled run, the test is the worker)."""
    start_ranked(page)
    page.click('[data-pile="stock"]')
    page.wait_for_selector('[data-pile="waste"] .card.up')
    page.click("[data-resign]")
    page.click("dialog[open] [data-confirm]")
    page.wait_for_selector("[data-banner]:not([hidden])")
    day = str(page.request.get("/api/v1/daily").json()["date"])
    from django.conf import settings

    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        from games.tasks import rank_daily

        rank_daily(day, "D1N")
    return day


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_site_speaks_the_players_language(browser: Any, base_url: str, lang: str) -> None:
    # Playwright's locale is the browser's language: its Accept-Language header.
    with watched_page(browser, base_url, locale=lang) as page:
        name = sign_up(page, f"igrac{lang}")
        day = ranked_attempt_resigned(page)
        pages = {
            "landing": ("/", "[data-cta] a[href='/daily']"),
            "daily": ("/daily", '[data-mode="D1N"] [data-my-status="resigned"]'),
            "leaderboard": (f"/leaderboards?date={day}&mode=D1N", f'tr.me[data-user="{name}"]'),
            "profile": (f"/u/{name}", "[data-history]:not([hidden]) [data-game]"),
            "rules": ("/rules", "main h1"),
            "signin": ("/signin", "[data-auth-form]"),
            "signup": ("/signup", "[data-auth-form]"),
        }
        for label, (path, ready) in pages.items():
            page.goto(path)
            page.wait_for_selector(ready)
            page.wait_for_selector("[data-account] .who")  # the account bar has been drawn
            assert page.get_attribute("html", "lang") == lang
            assert english_left(page, name) == [], label
            screenshot(page, f"site-{lang}-{label}")

        # The figures are the language's own: the profile's win rate, by Intl.
        page.goto(f"/u/{name}")
        page.wait_for_selector("[data-stats] dd")
        assert PERCENT_ZERO[lang] in page.inner_text("[data-stats]")


def test_the_picker_switches_the_language_and_comes_back_to_the_page(
    browser: Any, base_url: str
) -> None:
    with watched_page(browser, base_url, locale="en") as page:
        page.goto("/leaderboards?mode=D1N")
        assert page.get_attribute("html", "lang") == "en"
        assert page.inner_text("main h1") == "Daily leaderboards"
        page.select_option("header [data-language-select]", "sk")
        page.wait_for_selector("html[lang=sk]")
        assert page.inner_text("main h1") == "Denné rebríčky"
        assert re.search(r"/leaderboards\?", page.url)  # the same page, back again
        assert page.input_value("header [data-language-select]") == "sk"

        # The settings dialog's picker does the same.
        page.goto("/play")
        page.wait_for_selector(".board .card.up")
        page.keyboard.press("Escape")  # a newcomer's new-game dialog, if open
        page.wait_for_selector("#new-game-dialog", state="hidden")
        page.click('.toolbar [data-open-dialog="settings-dialog"]')
        page.select_option("#settings-dialog [data-language-select]", "pl")
        page.wait_for_selector("html[lang=pl]")
        assert "/play" in page.url


def test_a_players_choice_is_kept_on_the_profile(browser: Any, base_url: str) -> None:
    with watched_page(browser, base_url, locale="en") as page:
        name = sign_up(page, "Wanda")
        page.select_option("header [data-language-select]", "pl")
        page.wait_for_selector("html[lang=pl]")
        assert page.request.get("/api/v1/me").json()["language"] == "pl"
        page.click("[data-account] button")  # sign out
        page.wait_for_url(re.compile(r"/$"))
        # This device forgets the choice: only the profile knows it now.
        page.context.clear_cookies()
        page.goto("/signin")
        assert page.get_attribute("html", "lang") == "en"
        page.fill("#username", name)
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/daily$"))
        assert page.get_attribute("html", "lang") == "pl"
        page.wait_for_selector("[data-account] .who")
        assert page.inner_text("[data-account] button") == "Wyloguj się"


@pytest.mark.parametrize(("lang", "zone"), [("hr", "Asia/Kolkata"), ("pl", "America/New_York")])
def test_the_daily_closes_on_the_players_own_clock(
    browser: Any, base_url: str, lang: str, zone: str
) -> None:
    with watched_page(browser, base_url, locale=lang, timezone_id=zone) as page:
        page.goto("/daily")
        wait_until(page, "!document.querySelector('[data-challenges]').hasAttribute('aria-busy')")
        daily = page.request.get("/api/v1/daily").json()
        closes = datetime.fromisoformat(daily["closes_at"].replace("Z", "+00:00"))
        local = closes.astimezone(ZoneInfo(zone))
        line = page.inner_text("[data-day]")
        if daily["open"]:
            assert re.search(rf"\b0?{local.hour}:{local.minute:02d}\b", line), (line, local)
        else:
            assert "UTC" in line
