"""Bounded maps kept in one process's memory, for hot-path look-ups that would otherwise cost a
round trip to Redis or the database.

Each process has its own: nothing here is shared between gunicorn workers, so whatever is kept
must be safe to use when it is stale or missing (the caller checks it, or it is a hint).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_ALL: weakref.WeakSet[ProcessMemo[object, object]] = weakref.WeakSet()


class ProcessMemo(Generic[K, V]):
    """A thread-safe map of at most `max_entries` entries; the least recently used goes
    first. With `ttl_s`, an entry is forgotten that many seconds after it was put."""

    def __init__(self, max_entries: int, ttl_s: float | None = None) -> None:
        self._max = max_entries
        self._ttl = ttl_s
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()
        _ALL.add(self)  # type: ignore[arg-type]

    def get(self, key: K) -> V | None:
        """The value kept for `key`, or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] < time.monotonic():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key`, forgetting the least recently used entry when full."""
        expires = time.monotonic() + self._ttl if self._ttl is not None else float("inf")
        with self._lock:
            self._entries[key] = (expires, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def discard(self, key: K) -> None:
        """Forget `key`, if kept."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def clear_all() -> None:
    """Empty every map of this process (tests: nothing may leak from one test into the next)."""
    for memo in list(_ALL):
        memo.clear()
