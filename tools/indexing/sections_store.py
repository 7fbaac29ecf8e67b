"""Section labels per chunk in the SQLite store: table `chunk_sections`, one row per chunk.

`save_sections` runs at index time (`index_paths`, after the document's chunks are stored): it detects the
filing's item and note headings (`tools/indexing/sections.py`) and writes each chunk's `item` and `note`.
`sections_of(store, doc_id)` reads them back as {chunk_id: (item, note)}; for a document indexed before this
table existed it detects them from the stored pages and chunks on first use (kept in memory per content hash),
and the next `finrag index` stores them (`backfill_sections`), so old indexes need no rebuild.
"""
from __future__ import annotations

import threading
from typing import Optional

from finrag.tools.indexing.sections import detect_sections, label_chunks

__all__ = ["save_sections", "sections_of", "backfill_sections", "SECTIONS_DDL"]

SECTIONS_DDL = ("CREATE TABLE IF NOT EXISTS chunk_sections(chunk_id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, "
                "content_hash TEXT, item TEXT, note TEXT)")
_INDEX_DDL = "CREATE INDEX IF NOT EXISTS chunk_sections_doc ON chunk_sections(doc_id)"
Labels = dict[int, tuple[Optional[str], Optional[str]]]
_MEMO: dict[tuple[str, str, str], Labels] = {}
_MEMO_LOCK = threading.Lock()


def _detect(pages: list[str], chunk_rows: list[tuple[int, int]]) -> Labels:
    labels = label_chunks(detect_sections(pages), [start for _, start in chunk_rows])
    return {cid: lab for (cid, _), lab in zip(chunk_rows, labels)}


def save_sections(store, doc_id: str, content_hash: str, pages: list[str]) -> int:
    """Detect and store the section labels of `doc_id`'s stored chunks; returns how many chunks are labelled."""
    with store._lock:
        rows = store.conn.execute("SELECT chunk_id, char_start FROM chunks WHERE doc_id=? ORDER BY ord",
                                  (doc_id,)).fetchall()
    labels = _detect(pages, [(int(r[0]), int(r[1] or 0)) for r in rows])
    with store._lock:
        store.conn.execute(SECTIONS_DDL)
        store.conn.execute(_INDEX_DDL)
        store.conn.execute("DELETE FROM chunk_sections WHERE doc_id=?", (doc_id,))
        store.conn.executemany(
            "INSERT OR REPLACE INTO chunk_sections(chunk_id, doc_id, content_hash, item, note) VALUES (?,?,?,?,?)",
            [(cid, doc_id, content_hash, item, note) for cid, (item, note) in labels.items()])
        store.conn.commit()
    return sum(1 for item, note in labels.values() if item or note)


def _from_pages(store, doc_id: str) -> Labels:
    """Labels of a store without the SQLite tables (Milvus): chunks start where their first page starts."""
    from finrag.tools.indexing.chunking import join_pages

    pages = store.pages_of(doc_id)
    chunks = store.get_chunks(int(i) for i in store.chunk_ids_of([doc_id]))
    _, starts = join_pages(pages)
    rows = sorted((cid, starts[min(max(int(c.page_start or 0), 0), len(starts) - 1)] if starts else 0)
                  for cid, c in chunks.items())
    return _detect(pages, rows)


def sections_of(store, doc_id: str) -> Labels:
    """{chunk_id: (item, note)} of `doc_id` (empty for an unknown document or a store without pages)."""
    if not hasattr(store, "_reader"):  # the Milvus store: detected from its pages, kept in memory
        key = (str(getattr(store, "location", "")), doc_id, "")
        with _MEMO_LOCK:
            if key in _MEMO:
                return _MEMO[key]
        try:
            labels = _from_pages(store, doc_id)
        except Exception:  # no pages there: no section preference, never an error
            labels = {}
        with _MEMO_LOCK:
            _MEMO[key] = labels
        return labels
    cache = getattr(store, "read_cache", None)
    if cache is not None:  # the embedded store: remembered until the index changes (read_cache.py)
        return cache.doc_value(("sections", doc_id), store.generation, lambda: _stored_or_detected(store, doc_id))
    return _stored_or_detected(store, doc_id)


def _stored_or_detected(store, doc_id: str) -> Labels:
    """`sections_of` on a store with SQLite: the stored labels, else detected from the pages and remembered."""
    conn = store._reader()
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
    key = (str(getattr(store, "index_dir", "")), doc_id, digest)
    with _MEMO_LOCK:
        if key in _MEMO:
            return _MEMO[key]
    pages = store.pages_of(doc_id)
    rows = conn.execute("SELECT chunk_id, char_start FROM chunks WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
    labels = _detect(pages, [(int(r[0]), int(r[1] or 0)) for r in rows])
    with _MEMO_LOCK:
        _MEMO[key] = labels
    return labels


def backfill_sections(store) -> int:
    """Store the section labels of every document that has none for its current content; returns how many."""
    conn = store._reader()
    try:
        done = {r[0] for r in conn.execute("SELECT DISTINCT s.doc_id FROM chunk_sections s JOIN documents d "
                                           "ON d.doc_id = s.doc_id AND d.content_hash = s.content_hash")}
    except Exception:
        done = set()
    todo = [(r[0], str(r[1] or "")) for r in conn.execute("SELECT doc_id, content_hash FROM documents")
            if r[0] not in done]
    for doc_id, digest in todo:
        save_sections(store, doc_id, digest, store.pages_of(doc_id))
    return len(todo)
