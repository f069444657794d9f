"""Shared helpers for the engine tests (no database, no Django)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from games.engine import CARDS, GameState, Rules
from games.engine.solver import native

PosFn = Callable[..., GameState]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With the compiled solver loaded, a test marked ``pure_solver`` (it patches module
    globals or methods, which compiled code does not look up) runs in the pure-Python run of
    test_solver_native.py instead of here; ``native_too=True`` keeps it here as well."""
    if not native.is_native():
        return
    for item in items:
        mark = item.get_closest_marker("pure_solver")
        if mark is not None and not mark.kwargs.get("native_too"):
            item.add_marker(pytest.mark.skip(reason="patches the solver: runs in pure Python"))


def make_position(
    tableau: Sequence[Sequence[str]] = ((),) * 7,
    *,
    hidden: Sequence[Sequence[str]] | None = None,
    stock: Sequence[str] | None = None,
    waste: Sequence[str] = (),
    foundations: Sequence[int] = (0, 0, 0, 0),
    rules: Rules | None = None,
    preset: str = "N",
    draw: int = 1,
    **kw: Any,
) -> GameState:
    """A position where every card not placed explicitly is put at the bottom of the stock
    (drawn last); pass ``stock=[...]`` with every remaining card to control the stock."""
    tab = [list(c) for c in tableau] + [[] for _ in range(7 - len(tableau))]
    hid = [list(c) for c in (hidden or ())] + [[] for _ in range(7 - len(hidden or ()))]
    used = {s.upper() for col in tab + hid for s in col} | {s.upper() for s in waste}
    used |= {s.upper() for s in (stock or ())}
    used |= {str(CARDS[s * 13 + r]) for s in range(4) for r in range(foundations[s])}
    rest = [str(c) for c in CARDS if str(c) not in used]
    return GameState.from_position(
        rules or Rules.from_preset(draw, preset),
        tableau=tab,
        hidden=hid,
        stock=list(stock or ()) + rest,
        waste=waste,
        foundations=foundations,
        **kw,
    )


@pytest.fixture
def pos() -> PosFn:
    """``pos(tableau=[...], hidden=..., waste=..., preset=..., draw=...)``."""
    return make_position
