"""Deal codes (rules §8) and the scheme-1 shuffle, pinned by golden vectors."""

from __future__ import annotations

import pytest

from games.engine import (
    MAX_NUMBER,
    Card,
    Deal,
    DealCode,
    DealCodeError,
    DealError,
    GameState,
    NotationError,
    Rules,
    shuffled_deck,
    splitmix64,
)

# code -> (t1 | t2 | ... | t7, bottom card first, last face up; stock in draw order)
GOLDEN = {
    "KL1-D1N-AAAAAAA": (
        "8C | JD 10S | 9S 3H 8S | 2C AS QC 3D | 2H JS KD 5S 4C | "
        "QH 7S 5D AD 10H 8D | 6C 9D 2S 6S 5H 8H AH",
        "QD 10C QS JH 3C 4H 2D 9H 3S KH AC 7C 9C 7H JC 6D KC 4S 7D 5C 6H 4D KS 10D",
    ),
    "KL1-D1N-AAAAAAB": (
        "7H | 9S 6H | 4H 9C 2H | 8D JS JD 2S | 8H 5H 5D AH KD | "
        "5C KH 7D 6C 10D JC | JH 3S 4D KS 10C 10H 8C",
        "QS 4C 6S 7S AC 5S AD KC 6D QC QD QH 9H 3H 3C AS 4S 2D 8S 10S 3D 2C 9D 7C",
    ),
    "KL1-D1N-AAAAAAG": (
        "AD | 2H JC | 7C 3D KD | 7H 5D 8D 10C | 4C 6H 6S 7D 9D | "
        "9C KH JS 5H KC 3S | 9H 3C QD 7S QS 4D AH",
        "QH JH AS QC 2S 2C 3H 6D 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC 10H JD 9S 6C",
    ),
    "KL1-D3V-AAAAAAG": (
        "AD | 2H JC | 7C 3D KD | 7H 5D 8D 10C | 4C 6H 6S 7D 9D | "
        "9C KH JS 5H KC 3S | 9H 3C QD 7S QS 4D AH",
        "QH JH AS QC 2S 2C 3H 6D 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC 10H JD 9S 6C",
    ),
    "KL1-D3V-ZZZZZZZ": (
        "6C | 5C 7H | JD 9S 6D | 4H 10S 8D 2D | 4C AD 10D QS 8H | "
        "2C KC JC 2H 8S 6S | AS 3S 6H 8C 9H JS 9C",
        "KD 4S 5D 9D 3C KH 2S KS QD 7C 5S 4D JH 3H AC QC AH 7S 10C 10H 7D 5H QH 3D",
    ),
    "KL1-D3N-ZZZZZZY": (
        "QC | AC 8D | 9H KD JC | 3D QD QH 7C | 8S KS 4D 3H 4H | "
        "3S 7S JD AH 7H AD | 2D 8C 10H 9S 7D 2C JS",
        "6D 8H 9D 4S KC 5C 10D 2S 6S AS 2H JH KH 3C 9C 6C QS 10S 6H 4C 5D 5H 10C 5S",
    ),
    "KL1-D3C-BCDEFGH": (
        "6D | 9C 9S | 9D QS JC | AH QC 10S 10H | 4D 6S 10D JD QH | "
        "AC 4H 7H 2C 3S AD | 6C KS 5S JH 8H QD 4S",
        "3H 5H KD 2D AS 10C 9H 2S 3C 6H 4C KC 8D 8C KH 7D 7S 3D 7C 8S 2H 5D 5C JS",
    ),
    "KL1-D1R-KLONDIK": (
        "8S | 3D 5D | QD 8D KC | 5C 10C AH 8C | 6H AD KS 3C 6C | "
        "JC 6D 3S 5H AC 2S | 7H 3H 10H 9S 4S 7D 2D",
        "2C KH JD 6S 10D 9H 4H JH 9D 8H QC 2H 4C 5S 9C 7C 7S 10S QH 4D KD JS AS QS",
    ),
    "KL1-D3R-QQQQQQQ": (
        "7D | JD AD | 7C 10H 6S | AH 7H 2H 4D | KH 5H 2D AC 5C | "
        "KC AS QS 3D JC 9C | 3H 10S KS 3C 8H 4H 3S",
        "QD 6C 10C QH 9S 2C 10D 5S KD 4C 2S JS 8D JH 8C 8S 7S 9D 5D 4S 6H 9H 6D QC",
    ),
    "KL1-D1V-AAAABAA": (
        "7D | 7C 3H | 5C 6C 4C | JC JD 9S JS | 4S 3C 5S AH 10H | "
        "9D 8S KD 3D 2S KH | QC 3S 2C 10S 10D 5D QS",
        "KS AD 7S QD 2H 6S 9C KC 2D 7H 6D 10C 9H 4D 8D JH 5H 8H 8C 6H QH 4H AC AS",
    ),
    "KL1-D3N-MMMMMMM": (
        "8H | QS 8D | 3C 8S 5S | 3D 7H 3H 4S | 2H 2D 10C JC 9S | "
        "5D 5H 3S 6C JD 10S | 2C 2S KH AS 4C AD 7C",
        "4H 10D QC JS 6H KC AC QD 7D 9D 5C KD 8C 9H 6D KS 10H AH 6S 9C JH 7S 4D QH",
    ),
    "KL1-D1C-HELLOAB": (
        "3D | 10D 3C | 10S 8C 9C | 2H 4H QD 10H | 6C 6H 3S 8D AD | "
        "6S JC 8S AC QS 3H | 9S 7H QH AH 9D JS 6D",
        "4S 5D AS 2C 10C JD 7C 7D 5C 2S 9H QC 4C 5H KS KC 4D 8H 2D 7S KD 5S JH KH",
    ),
}


def layout(code: str) -> tuple[str, str]:
    d = DealCode.parse(code).deal.to_dict()
    return (" | ".join(" ".join(c) for c in d["tableau"]), " ".join(d["stock"]))


@pytest.mark.parametrize("code", sorted(GOLDEN))
def test_golden_layouts(code: str) -> None:
    assert layout(code) == GOLDEN[code]


def test_same_number_same_cards_whatever_the_mode() -> None:
    assert GOLDEN["KL1-D1N-AAAAAAG"] == GOLDEN["KL1-D3V-AAAAAAG"]
    for mode in ("D1N", "D3V", "D1C", "D3R"):
        assert layout(f"KL1-{mode}-ZZZZZZZ") == GOLDEN["KL1-D3V-ZZZZZZZ"]


def test_splitmix64_reference_values() -> None:
    # Published SplitMix64 outputs for seed 0 (Vigna's splitmix64.c).
    rng = splitmix64(0)
    assert [next(rng) for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_shuffle_is_a_permutation_and_the_documented_example() -> None:
    for n in (0, 6, MAX_NUMBER, 2**64 - 1):
        assert sorted(shuffled_deck(n)) == list(range(52))
    assert shuffled_deck(6)[:7] == [26, 14, 45, 19, 42, 47, 21]
    with pytest.raises(ValueError):
        shuffled_deck(-1)


def test_parse_and_print() -> None:
    c = DealCode.parse("kl1-d1n-aaaaaag")
    assert c == DealCode(1, "N", 6) and str(c) == "KL1-D1N-AAAAAAG"
    assert c.rules == Rules.from_preset(1, "N")
    assert DealCode.parse(" KL1-D3V-ZZZZZZZ ").number == 26**7 - 1 == MAX_NUMBER
    assert DealCode.parse("KL1-D1N-AAAAABA").number == 26
    for n in (0, 1, 25, 26, 12345678, MAX_NUMBER):
        for preset in "NVCR":
            code = DealCode(3, preset, n)
            assert DealCode.parse(str(code)) == code
            assert DealCode.parse(str(code).lower()) == code


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "three parts"),
        ("KL1-D1N", "three parts"),
        ("KL1-D1N-AAAAAAG-X", "three parts"),
        ("XX1-D1N-AAAAAAG", "starts with 'KL'"),
        ("KL2-D1N-AAAAAAG", "unknown code scheme 2"),
        ("KL-D1N-AAAAAAG", "unknown code scheme"),
        ("KL1-X1N-AAAAAAG", "middle part"),
        ("KL1-D1-AAAAAAG", "middle part"),
        ("KL1-D2N-AAAAAAG", "draw must be D1 or D3"),
        ("KL1-D1X-AAAAAAG", "unknown preset letter 'X'"),
        ("KL1-D1N-AAAAAG", "7 letters A-Z, not 6"),
        ("KL1-D1N-AAAAAAAA", "7 letters A-Z, not 8"),
        ("KL1-D1N-AAAAAA1", "only letters A-Z"),
        ("KL1-D1N-AAAÄAAA", "only letters A-Z"),
    ],
)
def test_malformed_codes_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(DealCodeError, match=message) as e:
        DealCode.parse(text)
    assert isinstance(e.value, NotationError) and isinstance(e.value, ValueError)


def test_deal_code_values_are_checked() -> None:
    with pytest.raises(DealCodeError):
        DealCode(1, "N", MAX_NUMBER + 1)
    with pytest.raises(DealCodeError):
        DealCode(2, "N", 0)


def test_deal_dict_round_trip_and_game_start() -> None:
    d = Deal.from_number(6)
    assert Deal.from_dict(d.to_dict()) == d
    g = GameState.new(d, Rules.from_preset(1, "N"))
    assert g.raw().tableau[0] == (Card.parse("AD").index,)
    assert g.raw().stock[-1] == d.stock[0].index  # the stock's next card is stored last


def test_deal_from_dict_validation() -> None:
    good = Deal.from_number(3).to_dict()
    bad_dup = {**good, "stock": [good["tableau"][0][0], *good["stock"][1:]]}
    with pytest.raises(DealError, match="twice"):
        Deal.from_dict(bad_dup)
    with pytest.raises(DealError, match="24 cards"):
        Deal.from_dict({**good, "stock": good["stock"][:-1]})
    with pytest.raises(DealError, match="t3 must hold 3"):
        Deal.from_dict({**good, "tableau": [*good["tableau"][:2], ["AS"], *good["tableau"][3:]]})
    with pytest.raises(DealError, match="7 columns"):
        Deal.from_dict({**good, "tableau": good["tableau"][:6]})
    with pytest.raises(DealError, match="bad card"):
        Deal.from_dict({**good, "stock": ["ZZ", *good["stock"][1:]]})
    with pytest.raises(DealError):
        Deal.from_dict([])
    assert issubclass(DealError, ValueError)
