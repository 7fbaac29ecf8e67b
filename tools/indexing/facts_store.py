"""Inline-XBRL facts in the SQLite store: one row per iXBRL filing in table `xbrl_facts`.

The row holds the collector's JSON (`finrag.tools.documents.xbrl`: contexts, numeric facts, dei facts) with the
content hash of the file it came from; `Store.facts_of` (`read_facts`) returns it only while the document's stored
hash is the same, so a changed or removed filing never answers from stale facts. SQLite stays the source of truth;
`finrag copy` carries the rows to Milvus (collection `<prefix>_xbrl_facts`, `tools/indexing/milvus/`, read by
`MilvusStore.facts_of`) and back.

`save_facts(store, ...)` / `load_facts(reader, ...)` are the callers' entry points: the backend's own methods
(`IndexLabels.facts_of`); a reader without them (one a caller handed in) has no stored facts.
"""
from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Optional

from finrag.state.index_reader import IndexLabels, IndexReader
from finrag.tools.documents.xbrl import FACTS_SCHEMA

if TYPE_CHECKING:
    from finrag.tools.indexing.store import Store

__all__ = ["save_facts", "load_facts", "read_facts", "stale_facts", "write_facts", "FACTS_DDL"]

FACTS_DDL = "CREATE TABLE IF NOT EXISTS xbrl_facts(doc_id TEXT PRIMARY KEY, content_hash TEXT, data_json TEXT)"


def write_facts(conn: sqlite3.Connection, doc_id: str, content_hash: str, data: Optional[dict]) -> None:
    """Store (or, with `data` None, delete) the facts of `doc_id` (inside the caller's write, which commits)."""
    conn.execute(FACTS_DDL)
    if data:
        conn.execute("INSERT OR REPLACE INTO xbrl_facts(doc_id, content_hash, data_json) VALUES (?,?,?)",
                     (doc_id, content_hash, json.dumps(data, separators=(",", ":"))))
    else:
        conn.execute("DELETE FROM xbrl_facts WHERE doc_id=?", (doc_id,))


def read_facts(conn: sqlite3.Connection, doc_id: str) -> Optional[dict]:
    """The stored facts of `doc_id` when they belong to its current content, else None."""
    try:
        row = conn.execute(
            "SELECT x.data_json FROM xbrl_facts x JOIN documents d ON d.doc_id = x.doc_id "
            "WHERE x.doc_id=? AND x.content_hash = d.content_hash", (doc_id,)).fetchone()
    except Exception:  # an index built before this table existed
        return None
    if not row:
        return None
    try:
        return json.loads(row[0])
    except ValueError:
        return None


def stale_facts(conn: sqlite3.Connection) -> set[str]:
    """The documents whose stored facts have another shape than the collector's (`xbrl.FACTS_SCHEMA`: written by
    an older finrag, e.g. without member facts): `finrag index` parses them again."""

    try:
        rows = conn.execute("SELECT doc_id FROM xbrl_facts WHERE json_extract(data_json, '$.schema') IS NOT ?",
                            (FACTS_SCHEMA,)).fetchall()
    except sqlite3.Error:  # an index built before this table existed, or SQLite without JSON functions
        return set()
    return {r[0] for r in rows}


def save_facts(store: Store, doc_id: str, content_hash: str, data: Optional[dict]) -> None:
    """`store.save_facts`: store (or, with `data` None, delete) the facts of `doc_id`."""
    store.save_facts(doc_id, content_hash, data)


def load_facts(reader: IndexReader, doc_id: str) -> Optional[dict]:
    """The facts of `doc_id` while they belong to its current content, else None: the backend's `facts_of`
    (never an error); a reader without stored facts has none."""
    if isinstance(reader, IndexLabels):
        return reader.facts_of(doc_id)
    return None
