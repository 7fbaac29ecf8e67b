"""Inline-XBRL facts in the SQLite store: one row per iXBRL filing in table `xbrl_facts`.

The row holds the collector's JSON (`finrag.tools.indexing.xbrl`: contexts, numeric facts, dei facts) with the
content hash of the file it came from; `load_facts` returns it only while the document's stored hash is the
same, so a changed or removed filing never answers from stale facts. SQLite stays the source of truth; `finrag copy`
carries the rows to Milvus (collection `<prefix>_xbrl_facts`, `tools/indexing/milvus/`) and back.
"""
from __future__ import annotations

import json
from typing import Optional

__all__ = ["save_facts", "load_facts"]

_DDL = "CREATE TABLE IF NOT EXISTS xbrl_facts(doc_id TEXT PRIMARY KEY, content_hash TEXT, data_json TEXT)"


def save_facts(store, doc_id: str, content_hash: str, data: Optional[dict]) -> None:
    """Store (or, with `data` None, delete) the facts of `doc_id`."""
    with store._lock:
        store.conn.execute(_DDL)
        if data:
            store.conn.execute("INSERT OR REPLACE INTO xbrl_facts(doc_id, content_hash, data_json) VALUES (?,?,?)",
                               (doc_id, content_hash, json.dumps(data, separators=(",", ":"))))
        else:
            store.conn.execute("DELETE FROM xbrl_facts WHERE doc_id=?", (doc_id,))
        store.conn.commit()


def load_facts(store, doc_id: str) -> Optional[dict]:
    """The stored facts of `doc_id` when they belong to its current content, else None (a Milvus store answers
    from its `xbrl_facts` collection, `MilvusStore.xbrl_facts`)."""
    if getattr(store, "backend", "") == "milvus":
        try:
            return store.xbrl_facts(doc_id)
        except Exception:  # Milvus unreachable mid-question: the table reader answers
            return None
    try:
        row = store._reader().execute(
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
