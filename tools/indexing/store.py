"""The index: one SQLite database (documents, pages, chunks, FTS5, BM25 postings) and derived vector files.

SQLite is the source of truth. It holds the page texts, the chunks (spans of the page
text: each text is stored once, tools/indexing/chunk_text.py), FTS5 indexes over them,
per-document BM25 postings (tools/indexing/lexical.py),
and the *segment* embeddings (see tools/indexing/chunking.py). The chunk vectors are
derived data (tools/indexing/vectors.py): a memory-mapped file addressed by chunk id,
written document by document and rebuilt from SQLite without re-embedding when it
is missing; an approximate index (FAISS IVF or HNSW) over it is optional.

A document is stored in two steps when `finrag index` runs: its text (pages, chunks,
FTS5, postings, registry entry) in one transaction, which makes it routable and
BM25-searchable at once, and its segment vectors later (`add_segments`), by the
embed pass or on demand by HDRR. Each step is atomic.

Reads go through one SQLite connection per thread (WAL: readers never wait for each
other or for the writer); writes through the Store's own connection, under its lock. A
thread's read connection is closed when the thread ends (its thread-local hold is
finalised), so a process that runs each question on fresh threads keeps as many open
connections as it has live threads, not one per thread it ever ran (issue 49).

`Store` owns the connections and composes three halves by concern: reading
(`store_read.py`: metadata, documents, pages, chunks, section labels, XBRL facts),
writing (`store_write.py`: documents, prefixes, labels, facts, each one transaction) and
search (`store_search.py`: BM25, vectors, the vector files). The schema, the errors and
the shared encodings are in `store_schema.py` (re-exported here).

Variants (CBR+Meta `meta`, CBR+LLM-Ctx `llmctx`) live in the same database:
a `chunk_prefix` row per chunk and variant, an FTS5 table over `prefix + text`, and their own vector file whose vectors add the prefix's
embedding to the chunk's segments.
"""
from __future__ import annotations

import errno
import os
import resource
import sqlite3
import threading
import weakref
from pathlib import Path

from finrag.state.configuration import resolve_index_dir
from finrag.tools.documents.file_checks import empty_database, why_unwritable
from finrag.tools.indexing import chunk_text, lexical
from finrag.tools.indexing import vectors as V
from finrag.tools.indexing.read_cache import ReadCache
from finrag.tools.indexing.store_read import ReadMixin
from finrag.tools.indexing.store_schema import (
    DB_NAME,
    PAGE_SIZE,
    SCHEMA,
    SCHEMA_VERSION,
    VARIANTS,
    EmbedderMismatch,
    IndexCorrupt,
    IndexError_,
    IndexMissing,
    IndexUnwritable,
    VariantMissing,
    chunk_schema,
    fts_phrases,
    fts_query,
)
from finrag.tools.indexing.store_search import SearchMixin
from finrag.tools.indexing.store_write import WriteMixin

__all__ = ["Store", "probe", "DB_NAME", "SCHEMA_VERSION", "VARIANTS", "IndexError_", "IndexMissing", "EmbedderMismatch",
           "VariantMissing", "IndexCorrupt", "IndexUnwritable", "fts_phrases", "fts_query"]


class Store(ReadMixin, WriteMixin, SearchMixin):
    """Owns the SQLite connections and the vector files of one index directory (reads, writes and search in
    `store_read.py`, `store_write.py`, `store_search.py`)."""

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
                self.conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new database only: a no-op on one with pages
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.executescript(SCHEMA)
                self.text_in_rows = chunk_text.stores_text(self.conn)  # False for a new database: spans
                self.conn.executescript(chunk_schema(self.text_in_rows))
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
        self._readers_lock = threading.Lock()  # the list alone: never held while anything waits on a thread
        self._vec_lock = threading.RLock()
        self._vfiles: dict[str, V.VectorFile] = {}
        self._anns: dict = {}
        self._synced: dict[str, tuple] = {}
        self._variants_ok: set[tuple] = set()
        self.read_cache = ReadCache()  # chunks, chunk ids and pages read again by the next question (read_cache.py)
        if embedder is not None:
            self.check_embedder(embedder)

    def _reader(self) -> sqlite3.Connection:
        """This thread's read connection, autocommit: WAL readers run in parallel, none keeps an old snapshot.
        It lives as long as the thread (or the Store): a finaliser on its thread-local hold closes it."""
        hold = getattr(self._local, "hold", None)
        if hold is None:
            conn = sqlite3.connect(str(self.db_path), check_same_thread=False, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            hold = _ReaderHold(conn)
            with self._readers_lock:
                self._readers.append(conn)
            # the list and its lock, not self: a thread that outlives the Store must not keep it alive; not the
            # Store's lock either (a thread ending while another holds it, and joins it, would wait for ever)
            weakref.finalize(hold, _close_reader, self._readers, self._readers_lock, conn)
            self._local.hold = hold
        return hold.conn

    def read_connection(self) -> sqlite3.Connection:
        """This thread's read connection (autocommit, rows as `sqlite3.Row`), for code that reads the tables as they
        are (`finrag copy`, benchmarks); read only: writes go through the Store's methods."""
        return self._reader()

    def close(self) -> None:
        with self._lock:
            with self._readers_lock:
                readers = list(self._readers)
                self._readers.clear()
            for conn in readers:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._local = threading.local()  # the holds' finalisers find their connections closed already
            self.conn.close()


class _ReaderHold:
    """A thread's read connection, held in the Store's thread-local storage: when the thread ends (or the Store
    closes) the hold is dropped and its finaliser closes the connection."""

    __slots__ = ("conn", "__weakref__")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn


def _close_reader(readers: list[sqlite3.Connection], lock: threading.Lock, conn: sqlite3.Connection) -> None:
    """Close a read connection whose thread ended, and forget it."""
    with lock:
        try:
            readers.remove(conn)
        except ValueError:  # the Store closed it already
            pass
    try:
        conn.close()
    except sqlite3.Error:
        pass


def probe(db_path: Path) -> int:
    """The number of documents of the index database `db_path`, read through a connection opened for the purpose
    and closed (what `/health` asks): it fails, one line (IndexError_), when the process cannot open the index any
    more (its open-file limit reached, the database file gone or unreadable) even where the connections it holds
    still work."""
    try:
        fd = os.open(db_path, os.O_RDONLY)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if exc.errno == errno.EMFILE:
            why += f" (the process's open-file limit is {resource.getrlimit(resource.RLIMIT_NOFILE)[0]})"
        raise IndexError_(f"index database {db_path} cannot be opened: {why}") from None
    os.close(fd)
    try:
        conn = sqlite3.connect(f"{Path(db_path).resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise IndexError_(f"index database {db_path} cannot be opened: {exc}") from None
    try:
        return int(conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise IndexCorrupt(db_path, exc) from None
    finally:
        conn.close()
