"""Section labels per chunk: table `chunk_sections` of the SQLite store, one row per chunk, and what every other
reader falls back to.

`Store.save_sections` runs at index time (`index_paths`, after the document's chunks are stored): it detects the
filing's item and note headings (`tools/indexing/sections.py`) and writes each chunk's `item` and `note`
(`write_labels`). `Store.sections_of(doc_id)` reads them back as {chunk_id: (item, note)} (`stored_labels`); for a
document indexed before this table existed it detects them from the stored pages and chunks on first use (kept in
a bounded memory per content hash), and the next `finrag index` stores them (`Store.backfill_sections`), so old
indexes need no rebuild. `MilvusStore.sections_of` detects them from its pages (`labels_from_pages`), remembered
per location.

`sections_of(reader, doc_id)` is the query path's entry: a backend's own `sections_of` (`IndexLabels`), else, for
a reader that has only the `IndexReader` members (one a caller handed in), the labels detected from its pages.
"""
from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Callable

from finrag.state.index_reader import IndexLabels, IndexReader, SectionLabels
from finrag.tools.cache import LruCache
from finrag.tools.indexing.chunking import join_pages
from finrag.tools.indexing.sections import detect_sections, label_chunks

if TYPE_CHECKING:
    from finrag.tools.indexing.store import Store

__all__ = ["save_sections", "sections_of", "backfill_sections", "labels_from_pages", "stored_labels",
           "detect_labels", "write_labels", "remembered", "SECTIONS_DDL", "Labels"]

SECTIONS_DDL = ("CREATE TABLE IF NOT EXISTS chunk_sections(chunk_id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, "
                "content_hash TEXT, item TEXT, note TEXT)")
_INDEX_DDL = "CREATE INDEX IF NOT EXISTS chunk_sections_doc ON chunk_sections(doc_id)"
Labels = SectionLabels
MEMO_DOCUMENTS = 512  # documents whose detected labels are remembered (a few hundred chunks each)
_MEMO: LruCache[tuple[str, str, str], Labels] = LruCache(MEMO_DOCUMENTS)


def remembered(key: tuple[str, str, str], compute: Callable[[], Labels]) -> Labels:
    """The detected labels of (location, doc_id, content hash), computed once while remembered."""
    return _MEMO.get_or_compute(key, compute)


def detect_labels(pages: list[str], chunk_rows: list[tuple[int, int]]) -> Labels:
    """Labels of chunks given as (chunk id, character start in the joined pages), from the pages' headings."""
    labels = label_chunks(detect_sections(pages), [start for _, start in chunk_rows])
    return {cid: lab for (cid, _), lab in zip(chunk_rows, labels)}


def chunk_starts(conn: sqlite3.Connection, doc_id: str) -> list[tuple[int, int]]:
    """(chunk id, character start) of a document's chunks in the SQLite store, in order."""
    rows = conn.execute("SELECT chunk_id, char_start FROM chunks WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
    return [(int(r[0]), int(r[1] or 0)) for r in rows]


def write_labels(conn: sqlite3.Connection, doc_id: str, content_hash: str, labels: Labels) -> None:
    """Replace a document's rows of `chunk_sections` (inside the caller's write, which commits)."""
    conn.execute(SECTIONS_DDL)
    conn.execute(_INDEX_DDL)
    conn.execute("DELETE FROM chunk_sections WHERE doc_id=?", (doc_id,))
    conn.executemany(
        "INSERT OR REPLACE INTO chunk_sections(chunk_id, doc_id, content_hash, item, note) VALUES (?,?,?,?,?)",
        [(cid, doc_id, content_hash, item, note) for cid, (item, note) in labels.items()])


def stored_labels(conn: sqlite3.Connection, doc_id: str, location: str,
                  pages_of: Callable[[str], list[str]]) -> Labels:
    """The labels of `doc_id` in the SQLite store: the stored ones, else detected from its pages and remembered
    (per `location`, document and content hash); empty for an unknown document."""
    try:
        row = conn.execute("SELECT content_hash FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
    except Exception:
        return {}
    if not row:
        return {}
    digest = str(row[0] or "")
    try:
        stored = conn.execute("SELECT chunk_id, item, note FROM chunk_sections WHERE doc_id=? AND content_hash=?",
                              (doc_id, digest)).fetchall()
    except Exception:  # an index built before this table existed
        stored = []
    if stored:
        return {int(r[0]): (r[1], r[2]) for r in stored}
    return remembered((location, doc_id, digest), lambda: detect_labels(pages_of(doc_id), chunk_starts(conn, doc_id)))


def labels_from_pages(reader: IndexReader, doc_id: str) -> Labels:
    """Labels of a reader without the SQLite tables (Milvus, a reader handed in): chunks start where their first
    page starts; empty when it has no pages there (never an error)."""

    try:
        pages = reader.pages_of(doc_id)
        chunks = reader.get_chunks(int(i) for i in reader.chunk_ids_of([doc_id]))
        _, starts = join_pages(pages)
        rows = sorted((cid, starts[min(max(int(c.page_start or 0), 0), len(starts) - 1)] if starts else 0)
                      for cid, c in chunks.items())
        return detect_labels(pages, rows)
    except Exception:  # no pages there: no section preference, never an error
        return {}


def sections_of(reader: IndexReader, doc_id: str) -> Labels:
    """{chunk_id: (item, note)} of `doc_id` (empty for an unknown document or a reader without pages): the
    backend's `sections_of`, else detected from the reader's pages."""
    if isinstance(reader, IndexLabels):
        return reader.sections_of(doc_id)
    return labels_from_pages(reader, doc_id)


def save_sections(store: Store, doc_id: str, content_hash: str, pages: list[str]) -> int:
    """`store.save_sections`: detect and store the section labels of `doc_id`'s chunks; how many are labelled."""
    return store.save_sections(doc_id, content_hash, pages)


def backfill_sections(store: Store) -> int:
    """`store.backfill_sections`: label every document that has no labels for its current content; how many."""
    return store.backfill_sections()
