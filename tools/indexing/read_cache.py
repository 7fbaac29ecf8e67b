"""What a serving process reads again and again from one index, remembered until the index changes.

A question routed to a filing reads that filing's chunks (an open question: all ~400 of them), its chunk ids
in order and its pages; the next question about the same filing reads them again. `ReadCache` keeps them in
memory, keyed by the index's `generation` (bumped in the same SQLite transaction that adds or removes a
document, so another process's `finrag index` is seen by the next read):

* chunks by id, least recently used first out, bounded by their total text (`max_chars`);
* per-document values (chunk ids, pages, section labels), bounded by their size (`max_doc_units`: characters
  of pages, entries of the others) and by `max_docs` entries. A server cycling through more filings than the
  bounds hold reads the least recently used ones again; the bounds hold the 168 FinanceBench filings' pages.

A value read under one generation is only stored while the cache is still at that generation, so a reader
that raced a change never leaves a stale value behind. The cached objects are shared between requests:
callers copy them (`model_copy`, `model_dump`) before changing anything, as the store's searches do.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Iterable

__all__ = ["ReadCache", "DEFAULT_MAX_CHARS", "DEFAULT_MAX_DOC_UNITS", "DEFAULT_MAX_DOCS"]

DEFAULT_MAX_CHARS = 48_000_000  # chunk text kept in memory (about 100-150 MB with the objects around it)
DEFAULT_MAX_DOC_UNITS = 64_000_000  # per-document values: page characters (a 500-page filing has about 2M)
DEFAULT_MAX_DOCS = 2048


class ReadCache:
    """Chunks and per-document values of one index at one generation (see the module docstring)."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS, max_doc_units: int = DEFAULT_MAX_DOC_UNITS,
                 max_docs: int = DEFAULT_MAX_DOCS):
        self.max_chars = int(max_chars)
        self.max_doc_units = int(max_doc_units)
        self.max_docs = int(max_docs)
        self._lock = threading.Lock()
        self._generation: Any = None
        self._chunks: OrderedDict[int, Any] = OrderedDict()
        self._chars = 0
        self._docs: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()  # key -> (value, size)
        self._doc_units = 0

    def _at(self, generation: Any) -> None:
        """Forget everything read under another generation (the caller holds the lock)."""
        if generation != self._generation:
            self._generation = generation
            self._chunks.clear()
            self._docs.clear()
            self._chars = 0
            self._doc_units = 0

    def chunks(self, ids: Iterable[int], generation: Any) -> tuple[dict[int, Any], list[int]]:
        """(the cached chunks among `ids`, the ids to read from the index), in the order of `ids`."""
        found: dict[int, Any] = {}
        missing: list[int] = []
        with self._lock:
            self._at(generation)
            for i in ids:
                c = self._chunks.get(i)
                if c is None:
                    missing.append(i)
                else:
                    self._chunks.move_to_end(i)
                    found[i] = c
        return found, missing

    def add_chunks(self, chunks: dict[int, Any], generation: Any, text: Callable[[Any], str]) -> None:
        """Remember `chunks` (read under `generation`); the least recently used go when `max_chars` is passed."""
        if self.max_chars <= 0:
            return
        with self._lock:
            if generation != self._generation:
                return
            for i, c in chunks.items():
                if i in self._chunks:
                    continue
                self._chunks[i] = c
                self._chars += len(text(c))
            while self._chars > self.max_chars and self._chunks:
                _, old = self._chunks.popitem(last=False)
                self._chars -= len(text(old))

    def doc_value(self, key: Hashable, generation: Any, read: Callable[[], Any],
                  size: Callable[[Any], int] = len) -> Any:
        """The value of `key` (a document's chunk ids, pages, section labels) at `generation`: remembered, else
        `read()`; `size(value)` counts against `max_doc_units` (default: its length)."""
        with self._lock:
            self._at(generation)
            got = self._docs.get(key)
            if got is not None:
                self._docs.move_to_end(key)
                return got[0]
        value = read()
        units = int(size(value))
        if self.max_docs > 0 and units <= self.max_doc_units:
            with self._lock:
                if generation == self._generation and key not in self._docs:
                    self._docs[key] = (value, units)
                    self._doc_units += units
                    while len(self._docs) > self.max_docs or self._doc_units > self.max_doc_units:
                        self._doc_units -= self._docs.popitem(last=False)[1][1]
        return value

    def clear(self) -> None:
        with self._lock:
            self._generation = None
            self._chunks.clear()
            self._docs.clear()
            self._chars = 0
            self._doc_units = 0
