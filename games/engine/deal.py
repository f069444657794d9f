"""Deals: the full initial layout and the scheme-1 shuffle of a number (docs/deal-codes.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .cards import CARDS, Card, card_index
from .errors import DealError, NotationError

__all__ = ["Deal", "shuffled_deck", "splitmix64"]

_MASK = (1 << 64) - 1


def splitmix64(seed: int) -> Iterator[int]:
    """The SplitMix64 stream seeded with ``seed`` (Steele, Lea & Flood 2014).

    >>> hex(next(splitmix64(0)))
    '0xe220a8397b1dcdaf'
    """
    state = seed & _MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield z ^ (z >> 31)


def shuffled_deck(number: int) -> list[int]:
    """The deck of deal ``number`` as compact card indices, first card dealt first.

    Fisher-Yates from the end over the ordered deck AS..KS, AH..KH, AD..KD, AC..KC, each
    index drawn without bias by rejection sampling from the SplitMix64 stream.

    >>> shuffled_deck(0)[:3]
    [46, 36, 8]

    :raises ValueError: ``number`` outside 0 .. 2**64 - 1.
    """
    if type(number) is not int or not 0 <= number <= _MASK:
        raise ValueError(f"deal number must be an int 0 .. 2**64-1, not {number!r}")
    rng = splitmix64(number)
    deck = list(range(52))
    for i in range(51, 0, -1):
        k = i + 1
        # Values at or above the largest multiple of k are rejected so every j is equally likely.
        limit = (1 << 64) - (1 << 64) % k
        x = next(rng)
        while x >= limit:
            x = next(rng)
        j = x % k
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class Deal:
    """A full initial layout: 7 columns (bottom to top, the last card face up) and the
    24-card stock in draw order (``stock[0]`` is the first card turned).

    >>> len(Deal.from_number(6).columns[6])
    7
    """

    columns: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]

    def __post_init__(self) -> None:
        _validate(self.columns, self.stock)

    @classmethod
    def from_number(cls, number: int) -> Deal:
        """The scheme-1 deal of a deal number (docs/deal-codes.md).

        Cards are dealt row by row: the first 7 go to the bottoms of t1..t7, the next 6 onto
        t2..t7, …, the 28th is the top of t7; the remaining 24 form the stock in that order.

        :raises ValueError: ``number`` outside 0 .. 2**64 - 1.
        """
        return _from_number(number)

    def to_dict(self) -> dict[str, Any]:
        """The layout as card strings: ``{"tableau": [[...] x 7], "stock": [...]}``.

        >>> Deal.from_dict(Deal.from_number(1).to_dict()) == Deal.from_number(1)
        True
        """
        return {
            "tableau": [[str(c) for c in col] for col in self.columns],
            "stock": [str(c) for c in self.stock],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Deal:
        """Rebuild and validate a layout stored by :meth:`to_dict`.

        :raises DealError: wrong shape, unknown card names, duplicates, wrong sizes.
        """
        if not isinstance(data, dict):
            raise DealError("a deal is an object with 'tableau' and 'stock'")
        tab, stock = data.get("tableau"), data.get("stock")
        if not isinstance(tab, list) or not all(isinstance(c, list) for c in tab):
            raise DealError("deal 'tableau' must be a list of 7 lists of card names")
        if not isinstance(stock, list):
            raise DealError("deal 'stock' must be a list of card names")
        try:
            columns = tuple(tuple(_card(x) for x in col) for col in tab)
            cards = tuple(_card(x) for x in stock)
        except NotationError as e:
            raise DealError(f"deal holds a bad card: {e}") from None
        return cls(columns, cards)


def _card(x: Any) -> Card:
    if not isinstance(x, str):
        raise NotationError(f"{x!r} is not a card name")
    return Card.parse(x)


def _validate(columns: Any, stock: Any) -> None:
    if not isinstance(columns, tuple) or len(columns) != 7:
        raise DealError("a deal has exactly 7 columns")
    for i, col in enumerate(columns):
        if not isinstance(col, tuple) or len(col) != i + 1:
            raise DealError(f"column t{i + 1} must hold {i + 1} cards (rules §1)")
    if not isinstance(stock, tuple) or len(stock) != 24:
        raise DealError("the stock must hold 24 cards (rules §1)")
    seen: set[int] = set()
    for c in (c for col in columns for c in col):
        _add(seen, c)
    for c in stock:
        _add(seen, c)


def _add(seen: set[int], c: Any) -> None:
    if not isinstance(c, Card):
        raise DealError(f"{c!r} is not a Card")
    i = card_index(c)
    if i in seen:
        raise DealError(f"{c} appears twice; a deal holds 52 distinct cards")
    seen.add(i)


@lru_cache(maxsize=256)
def _from_number(number: int) -> Deal:
    deck = shuffled_deck(number)
    cols: list[list[Card]] = [[] for _ in range(7)]
    p = 0
    for row in range(7):
        for c in range(row, 7):
            cols[c].append(CARDS[deck[p]])
            p += 1
    return Deal(tuple(tuple(c) for c in cols), tuple(CARDS[i] for i in deck[28:]))
