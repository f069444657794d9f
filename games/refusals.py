"""An illegal move's API `message`, in the request's language, from the engine's refusal.

The engine stays free of Django and words its refusals in English for developers; the API's
422 says the same thing to a player, in the language LocaleMiddleware chose, from the
refusal's `reason` and `details` (docs/api.md, "Actions"), and gives the rules section it rests
on apart (`rule`), so that a page shows the sentence as it comes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

_GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_FOUNDATION_SUITS = "SHDC"  # f1..f4, the engine's suit order

Details = Mapping[str, str | int]


def card_label(card: str | int) -> str:
    """'5♦', '10♥': a card as players write it, from its notation ('5D', '10H')."""
    text = str(card)
    return text[:-1] + _GLYPHS.get(text[-1:], text[-1:])


def _suit(card: str | int) -> str:
    return _GLYPHS.get(str(card)[-1:], "")


def _empty(d: Details) -> str:
    pile = str(d.get("pile", ""))
    if pile.startswith("t"):
        return gettext("Column %(number)s is empty") % {"number": pile[1:]}
    if pile.startswith("f") and pile[1:] in ("1", "2", "3", "4"):
        suit = _GLYPHS[_FOUNDATION_SUITS[int(pile[1:]) - 1]]
        return gettext("The %(suit)s foundation is empty") % {"suit": suit}
    return gettext("The waste is empty")


def _not_a_target(d: Details) -> str:
    if d.get("pile") == "stock":
        return gettext("Cards can't be put on the stock: it takes back only the whole waste")
    return gettext("Cards can't be put on the waste: it takes only the stock's cards")


def _foundation_order(d: Details) -> str:
    if d.get("next"):
        return gettext(
            "%(card)s can't go on its foundation yet: a foundation builds up from the ace "
            "to the king, and %(next)s comes first"
        ) % {"card": card_label(d.get("card", "")), "next": card_label(d["next"])}
    return gettext("%(card)s is already on its foundation") % {
        "card": card_label(d.get("card", ""))
    }


def _no_pass_left(d: Details) -> str:
    passes = int(d.get("passes", 0))
    return ngettext(
        "No pass left: these rules allow %(passes)s pass through the stock",
        "No pass left: these rules allow %(passes)s passes through the stock",
        passes,
    ) % {"passes": passes}


def _undo_limit(d: Details) -> str:
    limit = int(d.get("limit", 0))
    return ngettext(
        "Undo reaches back at most %(limit)s action",
        "Undo reaches back at most %(limit)s actions",
        limit,
    ) % {"limit": limit}


def _cards(text: Promise) -> Callable[[Details], str]:
    """A sentence that names the refusal's cards (`card`, `onto`) as players write them."""

    def sentence(d: Details) -> str:
        names = {key: card_label(d[key]) for key in ("card", "onto") if key in d}
        names.setdefault("suit", _suit(d.get("card", "")))
        return str(text) % names

    return sentence


def _plain(text: Promise) -> Callable[[Details], str]:
    return lambda d: str(text)


# Each reason (games.engine.ILLEGAL_MOVE_REASONS): its sentence and the rules section it rests
# on (the numbering the engine's own messages cite), or None.
REFUSALS: dict[str, tuple[Callable[[Details], str], str | None]] = {
    "automatic": (_plain(_("Automatic moves are played by the game itself")), "9"),
    "column_build": (
        _cards(_("%(card)s can't go on %(onto)s: a column builds down in alternating colours")),
        "2.1",
    ),
    "count_mismatch": (_plain(_("Those cards are not one run")), None),
    "empty_column_king": (
        _cards(_("Only a king goes in an empty column, not %(card)s")),
        "2.3",
    ),
    "face_up_only": (_plain(_("Only face-up cards move")), "2.2"),
    "foundation_order": (_foundation_order, "2.5"),
    "foundation_suit": (
        _cards(_("%(card)s goes on the %(suit)s foundation: each foundation holds one suit")),
        "2.5",
    ),
    "game_over": (_plain(_("This game is over: no action applies any more")), "4"),
    "no_foundation_return": (
        _plain(_("These rules keep cards on their foundations")),
        "2.6",
    ),
    "no_pass_left": (_no_pass_left, "3"),
    "no_place": (
        _cards(_("%(card)s has nowhere to go: no foundation or column takes it")),
        "5",
    ),
    "not_a_target": (_not_a_target, "2"),
    "not_face_up": (_cards(_("%(card)s is not face up: a run starts at a face-up card")), "2.2"),
    "not_top": (_cards(_("%(card)s is not the top card of its pile")), None),
    "nothing_to_recycle": (_plain(_("The stock and the waste are both empty")), "3"),
    "nothing_to_undo": (_plain(_("Nothing to undo")), "6"),
    "one_at_a_time": (_plain(_("Cards go to or from a foundation one at a time")), "2.5"),
    "pile_empty": (_empty, None),
    "return_to_column": (
        _plain(_("A card taken back from a foundation goes onto a column")),
        "2.6",
    ),
    "same_pile": (_plain(_("A move needs two different piles")), None),
    "stock_draw_only": (_plain(_("Cards leave the stock only by drawing")), "3"),
    "stock_empty": (_plain(_("The stock is empty: turn the waste back over instead")), "3"),
    "stock_not_empty": (_plain(_("The stock still has cards: draw them first")), "3"),
    "undo_limit": (_undo_limit, "6"),
    "undo_reveal": (
        _plain(_("In a ranked game an undo can't hide a card you have already seen")),
        "6",
    ),
    "waste_top": (_plain(_("Only the top card of the waste plays")), "2.4"),
}


def refusal_message(reason: str, details: Details) -> str:
    """A refusal in the active language, in a player's words: "5♦ can't go on 8♥: a column
    builds down in alternating colours". A reason without a sentence (none the engine gives
    today) reads as a plain refusal."""
    sentence, _section = REFUSALS.get(reason, (_plain(_("That move isn't allowed")), None))
    return sentence(details)


def refusal_rule(reason: str) -> str | None:
    """The rules section a refusal rests on, as the engine's own messages cite it ("2.1"), or
    None: the 422's `rule`, kept out of the player's sentence."""
    return REFUSALS.get(reason, (None, None))[1]
