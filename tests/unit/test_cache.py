"""`finrag.tools.cache.LruCache`: the bounded module-cache helper keeps at most `max_items`, drops the least
recently used first, and is safe under threads."""
from __future__ import annotations

import threading

import pytest

from finrag.tools.cache import LruCache


def test_bound_drops_least_recently_used():
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recently used
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2
    cache.put("a", 10)  # a rewrite keeps the size
    assert len(cache) == 2 and cache.get("a") == 10


def test_get_or_compute_computes_once_and_keeps_none_values():
    calls: list[str] = []
    cache: LruCache[str, int | None] = LruCache(4)

    def compute() -> None:
        calls.append("x")
        return None

    assert cache.get_or_compute("k", compute) is None
    assert cache.get_or_compute("k", compute) is None
    assert calls == ["x"] and "k" in cache
    cache.clear()
    assert len(cache) == 0 and cache.get("k") is None


def test_bad_bound_is_a_clear_error():
    with pytest.raises(ValueError, match="max_items must be at least 1"):
        LruCache(0)


def test_threads_never_exceed_the_bound():
    cache: LruCache[int, int] = LruCache(50)

    def work(start: int) -> None:
        for i in range(start, start + 2000):
            cache.get_or_compute(i % 300, lambda i=i: (i % 300) * 2)
            assert len(cache) <= 50

    threads = [threading.Thread(target=work, args=(n * 7,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50
    assert all(cache.get(k) in (None, k * 2) for k in range(300))
