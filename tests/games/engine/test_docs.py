"""Docstring examples and the examples in docs/ stay true."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import games.engine
from games.engine import Rules, format_score, parse_actions, replay

DOCS = Path(__file__).resolve().parents[3] / "docs"
MODULES = [
    "__init__",
    "actions",
    "cards",
    "codes",
    "deal",
    "errors",
    "jsonio",
    "notation",
    "replay",
    "rules",
    "state",
    "views",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(
        "games.engine" if name == "__init__" else f"games.engine.{name}"
    )
    result = doctest.testmod(module, extraglobs=vars(games.engine), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_notation_doc_example_replays() -> None:
    block = (DOCS / "notation.md").read_text().split("```")[1]
    r = replay("KL1-D1N-AAAAAAG", parse_actions(block))
    assert r.outcome.status == "resigned" and r.outcome.undos == 1


def test_deal_codes_doc_worked_example() -> None:
    text = (DOCS / "deal-codes.md").read_text()
    for line in (
        "t1: AD",
        "t7: 9H 3C QD 7S QS 4D AH",
        "stock (draw order): QH JH AS QC 2S 2C 3H 6D 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC",
    ):
        assert line in text


def test_format_score() -> None:
    assert format_score(Rules.from_preset(1, "N"), 35) == "35"
    assert format_score(Rules.from_preset(3, "V"), 208) == "+$208"
    assert format_score(Rules.from_preset(3, "V"), 0) == "$0"
    assert format_score(Rules.from_preset(3, "V"), -52) == "-$52"
    assert format_score(Rules.from_preset(1, "C"), None) == ""
