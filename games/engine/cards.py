"""Cards and suits.

Compact encoding used inside the engine: a card is the int ``suit * 13 + rank - 1``
(0..51), with suits in foundation order S=0, H=1, D=2, C=3. So ``AS`` = 0, ``KS`` = 12,
``AH`` = 13, ``10H`` = 22, ``KC`` = 51. ``Card.index`` / ``Card.from_index`` convert.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

from .errors import NotationError

__all__ = ["CARDS", "CARD_NAMES", "Card", "Suit", "card_index"]


class Suit(enum.IntEnum):
    """A suit; the int value is its fixed foundation place (f1..f4 = ♠ ♥ ♦ ♣)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """The API letter: ``S``, ``H``, ``D`` or ``C``."""
        return "SHDC"[self.value]

    @property
    def symbol(self) -> str:
        """The card symbol: ♠ ♥ ♦ ♣."""
        return "♠♥♦♣"[self.value]

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self.value in (1, 2)

    @property
    def color(self) -> str:
        """``"red"`` or ``"black"``."""
        return "red" if self.is_red else "black"

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit letter, e.g. ``Suit.parse("h") is Suit.HEARTS``.

        :raises NotationError: not one of S, H, D, C.
        """
        i = "SHDC".find(text.strip().upper()) if len(text.strip()) == 1 else -1
        if i < 0:
            raise NotationError(f"unknown suit {text!r}: use S, H, D or C")
        return cls(i)


_RANK_NAMES: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_INPUT: Final = {name: r for r, name in enumerate(_RANK_NAMES) if name} | {"T": 10}


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card: rank 1 (ace) .. 13 (king) and a suit; ``index`` is its compact int
    ``suit * 13 + rank - 1``.

    >>> Card.parse("th")
    Card.parse('10H')
    >>> str(Card(1, Suit.SPADES))
    'AS'
    """

    rank: int
    suit: Suit
    # The compact encoding, computed once: building a game reads it for all 52 cards.
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if type(self.rank) is not int or not 1 <= self.rank <= 13:
            raise ValueError(f"card rank must be an int 1..13, not {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise ValueError(f"card suit must be a Suit, not {self.suit!r}")
        object.__setattr__(self, "index", int(self.suit) * 13 + self.rank - 1)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"AS"``, ``"10H"``, ``"TH"`` or ``"qd"`` (T means 10; any case).

        >>> Card.parse("10h") == Card.parse("TH")
        True

        :raises NotationError: not a card name.
        """
        if not isinstance(text, str):
            raise NotationError(f"a card is a string like 'AS' or '10H', not {text!r}")
        s = text.strip().upper()
        if len(s) < 2:
            raise NotationError(f"not a card: {text!r} (write rank then suit, e.g. 'AS', '10H')")
        rank = _RANK_INPUT.get(s[:-1])
        if rank is None:
            raise NotationError(f"not a card: {text!r} (rank must be A, 2..10, T, J, Q or K)")
        suit = "SHDC".find(s[-1])
        if suit < 0:
            raise NotationError(f"not a card: {text!r} (suit must be S, H, D or C)")
        return CARDS[suit * 13 + rank - 1]

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card of a compact index 0..51, e.g. ``Card.from_index(0)`` is ``AS``.

        :raises IndexError: outside 0..51.
        """
        if not 0 <= index < 52:
            raise IndexError(f"card index must be 0..51, not {index}")
        return CARDS[index]

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self.suit.is_red

    def __str__(self) -> str:
        return _RANK_NAMES[self.rank] + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.parse('{self}')"


CARDS: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in Suit for r in range(1, 14))
"""All 52 cards indexed by their compact encoding."""

CARD_NAMES: Final[tuple[str, ...]] = tuple(str(c) for c in CARDS)
"""The API name of each compact card index."""

_NAME_INDEX: Final = {name: i for i, name in enumerate(CARD_NAMES)}


def card_index(card: Card | str) -> int:
    """The compact index of a card or card name, e.g. ``card_index("10H") == 22``.

    :raises NotationError: a string that is not a card name.
    """
    if isinstance(card, Card):
        return card.index
    i = _NAME_INDEX.get(card) if isinstance(card, str) else None
    return Card.parse(card).index if i is None else i
