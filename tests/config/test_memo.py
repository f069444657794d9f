"""config.memo: the bounded maps kept in one process's memory."""

from __future__ import annotations

from config import memo
from config.memo import ProcessMemo


def test_the_least_recently_used_entry_goes_first():
    kept: ProcessMemo[str, int] = ProcessMemo(max_entries=2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # now "b" is the least recently used
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    assert len(kept) == 2


def test_an_entry_is_forgotten_after_its_time(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(memo.time, "monotonic", lambda: now[0])
    kept: ProcessMemo[str, int] = ProcessMemo(max_entries=10, ttl_s=5)
    kept.put("a", 1)
    now[0] += 4.9
    assert kept.get("a") == 1
    now[0] += 0.2
    assert kept.get("a") is None and len(kept) == 0


def test_discard_and_clear_all():
    one: ProcessMemo[str, int] = ProcessMemo(max_entries=10)
    two: ProcessMemo[str, int] = ProcessMemo(max_entries=10)
    one.put("a", 1)
    one.discard("a")
    one.discard("never there")
    assert one.get("a") is None
    one.put("b", 2)
    two.put("c", 3)
    memo.clear_all()
    assert one.get("b") is None and two.get("c") is None
