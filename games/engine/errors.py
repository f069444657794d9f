"""The engine's exceptions: every one is a ``ValueError`` whose message names what is wrong."""

from __future__ import annotations

__all__ = [
    "ILLEGAL_MOVE_REASONS",
    "ActionDataError",
    "DealCodeError",
    "DealError",
    "IllegalMoveError",
    "NotationError",
    "ReplayError",
]


class NotationError(ValueError):
    """Text that does not follow one of the engine's notations (cards, actions, codes)."""


class DealCodeError(NotationError):
    """A malformed deal code such as ``KL1-D2N-AAAAAAA``."""


class ActionDataError(NotationError):
    """A malformed API action body (wrong type, unknown action or pile, bad count)."""


class DealError(ValueError):
    """A layout that is not a Klondike deal (52 distinct cards, columns of 1..7, 24 in stock)."""


ILLEGAL_MOVE_REASONS = frozenset(
    {
        "automatic",
        "column_build",
        "count_mismatch",
        "empty_column_king",
        "face_up_only",
        "foundation_order",
        "foundation_suit",
        "game_over",
        "no_foundation_return",
        "no_pass_left",
        "no_place",
        "not_a_target",
        "not_face_up",
        "not_top",
        "nothing_to_recycle",
        "nothing_to_undo",
        "one_at_a_time",
        "pile_empty",
        "return_to_column",
        "same_pile",
        "stock_draw_only",
        "stock_empty",
        "stock_not_empty",
        "undo_limit",
        "undo_reveal",
        "waste_top",
    }
)
"""Every ``reason`` the rules give for refusing an action (docs/api.md names each)."""


class IllegalMoveError(ValueError):
    """An action the rules forbid in the current position; the message names the rule.

    ``reason`` says which rule, in a word a client can key on (``column_build``,
    ``empty_column_king``...; docs/api.md lists them), and ``details`` the cards and piles it
    names, as notation strings and numbers, so a client can write its own sentence in its own
    language. Neither ever names a face-down card or where one lies.

    >>> e = IllegalMoveError("5D does not fit on 8H", "column_build", card="5D", onto="8H")
    >>> e.reason, e.details
    ('column_build', {'card': '5D', 'onto': '8H'})
    """

    def __init__(self, message: str, reason: str = "illegal", **details: str | int) -> None:
        super().__init__(message)
        self.reason = reason
        self.details = details


class ReplayError(IllegalMoveError):
    """An action of a replayed log that the rules refuse; ``index`` is its place in the log,
    ``message`` the refusal without it, ``reason`` and ``details`` the refusal's own."""

    def __init__(
        self, index: int, message: str, reason: str = "replay", **details: str | int
    ) -> None:
        super().__init__(f"action {index}: {message}", reason, **details)
        self.index = index
        self.message = message
