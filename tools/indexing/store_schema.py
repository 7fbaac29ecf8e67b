"""The embedded index's database: its schema, version and file name, the errors users see, and the text and
vector encodings the Store's reading, writing and search halves share (`store.py` composes them).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

SCHEMA_VERSION = 3  # 3: chunks as spans of page text (chunk_text.py); 2: BM25 postings (lex_*), vector rows
# (vec_rows); version 1 indexes migrate in place, version 2 ones keep their chunk text and read as before
VARIANTS = ("base", "meta", "llmctx")
DB_NAME = "finrag.sqlite"
# A new index's SQLite page size. At SQLite's 4,096 a WITHOUT ROWID row holds at most ~1,000 bytes in its page, so
# every 1 KB vector of `segments` and `chunk_prefix` spilled into an overflow page of its own (3 KB of it empty), and
# 2.5 KB chunks fit one per page: 563 MB of the 168 FinanceBench filings' 1,212 MB database was empty space. At
# 8,192 the vectors stay in their rows (docs/indexing.md, "Index size"). Set only when the database is created:
# older indexes keep their page size and read the same.
PAGE_SIZE = 8192

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


SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS documents(
  doc_id TEXT PRIMARY KEY, path TEXT, content_hash TEXT, n_pages INTEGER, n_chars INTEGER,
  info_json TEXT, indexed_at REAL);
CREATE TABLE IF NOT EXISTS pages(
  doc_id TEXT, page_no INTEGER, text TEXT, PRIMARY KEY(doc_id, page_no));
CREATE TABLE IF NOT EXISTS segments(
  doc_id TEXT, ord INTEGER, vec BLOB, PRIMARY KEY(doc_id, ord)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunk_prefix(
  variant TEXT, chunk_id INTEGER, prefix TEXT, vec BLOB, PRIMARY KEY(variant, chunk_id)) WITHOUT ROWID;
"""
"""The tables of both chunk layouts; `SPAN_CHUNKS` (a new index) or `TEXT_CHUNKS` (an index built before schema
version 3) adds the chunks and their FTS5 tables (`chunk_text.py`)."""

SPAN_CHUNKS = """
CREATE TABLE IF NOT EXISTS chunks(
  chunk_id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, ord INTEGER,
  page_start INTEGER, page_end INTEGER, char_start INTEGER, char_end INTEGER,
  seg_first INTEGER, seg_count INTEGER, page_off INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS chunks_bd BEFORE DELETE ON chunks BEGIN
  DELETE FROM chunk_prefix WHERE chunk_id = old.chunk_id; END;
"""
"""Chunks as spans of page text (`page_off`: the span's offset in page `page_start`) and contentless FTS5 tables
whose rows the Store writes and deletes with the text (`chunk_text.fts_add`, `fts_delete`)."""

SPAN_VARIANT = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_{v} USING fts5(text, content='', tokenize='porter unicode61');
"""

TEXT_CHUNKS = """
CREATE TABLE IF NOT EXISTS chunks(
  chunk_id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, ord INTEGER,
  page_start INTEGER, page_end INTEGER, char_start INTEGER, char_end INTEGER,
  seg_first INTEGER, seg_count INTEGER, text TEXT);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
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
"""Chunks with their text (indexes built before schema version 3): external-content FTS5 tables kept by triggers."""

TEXT_VARIANT = """
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


def chunk_schema(text_in_rows: bool) -> str:
    """The DDL of a chunk layout, the variants' FTS5 tables included: spans (a new database), or the text in the
    rows of an index built before schema version 3 (`chunk_text.stores_text`)."""
    base, variant = (TEXT_CHUNKS, TEXT_VARIANT) if text_in_rows else (SPAN_CHUNKS, SPAN_VARIANT)
    return base + "".join(variant.format(v=v) for v in VARIANTS[1:])


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


def vec_blob(v: np.ndarray) -> bytes:
    return np.asarray(v, dtype=np.float32).tobytes()


def blob_vec(b: bytes) -> np.ndarray:
    return np.frombuffer(b, dtype=np.float32)


def variant_name(name: str) -> str:
    """`name` when it is an index variant (`VARIANTS`), else ValueError naming the allowed ones."""
    if name not in VARIANTS:
        raise ValueError(f"unknown index variant {name!r}; expected one of {VARIANTS}")
    return name
