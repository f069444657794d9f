"""Rule sets: draw mode, passes, foundation return, auto-finish and scoring (rules §3, §7, §9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["PRESETS", "Rules", "Scoring", "format_score"]

Scoring = Literal["normal", "vegas", "none"]

PRESETS = ("N", "V", "C", "R")
"""Preset letters as they appear in deal codes: Normal, Vegas, Classic, Relaxed."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One rule set. ``passes`` is the number of passes through the stock (None = unlimited).

    >>> Rules.from_preset(3, "C").passes
    3
    """

    draw: int = 1
    preset: str = "N"
    passes: int | None = None
    foundation_return: bool = True
    auto_finish: bool = False
    scoring: Scoring = "normal"

    def __post_init__(self) -> None:
        if self.draw not in (1, 3) or type(self.draw) is not int:
            raise ValueError(f"draw must be 1 or 3, not {self.draw!r}")
        if self.preset not in PRESETS:
            raise ValueError(f"preset must be one of N, V, C, R, not {self.preset!r}")
        if self.passes is not None and (type(self.passes) is not int or self.passes < 1):
            raise ValueError(f"passes must be a positive int or None, not {self.passes!r}")
        if self.scoring not in ("normal", "vegas", "none"):
            raise ValueError(f"scoring must be normal, vegas or none, not {self.scoring!r}")

    @classmethod
    def from_preset(cls, draw: int, preset: str) -> Rules:
        """The rules of a preset letter (rules §9), e.g. ``Rules.from_preset(1, "V")``.

        :raises ValueError: draw not 1 or 3, or an unknown preset letter.
        """
        p = preset.upper() if isinstance(preset, str) else preset
        if p == "N":
            return cls(draw, "N", None, True, False, "normal")
        if p == "V":
            return cls(draw, "V", 1, True, False, "vegas")
        if p == "C":
            return cls(draw, "C", 1 if draw == 1 else 3, False, False, "none")
        if p == "R":
            return cls(draw, "R", None, True, True, "none")
        raise ValueError(f"preset must be one of N, V, C, R, not {preset!r}")

    @property
    def max_recycles(self) -> int | None:
        """How many times the waste may go back to the stock (passes - 1; None = unlimited)."""
        return None if self.passes is None else self.passes - 1

    def to_dict(self) -> dict[str, Any]:
        """The API's ``rules`` object.

        >>> Rules.from_preset(1, "N").to_dict()["passes"] is None
        True
        """
        return {
            "draw": self.draw,
            "preset": self.preset,
            "passes": self.passes,
            "foundation_return": self.foundation_return,
            "auto_finish": self.auto_finish,
            "scoring": self.scoring,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rebuild rules from :meth:`to_dict` output.

        :raises ValueError: missing keys or invalid values.
        """
        try:
            return cls(
                data["draw"],
                data["preset"],
                data["passes"],
                bool(data["foundation_return"]),
                bool(data["auto_finish"]),
                data["scoring"],
            )
        except KeyError as e:
            raise ValueError(f"rules need the key {e.args[0]!r}") from None


def format_score(rules: Rules, score: int | None) -> str:
    """The score as the API shows it: ``"35"``; Vegas ``"+$208"``, ``"$0"``, ``"-$52"``; no
    scoring ``""``.

    >>> format_score(Rules.from_preset(1, "V"), -52)
    '-$52'

    :raises ValueError: a missing score under a scoring rule set.
    """
    if rules.scoring == "none":
        return ""
    if score is None:
        raise ValueError(f"{rules.scoring} scoring needs a score")
    if rules.scoring == "normal":
        return str(score)
    return f"+${score}" if score > 0 else ("$0" if score == 0 else f"-${-score}")
