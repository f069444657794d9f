"""Deal codes, scheme 1: ``KL1-D1N-AAAAAAG`` (rules §8, docs/deal-codes.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .deal import Deal
from .errors import DealCodeError
from .rules import PRESETS, Rules

__all__ = ["MAX_NUMBER", "DealCode"]

MAX_NUMBER = 26**7 - 1
"""The largest deal number a 7-letter code can hold (``ZZZZZZZ``)."""

_LETTERS = re.compile(r"[A-Z]{7}")


@dataclass(frozen=True, slots=True)
class DealCode:
    """A deal code: draw mode, preset letter and deal number (base 26, A = 0).

    >>> DealCode.parse("kl1-d1n-aaaaaag")
    DealCode(draw=1, preset='N', number=6)
    >>> str(DealCode(3, "V", 6))
    'KL1-D3V-AAAAAAG'
    """

    draw: int
    preset: str
    number: int

    def __post_init__(self) -> None:
        if self.draw not in (1, 3) or type(self.draw) is not int:
            raise DealCodeError(f"draw must be 1 or 3, not {self.draw!r}")
        if self.preset not in PRESETS:
            raise DealCodeError(f"preset must be one of N, V, C, R, not {self.preset!r}")
        if type(self.number) is not int or not 0 <= self.number <= MAX_NUMBER:
            raise DealCodeError(f"deal number must be 0..{MAX_NUMBER}, not {self.number!r}")

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Parse a code, case-insensitive, e.g. ``DealCode.parse("KL1-D3C-BCDEFGH")``.

        :raises DealCodeError: the message says which part is wrong.
        """
        if not isinstance(text, str):
            raise DealCodeError(f"a deal code is a string like KL1-D1N-AAAAAAG, not {text!r}")
        s = text.strip().upper()
        parts = s.split("-")
        if len(parts) != 3:
            raise DealCodeError(
                f"{text!r} is not a deal code: expected three parts like KL1-D1N-AAAAAAG"
            )
        head, mode, num = parts
        if not head.startswith("KL"):
            raise DealCodeError(f"{text!r}: a deal code starts with 'KL' (Klondike)")
        if head != "KL1":
            scheme = head[2:] or "(missing)"
            raise DealCodeError(f"{text!r}: unknown code scheme {scheme}; only KL1 is known")
        if len(mode) != 3 or mode[0] != "D":
            raise DealCodeError(
                f"{text!r}: the middle part is D, the draw (1 or 3) and a preset letter, e.g. D1N"
            )
        if mode[1] not in "13":
            raise DealCodeError(f"{text!r}: draw must be D1 or D3, not D{mode[1]}")
        if mode[2] not in PRESETS:
            raise DealCodeError(f"{text!r}: unknown preset letter {mode[2]!r}; use N, V, C or R")
        if len(num) != 7:
            raise DealCodeError(f"{text!r}: the deal number must be 7 letters A-Z, not {len(num)}")
        if not _LETTERS.fullmatch(num):
            raise DealCodeError(f"{text!r}: the deal number may hold only letters A-Z")
        n = 0
        for ch in num:
            n = n * 26 + ord(ch) - 65
        return cls(int(mode[1]), mode[2], n)

    @property
    def letters(self) -> str:
        """The deal number in 7 base-26 letters."""
        n, out = self.number, []
        for _ in range(7):
            n, r = divmod(n, 26)
            out.append(chr(65 + r))
        return "".join(reversed(out))

    @property
    def rules(self) -> Rules:
        """The rules of the code's draw mode and preset."""
        return Rules.from_preset(self.draw, self.preset)

    @property
    def deal(self) -> Deal:
        """The layout of the code's deal number (it ignores draw mode and preset)."""
        return Deal.from_number(self.number)

    def __str__(self) -> str:
        return f"KL1-D{self.draw}{self.preset}-{self.letters}"
