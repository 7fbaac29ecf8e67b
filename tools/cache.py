"""`LruCache`: a small thread-safe mapping with a bound, for module-level caches of computed values.

A process that serves many filings would otherwise keep every value it ever computed (labels per document,
hashed term keys); this keeps the `max_items` most recently used and drops the oldest first. A value is a
pure function of its key, so a dropped one is computed again with the same result: bounding changes how
much is kept, never what a lookup returns.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

__all__ = ["LruCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most `max_items` values by key, least recently used dropped first (all methods thread-safe)."""

    def __init__(self, max_items: int):
        if int(max_items) < 1:
            raise ValueError(f"max_items must be at least 1, not {max_items!r}")
        self.max_items = int(max_items)
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value of `key` (now the most recently used), None when it is not kept."""
        with self._lock:
            try:
                self._items.move_to_end(key)
            except KeyError:
                return None
            return self._items[key]

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key`, dropping the least recently used values beyond the bound."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The kept value of `key`, else `compute()` kept and returned (computed outside the lock: two threads
        may both compute a missing key; the value is the same)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        self.put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
