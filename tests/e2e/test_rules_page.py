"""The rules page in each language, chosen by the browser's Accept-Language (Playwright's
`locale`), with the page's JavaScript catalog and formats (frontend/i18n.js) in that language."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import watched_page

pytestmark = [pytest.mark.e2e]

PAGES = {
    "hr": ("Pravila igre Klondike", "herc ♥", ["1 potez", "2 poteza", "5 poteza", "21 potez"]),
    "sk": ("Pravidlá hry Klondike", "Piky ♠", ["1 ťah", "2 ťahy", "5 ťahov", "21 ťahov"]),
    "pl": ("Zasady pasjansa Klondike", "kiery ♥", ["1 ruch", "2 ruchy", "5 ruchów", "21 ruchów"]),
    "en": ("Klondike rules", "Spades ♠", ["1 move", "2 moves", "5 moves", "21 moves"]),
}

FORMATS = """async () => {
  const i18n = await import("/static/frontend/i18n.js");
  return {
    moves: [1, 2, 5, 21].map(i18n.formatMoves),
    dollars: [208, 0, -52].map(i18n.formatDollars),
    number: i18n.formatNumber(1234.5),
    language: i18n.language,
  };
}"""


@pytest.mark.parametrize("lang", list(PAGES))
def test_rules_page_speaks_the_browsers_language(browser, base_url, lang):
    heading, suit_words, moves = PAGES[lang]
    with watched_page(browser, base_url, locale=lang) as page:
        console_errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and console_errors.append(m.text))
        page.goto("/rules")
        assert page.get_attribute("html", "lang") == lang
        assert page.inner_text("h1") == heading
        assert suit_words in page.inner_text("main")
        formats = page.evaluate(FORMATS)
        assert formats["language"] == lang
        assert formats["moves"] == moves
        assert console_errors == []
    if lang == "en":
        assert formats["dollars"] == ["+$208", "$0", "-$52"]
        assert formats["number"] == "1,234.5"
    else:
        assert all("$" in text for text in formats["dollars"])
        assert formats["dollars"][0].startswith("+208")
        assert "1234,5" in formats["number"].replace("\u00a0", "").replace(" ", "").replace(".", "")
