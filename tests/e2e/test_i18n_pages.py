"""The play and replay pages in Croatian, Slovak and Polish (issue 21): a guest plays a move
and an illegal one, opens the settings, resigns and watches the replay, and no English word
of the pages' own is left, in the text, the live announcements or the aria labels; the moves
take each language's plural forms, and Vegas dollars its currency format."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import screenshot, wait_until, watched_page

pytestmark = pytest.mark.e2e

# KL1-D1N-AAAAAAG: t1 AD, t2 [2H] JC, t3 [7C 3D] KD; the stock draws QH first (test_feel.py).
CODE = "KL1-D1N-AAAAAAG"
LANGUAGES = ["hr", "sk", "pl"]

# The pages' English words that a translation replaced: none may be left. The brand
# ("Klondike Daily"), card codes ("J♣", "KL1-…"), key names (Enter, Esc, Ctrl) and user names
# are no words of a language; "Vegas" and "Par" are the same in every language here, and
# "link" is Polish too.
ENGLISH = [
    "New game", "Undo", "Hint", "Resign", "Score", "Moves", "Time", "Pass", "Copy", "Settings",
    "Help", "keys", "Draw", "Normal", "Classic", "Relaxed", "easier", "harder", "points",
    "passes", "dollars", "optional", "continue", "Cancel", "Deal", "You won", "How to play",
    "Touch", "mouse", "Keyboard", "Tap", "Double tap", "Drag", "Space", "stock", "waste",
    "foundation", "column", "card", "cards", "board", "spades", "hearts", "diamonds", "clubs",
    "ace", "king", "queen", "jack", "face", "Larger", "Smart", "Winnable", "deals",
    "Left-handed", "Four-colour", "Done", "Kept", "device", "Close", "Replay", "Step", "Start",
    "Back", "Next", "End", "Speed", "Position", "Analysis", "Download", "winning",
    "Won", "moves", "undo", "undos", "Play", "Pause", "can't", "the", "and", "of", "with",
    "is", "Every change",
]  # fmt: skip
ENGLISH_WORD = re.compile(r"\b(?:" + "|".join(map(re.escape, ENGLISH)) + r")\b", re.IGNORECASE)

# What the page says in each language, from the catalogs (locale/*/LC_MESSAGES/djangojs.po).
MOVED_HOME = {  # the ace of diamonds tapped from column 1 to its foundation, announced
    "hr": "As karo na temelj karo",
    "sk": "Eso kára na základ kára",
    "pl": "As karo na stos karo",
}
REFUSED = {  # the jack of clubs dropped on the king of diamonds, refused: the server's words
    "hr": "J♣ ne može na K♦: stupac se slaže silazno, izmjenično crvena i crna",
    "sk": "J♣ nemôže ísť na K♦: stĺpec sa stavia zostupne so striedaním farieb",
    "pl": "J♣ nie może trafić na K♦: kolumnę układa się w dół, na przemian kolorami",
}
MOVES = {  # formatMoves(n) for 1, 2, 5, 21: Croatian and Polish look at the last digit
    "hr": ["1 potez", "2 poteza", "5 poteza", "21 potez"],
    "sk": ["1 ťah", "2 ťahy", "5 ťahov", "21 ťahov"],
    "pl": ["1 ruch", "2 ruchy", "5 ruchów", "21 ruchów"],
}
MOVE_WORD = {  # the same rules in Python, for the replay's count of moves
    "hr": lambda n: "potez" if n % 10 == 1 and n % 100 != 11 else "poteza",
    "sk": lambda n: "ťah" if n == 1 else "ťahy" if 2 <= n <= 4 else "ťahov",
    "pl": lambda n: (
        "ruch" if n == 1 else "ruchy" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "ruchów"
    ),
}
WORDS = {  # a word of each page's own, to show the page is in the language at all
    "hr": ("Nova partija", "Snimka", "Postavke"),
    "sk": ("Nová hra", "Záznam", "Nastavenia"),
    "pl": ("Nowa gra", "Zapis", "Ustawienia"),
}

# Every text of `selectors`: the text itself (a closed dialog's too) and what assistive
# technology reads; not the developer notation (docs/notation.md) of the analysis' winning
# line and the move list's titles, a format like the card codes.
COLLECT = """(selectors) => {
  const texts = [];
  for (const root of document.querySelectorAll(selectors)) {
    const copy = root.cloneNode(true);
    copy.querySelectorAll("[data-winning-line] .line").forEach((node) => node.remove());
    texts.push(copy.textContent);
    for (const node of [root, ...root.querySelectorAll("*")]) {
      for (const name of ["aria-label", "aria-roledescription", "title", "placeholder"]) {
        if (name === "title" && node.closest(".move-list")) continue;
        const value = node.getAttribute(name);
        if (value) texts.push(value);
      }
    }
  }
  return texts;
}"""


def english_left(page: Any, selectors: str) -> list[str]:
    """The English words left in the texts of `selectors`, each with its text."""
    texts = page.evaluate(COLLECT, selectors)
    return [
        f"{m.group(0)!r} in {' '.join(text[max(0, m.start() - 40) : m.end() + 40].split())!r}"
        for text in texts
        for m in ENGLISH_WORD.finditer(text)
    ]


@pytest.fixture
def quick_pool(settings: Any, transactional_db: None) -> None:
    """A proven-winnable draw-1 deal ready before the guest's page asks (as in test_guest.py)."""
    from games import pool

    settings.DEAL_POOL_SIZE = 1
    pool.deal_pool_fill(draw=1, preset="N", seconds=120)


def live_text(page: Any) -> str:
    wait_until(page, "document.querySelector('[data-live]').textContent !== ''")
    return str(page.text_content("[data-live]")).strip()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_play_and_replay_pages_speak_the_players_language(
    browser: Any, base_url: str, quick_pool: None, lang: str
) -> None:
    new_game, replay, settings = WORDS[lang]
    # Playwright's locale is the browser's language: its Accept-Language header.
    with watched_page(browser, base_url, locale=lang) as page:
        page.goto("/play")  # a newcomer plays at once, as a guest
        wait_until(page, "/^\\/play\\/\\d+$/.test(location.pathname)")
        page.wait_for_selector(".board .card.up")
        assert page.get_attribute("html", "lang") == lang

        # The new-game dialog, in the language, deals a known code.
        page.click("[data-new]")
        page.wait_for_selector("#new-game-dialog[open]")
        assert new_game in page.inner_text("#new-game-dialog")
        page.fill("#deal-code", CODE)
        page.click("[data-start]")
        wait_until(page, f"klondike.game() && klondike.game().code === '{CODE}'")
        page.wait_for_selector('.board [data-card="AD"]')

        # A move, announced in the language with the cards' own names.
        page.evaluate("klondike.act({action: 'tap', from: 't1'})")
        wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '1'")
        assert live_text(page).startswith(MOVED_HOME[lang])

        # An illegal move: the toast says why, in the language, with the card symbols.
        page.evaluate("klondike.act({action: 'move', from: 't2', to: 't3', count: 1})")
        page.wait_for_selector("[data-toast]:not([hidden])")
        assert page.inner_text("[data-toast] span").strip() == REFUSED[lang]

        page.click('.toolbar [data-open-dialog="settings-dialog"]')
        page.wait_for_selector("#settings-dialog[open]")
        assert settings in page.inner_text("#settings-dialog")
        assert english_left(page, "body") == []
        page.uncheck("#settings-dialog input[name=winnable]")  # the Vegas deal below: at once
        page.click("#settings-dialog [value=close]")
        page.wait_for_selector("#settings-dialog", state="hidden")
        page.wait_for_selector("[data-toast]", state="hidden")
        screenshot(page, f"play-{lang}")

        # The moves' plural forms, through the page's own catalog and formats.
        counted = page.evaluate(
            """async () => {
                const src = document.querySelector('script[src*="frontend/play"]').src;
                const i18n = await import(src.replace(/play[^/]*\\.js$/, "i18n.js"));
                return [1, 2, 5, 21].map(i18n.formatMoves);
            }"""
        )
        assert counted == MOVES[lang]

        # The replay of the game, resigned after a draw.
        page.evaluate("klondike.act({action: 'draw'})")
        wait_until(page, "document.querySelector('[data-moves]').textContent.trim() === '2'")
        page.evaluate("klondike.act({action: 'resign'})")
        wait_until(page, "klondike.game().status !== 'playing'")
        game_id = int(page.url.rsplit("/", 1)[1])
        page.goto(f"/replay/{game_id}")
        page.wait_for_selector("[data-player]:not([hidden])")
        assert replay in page.inner_text("[data-title]")
        result = page.inner_text("[data-result]")
        moves = page.request.get(f"/api/v1/games/{game_id}/replay").json()["result"]["moves"]
        assert f"{moves} {MOVE_WORD[lang](moves)} · " in result
        page.click("[data-forward]")
        wait_until(page, "location.hash === '#m=1'")
        assert MOVED_HOME[lang] in live_text(page)
        assert english_left(page, "body") == []

        # Vegas dollars in the language's format: "-52 $", not the API's "-$52".
        page.goto(f"/play/{game_id}")
        # The page has the game (its "game over" banner): nothing of its start is pending.
        page.wait_for_selector("[data-banner]:not([hidden])")
        page.click("[data-new]")
        page.wait_for_selector("#new-game-dialog[open]")
        page.check("#new-game-dialog input[name=preset][value=V]")
        page.click("[data-start]")
        wait_until(page, "klondike.game() && klondike.game().rules.preset === 'V'")
        assert re.fullmatch(r"[-\u2212]52\s\$", page.inner_text("[data-score]").strip())
