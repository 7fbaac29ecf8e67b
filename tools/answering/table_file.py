"""A filing page's tables kept on disk beside the index, shared by every process that reads the index.

Reading a statement page's tables from its PDF takes ~10 ms (PyMuPDF's word boxes, then `tables_from_words`);
a process keeps what it read (`tables._CACHE`), but each new process (every `finrag serve` worker, every `finrag
ask`, a restarted server) read every page again, and under load those first reads were the slow tail of the
requests. `PageTableFile` is a SQLite file in the index folder (`page_tables.sqlite`, derived: deleting it loses
nothing) holding each page's tables as JSON, keyed by what they are a function of: the code that reads tables
(a hash of its modules' source, so a changed reader never sees tables of the old one), the PDF (the SHA-256 the
index recorded for it, checked against the file before it is read: `file_identity`), the page number, the
document id and the stored page text. A row is at most `MAX_ROW_CHARS` long, kept or read. A value read
back is the one that was computed, field for field.

It is a cache, never a source of truth: a folder that cannot be written, a locked or damaged file, a value that
does not decode: each is a miss (the page is read from the PDF, as without it), never an error.
"""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

from finrag.tools.answering.table_types import Column, Row, Table
from finrag.tools.cache import LruCache

__all__ = ["FILE_NAME", "PageTableFile", "table_file_for", "page_key"]

log = logging.getLogger(__name__)

FILE_NAME = "page_tables.sqlite"
_READER_MODULES = ("tables.py", "table_types.py", "page_heads.py", "../numbers.py", "../vocabulary/statements.py", "../retrieval/text_memo.py")


def _code_hash() -> str:
    """A hash of the source of the modules whose code decides a page's tables."""
    h = hashlib.blake2b(digest_size=12)
    here = Path(__file__).resolve().parent
    for name in _READER_MODULES:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()


_CODE = _code_hash()


def page_key(doc_id: str, page: int, text: str, identity: str) -> str:
    """The key of a page's tables read from the PDF `identity` names (its SHA-256 as indexed, 'sha256:...'; for a
    PDF read without an index, 'stat:' path, size and modification time) with `text` as the page's stored text,
    by the code of this process."""
    h = hashlib.blake2b(digest_size=16)
    for part in (_CODE, doc_id, str(page), identity):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


MAX_ROW_CHARS = 1_000_000
"""The largest page's tables kept or read back (JSON characters; a real statement page's are a few kB): a larger
row (a damaged or planted file) is a miss, read from the PDF again and replaced, never decoded."""


def _encode(tables: list[Table]) -> str:
    return json.dumps([asdict(t) for t in tables], separators=(",", ":"), allow_nan=True)


def _decode(raw: str) -> list[Table]:
    out = []
    for t in json.loads(raw):
        rows = [Row(label=r["label"], values={int(k): v for k, v in r["values"].items()},
                    raw={int(k): v for k, v in r["raw"].items()}, section=r["section"]) for r in t["rows"]]
        out.append(Table(**{**t, "columns": [Column(**c) for c in t["columns"]], "rows": rows}))
    return out


class PageTableFile:
    """Pages' tables in one SQLite file (`path`), for any number of threads and processes (WAL; a writer
    that finds the file locked skips the write)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._off = False  # the file cannot be opened or created here: every lookup is a miss

    def _conn(self) -> Optional[sqlite3.Connection]:
        conn = getattr(self._local, "conn", None)
        if conn is not None or self._off:
            return conn
        try:
            conn = sqlite3.connect(str(self.path), timeout=0.25, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")  # a cache: a write lost to a crash is computed again
            conn.execute("CREATE TABLE IF NOT EXISTS page_tables (key TEXT PRIMARY KEY, tables TEXT NOT NULL)")
        except sqlite3.Error as exc:
            log.info("page tables are not kept on disk (%s: %s)", self.path.name, exc)
            self._off = True
            return None
        self._local.conn = conn
        return conn

    def get(self, key: str) -> Optional[list[Table]]:
        """The tables kept under `key`, None when there are none (or they cannot be read)."""
        conn = self._conn()
        if conn is None:
            return None
        try:
            row = conn.execute("SELECT CASE WHEN length(tables) <= ? THEN tables END FROM page_tables WHERE key=?",
                               (MAX_ROW_CHARS, key)).fetchone()
            return _decode(row[0]) if row and row[0] is not None else None
        except (sqlite3.Error, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, tables: list[Table]) -> None:
        """Keep `tables` under `key` (skipped when the file is busy or cannot be written)."""
        conn = self._conn()
        if conn is None:
            return
        try:
            value = _encode(tables)
            if len(value) > MAX_ROW_CHARS:
                return
            conn.execute("INSERT OR REPLACE INTO page_tables (key, tables) VALUES (?, ?)", (key, value))
        except (sqlite3.Error, ValueError, TypeError):
            pass


_FILES: LruCache[str, PageTableFile] = LruCache(16)  # one per index folder this process reads


def table_file_for(index_dir: Any) -> Optional[PageTableFile]:
    """The page-table file of an index folder (one object per folder and process); None without a folder."""
    if not index_dir:
        return None
    folder = Path(index_dir)
    if not folder.is_dir():
        return None
    return _FILES.get_or_compute(str(folder.resolve()), lambda: PageTableFile(folder / FILE_NAME))
