"""A hint's reason in the player's words, in the request's language, from the engine's code.

The engine says why a hint suggests its action with a stable code
(`engine.solver.hints.REASON_CODES`: what the action does to the position); the API sends the
code as the hint's `reason` and the phrase below as its `reason_message`, which a page shows
after the move: "Hint: 10♥ to column 3 — frees a face-down card".
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine.solver import hints

HINT_REASONS: dict[str, Promise] = {
    # Translators: each of these says why a hint suggests its move, shown after it ("Hint: 10♥
    # to column 3 — frees a face-down card"): short, in lower case where the language allows.
    hints.CARD_IN_STOCK: _("the stock holds a card you need"),
    hints.FREES_FACE_DOWN: _("frees a face-down card"),
    hints.EMPTIES_COLUMN: _("empties a column"),
    hints.KING_TO_EMPTY: _("puts a king in the empty column"),
    hints.BUILDS_FOUNDATION: _("builds a foundation"),
    hints.PLAYS_WASTE: _("plays the waste's card"),
    hints.FREES_CARD: _("frees the card under it"),
    hints.FROM_FOUNDATION: _("takes a card back from a foundation to build on it"),
    hints.WINNING_LINE: _("leads to a win"),
    hints.NOTHING_LEFT: _("nothing productive is left"),
}


def hint_reason_message(code: str) -> str:
    """The reason code of a hint as a short phrase in the active language ("frees a face-down
    card"); "" for a code without one (none the engine gives)."""
    message = HINT_REASONS.get(code)
    return "" if message is None else str(message)
