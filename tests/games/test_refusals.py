"""games/refusals.py: an illegal move's message, in the request's language, from the engine's
reason and details, naming the rule."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.engine import IllegalMoveError
from games.engine.errors import ILLEGAL_MOVE_REASONS
from games.refusals import REFUSALS, card_label, refusal_message

LANGUAGES = ["en", "hr", "sk", "pl"]
# Words of an English sentence that no translation keeps.
ENGLISH = re.compile(r"\b(the|can't|card|column|foundation|stock|waste|rules|only|goes)\b", re.I)
# Details of the kind each reason gives (games/engine/state.py).
DETAILS = {
    "column_build": {"card": "5D", "onto": "8H"},
    "empty_column_king": {"card": "QS"},
    "face_up_only": {"pile": "t4", "face_up": 1, "count": 3},
    "foundation_order": {"card": "3H", "onto": "f2", "next": "2H"},
    "foundation_suit": {"card": "AD", "onto": "f1"},
    "game_over": {"status": "won"},
    "no_pass_left": {"passes": 1},
    "no_place": {"card": "9C"},
    "not_a_target": {"pile": "stock"},
    "not_face_up": {"card": "7D", "pile": "t5"},
    "not_top": {"card": "2S", "pile": "f1"},
    "count_mismatch": {"card": "9D", "count": 2, "run": 1},
    "pile_empty": {"pile": "t3"},
    "undo_limit": {"limit": 100},
}


def _refusal(reason: str, **details: object) -> IllegalMoveError:
    return IllegalMoveError("the engine's English", reason, **details)  # type: ignore[arg-type]


def test_every_reason_has_a_sentence():
    assert set(REFUSALS) == ILLEGAL_MOVE_REASONS


def test_the_message_names_the_cards_as_players_write_them_and_the_rule():
    with translation.override("en"):
        message = refusal_message(_refusal("column_build", card="5D", onto="8H"))
    assert message == "5♦ can't go on 8♥: a column builds down in alternating colours (rules §2.1)"
    assert card_label("10C") == "10♣"


@pytest.mark.parametrize("lang", ["hr", "sk", "pl"])
@pytest.mark.parametrize("reason", sorted(ILLEGAL_MOVE_REASONS))
def test_every_refusal_is_translated(lang, reason):
    details = DETAILS.get(reason, {})
    with translation.override("en"):
        english = refusal_message(_refusal(reason, **details))
    with translation.override(lang):
        message = refusal_message(_refusal(reason, **details))
    assert message != english
    assert not ENGLISH.search(message), message
    if "(rules §" in english:
        section = english.rsplit("§", 1)[1]
        assert message.endswith(f"§{section}")
    named = [card_label(details[key]) for key in ("card", "onto", "next") if key in details]
    assert [card for card in named if card in message] == [c for c in named if c in english]


@pytest.mark.parametrize(
    ("lang", "forms"),
    [
        ("hr", {1: "1 prolaz", 2: "2 prolaza", 5: "5 prolaza"}),
        ("sk", {1: "1 prechod", 2: "2 prechody", 5: "5 prechodov"}),
        ("pl", {1: "1 przejście", 2: "2 przejścia", 5: "5 przejść"}),
        ("en", {1: "1 pass ", 2: "2 passes", 5: "5 passes"}),
    ],
)
def test_the_passes_left_are_counted_in_the_languages_plural(lang, forms):
    with translation.override(lang):
        for passes, words in forms.items():
            assert words in refusal_message(_refusal("no_pass_left", passes=passes))


def test_a_foundation_or_the_waste_empty():
    with translation.override("hr"):
        assert refusal_message(_refusal("pile_empty", pile="f3")) == "Temelj ♦ je prazan"
        assert refusal_message(_refusal("pile_empty", pile="waste")) == (
            "Hrpa odbačenih karata je prazna"
        )
