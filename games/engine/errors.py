"""The engine's exceptions: every one is a ``ValueError`` whose message names what is wrong."""

from __future__ import annotations

__all__ = [
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


class IllegalMoveError(ValueError):
    """An action the rules forbid in the current position; the message names the rule."""


class ReplayError(IllegalMoveError):
    """An action of a replayed log that the rules refuse; ``index`` is its place in the log."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"action {index}: {message}")
        self.index = index
        self.reason = message
