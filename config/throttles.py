"""The API's throttles, and the client address they count by.

While the shared cache cannot answer, they count in this process's memory: the limits then
hold per server process (a degraded mode, for as long as Redis is away).
"""

from __future__ import annotations

import copy
import ipaddress
import threading
from typing import Any

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.views import APIView

from config.cache import CACHE_ERRORS, cache_failed, cache_paused
from config.errors import ApplicationError
from config.memo import ProcessMemo


def client_address(request: Any) -> str | None:
    """The client's address, as the throttles count it: the connection's own address, or with
    `NUM_PROXIES` trusted proxies in front (the `TRUSTED_PROXIES` setting), the address the
    farthest of them saw. Never one a client merely wrote in a header. None when that is not
    an IP address."""
    ident = BaseThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address(ident))
    except ValueError:
        return None


class _ProcessThrottleCache:
    """The cache calls the throttles make (get, set, add, incr), answered from this process's
    memory: their counts while the shared cache cannot answer. Each process then counts
    alone, so a limit holds per server process (a degraded mode, for as long as Redis is
    away). Timeouts are not kept: DRF's history drops its old times itself, and a counter's
    key names its window; the least recently used entries go first."""

    def __init__(self) -> None:
        self._kept: ProcessMemo[str, Any] = ProcessMemo(max_entries=20_000)
        self._lock = threading.Lock()

    def get(self, key: str, default: Any = None) -> Any:
        value = self._kept.get(key)
        return default if value is None else copy.copy(value)  # DRF edits the list it reads

    def set(self, key: str, value: Any, timeout: float | None = None) -> None:
        self._kept.put(key, value)

    def add(self, key: str, value: Any, timeout: float | None = None) -> bool:
        with self._lock:
            if self._kept.get(key) is not None:
                return False
            self._kept.put(key, value)
            return True

    def incr(self, key: str, delta: int = 1) -> int:
        with self._lock:
            value = self._kept.get(key)
            if value is None:
                raise ValueError(f"Key {key!r} not found.")  # as Django's caches do
            self._kept.put(key, value + delta)
            return int(value + delta)


_process_throttle_cache = _ProcessThrottleCache()


class ScopedThrottle(ScopedRateThrottle):
    """Scoped throttle that reads its rates when asked, so settings overrides apply.

    While the shared cache cannot answer, it counts in this process's memory instead: the
    limit then holds per server process (`_ProcessThrottleCache`)."""

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope) if self.scope else None
        return str(rate) if rate is not None else None

    def allow_request(self, request: Any, view: Any) -> bool:
        if not cache_paused():
            try:
                return bool(super().allow_request(request, view))
            except CACHE_ERRORS:
                cache_failed(f"throttle {self.scope}")
        self.cache = _process_throttle_cache  # type: ignore[assignment]  # a cache's calls
        return bool(super().allow_request(request, view))

    def refund(self) -> None:
        """Take back the request this throttle let through and counted (`allow_request`):
        one the server was too busy to serve (503) is not the client's to pay for. Best
        effort: a cache that cannot answer keeps the count."""
        if getattr(self, "key", None) is None or getattr(self, "now", None) is None:
            return  # nothing counted: no rate, or a client without an address
        try:
            history = self.cache.get(self.key, [])
            if self.now in history:
                history.remove(self.now)
                # DRF's __init__ sets `duration` (parse_rate); its stubs leave it out.
                self.cache.set(self.key, history, self.duration)  # type: ignore[attr-defined]
        except CACHE_ERRORS:
            cache_failed(f"throttle {self.scope}")


# A client's busy refusals (503) taken back from a scope's throttle count in a bucket of this
# many times its rate (`BusyShareThrottle`).
BUSY_SHARE = 3
_PERIODS = {1: "s", 60: "m", 3600: "h", 86400: "d"}


class BusyShareThrottle(ScopedThrottle):
    """The busy refusals of one client in one scope: the requests that `counted`, the scope's
    own throttle, let through and took back because the server was busy (`BusyRefundedView`).
    A bucket BUSY_SHARE times as large as the scope's: a refusal is not the client's to pay
    for, but is not free either, so one address that asks on through busy seconds gets 429
    once it had its share, instead of keeping the hashing slots busy for everyone. It counts
    nothing else: `count_busy` fills it, and `allow_request` only reads it."""

    def __init__(self, counted: ScopedThrottle) -> None:
        self.counted = counted

    def get_rate(self) -> str | None:
        rate = getattr(self.counted, "rate", None)  # set by its allow_request, asked first
        if not rate:
            return None
        num_requests, duration = self.parse_rate(rate)
        if num_requests is None or duration not in _PERIODS:
            return None
        return f"{num_requests * BUSY_SHARE}/{_PERIODS[duration]}"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        key = super().get_cache_key(request, view)
        return None if key is None else f"busy_{key}"

    def throttle_success(self) -> bool:
        return True  # a request served, or not yet refused, is none of this bucket's

    def count_busy(self) -> None:
        """Count the request being answered 503 (busy). Best effort: a cache that cannot
        answer counts nothing."""
        if getattr(self, "key", None) is None or getattr(self, "now", None) is None:
            return  # nothing to count by: no rate, or a client without an address
        try:
            history = self.cache.get(self.key, [])
            history.insert(0, self.now)
            self.cache.set(self.key, history, self.duration)  # type: ignore[attr-defined]
        except CACHE_ERRORS:
            cache_failed(f"throttle busy {self.scope}")


class BusyRefundedView(APIView):
    """An API view the server may refuse as busy (503 `unavailable`, e.g. every
    password-hashing slot taken): such a request is taken back from the caller's throttles.
    A throttle counts what a client asks, not what the server could not do: a player whose
    sign-up met a busy second, and who tries again when asked to, keeps the quota of their
    address, which neighbours behind the same address share. It counts in a second bucket
    per client instead, BUSY_SHARE times as large (`BusyShareThrottle`): past its share of
    busy refusals, an address gets 429."""

    def get_throttles(self) -> list[Any]:
        # DRF's check_throttles asks once per request, each in this order: these are the ones
        # that counted it, and then the busy bucket of each.
        counted = super().get_throttles()
        shares = [
            BusyShareThrottle(throttle)
            for throttle in counted
            if isinstance(throttle, ScopedThrottle) and not isinstance(throttle, CounterThrottle)
        ]
        self.counted_throttles = [*counted, *shares]
        return self.counted_throttles

    def handle_exception(self, exc: Exception) -> Any:
        if isinstance(exc, ApplicationError) and exc.status_code == 503:
            for throttle in getattr(self, "counted_throttles", []):
                if isinstance(throttle, BusyShareThrottle):
                    throttle.count_busy()
                elif isinstance(throttle, ScopedThrottle):
                    throttle.refund()
        return super().handle_exception(exc)


# Per client and window, in this process: [window, shared count when last added, not added yet].
_throttle_counts: ProcessMemo[str, list[int]] = ProcessMemo(max_entries=20_000)
_throttle_lock = threading.Lock()
# A client's requests are added to the shared counter in batches of up to a fiftieth of the
# rate (at most 16): a rate of 50/min or less is counted exactly.
THROTTLE_BATCH_SHARE = 50
THROTTLE_BATCH_MAX = 16


class CounterThrottle(ScopedThrottle):
    """A scoped throttle that counts requests per client and fixed window, in batches.

    DRF's throttle keeps the time of every request in the window and reads and rewrites that
    whole list in the cache on each request: two round trips and a list as long as the rate.
    This one keeps one counter per client and window in the shared cache (`incr` is atomic in
    Redis), and each process adds its requests to it in batches: a client's first request of
    a window here reads the shared count, and then every `batch` requests are added at once.
    So a move costs a cache round trip only now and then. The price: a client may get up to
    batch - 1 requests more per server process in a window, and across a window boundary up
    to twice the rate. It guards the hot moves endpoint against runaway clients; login and
    register, where exactness matters more than speed, keep DRF's sliding window.
    """

    def allow_request(self, request: Any, view: Any) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        num_requests, duration = self.parse_rate(self.rate)
        assert num_requests is not None and duration is not None  # a rate was given
        self.num_requests, self.duration = num_requests, duration
        client_key = self.get_cache_key(request, view)
        if client_key is None:
            return True
        self.now = self.timer()
        window = int(self.now // duration)
        self.window_end = (window + 1) * duration
        batch = max(1, min(THROTTLE_BATCH_MAX, num_requests // THROTTLE_BATCH_SHARE))
        with _throttle_lock:
            counts = _throttle_counts.get(client_key)
            if counts is None or counts[0] != window:
                counts = [window, 0, 0]
                _throttle_counts.put(client_key, counts)
            counts[2] += 1
            if counts[1] and counts[2] < batch:
                return counts[1] + counts[2] <= num_requests
            unsent, counts[2] = counts[2], 0
        shared = self._add(f"{client_key}_{window}", unsent)
        with _throttle_lock:
            counts[1] = max(counts[1], shared)
        return shared <= num_requests

    def _add(self, key: str, n: int) -> int:
        """Add `n` to the shared counter `key` of this window; returns its new value. While
        the shared cache cannot answer, the counter is this process's own."""
        if not cache_paused():
            try:
                return self._add_to(self.cache, key, n)
            except CACHE_ERRORS:
                cache_failed(f"throttle {self.scope}")
        return self._add_to(_process_throttle_cache, key, n)

    def _add_to(self, counters: Any, key: str, n: int) -> int:
        try:
            return int(counters.incr(key, n))
        except ValueError:  # the window's first requests; `add` settles a race for it
            timeout = (self.duration or 0) + 1
            return n if counters.add(key, n, timeout) else int(counters.incr(key, n))

    def wait(self) -> float:
        return max(0.0, self.window_end - self.now)
