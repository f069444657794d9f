"""games/refusals.py: an illegal move's message, in the request's language, from the engine's
reason and details, and the rules section it rests on."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.engine import GameState, IllegalMoveError, Move
from games.engine.errors import ILLEGAL_MOVE_REASONS
from games.refusals import REFUSALS, card_label, refusal_message, refusal_rule

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


def _message(reason: str, **details: str | int) -> str:
    return refusal_message(reason, details)


def test_every_reason_has_a_sentence():
    assert set(REFUSALS) == ILLEGAL_MOVE_REASONS


def test_the_message_names_the_cards_as_players_write_them_and_the_rule_apart():
    with translation.override("en"):
        message = _message("column_build", card="5D", onto="8H")
    assert message == "5♦ can't go on 8♥: a column builds down in alternating colours"
    assert refusal_rule("column_build") == "2.1"
    assert card_label("10C") == "10♣"


@pytest.mark.parametrize("reason", sorted(ILLEGAL_MOVE_REASONS))
def test_the_rule_is_the_section_the_engine_cites(reason):
    section = refusal_rule(reason)
    assert section is None or re.fullmatch(r"\d+(\.\d+)?", section)


def test_the_engine_cites_the_same_section():
    with pytest.raises(IllegalMoveError) as refused:
        GameState.from_code("KL1-D1N-AAAAAAG").apply(Move("t6", "t5"))  # 3S onto 9D
    assert refused.value.reason == "column_build"
    assert f"(rules §{refusal_rule('column_build')})" in str(refused.value)


@pytest.mark.parametrize("lang", ["hr", "sk", "pl"])
@pytest.mark.parametrize("reason", sorted(ILLEGAL_MOVE_REASONS))
def test_every_refusal_is_translated(lang, reason):
    details = DETAILS.get(reason, {})
    with translation.override("en"):
        english = _message(reason, **details)
    with translation.override(lang):
        message = _message(reason, **details)
    assert message != english
    assert not ENGLISH.search(message), message
    assert "§" not in message
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
            assert words in _message("no_pass_left", passes=passes)


def test_a_foundation_or_the_waste_empty():
    with translation.override("hr"):
        assert _message("pile_empty", pile="f3") == "Temelj ♦ je prazan"
        assert _message("pile_empty", pile="waste") == ("Hrpa odbačenih karata je prazna")
