"""Unit tests of the page's pure modules (issue #38), run where the page runs: in Chromium,
each module imported by the page of the site it serves, in English and in Croatian (another
plural rule, another number format). Labels and formats (cards.js, i18n.js), the layout
fitting of long columns (fit.js) on a board built here, and the move handling (engine.js)
against the engine's own legal moves and positions."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine import (
    PILES,
    GameState,
    IllegalMoveError,
    action_from_dict,
    legal_view,
    public_view,
)
from tests.e2e.conftest import watched_page

pytestmark = pytest.mark.e2e


# Imports a module of the page's own (next to site.js, whatever its served name) and runs
# `body` with it as `m`: what `body` returns comes back to Python. (Built as the expression
# Playwright evaluates: the page's CSP allows no eval of its own.)
def _call(page: Any, module: str, body: str) -> Any:
    return page.evaluate(
        "async () => { const m = await import(new URL("
        f"{module!r}, document.querySelector('script[type=\"module\"]').src).href); {body} }}"
    )


@pytest.fixture(params=["en", "hr"])
def lang_page(request: Any, browser: Any, base_url: str) -> Any:
    with watched_page(browser, base_url, locale=request.param) as page:
        page.goto("/rules")
        yield request.param, page


LABELS = {
    "en": {
        "card": "10 of hearts",
        "ace": "ace of spades",
        "column": "column 5",
        "foundation": "the spades foundation",
        "to": "to column 5",
        "moves": ["1 move", "2 moves", "5 moves"],
    },
    "hr": {
        "card": "10 herc",
        "ace": "as pik",
        "column": "stupac 5",
        "foundation": "temelj pik",
        "to": "na stupac 5",
        "moves": ["1 potez", "2 poteza", "5 poteza"],
    },
}


def test_labels(lang_page):
    lang, page = lang_page
    cards = _call(
        page,
        "cards.js",
        'return {card: m.cardName("10H"), ace: m.cardName("AS"), column: m.pileName("t5"),'
        ' foundation: m.pileName("f1"), to: m.pileTarget("t5"),'
        ' values: ["AS", "10H", "KC"].map(m.rankValue), red: ["AS", "QH", "2D"].map(m.isRed)}',
    )
    moves = _call(page, "i18n.js", "return [1, 2, 5].map(m.formatMoves)")
    expected = LABELS[lang]
    assert {key: cards[key] for key in ("card", "ace", "column", "foundation", "to")} == {
        key: expected[key] for key in ("card", "ace", "column", "foundation", "to")
    }
    assert moves == expected["moves"]
    assert cards["values"] == [1, 10, 13]
    assert cards["red"] == [False, True, True]


FORMATS = {
    "en": {"number": "1,234", "dollars": ["+$208", "$0", "-$52"], "points": "1,234"},
    "hr": {"number": "1.234", "dollars": ["+208 $", "0 $", "-52 $"], "points": "1.234"},
}


def test_formats(lang_page):
    lang, page = lang_page
    got = _call(
        page,
        "i18n.js",
        "return {number: m.formatNumber(1234), dollars: [208, 0, -52].map(m.formatDollars),"
        ' points: m.formatScore(1234, "1234"), none: m.formatScore(null, ""),'
        " clock: [0, 5, 245, 3723].map(m.formatDuration)}",
    )
    assert got["number"] == FORMATS[lang]["number"]
    assert [d.replace("\u00a0", " ").replace("\u2212", "-") for d in got["dollars"]] == (
        FORMATS[lang]["dollars"]
    )
    assert got["points"] == FORMATS[lang]["points"]
    assert got["none"] == ""
    assert got["clock"] == ["0:00", "0:05", "4:05", "1:02:03"]


# A board of seven columns of the page's own cards, the first one long (six face-down cards
# under thirteen face-up ones), laid out by fit.js in a short window: the longest column must
# end on screen, every card still showing a strip.
FIT = """
  const site = document.querySelector('script[type="module"]').src;
  const { cardElement } = await import(new URL("cards.js", site).href);
  const board = document.createElement("div");
  board.className = "board";
  const tableau = document.createElement("div");
  tableau.className = "tableau";
  board.append(tableau);
  document.querySelector("main").replaceChildren(board);
  const runs = [["6D", "5S", "4H", "3C", "2D", "AS"], ["KS", "QH", "JC", "10D", "9S", "8H", "7C"]];
  const piles = [];
  for (let c = 0; c < 7; c++) {
    const pile = document.createElement("div");
    pile.className = "pile col";
    pile.dataset.pile = `t${c + 1}`;
    const cards = c === 0
      ? [...Array(6).fill(null), ...runs[1], ...runs[0]]
      : [...Array(c).fill(null), "KD"];
    pile.append(...cards.map(cardElement));
    tableau.append(pile);
    piles.push(pile);
  }
  const measured = m.measureBoard(board, piles[0]);
  const cw = m.fitColumns(board, piles, measured);
  await new Promise((done) => setTimeout(done, 600));  // the cards' own transitions
  const shown = [...piles[0].children];
  const last = shown[shown.length - 1].getBoundingClientRect();
  return {cw, height: document.documentElement.clientHeight, lastBottom: last.bottom,
          tops: shown.map((n) => n.getBoundingClientRect().top)};
"""


def test_a_long_column_fits_a_short_window(browser, base_url):
    with watched_page(browser, base_url) as page:
        page.set_viewport_size({"width": 480, "height": 560})
        page.goto("/rules")
        got = _call(page, "fit.js", FIT)
    assert got["lastBottom"] <= got["height"], got  # on screen, the page unscrolled
    assert got["cw"] < 60, got  # by smaller cards: the strips alone did not make it fit
    gaps = [b - a for a, b in zip(got["tops"], got["tops"][1:], strict=False)]
    assert all(gap > 0 for gap in gaps), gaps  # every card still shows a strip


def _cases(seed: int, positions: int) -> list[dict[str, Any]]:
    """Positions of random play with their `legal` list, and for each body the page may send
    from them (every listed move, a tap and a move to "f" where one goes home, a recycle, and
    an unlisted move) the public position the engine reaches, or None where it refuses."""
    rng = random.Random(seed)
    game = GameState.from_code(f"KL1-D{rng.choice('13')}N-AAAAAA{'ABCDEFG'[seed % 7]}")
    out: list[dict[str, Any]] = []
    while len(out) < positions and game.legal_moves():
        legal = legal_view(game)
        bodies: list[dict[str, Any]] = [{"action": "recycle"}]
        for src, targets in legal["moves"].items():
            for dst, count in targets.items():
                bodies.append({"action": "move", "from": src, "to": dst, "count": count})
                if dst[0] == "f":
                    bodies.append({"action": "tap", "from": src})
                    bodies.append({"action": "move", "from": src, "to": "f"})
        bodies += [
            {"action": "move", "from": src, "to": dst}
            for src in PILES[1:]
            for dst in PILES[2:]
            if src != dst and dst not in legal["moves"].get(src, {})
        ]
        cases = []
        for body in bodies:
            after = game.copy()
            try:
                after.apply(action_from_dict(body))
            except IllegalMoveError:
                cases.append([body, None])
            else:
                cases.append([body, public_view(after)])
        out.append({"state": public_view(game), "legal": legal, "cases": cases})
        game.apply(rng.choice(game.legal_moves()))
    return out


EXPECTED = """
  return POSITIONS.map(({state, legal, cases}) =>
    cases.map(([body]) => [m.legalTarget(legal, body), m.expected(state, legal, body)]));
"""


@pytest.mark.parametrize("seed", range(3))
def test_the_page_draws_ahead_exactly_what_the_engine_plays(browser, base_url, seed):
    """engine.js holds no rule: from the server's `legal` list it draws a move as the engine
    plays it (a card the move uncovers stays face down until the answer), and nothing the
    engine refuses."""
    positions = _cases(seed, positions=25)
    with watched_page(browser, base_url) as page:
        page.goto("/rules")
        got = _call(page, "engine.js", f"const POSITIONS = {json.dumps(positions)};{EXPECTED}")
    for position, answers in zip(positions, got, strict=True):
        for (body, played), (target, drawn) in zip(position["cases"], answers, strict=True):
            if played is None:
                assert (target, drawn) == (None, None), body
                continue
            assert drawn is not None and (target is None) == (body["action"] == "recycle"), body
            for key in ("stock", "waste", "foundations"):
                assert drawn[key] == played[key], (body, key)
            columns = zip(
                position["state"]["tableau"], played["tableau"], drawn["tableau"], strict=True
            )
            for before, column, shown in columns:
                assert len(shown) == len(column), body
                # Only a card the move turned up may differ: the page waits for the answer.
                turned = [i for i, (a, b) in enumerate(zip(shown, column, strict=True)) if a != b]
                assert all(shown[i] is None and before[i] is None for i in turned), body
