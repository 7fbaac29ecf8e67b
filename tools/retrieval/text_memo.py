"""A value computed from a text, remembered by the text: what a server computes again for the same filing.

A routed filing's chunks and pages come back with the next question about it; the offline reranker's
statement features and word stems of a chunk, and the statement titles of a page, are pure functions of
the text. `TextMemo` keeps them keyed by (an id the caller gives, e.g. the chunk id, the text's length, its
hash), so an id with another text (another index) is computed anew. It is bounded: `size(value)` units
(default 1 per entry) up to `max_units`, and a full memo starts over.
"""
from __future__ import annotations

import threading
from typing import Callable, Generic, Hashable, TypeVar

__all__ = ["TextMemo"]

V = TypeVar("V")


class TextMemo(Generic[V]):
    """`memo(text, ident)`: `compute(text)`, remembered (see the module docstring)."""

    def __init__(self, compute: Callable[[str], V], max_units: int, size: Callable[[V], int] = lambda _v: 1):
        self.compute = compute
        self.max_units = int(max_units)
        self.size = size
        self._values: dict[tuple[Hashable, int, int], V] = {}
        self._units = 0
        self._lock = threading.Lock()

    def __call__(self, text: str, ident: Hashable = None) -> V:
        key = (ident, len(text), hash(text))
        got = self._values.get(key)
        if got is None:
            got = self.compute(text)
            units = self.size(got)
            with self._lock:
                if key in self._values:  # another thread computed it meanwhile
                    return self._values[key]
                if self._units + units > self.max_units:
                    self._values.clear()
                    self._units = 0
                self._values[key] = got
                self._units += units
        return got
