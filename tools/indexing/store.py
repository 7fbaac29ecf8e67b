"""The index: one SQLite database (documents, pages, chunks, FTS5, BM25 postings) and derived vector files.

SQLite is the source of truth. It holds the page texts, the chunks, an FTS5
index kept in sync by triggers, per-document BM25 postings (tools/indexing/lexical.py),
and the *segment* embeddings (see tools/indexing/chunking.py). The chunk vectors are
derived data (tools/indexing/vectors.py): a memory-mapped file addressed by chunk id,
written document by document and rebuilt from SQLite without re-embedding when it
is missing; an approximate index (FAISS IVF or HNSW) over it is optional.

A document is stored in two steps when `finrag index` runs: its text (pages, chunks,
FTS5, postings, registry entry) in one transaction, which makes it routable and
BM25-searchable at once, and its segment vectors later (`add_segments`), by the
embed pass or on demand by HDRR. Each step is atomic.

Reads go through one SQLite connection per thread (WAL: readers never wait for each
other or for the writer); writes through the Store's own connection, under its lock.

Variants (CBR+Meta `meta`, CBR+LLM-Ctx `llmctx`) live in the same database:
a `chunk_prefix` row per chunk and variant, an external-content FTS5 table over
`prefix + text`, and their own vector file whose vectors add the prefix's
embedding to the chunk's segments.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence, cast, overload

import numpy as np

from finrag.state.configuration import resolve_index_dir
from finrag.state.schema import DocumentInfo, RetrievedChunk
from finrag.tools.indexing import lexical, lexical_runs
from finrag.tools.indexing import vectors as V
from finrag.tools.indexing.file_checks import empty_database, why_unwritable
from finrag.tools.indexing.read_cache import ReadCache
from finrag.tools.indexing.store_search import SearchMixin

SCHEMA_VERSION = 2  # 2: BM25 postings (lex_*), vector rows (vec_rows); version 1 indexes migrate in place
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


class IndexCorrupt(IndexError_):
    """The index database cannot be read (truncated, overwritten, not a finrag database)."""

    def __init__(self, db_path: Path, exc: BaseException | str):
        super().__init__(f"index database {db_path} is damaged or not a finrag index ({exc}); "
                         f"`finrag index --check --index {db_path.parent}` tells more; rebuild it from the filings "
                         "into a new directory")


class IndexUnwritable(IndexError_):
    """The index cannot be written where it is (a read-only file system, a folder or file without write
    permission): exit code 5, like damage, with the file and the reason named."""


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


def fts_phrases(text: str, max_terms: int = 32) -> list[str]:
    """The search terms of free text: lower-cased words without stop words, in order, at most `max_terms`."""
    seen, terms = set(), []
    for tok in _FTS_TOKEN.findall(text or ""):
        tok = tok.strip(".'-&").lower().replace('"', "")
        if not tok or tok in _FTS_STOP or tok in seen:
            continue
        seen.add(tok)
        terms.append(tok)
        if len(terms) >= max_terms:
            break
    return terms


def fts_query(text: str, max_terms: int = 32) -> str:
    """Turn free text into a safe FTS5 OR-query of quoted terms (no syntax injection)."""
    return " OR ".join('"' + t + '"' for t in fts_phrases(text, max_terms))


def _vec_blob(v: np.ndarray) -> bytes:
    return np.asarray(v, dtype=np.float32).tobytes()


def _blob_vec(b: bytes) -> np.ndarray:
    return np.frombuffer(b, dtype=np.float32)


class Store(SearchMixin):
    """Owns the SQLite connections and the vector files of one index directory."""

    def __init__(self, index_dir: str | Path | None = None, embedder=None, create: bool = False):
        self.index_dir = resolve_index_dir(index_dir)
        db_path = self.index_dir / DB_NAME
        if not db_path.exists():
            if not create:
                raise IndexMissing(
                    f"no finrag index at {self.index_dir} (run `finrag index PATH --index {self.index_dir}` first)")
            self.index_dir.mkdir(parents=True, exist_ok=True)
        elif empty_database(db_path):  # SQLite would take it for a new database, and make it an empty index
            raise IndexCorrupt(db_path, "an empty file, 0 bytes")
        self.db_path = db_path
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(str(db_path), check_same_thread=False, timeout=30)
        self.conn.row_factory = sqlite3.Row
        with self._lock:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.executescript(_SCHEMA)
                for v in VARIANTS[1:]:
                    self.conn.executescript(_VARIANT_SCHEMA.format(v=v))
                lexical.ensure_schema(self.conn)
                self.conn.executescript(V.SCHEMA)
                self.conn.commit()
            except sqlite3.DatabaseError as exc:
                self.conn.close()
                if isinstance(exc, sqlite3.OperationalError):  # locked, unable to open, disk full: not damage
                    text = str(exc).lower()
                    why = why_unwritable(self.index_dir, db_path) if ("unable to open" in text
                                                                       or "readonly" in text) else None
                    if why:
                        raise IndexUnwritable(
                            f"index database {db_path} cannot be opened: {why}, and SQLite writes there (the "
                            f"database, and {DB_NAME}-wal and {DB_NAME}-shm next to it); copy the index to a "
                            "writable folder, or make it writable") from None
                    raise
                raise IndexCorrupt(db_path, exc) from None
        self.embedder = embedder
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._vec_lock = threading.RLock()
        self._vfiles: dict[str, V.VectorFile] = {}
        self._anns: dict = {}
        self._synced: dict[str, tuple] = {}
        self._variants_ok: set[tuple] = set()
        self.read_cache = ReadCache()  # chunks, chunk ids and pages read again by the next question (read_cache.py)
        if embedder is not None:
            self.check_embedder(embedder)

    def _reader(self) -> sqlite3.Connection:
        """This thread's read connection, autocommit: WAL readers run in parallel, none keeps an old snapshot."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(str(self.db_path), check_same_thread=False, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    # ------------------------------------------------------------------ meta
    @overload
    def get_meta(self, key: str, default: str) -> str: ...
    @overload
    def get_meta(self, key: str, default: str | None = None) -> str | None: ...
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self._reader().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

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
        # check_chunking writes both keys together, so overlap is set whenever size is
        return (int(size), int(cast(str, overlap))) if size is not None else None

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
        return self._reader().execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def documents(self) -> list[DocumentInfo]:
        rows = self._reader().execute("SELECT info_json FROM documents ORDER BY doc_id").fetchall()
        return [DocumentInfo.model_validate_json(r[0]) for r in rows]

    def document_hashes(self) -> dict[str, tuple[str, str]]:
        """doc_id -> (content_hash, path)."""
        rows = self._reader().execute("SELECT doc_id, content_hash, path FROM documents").fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def replace_document(self, info: DocumentInfo, content_hash: str, pages: list[str], chunks: Sequence,
                         segment_vectors: np.ndarray | None, chunk_segments: Sequence[tuple[int, int]]) -> None:
        """Insert or replace one document atomically (one transaction): pages, chunks, FTS5, BM25 postings and,
        when given, its segment vectors (`None`: text only; `add_segments` stores them later)."""
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
                        [(info.doc_id, i, _vec_blob(v)) for i, v in enumerate(segment_vectors)])
                self.conn.executemany(
                    "INSERT INTO chunks(doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count, text) "
                    "VALUES (?,?,?,?,?,?,?,?,?)",
                    [(info.doc_id, c.ord, c.page_start, c.page_end, c.char_start, c.char_end, s0, sn, c.text)
                     for c, (s0, sn) in zip(chunks, chunk_segments)])
                rows = self.conn.execute("SELECT chunk_id, char_start, char_end, text FROM chunks WHERE doc_id=? "
                                         "ORDER BY chunk_id", (info.doc_id,)).fetchall()
                lexical.add_document(self.conn, info.doc_id, [r[0] for r in rows], [r[3] for r in rows],
                                     [(r[1], r[2]) for r in rows])
                self._set_meta("generation", self.generation + 1)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        if replaced:
            self.forget_vector_rows(info.doc_id)
        if segment_vectors is not None:
            self.write_doc_vectors(info.doc_id, "base")

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
                    rows = self.conn.execute("SELECT chunk_id, char_start, char_end, text FROM chunks WHERE doc_id=? "
                                             "ORDER BY chunk_id", (doc_id,)).fetchall()
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
        rows = self._reader().execute("SELECT * FROM chunks WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
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
            q = f"SELECT * FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})"
            for r in conn.execute(q, part).fetchall():
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

    # ----------------------------------------------------------------- vectors
    def _prefix_vectors(self, variant: str, doc_id: str | None = None) -> dict[int, np.ndarray]:
        """chunk_id -> prefix vector of a variant (of one document's chunks, or all); missing ones are embedded."""
        sql = "SELECT p.chunk_id, p.prefix, p.vec FROM chunk_prefix p WHERE p.variant=?"
        params: list = [variant]
        if doc_id is not None:
            sql += " AND p.chunk_id IN (SELECT chunk_id FROM chunks WHERE doc_id=?)"
            params.append(doc_id)
        rows = self._reader().execute(sql, params).fetchall()
        missing = sorted({r["prefix"] for r in rows if r["vec"] is None})
        cache: dict[str, np.ndarray] = {}
        if missing:
            if self.embedder is None:
                raise IndexError_("an embedder is needed to build variant vectors")
            for text, vec in zip(missing, self.embedder.embed_documents(missing)):
                cache[text] = vec
        return {r["chunk_id"]: (_blob_vec(r["vec"]) if r["vec"] is not None else cache[r["prefix"]]) for r in rows}

    def _check_variant(self, variant: str) -> None:
        """VariantMissing unless the variant's prefixes cover every chunk (remembered until the index changes)."""
        if variant == "base":
            return
        stamp = (variant, self.generation, self.get_meta("prefix_generation", "0"))
        if stamp in self._variants_ok:
            return
        have, total = self.variant_status(variant)
        if have < total:
            raise VariantMissing(
                f"index variant {variant!r} covers {have} of {total} chunks; build it with "
                f"`finrag index --variant {variant} --index {self.index_dir}`")
        self._variants_ok.add(stamp)

    def build_faiss(self, variant: str = "base"):
        """Bring the variant's vector file (and its approximate index, when one is configured) up to date
        with SQLite, without re-embedding; returns the FAISS-like view (`faiss_index`)."""
        variant = _variant(variant)
        self._check_variant(variant)
        self.sync_vectors(variant)
        self.build_ann(variant)
        return self.faiss_index(variant)

    def faiss_is_current(self, variant: str = "base") -> bool:
        """Whether every document with stored vectors has its rows in the variant's vector file."""
        variant = _variant(variant)
        try:
            fid = self.vector_file(variant).file_id()
        except IndexError_:
            return False
        if fid is None:
            return False
        return self.docs_with_vectors() <= set(self._recorded(variant, fid))

    def faiss_index(self, variant: str = "base") -> V.IdView:
        """The variant's chunk vectors as FAISS callers used them: `ntotal`, `reconstruct(chunk_id)`, `search`."""
        variant = _variant(variant)
        self._check_variant(variant)
        self.sync_vectors(variant)
        return V.IdView(self.vector_file(variant), lambda q, k: self._corpus_search(variant, q, k))

    # ---------------------------------------------------------------- variants
    def variant_status(self, variant: str) -> tuple[int, int]:
        """(chunks with a prefix for the variant, all chunks)."""
        conn = self._reader()
        have = conn.execute("SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", (variant,)).fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return have, total

    def missing_prefix_chunks(self, variant: str) -> list[sqlite3.Row]:
        return self._reader().execute(
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
                self._bump("prefix_generation")
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def delete_prefixes(self, variant: str, doc_ids: Sequence[str] | None = None) -> None:
        """Forget a variant's prefixes (of some documents, or all): they are rebuilt on the next run, and so are
        the variant's vectors of those documents."""
        recorded = self._reader().execute("SELECT doc_id, lo, hi FROM vec_rows WHERE variant=?",
                                          (_variant(variant),)).fetchall()
        stale = {r[0]: (r[1], r[2]) for r in recorded if doc_ids is None or r[0] in set(doc_ids)}
        if stale:
            self._drop_rows(variant, stale)
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                if doc_ids is None:
                    self.conn.execute("DELETE FROM chunk_prefix WHERE variant=?", (_variant(variant),))
                else:
                    for d in doc_ids:
                        self.conn.execute("DELETE FROM chunk_prefix WHERE variant=? AND chunk_id IN "
                                          "(SELECT chunk_id FROM chunks WHERE doc_id=?)", (_variant(variant), d))
                self._bump("prefix_generation")
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

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
        ann = V._read_json(self.index_dir / "ann_base.json")
        return {"index_dir": str(self.index_dir), "documents": docs[0], "pages": docs[1], "chars": docs[2],
                "chunks": chunks, "embedder": self.get_meta("embedder"), "embedding_dim": self.get_meta("embedding_dim"),
                "chunk_size": self.get_meta("chunk_size"), "chunk_overlap": self.get_meta("chunk_overlap"),
                "variants": variants, "size_bytes": size, "generation": self.generation,
                "documents_without_vectors": len(missing), "vector_index": self.get_meta("vector_index") or "auto",
                "ann": {k: ann[k] for k in ("kind", "param", "recall_at_30", "ntotal") if k in ann} or None}

    def close(self) -> None:
        with self._lock:
            for conn in self._readers:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._readers.clear()
            self._local = threading.local()
            self.conn.close()


def _variant(name: str) -> str:
    if name not in VARIANTS:
        raise ValueError(f"unknown index variant {name!r}; expected one of {VARIANTS}")
    return name
