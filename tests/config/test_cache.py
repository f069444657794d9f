"""config.cache's best-effort calls: after an error this process leaves the cache alone
for CACHE_PAUSE_S (the calls meeting a real outage: test_redis_outage.py)."""

from __future__ import annotations

from django.core.cache import cache

from config import cache as shared


def _fail() -> None:
    try:
        raise TimeoutError("as if Redis hung")
    except TimeoutError:
        shared.cache_failed("a test")


def test_the_pause_ends_after_its_time(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(shared.time, "monotonic", lambda: now[0])
    _fail()
    now[0] += shared.CACHE_PAUSE_S - 0.1
    assert shared.cache_paused()
    now[0] += 0.2
    assert not shared.cache_paused()


def test_while_paused_the_cache_is_left_alone():
    cache.set("kept", "value", 60)
    _fail()
    assert shared.cache_get("kept") is None  # a miss: the caller asks the database
    shared.cache_set("other", "value", 60)
    assert cache.get("other") is None
    shared.cache_answered()
    assert shared.cache_get("kept") == "value"


def test_a_delete_is_tried_even_while_paused_and_never_raises(monkeypatch):
    cache.set("mark", 1, 60)
    _fail()
    shared.cache_delete("mark")
    assert cache.get("mark") is None  # a mark left behind would outlive its use

    def down(key):
        raise ConnectionError("as if Redis were down")

    monkeypatch.setattr(shared.cache, "delete", down)
    shared.cache_delete("mark")  # best effort: it expires on its own
