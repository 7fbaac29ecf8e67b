"""The index: one SQLite database (documents, pages, chunks, FTS5) and FAISS files.

SQLite is the source of truth. It holds the page texts, the chunks, an FTS5
index kept in sync by triggers (BM25 ranking), and the *segment* embeddings
(see tools/chunking.py), so the FAISS indexes are derived data: each is an
`IndexIDMap2` over chunk ids, saved atomically (temp file + rename) with the
generation of the database it was built from. A crash or Ctrl-C between a
database commit and a FAISS save leaves a stale FAISS file, which is detected
by its generation and rebuilt from SQLite without re-embedding anything.

Variants (CBR+Meta `meta`, CBR+LLM-Ctx `llmctx`) live in the same database:
a `chunk_prefix` row per chunk and variant, an external-content FTS5 table over
`prefix + text`, and their own FAISS file whose vectors add the prefix's
embedding to the chunk's segments.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from finrag.state.configuration import resolve_index_dir
from finrag.state.schema import DocumentInfo, RetrievedChunk

SCHEMA_VERSION = 1
VARIANTS = ("base", "meta", "llmctx")
DB_NAME = "finrag.sqlite"


class IndexError_(RuntimeError):
    """Base class for index problems users should see as one clear line."""


class IndexMissing(IndexError_):
    pass


class EmbedderMismatch(IndexError_):
    pass


class VariantMissing(IndexError_):
    pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS documents(
  doc_id TEXT PRIMARY KEY, path TEXT, content_hash TEXT, n_pages INTEGER, n_chars INTEGER,
  info_json TEXT, indexed_at REAL);
CREATE TABLE IF NOT EXISTS pages(
  doc_id TEXT, page_no INTEGER, text TEXT, PRIMARY KEY(doc_id, page_no)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunks(
  chunk_id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, ord INTEGER,
  page_start INTEGER, page_end INTEGER, char_start INTEGER, char_end INTEGER,
  seg_first INTEGER, seg_count INTEGER, text TEXT);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS segments(
  doc_id TEXT, ord INTEGER, vec BLOB, PRIMARY KEY(doc_id, ord)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunk_prefix(
  variant TEXT, chunk_id INTEGER, prefix TEXT, vec BLOB, PRIMARY KEY(variant, chunk_id)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, content='chunks', content_rowid='chunk_id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, text) VALUES (new.chunk_id, new.text); END;
CREATE TRIGGER IF NOT EXISTS chunks_bd BEFORE DELETE ON chunks BEGIN
  DELETE FROM chunk_prefix WHERE chunk_id = old.chunk_id; END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.chunk_id, old.text); END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.chunk_id, old.text);
  INSERT INTO chunks_fts(rowid, text) VALUES (new.chunk_id, new.text); END;
"""

_VARIANT_SCHEMA = """
CREATE VIEW IF NOT EXISTS chunks_{v}_v AS
  SELECT c.chunk_id AS chunk_id, p.prefix || char(10) || c.text AS text
  FROM chunks c JOIN chunk_prefix p ON p.chunk_id = c.chunk_id AND p.variant = '{v}';
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_{v} USING fts5(
  text, content='chunks_{v}_v', content_rowid='chunk_id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS chunk_prefix_ai_{v} AFTER INSERT ON chunk_prefix WHEN new.variant = '{v}' BEGIN
  INSERT INTO chunks_fts_{v}(rowid, text)
    SELECT new.chunk_id, new.prefix || char(10) || text FROM chunks WHERE chunk_id = new.chunk_id; END;
CREATE TRIGGER IF NOT EXISTS chunk_prefix_bd_{v} BEFORE DELETE ON chunk_prefix WHEN old.variant = '{v}' BEGIN
  INSERT INTO chunks_fts_{v}(chunks_fts_{v}, rowid, text)
    SELECT 'delete', old.chunk_id, old.prefix || char(10) || text FROM chunks WHERE chunk_id = old.chunk_id; END;
"""

_FTS_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.&'-]*")
_FTS_STOP = frozenset(
    "a an and are as at be by did do does for from has have how in is it its of on or than that the their "
    "this to was were what when which who why will with".split()
)


def fts_query(text: str, max_terms: int = 32) -> str:
    """Turn free text into a safe FTS5 OR-query of quoted terms (no syntax injection)."""
    seen, terms = set(), []
    for tok in _FTS_TOKEN.findall(text or ""):
        tok = tok.strip(".'-&").lower()
        if not tok or tok in _FTS_STOP or tok in seen:
            continue
        seen.add(tok)
        terms.append('"' + tok.replace('"', "") + '"')
        if len(terms) >= max_terms:
            break
    return " OR ".join(terms)


def _vec_blob(v: np.ndarray) -> bytes:
    return np.asarray(v, dtype=np.float32).tobytes()


def _blob_vec(b: bytes) -> np.ndarray:
    return np.frombuffer(b, dtype=np.float32)


class Store:
    """Owns the SQLite connection and the FAISS indexes of one index directory."""

    def __init__(self, index_dir: str | Path | None = None, embedder=None, create: bool = False):
        self.index_dir = resolve_index_dir(index_dir)
        db_path = self.index_dir / DB_NAME
        if not db_path.exists():
            if not create:
                raise IndexMissing(
                    f"no finrag index at {self.index_dir} (run `finrag index PATH --index {self.index_dir}` first)")
            self.index_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = db_path
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(str(db_path), check_same_thread=False, timeout=30)
        self.conn.row_factory = sqlite3.Row
        with self._lock:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(_SCHEMA)
            for v in VARIANTS[1:]:
                self.conn.executescript(_VARIANT_SCHEMA.format(v=v))
            self.conn.commit()
        self.embedder = embedder
        self._faiss: dict[str, object] = {}
        if embedder is not None:
            self.check_embedder(embedder)

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def _set_meta(self, key: str, value) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))

    def set_meta(self, key: str, value) -> None:
        with self._lock:
            self._set_meta(key, value)
            self.conn.commit()

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation", "0"))

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

    def chunking_params(self) -> tuple[int, int] | None:
        size, overlap = self.get_meta("chunk_size"), self.get_meta("chunk_overlap")
        return (int(size), int(overlap)) if size is not None else None

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
    def count_documents(self) -> int:
        with self._lock:
            return self.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def documents(self) -> list[DocumentInfo]:
        with self._lock:
            rows = self.conn.execute("SELECT info_json FROM documents ORDER BY doc_id").fetchall()
        return [DocumentInfo.model_validate_json(r[0]) for r in rows]

    def document_hashes(self) -> dict[str, tuple[str, str]]:
        """doc_id -> (content_hash, path)."""
        with self._lock:
            rows = self.conn.execute("SELECT doc_id, content_hash, path FROM documents").fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def replace_document(self, info: DocumentInfo, content_hash: str, pages: list[str],
                         chunks: Sequence, segment_vectors: np.ndarray, chunk_segments: Sequence[tuple[int, int]]) -> None:
        """Insert or replace one document atomically (one transaction)."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self._delete_document(info.doc_id)
                self.conn.execute(
                    "INSERT INTO documents(doc_id, path, content_hash, n_pages, n_chars, info_json, indexed_at) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (info.doc_id, info.path, content_hash, len(pages), sum(len(p) for p in pages),
                     info.model_dump_json(), time.time()))
                self.conn.executemany("INSERT INTO pages(doc_id, page_no, text) VALUES (?,?,?)",
                                      [(info.doc_id, i, t) for i, t in enumerate(pages)])
                self.conn.executemany(
                    "INSERT INTO segments(doc_id, ord, vec) VALUES (?,?,?)",
                    [(info.doc_id, i, _vec_blob(v)) for i, v in enumerate(segment_vectors)])
                self.conn.executemany(
                    "INSERT INTO chunks(doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count, text) "
                    "VALUES (?,?,?,?,?,?,?,?,?)",
                    [(info.doc_id, c.ord, c.page_start, c.page_end, c.char_start, c.char_end, s0, sn, c.text)
                     for c, (s0, sn) in zip(chunks, chunk_segments)])
                self._set_meta("generation", self.generation + 1)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def update_document_info(self, info: DocumentInfo) -> None:
        with self._lock:
            self.conn.execute("UPDATE documents SET info_json=? WHERE doc_id=?", (info.model_dump_json(), info.doc_id))
            self.conn.commit()

    def _delete_document(self, doc_id: str) -> None:
        self.conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM segments WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM pages WHERE doc_id=?", (doc_id,))
        self.conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))

    def remove_document(self, doc_id: str) -> bool:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                exists = self.conn.execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
                if exists:
                    self._delete_document(doc_id)
                    self._set_meta("generation", self.generation + 1)
                self.conn.commit()
                return bool(exists)
            except BaseException:
                self.conn.rollback()
                raise

    # ---------------------------------------------------------------- reading
    def pages_of(self, doc_id: str) -> list[str]:
        with self._lock:
            rows = self.conn.execute("SELECT text FROM pages WHERE doc_id=? ORDER BY page_no", (doc_id,)).fetchall()
        return [r[0] for r in rows]

    def document_text(self, doc_id: str) -> str:
        return "\n".join(self.pages_of(doc_id))

    @staticmethod
    def _row_chunk(r, **extra) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=r["chunk_id"], doc_id=r["doc_id"], page_start=r["page_start"],
                              page_end=r["page_end"], text=r["text"], **extra)

    def chunks_of(self, doc_id: str) -> list[RetrievedChunk]:
        with self._lock:
            rows = self.conn.execute("SELECT * FROM chunks WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
        return [self._row_chunk(r) for r in rows]

    def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]:
        ids = list(chunk_ids)
        out: dict[int, RetrievedChunk] = {}
        with self._lock:
            for i in range(0, len(ids), 500):
                part = ids[i : i + 500]
                q = f"SELECT * FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})"
                for r in self.conn.execute(q, part).fetchall():
                    out[r["chunk_id"]] = self._row_chunk(r)
        return out

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        docs = list(doc_ids)
        if not docs:
            return np.zeros(0, dtype=np.int64)
        with self._lock:
            q = f"SELECT chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(docs))})"
            rows = self.conn.execute(q, docs).fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    def search_fts(self, query: str, k: int = 20, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> list[RetrievedChunk]:
        """BM25 over the chunk text (or the variant's prefixed text), optionally scoped to documents."""
        match = fts_query(query)
        if not match or k <= 0:
            return []
        table = "chunks_fts" if variant == "base" else f"chunks_fts_{_variant(variant)}"
        sql = (f"SELECT c.*, bm25({table}) AS bm25 FROM {table} JOIN chunks c ON c.chunk_id = {table}.rowid "
               f"WHERE {table} MATCH ?")
        params: list = [match]
        if doc_ids is not None:
            if not doc_ids:
                return []
            sql += f" AND c.doc_id IN ({','.join('?' * len(doc_ids))})"
            params.extend(doc_ids)
        sql += f" ORDER BY bm25({table}) LIMIT ?"
        params.append(int(k))
        with self._lock:
            rows = self.conn.execute(sql, params).fetchall()
        out = []
        for rank, r in enumerate(rows, 1):
            chunk = self._row_chunk(r, score=-float(r["bm25"]), fts_rank=rank)
            out.append(chunk)
        return out

    # ----------------------------------------------------------------- FAISS
    def _faiss_path(self, variant: str) -> Path:
        return self.index_dir / f"faiss_{_variant(variant)}.index"

    def _segment_matrix(self, doc_id: str) -> np.ndarray:
        rows = self.conn.execute("SELECT vec FROM segments WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
        return np.stack([_blob_vec(r[0]) for r in rows]) if rows else np.zeros((0, 0), np.float32)

    def chunk_vectors(self, variant: str = "base", progress: bool = False):
        """Yield (chunk_ids, vectors) per document, computed from stored segments (+ prefixes)."""
        from finrag.tools.indexing.embedders import normalize

        prefix_vecs = self._prefix_vectors(variant) if variant != "base" else {}
        with self._lock:
            doc_ids = [r[0] for r in self.conn.execute("SELECT doc_id FROM documents ORDER BY doc_id")]
        for doc_id in doc_ids:
            with self._lock:
                segs = self._segment_matrix(doc_id)
                rows = self.conn.execute(
                    "SELECT chunk_id, seg_first, seg_count FROM chunks WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
            if not rows or segs.size == 0:
                continue
            ids, vecs = [], []
            for cid, s0, sn in rows:
                parts = [segs[s0 : s0 + max(sn, 1)]]
                if variant != "base":
                    pv = prefix_vecs.get(cid)
                    if pv is None:
                        raise VariantMissing(f"variant {variant!r} has no prefix for chunk {cid} of {doc_id}")
                    parts.append(pv[None, :])
                ids.append(cid)
                vecs.append(np.concatenate(parts).mean(axis=0))
            yield np.array(ids, dtype=np.int64), normalize(np.stack(vecs))

    def _prefix_vectors(self, variant: str) -> dict[int, np.ndarray]:
        with self._lock:
            rows = self.conn.execute("SELECT chunk_id, prefix, vec FROM chunk_prefix WHERE variant=?",
                                     (variant,)).fetchall()
        missing = sorted({r["prefix"] for r in rows if r["vec"] is None})
        cache: dict[str, np.ndarray] = {}
        if missing:
            if self.embedder is None:
                raise IndexError_("an embedder is needed to build variant vectors")
            for text, vec in zip(missing, self.embedder.embed_documents(missing)):
                cache[text] = vec
        return {r["chunk_id"]: (_blob_vec(r["vec"]) if r["vec"] is not None else cache[r["prefix"]]) for r in rows}

    def build_faiss(self, variant: str = "base"):
        import faiss

        dim = int(self.get_meta("embedding_dim", "0") or 0)
        if not dim:
            raise IndexError_("index has no embedding dimension recorded (empty index?)")
        generation = self.generation
        index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        for ids, vecs in self.chunk_vectors(variant):
            index.add_with_ids(vecs, ids)
        path = self._faiss_path(variant)
        tmp = path.with_suffix(".tmp")
        faiss.write_index(index, str(tmp))
        os.replace(tmp, path)
        side = path.with_suffix(".json")
        tmp_side = side.with_suffix(".json.tmp")
        tmp_side.write_text(json.dumps({"generation": generation, "ntotal": int(index.ntotal),
                                        "embedder": self.get_meta("embedder")}))
        os.replace(tmp_side, side)
        self._faiss[variant] = index
        return index

    def faiss_is_current(self, variant: str = "base") -> bool:
        side = self._faiss_path(variant).with_suffix(".json")
        if not side.exists() or not self._faiss_path(variant).exists():
            return False
        try:
            meta = json.loads(side.read_text())
        except (OSError, ValueError):
            return False
        return meta.get("generation") == self.generation and meta.get("embedder") == self.get_meta("embedder")

    def variant_status(self, variant: str) -> tuple[int, int]:
        """(chunks with a prefix for the variant, all chunks)."""
        with self._lock:
            have = self.conn.execute("SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", (variant,)).fetchone()[0]
            total = self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return have, total

    def faiss_index(self, variant: str = "base"):
        import faiss

        variant = _variant(variant)
        with self._lock:
            index = self._faiss.get(variant)
            if index is not None and self.faiss_is_current(variant):
                return index
            if variant != "base":
                have, total = self.variant_status(variant)
                if have < total:
                    raise VariantMissing(
                        f"index variant {variant!r} covers {have} of {total} chunks; build it with "
                        f"`finrag index --variant {variant} --index {self.index_dir}`")
            if self.faiss_is_current(variant):
                index = faiss.read_index(str(self._faiss_path(variant)))
                self._faiss[variant] = index
                return index
            return self.build_faiss(variant)

    def search_vectors(self, vector: np.ndarray, k: int = 30, doc_ids: Sequence[str] | None = None,
                       variant: str = "base", max_distance: float | None = None) -> list[RetrievedChunk]:
        """Inner-product search over unit vectors; `distance` is the L2 distance sqrt(2 - 2 cos)."""
        import faiss

        if k <= 0:
            return []
        index = self.faiss_index(variant)
        params = None
        if doc_ids is not None:
            allowed = self.chunk_ids_of(doc_ids)
            if allowed.size == 0:
                return []
            params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(allowed))
            k = min(k, int(allowed.size))
        q = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        sims, ids = index.search(q, int(k), params=params)
        hits = [(int(i), float(s)) for i, s in zip(ids[0], sims[0]) if i >= 0]
        chunks = self.get_chunks([i for i, _ in hits])
        out = []
        for rank, (cid, sim) in enumerate(hits, 1):
            dist = float(np.sqrt(max(0.0, 2.0 - 2.0 * sim)))
            if max_distance is not None and dist > max_distance:
                continue
            c = chunks.get(cid)
            if c is None:
                continue
            out.append(c.model_copy(update={"score": sim, "vector_rank": rank, "vector_distance": dist}))
        return out

    # ---------------------------------------------------------------- variants
    def missing_prefix_chunks(self, variant: str) -> list[sqlite3.Row]:
        with self._lock:
            return self.conn.execute(
                "SELECT c.chunk_id, c.doc_id, c.ord, c.page_start, c.char_start, c.text FROM chunks c "
                "LEFT JOIN chunk_prefix p ON p.chunk_id = c.chunk_id AND p.variant = ? "
                "WHERE p.chunk_id IS NULL ORDER BY c.doc_id, c.ord", (_variant(variant),)).fetchall()

    def add_prefixes(self, variant: str, rows: Sequence[tuple[int, str, np.ndarray | None]]) -> None:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.executemany(
                    "INSERT OR REPLACE INTO chunk_prefix(variant, chunk_id, prefix, vec) VALUES (?,?,?,?)",
                    [(_variant(variant), cid, prefix, None if vec is None else _vec_blob(vec))
                     for cid, prefix, vec in rows])
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def delete_prefixes(self, variant: str, doc_ids: Sequence[str] | None = None) -> None:
        """Forget a variant's prefixes (of some documents, or all): they are rebuilt on the next run."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                if doc_ids is None:
                    self.conn.execute("DELETE FROM chunk_prefix WHERE variant=?", (_variant(variant),))
                else:
                    for d in doc_ids:
                        self.conn.execute("DELETE FROM chunk_prefix WHERE variant=? AND chunk_id IN "
                                          "(SELECT chunk_id FROM chunks WHERE doc_id=?)", (_variant(variant), d))
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def prefix_of(self, variant: str, chunk_id: int) -> str | None:
        with self._lock:
            row = self.conn.execute("SELECT prefix FROM chunk_prefix WHERE variant=? AND chunk_id=?",
                                    (variant, chunk_id)).fetchone()
        return row[0] if row else None

    # ------------------------------------------------------------------ stats
    def stats(self) -> dict:
        with self._lock:
            c = self.conn
            docs = c.execute("SELECT COUNT(*), COALESCE(SUM(n_pages),0), COALESCE(SUM(n_chars),0) FROM documents").fetchone()
            chunks = c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
            variants = {v: c.execute("SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", (v,)).fetchone()[0]
                        for v in VARIANTS[1:]}
        size = sum(f.stat().st_size for f in self.index_dir.iterdir() if f.is_file())
        return {"index_dir": str(self.index_dir), "documents": docs[0], "pages": docs[1], "chars": docs[2],
                "chunks": chunks, "embedder": self.get_meta("embedder"), "embedding_dim": self.get_meta("embedding_dim"),
                "chunk_size": self.get_meta("chunk_size"), "chunk_overlap": self.get_meta("chunk_overlap"),
                "variants": variants, "size_bytes": size, "generation": self.generation}

    def close(self) -> None:
        with self._lock:
            self.conn.close()


def _variant(name: str) -> str:
    if name not in VARIANTS:
        raise ValueError(f"unknown index variant {name!r}; expected one of {VARIANTS}")
    return name
