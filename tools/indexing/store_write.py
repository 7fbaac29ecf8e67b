"""The Store's writing side: metadata, documents (text and postings in one transaction), variants' prefixes, and
the index-wide section labels and XBRL facts.

A mixin of `finrag.tools.indexing.store.Store`, which owns the connections: every write goes through the
Store's own connection (`conn`) under its lock (`_lock`), each one transaction (`BEGIN IMMEDIATE` ... commit,
rolled back on any error). Vector rows follow the text (`store_search.py`: `write_doc_vectors`,
`forget_vector_rows`).
"""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from finrag.state.schema import DocumentInfo
from finrag.tools.indexing import chunk_text, facts_store, lexical, lexical_runs, sections_store
from finrag.tools.indexing.chunking import join_pages
from finrag.tools.indexing.store_schema import (
    SCHEMA_VERSION,
    VARIANTS,
    EmbedderMismatch,
    IndexError_,
    variant_name,
    vec_blob,
)


class WriteMixin:
    """Writes of `Store` (which provides the connections)."""

    index_dir: Path
    conn: sqlite3.Connection
    embedder: Any
    text_in_rows: bool
    _lock: threading.RLock

    if TYPE_CHECKING:  # what `Store` and its other halves provide (declared for the type checker only)
        @property
        def generation(self) -> int: ...
        def _reader(self) -> sqlite3.Connection: ...
        def get_meta(self, key: str, default: str | None = None) -> str | None: ...
        def chunking_params(self) -> tuple[int, int] | None: ...
        def count_documents(self) -> int: ...
        def pages_of(self, doc_id: str) -> list[str]: ...
        def forget_vector_rows(self, doc_id: str) -> None: ...
        def write_doc_vectors(self, doc_id: str, variant: str = "base", fid: str | None = None) -> bool: ...
        def _drop_rows(self, variant: str, docs: dict[str, tuple[int, int]]) -> None: ...

    # ------------------------------------------------------------------ meta
    def _set_meta(self, key: str, value) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))

    def set_meta(self, key: str, value) -> None:
        with self._lock:
            self._set_meta(key, value)
            self.conn.commit()

    def _bump(self, key: str) -> None:
        """Increment a counter in `meta` (inside the caller's write transaction)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        self._set_meta(key, int(row[0] if row else 0) + 1)

    def check_embedder(self, embedder) -> None:
        recorded = self.get_meta("embedder")
        if recorded is None:
            self.set_meta("embedder", embedder.identity)
            self.set_meta("embedding_dim", embedder.dim)
            self.set_meta("schema_version", SCHEMA_VERSION)
        elif recorded != embedder.identity:
            raise EmbedderMismatch(
                f"index {self.index_dir} was built with embedder {recorded!r}, not {embedder.identity!r}; "
                f"use the same embedder or build a new index in another directory")
        self.embedder = embedder

    def check_chunking(self, size: int, overlap: int) -> None:
        params = self.chunking_params()
        if params is None:
            with self._lock:
                self._set_meta("chunk_size", size)
                self._set_meta("chunk_overlap", overlap)
                self.conn.commit()
        elif params != (size, overlap) and self.count_documents():
            raise IndexError_(
                f"index {self.index_dir} uses chunks of {params[0]}/{params[1]} chars, not {size}/{overlap}; "
                "use another --index directory for other chunking")

    # ------------------------------------------------------------- documents
    def replace_document(self, info: DocumentInfo, content_hash: str, pages: list[str], chunks: Sequence,
                         segment_vectors: np.ndarray | None, chunk_segments: Sequence[tuple[int, int]],
                         postings: lexical.Precomputed | None = None) -> None:
        """Insert or replace one document atomically (one transaction): pages, chunks, FTS5, BM25 postings and,
        when given, its segment vectors (`None`: text only; `add_segments` stores them later). `postings`: the
        BM25 postings of these chunks computed beforehand (`lexical.precompute`, in the parse pool)."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                replaced = self._delete_document(info.doc_id)
                self.conn.execute(
                    "INSERT INTO documents(doc_id, path, content_hash, n_pages, n_chars, info_json, indexed_at) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (info.doc_id, info.path, content_hash, len(pages), sum(len(p) for p in pages),
                     info.model_dump_json(), time.time()))
                self.conn.executemany("INSERT INTO pages(doc_id, page_no, text) VALUES (?,?,?)",
                                      [(info.doc_id, i, t) for i, t in enumerate(pages)])
                if segment_vectors is not None:
                    self.conn.executemany(
                        "INSERT INTO segments(doc_id, ord, vec) VALUES (?,?,?)",
                        [(info.doc_id, i, vec_blob(v)) for i, v in enumerate(segment_vectors)])
                ids = self._insert_chunks(info.doc_id, pages, chunks, chunk_segments)
                kept = list(chunks)[:len(ids)]  # a chunk without its segment span is not stored
                lexical.add_document(self.conn, info.doc_id, ids, [c.text for c in kept],
                                     [(c.char_start, c.char_end) for c in kept], pre=postings)
                self._set_meta("generation", self.generation + 1)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        if replaced:
            self.forget_vector_rows(info.doc_id)
        if segment_vectors is not None:
            self.write_doc_vectors(info.doc_id, "base")

    def _insert_chunks(self, doc_id: str, pages: list[str], chunks: Sequence,
                       chunk_segments: Sequence[tuple[int, int]]) -> list[int]:
        """Insert a document's chunks (inside the caller's transaction) and return their ids in order: spans of the
        page text with their FTS5 rows, or, in an index built before schema version 3, rows with their text."""
        cols = "doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count"
        rows = [(doc_id, c.ord, c.page_start, c.page_end, c.char_start, c.char_end, s0, sn)
                for c, (s0, sn) in zip(chunks, chunk_segments)]
        if self.text_in_rows:
            self.conn.executemany(f"INSERT INTO chunks({cols}, text) VALUES (?,?,?,?,?,?,?,?,?)",
                                  [(*r, c.text) for r, c in zip(rows, chunks)])
        else:
            text, starts = join_pages(pages)
            if any(c.text != text[c.char_start:c.char_end] for c in chunks):
                raise IndexError_(f"{doc_id}: a chunk's text is not its span of the page text (chunking.chunk_pages "
                                  "makes chunks of the pages stored with them)")
            self.conn.executemany(f"INSERT INTO chunks({cols}, page_off) VALUES (?,?,?,?,?,?,?,?,?)",
                                  [(*r, c.char_start - starts[c.page_start]) for r, c in zip(rows, chunks)])
        ids = [r[0] for r in self.conn.execute("SELECT chunk_id FROM chunks WHERE doc_id=? ORDER BY chunk_id",
                                               (doc_id,))]
        if not self.text_in_rows:
            chunk_text.fts_add(self.conn, "base", zip(ids, (c.text for c in chunks)))
        return ids

    def update_document_info(self, info: DocumentInfo) -> None:
        with self._lock:
            self.conn.execute("UPDATE documents SET info_json=? WHERE doc_id=?", (info.model_dump_json(), info.doc_id))
            self._bump("info_generation")
            self.conn.commit()

    def _delete_document(self, doc_id: str) -> bool:
        """Delete a document's rows (inside a write transaction); True when it existed."""
        if not self.conn.execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone():
            return False
        lexical.remove_document(self.conn, doc_id)  # reads the chunk texts: before they go
        if not self.text_in_rows:  # contentless FTS5 rows go with the text they were indexed with
            texts = {r[0]: r[3] for r in chunk_text.document_chunks(self.conn, doc_id, False)}
            for variant in VARIANTS[1:]:
                chunk_text.forget_prefixes(self.conn, variant, texts)
            chunk_text.fts_delete(self.conn, "base", texts.items())
        self.conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM segments WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM pages WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
        return True

    def remove_document(self, doc_id: str) -> bool:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                exists = self._delete_document(doc_id)
                if exists:
                    self._set_meta("generation", self.generation + 1)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        if exists:
            self.forget_vector_rows(doc_id)
        return exists

    def flush_lexical(self) -> int:
        """Write the BM25 postings of documents added since the last call into runs (what corpus-wide BM25
        reads; see lexical_runs.py); returns how many documents were written. Search results do not change."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                n = lexical_runs.flush(self.conn)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        return n

    def ensure_lexical(self, log=None) -> int:
        """Write the BM25 postings of documents indexed before they existed (schema 1 indexes); returns how many."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                lexical.drop_stale(self.conn)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        todo = [r[0] for r in self._reader().execute(
            "SELECT doc_id FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM lex_docs) ORDER BY doc_id")]
        for doc_id in todo:
            with self._lock:
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    rows = chunk_text.document_chunks(self.conn, doc_id, self.text_in_rows)
                    if not self.conn.execute("SELECT 1 FROM lex_docs WHERE doc_id=?", (doc_id,)).fetchone():
                        lexical.add_document(self.conn, doc_id, [r[0] for r in rows], [r[3] for r in rows],
                                             [(r[1], r[2]) for r in rows])
                    self.conn.commit()
                except BaseException:
                    self.conn.rollback()
                    raise
        if todo and log:
            log(f"BM25 postings written for {len(todo)} document(s) indexed by an earlier version")
        return len(todo)

    # ------------------------------------------------------- labels and facts
    def save_sections(self, doc_id: str, content_hash: str, pages: list[str]) -> int:
        """Detect and store the section labels of `doc_id`'s stored chunks; returns how many chunks are labelled."""
        with self._lock:
            rows = sections_store.chunk_starts(self.conn, doc_id)
        labels = sections_store.detect_labels(pages, rows)
        with self._lock:
            sections_store.write_labels(self.conn, doc_id, content_hash, labels)
            self.conn.commit()
        return sum(1 for item, note in labels.values() if item or note)

    def backfill_sections(self) -> int:
        """Store the section labels of every document that has none for its current content; returns how many."""
        conn = self._reader()
        try:
            done = {r[0] for r in conn.execute("SELECT DISTINCT s.doc_id FROM chunk_sections s JOIN documents d "
                                               "ON d.doc_id = s.doc_id AND d.content_hash = s.content_hash")}
        except Exception:
            done = set()
        todo = [(r[0], str(r[1] or "")) for r in conn.execute("SELECT doc_id, content_hash FROM documents")
                if r[0] not in done]
        for doc_id, digest in todo:
            self.save_sections(doc_id, digest, self.pages_of(doc_id))
        return len(todo)

    def save_facts(self, doc_id: str, content_hash: str, data: Optional[dict]) -> None:
        """Store (or, with `data` None, delete) the inline-XBRL facts of `doc_id` (`facts_store`)."""
        with self._lock:
            facts_store.write_facts(self.conn, doc_id, content_hash, data)
            self.conn.commit()

    # ---------------------------------------------------------------- variants
    def add_prefixes(self, variant: str, rows: Sequence[tuple[int, str, np.ndarray | None]]) -> None:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                texts: dict[int, str] = {}
                if not self.text_in_rows:  # a replaced prefix's FTS5 row goes before the new one is written
                    texts = chunk_text.texts_of(self.conn, [cid for cid, _, _ in rows], False)
                    chunk_text.forget_prefixes(self.conn, variant_name(variant), texts)
                self.conn.executemany(
                    "INSERT OR REPLACE INTO chunk_prefix(variant, chunk_id, prefix, vec) VALUES (?,?,?,?)",
                    [(variant_name(variant), cid, prefix, None if vec is None else vec_blob(vec))
                     for cid, prefix, vec in rows])
                if not self.text_in_rows:
                    chunk_text.fts_add(self.conn, variant, [(cid, chunk_text.prefixed(prefix, texts[cid]))
                                                            for cid, prefix, _ in rows if cid in texts])
                self._bump("prefix_generation")
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def delete_prefixes(self, variant: str, doc_ids: Sequence[str] | None = None) -> None:
        """Forget a variant's prefixes (of some documents, or all): they are rebuilt on the next run, and so are
        the variant's vectors of those documents."""
        recorded = self._reader().execute("SELECT doc_id, lo, hi FROM vec_rows WHERE variant=?",
                                          (variant_name(variant),)).fetchall()
        stale = {r[0]: (r[1], r[2]) for r in recorded if doc_ids is None or r[0] in set(doc_ids)}
        if stale:
            self._drop_rows(variant, stale)
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                if not self.text_in_rows:  # their FTS5 rows first, with the text they were indexed with
                    self._forget_prefix_rows(variant_name(variant), doc_ids)
                if doc_ids is None:
                    self.conn.execute("DELETE FROM chunk_prefix WHERE variant=?", (variant_name(variant),))
                else:
                    for d in doc_ids:
                        self.conn.execute("DELETE FROM chunk_prefix WHERE variant=? AND chunk_id IN "
                                          "(SELECT chunk_id FROM chunks WHERE doc_id=?)", (variant_name(variant), d))
                self._bump("prefix_generation")
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def _forget_prefix_rows(self, variant: str, doc_ids: Sequence[str] | None) -> None:
        """Remove the FTS5 rows of a variant's prefixes (of some documents, or all) before the prefixes go."""
        for doc_id in (doc_ids if doc_ids is not None else [r[0] for r in self.conn.execute(
                "SELECT DISTINCT c.doc_id FROM chunk_prefix p JOIN chunks c ON c.chunk_id = p.chunk_id "
                "WHERE p.variant=?", (variant,))]):
            texts = {r[0]: r[3] for r in chunk_text.document_chunks(self.conn, doc_id, False)}
            chunk_text.forget_prefixes(self.conn, variant, texts)
