"""Action values. Plain actions (``Move`` with concrete piles, ``Draw``, ``Recycle``) are what
the log records; ``Tap``, ``DoubleTap`` and a ``Move`` to ``"f"`` or naming a ``card`` are
request forms that :meth:`GameState.apply` resolves to a plain ``Move`` first.

Piles are strings: ``stock``, ``waste``, ``f1``..``f4`` (♠ ♥ ♦ ♣), ``t1``..``t7``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from .cards import Card

__all__ = [
    "COLUMNS",
    "DRAW",
    "FOUNDATIONS",
    "PILES",
    "PILE_INDEX",
    "RECYCLE",
    "RESIGN",
    "UNDO",
    "Action",
    "Auto",
    "DoubleTap",
    "Draw",
    "Move",
    "PlainAction",
    "Recycle",
    "Resign",
    "Tap",
    "Undo",
]

FOUNDATIONS: Final = ("f1", "f2", "f3", "f4")
COLUMNS: Final = ("t1", "t2", "t3", "t4", "t5", "t6", "t7")
PILES: Final = ("stock", "waste", *FOUNDATIONS, *COLUMNS)
"""Every pile name; a pile's position here is its internal index (stock 0, waste 1, f1 2, t1 6)."""
PILE_INDEX: Final[dict[str, int]] = {p: i for i, p in enumerate(PILES)}

MAX_RUN: Final = 13
"""The longest run that can exist (K down to A)."""


@dataclass(frozen=True, slots=True)
class Move:
    """Move ``count`` cards from ``src`` to ``dst``.

    ``dst="f"`` means the foundation of the card's suit; ``card`` names the run's first card
    instead of ``count``. Both are request forms; the log holds only plain moves.

    >>> Move("t3", "t5", 2)
    Move(src='t3', dst='t5', count=2, card=None)
    """

    src: str
    dst: str
    count: int = 1
    card: Card | None = None

    def __post_init__(self) -> None:
        if self.src not in PILE_INDEX:
            raise ValueError(f"unknown pile {self.src!r}: use stock, waste, f1..f4 or t1..t7")
        if self.dst != "f" and self.dst not in PILE_INDEX:
            raise ValueError(f"unknown pile {self.dst!r}: use waste, f, f1..f4 or t1..t7")
        if type(self.count) is not int or not 1 <= self.count <= MAX_RUN:
            raise ValueError(f"count must be an int 1..{MAX_RUN}, not {self.count!r}")
        if self.card is not None and not isinstance(self.card, Card):
            raise ValueError(f"card must be a Card, not {self.card!r}")

    @property
    def is_plain(self) -> bool:
        """True when the move names concrete piles and a count (the form the log holds)."""
        return self.card is None and self.dst != "f"


@dataclass(frozen=True, slots=True)
class Draw:
    """Turn 1 or 3 cards from the stock onto the waste."""


@dataclass(frozen=True, slots=True)
class Recycle:
    """Turn the whole waste back into the stock (only when the stock is empty)."""


@dataclass(frozen=True, slots=True)
class Undo:
    """Revert the last action (up to 100 back); counts as a move."""


@dataclass(frozen=True, slots=True)
class Resign:
    """End the game; not a move."""


@dataclass(frozen=True, slots=True)
class Tap:
    """Send the top card of ``src`` (waste or a column) to its foundation (rules §5)."""

    src: str

    def __post_init__(self) -> None:
        if self.src != "waste" and self.src not in COLUMNS:
            raise ValueError(f"tap works on the waste or a column t1..t7, not {self.src!r}")


@dataclass(frozen=True, slots=True)
class DoubleTap:
    """Quick placement of the top card of ``src``, or of the run starting at ``card``."""

    src: str
    card: Card | None = None

    def __post_init__(self) -> None:
        if self.src != "waste" and self.src not in COLUMNS:
            raise ValueError(f"double tap works on the waste or a column t1..t7, not {self.src!r}")
        if self.card is not None and not isinstance(self.card, Card):
            raise ValueError(f"card must be a Card, not {self.card!r}")


PlainAction: TypeAlias = Move | Draw | Recycle


@dataclass(frozen=True, slots=True)
class Auto:
    """A plain action the game played by itself (preset R auto-finish); logged, not counted."""

    action: PlainAction

    def __post_init__(self) -> None:
        if not isinstance(self.action, Move | Draw | Recycle) or (
            isinstance(self.action, Move) and not self.action.is_plain
        ):
            raise ValueError(
                f"an automatic action is a plain move, draw or recycle: {self.action!r}"
            )


Action: TypeAlias = Move | Draw | Recycle | Undo | Resign | Tap | DoubleTap | Auto

DRAW: Final = Draw()
RECYCLE: Final = Recycle()
UNDO: Final = Undo()
RESIGN: Final = Resign()
