"""The shared cache (Redis in the scaled stack), used best effort: everything that keeps
something in it goes on without it.

django-redis's IGNORE_EXCEPTIONS stays off: it would answer a dead Redis's every read with a
miss, and its writes with nothing, also to callers that need to know (the throttles, the health
check, logout). They catch CACHE_ERRORS themselves; the others use `cache_get`, `cache_set`,
`cache_add` and `cache_delete`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from django.core.cache import cache
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError

from config.memo import ProcessMemo

logger = logging.getLogger("config.cache")

# What a call to a cache that cannot answer raises (Redis refusing, timing out, or out of
# memory): redis-py's errors, which django-redis re-raises as they are, and a socket's own.
CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, ConnectionInterrupted, OSError)
# After a cache error, this process leaves the cache alone for this long: with Redis hanging,
# every call would cost its socket timeout (settings: REDIS_TIMEOUT_S).
CACHE_PAUSE_S = 5.0
_cache_pause: ProcessMemo[str, float] = ProcessMemo(max_entries=1)


def cache_paused() -> bool:
    """True while this process leaves the shared cache alone after an error."""
    until = _cache_pause.get("until")
    return until is not None and time.monotonic() < until


def cache_failed(what: str) -> None:
    """Note, in an `except CACHE_ERRORS` block, that the cache failed at `what`: log it once
    per pause, and leave the cache alone in this process for CACHE_PAUSE_S."""
    if not cache_paused():
        logger.warning(
            "the cache did not answer (%s); this process does without it for %s s",
            what,
            CACHE_PAUSE_S,
            exc_info=True,
        )
    _cache_pause.put("until", time.monotonic() + CACHE_PAUSE_S)


def cache_answered() -> None:
    """The cache answered (the health check's probe): end this process's pause."""
    _cache_pause.discard("until")


def cache_get(key: str) -> Any:
    """The cached value of `key`: None when there is none, or the cache cannot answer."""
    if cache_paused():
        return None
    try:
        return cache.get(key)
    except CACHE_ERRORS:
        cache_failed("read")
        return None


def cache_set(key: str, value: Any, timeout: float) -> None:
    """Keep `value` under `key` for `timeout` seconds if the cache answers; else nothing."""
    if cache_paused():
        return
    try:
        cache.set(key, value, timeout)
    except CACHE_ERRORS:
        cache_failed("write")


def cache_add(key: str, value: Any, timeout: float, *, what: str = "add") -> bool | None:
    """Keep `value` under `key` for `timeout` seconds unless the key is there: True when it was
    added, False when it was there already, None when the cache cannot answer (the caller
    decides what that means: usually to go on as if it had been added)."""
    if cache_paused():
        return None
    try:
        return bool(cache.add(key, value, timeout))
    except CACHE_ERRORS:
        cache_failed(what)
        return None


def cache_delete(key: str) -> None:
    """Delete `key` if the cache answers, even while this process leaves it alone otherwise
    (an entry left behind outlives its use); else nothing: it expires on its own."""
    with contextlib.suppress(*CACHE_ERRORS):
        cache.delete(key)
