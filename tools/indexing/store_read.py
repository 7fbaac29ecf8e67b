"""The Store's reading side: metadata, documents, pages, chunks, variants' prefixes, stats, and the index-wide
section labels and XBRL facts (`IndexLabels`).

A mixin of `finrag.tools.indexing.store.Store`, which owns the connections: every read goes through this
thread's read connection (`_reader`, WAL: readers never wait for each other or for the writer), and what the
next question reads again (pages, chunks, chunk ids, section labels) is remembered in `read_cache` until the
index changes (`read_cache.py`).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence, cast, overload

import numpy as np

from finrag.state.index_reader import SectionLabels
from finrag.state.schema import DocumentInfo, RetrievedChunk
from finrag.tools.indexing import chunk_text, facts_store, sections_store
from finrag.tools.indexing import vectors as V
from finrag.tools.indexing.facts_store import stale_facts
from finrag.tools.indexing.read_cache import ReadCache
from finrag.tools.indexing.store_schema import VARIANTS, variant_name


class ReadMixin:
    """Reads of `Store` (which provides the connections)."""

    index_dir: Path
    read_cache: ReadCache
    text_in_rows: bool

    if TYPE_CHECKING:  # what `Store` and its other halves provide (declared for the type checker only)
        def _reader(self) -> sqlite3.Connection: ...
        def vector_coverage(self, doc_ids: Sequence[str] | None = None) -> tuple[list[str], int]: ...

    # ------------------------------------------------------------------ meta
    @overload
    def get_meta(self, key: str, default: str) -> str: ...
    @overload
    def get_meta(self, key: str, default: str | None = None) -> str | None: ...
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self._reader().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation", "0"))

    def chunking_params(self) -> tuple[int, int] | None:
        size, overlap = self.get_meta("chunk_size"), self.get_meta("chunk_overlap")
        # check_chunking writes both keys together, so overlap is set whenever size is
        return (int(size), int(cast(str, overlap))) if size is not None else None


    # ------------------------------------------------------------- documents
    def count_documents(self) -> int:
        return self._reader().execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def documents(self) -> list[DocumentInfo]:
        rows = self._reader().execute("SELECT info_json FROM documents ORDER BY doc_id").fetchall()
        return [DocumentInfo.model_validate_json(r[0]) for r in rows]

    def document_hashes(self) -> dict[str, tuple[str, str]]:
        """doc_id -> (content_hash, path)."""
        rows = self._reader().execute("SELECT doc_id, content_hash, path FROM documents").fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def content_hash_of(self, doc_id: str) -> str:
        """The SHA-256 of the filing's file as indexed ('' for an unknown document): what a read of the file's bytes
        checks it against (`file_identity.file_state`)."""
        def read() -> str:
            row = self._reader().execute("SELECT content_hash FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
            return str(row[0] or "") if row else ""

        return self.read_cache.doc_value(("content_hash", doc_id), self.generation, read, size=lambda _h: 1)

    def stale_facts_docs(self) -> set[str]:
        """The documents whose inline-XBRL facts were stored in an older shape (`facts_store.stale_facts`)."""

        return stale_facts(self._reader())


    # ---------------------------------------------------------------- reading
    def pages_of(self, doc_id: str) -> list[str]:
        """The document's page texts in order (remembered until the index changes: treat the list as read-only)."""
        def read() -> list[str]:
            rows = self._reader().execute("SELECT text FROM pages WHERE doc_id=? ORDER BY page_no",
                                          (doc_id,)).fetchall()
            return [r[0] for r in rows]

        return self.read_cache.doc_value(("pages", doc_id), self.generation, read,
                                         size=lambda pages: sum(len(p) for p in pages))

    def document_text(self, doc_id: str) -> str:
        return "\n".join(self.pages_of(doc_id))

    @staticmethod
    def _row_chunk(r, **extra) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=r["chunk_id"], doc_id=r["doc_id"], page_start=r["page_start"],
                              page_end=r["page_end"], text=r["text"], **extra)

    def chunks_of(self, doc_id: str) -> list[RetrievedChunk]:
        rows = chunk_text.read_rows(self._reader(), "doc_id=? ORDER BY ord", (doc_id,), self.text_in_rows)
        return [self._row_chunk(r) for r in rows]

    def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]:
        """The chunks of `chunk_ids` that exist, by id. Remembered until the index changes (`read_cache`):
        the objects are shared, copy one (`model_copy`) before changing it."""
        generation = self.generation
        out, missing = self.read_cache.chunks([int(i) for i in chunk_ids], generation)
        if not missing:
            return out
        read: dict[int, RetrievedChunk] = {}
        conn = self._reader()
        for i in range(0, len(missing), 500):
            part = missing[i : i + 500]
            for r in chunk_text.read_rows(conn, f"chunk_id IN ({','.join('?' * len(part))})", part,
                                          self.text_in_rows):
                read[r["chunk_id"]] = self._row_chunk(r)
        self.read_cache.add_chunks(read, generation, lambda c: c.text)
        out.update(read)
        return out

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        """The chunk ids of `doc_ids`, ascending (a read-only array, remembered until the index changes)."""
        docs = sorted(set(doc_ids))
        if not docs:
            return np.zeros(0, dtype=np.int64)

        def read() -> np.ndarray:
            q = f"SELECT chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(docs))}) ORDER BY chunk_id"
            rows = self._reader().execute(q, docs).fetchall()
            ids = np.array([r[0] for r in rows], dtype=np.int64)
            ids.flags.writeable = False
            return ids

        return self.read_cache.doc_value(("chunk_ids", *docs), self.generation, read)

    def segment_counts(self, doc_ids: Sequence[str]) -> dict[str, int]:
        """Each document's number of segments (what the embed pass encodes), from its chunks' segment spans."""
        wanted = set(doc_ids)
        rows = self._reader().execute("SELECT doc_id, COALESCE(MAX(seg_first + seg_count), COUNT(*)) FROM chunks "
                                      "GROUP BY doc_id")
        return {d: int(n or 0) for d, n in rows if d in wanted}

    # ------------------------------------------------------- labels and facts
    def sections_of(self, doc_id: str) -> SectionLabels:
        """{chunk_id: (item, note)} of `doc_id` (empty for an unknown document): the stored labels, else detected
        from its pages (`sections_store.stored_labels`); remembered until the index changes (`read_cache`)."""
        return self.read_cache.doc_value(
            ("sections", doc_id), self.generation,
            lambda: sections_store.stored_labels(self._reader(), doc_id, str(self.index_dir), self.pages_of))

    def facts_of(self, doc_id: str) -> dict | None:
        """The filing's inline-XBRL facts while they belong to its current content, else None (`facts_store`);
        remembered until the index changes (`read_cache`: a 10-K's facts are ~0.5 MB of JSON, parsed once; treat
        the dict as read-only)."""
        def read() -> dict | None:
            try:
                return facts_store.read_facts(self._reader(), doc_id)
            except Exception:  # the database gone from under a reader: no stored facts, never an error
                return None

        def size(value: dict | None) -> int:  # about the characters of the JSON, as pages count theirs
            return 0 if not value else 200 * (len(value.get("facts") or []) + len(value.get("member_facts") or []))

        value = self.read_cache.doc_value(("facts", doc_id), self.generation, read, size)
        return value if value is not None else read()  # none yet: read again (facts are saved after the document)

    # ---------------------------------------------------------------- variants
    def variant_status(self, variant: str) -> tuple[int, int]:
        """(chunks with a prefix for the variant, all chunks)."""
        conn = self._reader()
        have = conn.execute("SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", (variant,)).fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return have, total

    def missing_prefix_chunks(self, variant: str) -> list[dict]:
        """The chunks without a prefix of `variant`, by document and position, each a dict with its text."""
        return chunk_text.read_rows(
            self._reader(), "chunk_id NOT IN (SELECT chunk_id FROM chunk_prefix WHERE variant = ?) "
            "ORDER BY doc_id, ord", (variant_name(variant),), self.text_in_rows)

    def prefix_of(self, variant: str, chunk_id: int) -> str | None:
        row = self._reader().execute("SELECT prefix FROM chunk_prefix WHERE variant=? AND chunk_id=?",
                                     (variant, chunk_id)).fetchone()
        return row[0] if row else None

    # ------------------------------------------------------------------ stats
    def stats(self) -> dict:
        c = self._reader()
        docs = c.execute("SELECT COUNT(*), COALESCE(SUM(n_pages),0), COALESCE(SUM(n_chars),0) FROM documents").fetchone()
        chunks = c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        variants = {v: c.execute("SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", (v,)).fetchone()[0]
                    for v in VARIANTS[1:]}
        size = sum(f.stat().st_size for f in self.index_dir.iterdir() if f.is_file())
        missing, _ = self.vector_coverage()
        ann = V.read_json(self.index_dir / "ann_base.json")
        return {"index_dir": str(self.index_dir), "documents": docs[0], "pages": docs[1], "chars": docs[2],
                "chunks": chunks, "embedder": self.get_meta("embedder"), "embedding_dim": self.get_meta("embedding_dim"),
                "chunk_size": self.get_meta("chunk_size"), "chunk_overlap": self.get_meta("chunk_overlap"),
                "variants": variants, "size_bytes": size, "generation": self.generation,
                "documents_without_vectors": len(missing), "vector_index": self.get_meta("vector_index") or "auto",
                "ann": {k: ann[k] for k in ("kind", "param", "recall_at_30", "ntotal") if k in ann} or None}
