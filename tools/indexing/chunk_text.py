"""A chunk's text, stored once: as a span of its document's page text (issue 51).

A document's text is its pages joined by newlines (`chunking.join_pages`), and a chunk is the window
`[char_start, char_end)` of it, so a chunk's text need not be stored beside the pages. An index created since schema
version 3 keeps only the span: `chunks.page_off`, the window's offset in its first page (`page_start`), so that a
chunk is read from the pages it covers alone. Its FTS5 tables are contentless: the text is handed to them when a
chunk (or a variant's prefix) is written and again when it is deleted (`fts_add` / `fts_delete`; SQLite's own
`'delete'` command, which needs the text the row was indexed with).

Older indexes store the text in `chunks.text` and keep their FTS5 tables by triggers; `stores_text` tells the two
layouts apart, and every read of a chunk's text goes through this module, whichever the layout.

The slicing is done here, in Python, not in a SQL view: SQLite's `substr` and `length` stop at a NUL character, and
some filings' pages hold one (3 of the 20,191 FinanceBench pages).
"""
from __future__ import annotations

import sqlite3
from typing import Iterable, Mapping, Sequence

SPAN_COLUMNS = "chunk_id, doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count"
"""The columns of a chunk row both layouts have (`chunks.text` only in the older one, `chunks.page_off` only in the
newer)."""


def stores_text(conn: sqlite3.Connection) -> bool:
    """True when this index keeps each chunk's text in `chunks.text` (built before schema version 3)."""
    cols = [r[1] for r in conn.execute("PRAGMA table_info(chunks)")]
    return "text" in cols


def fts_table(variant: str) -> str:
    """The FTS5 table of a variant's searchable text ('base': the chunk text; others: prefix, newline, text)."""
    return "chunks_fts" if variant == "base" else f"chunks_fts_{variant}"


def read_rows(conn: sqlite3.Connection, where: str, params: Sequence = (), text_in_rows: bool | None = None
              ) -> list[dict]:
    """The chunk rows `SELECT ... FROM chunks WHERE <where>` (`where` may end in ORDER BY), each a dict of
    `SPAN_COLUMNS` and its `text`, read from the pages it spans when the index keeps spans."""
    if text_in_rows is None:
        text_in_rows = stores_text(conn)
    if text_in_rows:
        rows = conn.execute(f"SELECT {SPAN_COLUMNS}, text FROM chunks WHERE {where}", tuple(params)).fetchall()
        return [dict(zip(SPAN_COLUMNS.split(", ") + ["text"], r)) for r in rows]
    rows = conn.execute(f"SELECT {SPAN_COLUMNS}, page_off FROM chunks WHERE {where}", tuple(params)).fetchall()
    names = SPAN_COLUMNS.split(", ") + ["page_off"]
    out = [dict(zip(names, r)) for r in rows]
    needed: dict[str, set[int]] = {}
    for r in out:
        needed.setdefault(r["doc_id"], set()).update(range(r["page_start"], r["page_end"] + 1))
    pages: dict[tuple[str, int], str] = {}
    for doc_id, nos in needed.items():
        pages.update(((doc_id, no), text) for no, text in _pages(conn, doc_id, sorted(nos)))
    for r in out:
        span = [pages.get((r["doc_id"], no), "") for no in range(r["page_start"], r["page_end"] + 1)]
        r["text"] = _slice(span, r.pop("page_off"), r["char_end"] - r["char_start"])
    return out


def _slice(span: list[str], off: int, length: int) -> str:
    """`length` characters from `off` of the pages `span` (each followed by its newline separator)."""
    return "".join(text + "\n" for text in span)[off: off + length]


def _pages(conn: sqlite3.Connection, doc_id: str, page_nos: list[int]) -> Iterable[tuple[int, str]]:
    if not page_nos:
        return []
    lo, hi = page_nos[0], page_nos[-1]
    if hi - lo + 1 <= 2 * len(page_nos):  # mostly contiguous: one range read
        wanted = set(page_nos)
        return [(no, text) for no, text in conn.execute(
            "SELECT page_no, text FROM pages WHERE doc_id=? AND page_no BETWEEN ? AND ?", (doc_id, lo, hi))
            if no in wanted]
    out: list[tuple[int, str]] = []
    for i in range(0, len(page_nos), 500):
        part = page_nos[i: i + 500]
        out += conn.execute(f"SELECT page_no, text FROM pages WHERE doc_id=? AND page_no IN "
                            f"({','.join('?' * len(part))})", (doc_id, *part)).fetchall()
    return out


def document_chunks(conn: sqlite3.Connection, doc_id: str, text_in_rows: bool | None = None
                    ) -> list[tuple[int, int, int, str]]:
    """(chunk_id, char_start, char_end, text) of a document's chunks by id: what its BM25 postings are made of.
    With spans, the document's pages are read once and each chunk sliced from their joined text."""
    if text_in_rows is None:
        text_in_rows = stores_text(conn)
    if text_in_rows:
        return [tuple(r) for r in conn.execute("SELECT chunk_id, char_start, char_end, text FROM chunks "
                                                "WHERE doc_id=? ORDER BY chunk_id", (doc_id,))]
    text = "\n".join(r[0] for r in conn.execute("SELECT text FROM pages WHERE doc_id=? ORDER BY page_no", (doc_id,)))
    return [(cid, a, b, text[a:b]) for cid, a, b in conn.execute(
        "SELECT chunk_id, char_start, char_end FROM chunks WHERE doc_id=? ORDER BY chunk_id", (doc_id,))]


# ------------------------------------------------------------------ contentless FTS5 rows (schema version 3)
def fts_add(conn: sqlite3.Connection, variant: str, rows: Iterable[tuple[int, str]]) -> None:
    """Index `(chunk_id, searchable text)` rows in a variant's contentless FTS5 table."""
    conn.executemany(f"INSERT INTO {fts_table(variant)}(rowid, text) VALUES (?, ?)", rows)


def fts_delete(conn: sqlite3.Connection, variant: str, rows: Iterable[tuple[int, str]]) -> None:
    """Remove rows from a variant's contentless FTS5 table, each with the text it was indexed with."""
    table = fts_table(variant)
    conn.executemany(f"INSERT INTO {table}({table}, rowid, text) VALUES ('delete', ?, ?)", rows)


def prefixed(prefix: str, text: str) -> str:
    """A variant's searchable text: its prefix, a newline, the chunk text (what the older layout's view joins)."""
    return prefix + "\n" + text


def texts_of(conn: sqlite3.Connection, chunk_ids: Sequence[int], text_in_rows: bool | None = None) -> dict[int, str]:
    """chunk_id -> text of the chunks of `chunk_ids` that exist (read 500 ids at a time)."""
    out: dict[int, str] = {}
    ids = list(chunk_ids)
    for i in range(0, len(ids), 500):
        part = ids[i: i + 500]
        out.update((r["chunk_id"], r["text"]) for r in read_rows(conn, f"chunk_id IN ({','.join('?' * len(part))})",
                                                                  part, text_in_rows))
    return out


def forget_prefixes(conn: sqlite3.Connection, variant: str, texts: Mapping[int, str]) -> None:
    """Remove the FTS5 rows of a variant's stored prefixes of the chunks of `texts` (chunk_id -> chunk text), before
    those prefixes are deleted or replaced (spans layout only)."""
    ids = list(texts)
    for i in range(0, len(ids), 500):
        part = ids[i: i + 500]
        prefixes = conn.execute(f"SELECT chunk_id, prefix FROM chunk_prefix WHERE variant=? AND chunk_id IN "
                                f"({','.join('?' * len(part))})", (variant, *part)).fetchall()
        fts_delete(conn, variant, [(cid, prefixed(p, texts[cid])) for cid, p in prefixes])
