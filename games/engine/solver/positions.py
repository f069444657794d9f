"""The solver's compact position, its card tables and its macro moves (see the package's
docstring): what every other module of the solver builds on."""

from __future__ import annotations

from typing import Final, TypeAlias

from librt.vecs import vec
from mypy_extensions import i64, u8

_PARENTS: Final = tuple(
    ()
    if c % 13 == 12
    else tuple(s * 13 + c % 13 + 1 for s in range(4) if (s in (1, 2)) != (c // 13 in (1, 2)))
    for c in range(52)
)
"""The two cards a card may be put on in a column (none for a king)."""
_PARENT_A: Final = vec[i64]([p[0] if p else -1 for p in _PARENTS])
_PARENT_B: Final = vec[i64]([p[1] if p else -1 for p in _PARENTS])
"""A card's two parents (:data:`_PARENTS`) as native ints, -1 for a king's."""
_OPP: Final = ((1, 2), (0, 3), (0, 3), (1, 2))
"""The suits of the other colour."""
_MATE: Final = (3, 2, 1, 0)
"""The other suit of the same colour."""
_DOWN0: Final = 100
"""A column's first byte is ``_DOWN0 + face-down count``; cards are 0..51."""
_EMPTY: Final = bytes((_DOWN0,))
_UNLIMITED: Final = 1 << 30

# Macro moves: (kind, a, b, c).
_COL_COL: Final = 0  # (0, src column, count, dst column)
_COL_F: Final = 1  # (1, column, 0, 0)
_TALON: Final = 2  # (2, card, dst column or -1 for its foundation, 0)
_RETURN: Final = 3  # (3, suit, dst column, 0)

_Macro: TypeAlias = tuple[int, int, int, int]
_Cols: TypeAlias = tuple[bytes, ...]
# (columns, talon, pos, passes used, foundations)
_Pos: TypeAlias = tuple[_Cols, bytes, int, int, tuple[int, ...]]


_NONE52: Final = vec[i64]([-1] * 52)
"""Copied (``[:]``) for a table by card of column indexes or cards, -1 for none."""
_ZERO52: Final = vec[u8]([0] * 52)
"""Copied (``[:]``) for a table of flags by card."""


def _destinations(x: int, empty: int, where: vec[i64]) -> list[int]:
    """The columns card `x` may be placed on: the first empty one (`empty`, -1 for none) for a
    king, else those whose top card (`where`: card -> its column when on top, else -1) is one
    of its `_PARENTS`."""
    if x % 13 == 12:
        return [empty] if empty >= 0 else []
    return [int(d) for par in _PARENTS[x] if (d := where[par]) >= 0]


def _at_bottom(cols: _Cols, x: int) -> bool:
    """Is face-up card ``x`` the bottom card of its column?"""
    return any(len(col) > 1 and col[1] == x for col in cols)


def _faceup(cols: _Cols) -> vec[u8]:
    """The face-up column cards, flagged by card."""
    out = _ZERO52[:]
    for col in cols:
        for i in range(col[0] - _DOWN0 + 1, len(col)):
            out[col[i]] = 1
    return out


def _pop(col: bytes, n: int) -> bytes:
    """The column without its top ``n`` cards, turning up the new top card if face down."""
    rest = col[:-n]
    d = rest[0] - _DOWN0
    if d and len(rest) - 1 == d:
        return bytes((_DOWN0 + d - 1,)) + rest[1:]
    return rest
