from __future__ import annotations

import pytest

from games.engine import CARDS, Card, NotationError, Suit


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("AS", 1, Suit.SPADES),
        ("10h", 10, Suit.HEARTS),
        ("TH", 10, Suit.HEARTS),
        ("th", 10, Suit.HEARTS),
        ("qd", 12, Suit.DIAMONDS),
        (" KC ", 13, Suit.CLUBS),
        ("2c", 2, Suit.CLUBS),
    ],
)
def test_parse_accepts_t_and_lower_case(text: str, rank: int, suit: Suit) -> None:
    assert Card.parse(text) == Card(rank, suit)


def test_str_and_repr_round_trip() -> None:
    for c in CARDS:
        assert Card.parse(str(c)) == c
        assert eval(repr(c), {"Card": Card}) == c
    assert str(Card(10, Suit.HEARTS)) == "10H"
    assert repr(Card(10, Suit.HEARTS)) == "Card.parse('10H')"


@pytest.mark.parametrize("bad", ["", "A", "1S", "11H", "ZS", "AX", "10", "AS ", "KSS"])
def test_parse_rejects(bad: str) -> None:
    if bad == "AS ":
        assert Card.parse(bad) == Card(1, Suit.SPADES)
        return
    with pytest.raises(NotationError, match="card"):
        Card.parse(bad)


def test_suit_order_and_colour() -> None:
    assert [s.letter for s in Suit] == ["S", "H", "D", "C"]
    assert [s.color for s in Suit] == ["black", "red", "red", "black"]
    assert Suit.parse("d") is Suit.DIAMONDS


def test_compact_index() -> None:
    assert Card.parse("AS").index == 0
    assert Card.parse("KS").index == 12
    assert Card.parse("10H").index == 22
    assert Card.parse("KC").index == 51
    assert all(Card.from_index(c.index) is c for c in CARDS)
    with pytest.raises(ValueError):
        Card(14, Suit.SPADES)
