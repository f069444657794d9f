"""A compact binary snapshot of a whole game state, undo history included.

The server keeps one in each game row, so that an action is applied to the stored state
without replaying the whole log. The format is pickle restricted to plain data (tuples, ints,
strings, dicts): the loader refuses every global, so a snapshot can never run code. Piles are
shared tuples, and pickle's memo stores a pile shared by many undo steps once.

>>> from .state import GameState
>>> g = GameState.from_code("KL1-D1N-AAAAAAG")
>>> loads(dumps(g)).position_key() == g.position_key()
True
"""

from __future__ import annotations

import io
import pickle
from collections import deque
from typing import Any

from .rules import Rules
from .state import UNDO_LIMIT, GameState

__all__ = ["SnapshotError", "dumps", "loads"]

_VERSION = 1
# Slots derived from the rules (recomputed on load) or not kept (the deal lives in the database).
_DERIVED = frozenset({"_draw", "_return", "_recycle_limit", "_floor", "_pf", "_pw", "_pflip"})
_SKIPPED = _DERIVED | {"_rules", "deal"}


class SnapshotError(ValueError):
    """Bytes that are not a snapshot of this format."""


class _PlainDataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise SnapshotError(f"a snapshot holds plain data only, not {module}.{name}")


def _plain(value: Any) -> Any:
    if isinstance(value, deque | list):
        return tuple(value)
    return value


def dumps(state: GameState) -> bytes:
    """The state as bytes for :func:`loads`.

    >>> from .state import GameState
    >>> isinstance(dumps(GameState.from_code("KL1-D3V-AAAAAAA")), bytes)
    True
    """
    fields = {
        name: _plain(getattr(state, name)) for name in GameState.__slots__ if name not in _SKIPPED
    }
    return pickle.dumps((_VERSION, state.rules.to_dict(), fields), protocol=pickle.HIGHEST_PROTOCOL)


def loads(data: bytes) -> GameState:
    """The state that :func:`dumps` saved (without its ``deal`` attribute).

    :raises SnapshotError: not a snapshot, another version, or a field missing.
    """
    try:
        version, rules_data, fields = _PlainDataUnpickler(io.BytesIO(data)).load()
    except SnapshotError:
        raise
    except Exception as exc:
        raise SnapshotError(f"not a game snapshot: {exc}") from None
    if version != _VERSION:
        raise SnapshotError(f"snapshot version {version!r}; this engine reads {_VERSION}")
    rules = Rules.from_dict(rules_data)
    # The constructor derives the rule-dependent slots; the saved fields then replace the rest.
    state = GameState(rules, [()] * 7, [0] * 7, (0, 0, 0, 0), (), ())
    wanted = set(GameState.__slots__) - _SKIPPED
    if set(fields) != wanted:
        raise SnapshotError(f"snapshot fields differ: {sorted(set(fields) ^ wanted)}")
    for name, value in fields.items():
        setattr(state, name, value)
    state._tab = list(fields["_tab"])
    state._found = list(fields["_found"])
    state._history = deque(fields["_history"], maxlen=UNDO_LIMIT)
    return state
