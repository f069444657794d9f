"""A compact binary snapshot of a whole game state, with or without its undo history.

The server keeps one in each game row, so that an action is applied to the stored state
without replaying the whole log. It saves it with only the last few steps of the history:
the whole history is most of the size (about 7 KB of 7.5 at 100 steps) and of the time to
save and load, while only an undo needs it, mostly one or two steps back, and the log
rebuilds the rest (the state knows how many steps it lacks, see
`GameState.history_complete`). The format is pickle restricted to plain data (tuples, ints,
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

_VERSION = 2
_READS = frozenset({1, 2})  # version 1 had no `_unloaded` slot (always a whole history)
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


def dumps(state: GameState, *, history: bool | int = True) -> bytes:
    """The state as bytes for :func:`loads`, with its whole undo history (``history`` True),
    none of it (False), or its last ``history`` steps. The loaded state counts the steps left
    out, and can still tell `can_undo`.

    >>> from .state import GameState
    >>> isinstance(dumps(GameState.from_code("KL1-D3V-AAAAAAA")), bytes)
    True
    """
    fields = {
        name: _plain(getattr(state, name)) for name in GameState.__slots__ if name not in _SKIPPED
    }
    steps = len(state._history)
    kept = steps if history is True else min(steps, max(0, int(history)))
    if kept < steps:
        fields["_unloaded"] = state._unloaded + steps - kept
        fields["_history"] = fields["_history"][steps - kept :]
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
    if version not in _READS:
        raise SnapshotError(f"snapshot version {version!r}; this engine reads {sorted(_READS)}")
    if version == 1 and isinstance(fields, dict):
        fields = {**fields, "_unloaded": 0}
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
