"""Compare two finrag indexes built from the same files: same documents, pages, chunks (ids, doc ids, spans,
texts as each index reads them), FTS5 terms and row sizes, segment vectors (within `--tol`), chunk vectors in
the vector file, section labels, XBRL facts and BM25 postings. Exit 0 when identical, 1 with the differences otherwise.

    python -m bench.index_diff runs/idx37/old20 runs/idx37/new20

Columns that record when or in which run a row was written (`documents.indexed_at`, `meta`, run numbers and
the vector file's id) are not compared.
"""
from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

import numpy as np

TABLES = {  # table -> (columns compared, order)
    "documents": ("doc_id, path, content_hash, n_pages, n_chars, info_json", "doc_id"),
    "pages": ("doc_id, page_no, text", "doc_id, page_no"),
    "chunks": ("chunk_id, doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count",
               "chunk_id"),
    "chunk_sections": ("chunk_id, doc_id, content_hash, item, note", "chunk_id"),
    "xbrl_facts": ("doc_id, content_hash, data_json", "doc_id"),
    "lex_docs": ("lo, doc_id, n", "lo"),
    "lex_post": ("term, lo, post", "term, lo"),
    "lex_df": ("term, df", "term"),
    "lex_stats": ("rows, tokens", "id"),
    "vec_rows": ("variant, doc_id, lo, hi", "variant, doc_id"),
}


def _rows(conn: sqlite3.Connection, table: str, cols: str, order: str) -> list[tuple]:
    try:
        return conn.execute(f"SELECT {cols} FROM {table} ORDER BY {order}").fetchall()
    except sqlite3.OperationalError as exc:
        return [("missing table", str(exc))]


def compare(a: Path, b: Path, tol: float = 1e-6) -> list[str]:
    ca = sqlite3.connect(f"file:{a / 'finrag.sqlite'}?mode=ro", uri=True)
    cb = sqlite3.connect(f"file:{b / 'finrag.sqlite'}?mode=ro", uri=True)
    out: list[str] = []
    for table, (cols, order) in TABLES.items():
        ra, rb = _rows(ca, table, cols, order), _rows(cb, table, cols, order)
        if ra != rb:
            first = next((i for i, (x, y) in enumerate(zip(ra, rb)) if x != y), min(len(ra), len(rb)))
            out.append(f"{table}: {len(ra)} vs {len(rb)} rows, first difference at row {first}")
        else:
            print(f"{table}: {len(ra)} rows identical")
    out += _chunk_texts(ca, cb) + _full_text(a, b)
    sa = ca.execute("SELECT doc_id, ord, vec FROM segments ORDER BY doc_id, ord").fetchall()
    sb = cb.execute("SELECT doc_id, ord, vec FROM segments ORDER BY doc_id, ord").fetchall()
    if [r[:2] for r in sa] != [r[:2] for r in sb]:
        out.append(f"segments: {len(sa)} vs {len(sb)} rows, different (doc_id, ord)")
    elif sa:
        va = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in sa])
        vb = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in sb])
        diff = float(np.abs(va - vb).max()) if va.shape == vb.shape else float("inf")
        (out.append if diff > tol else lambda m: print(m))(
            f"segments: {len(sa)} vectors, max |difference| {diff:.3g} (tolerance {tol:g})")
    out += _vector_files(a, b, ca, tol)
    return out


def _chunk_texts(ca: sqlite3.Connection, cb: sqlite3.Connection) -> list[str]:
    """Every chunk's text as each index reads it (stored in the row, or a span of the page text: chunk_text.py)."""
    from finrag.tools.indexing import chunk_text

    docs = [r[0] for r in ca.execute("SELECT doc_id FROM documents ORDER BY doc_id")]
    differ = [d for d in docs if chunk_text.document_chunks(ca, d) != chunk_text.document_chunks(cb, d)]
    if differ:
        return [f"chunk texts: {len(differ)} document(s) differ, first {differ[0]}"]
    print(f"chunk texts: {len(docs)} documents identical")
    return []


def _full_text(a: Path, b: Path) -> list[str]:
    """The FTS5 tables' terms (fts5vocab 'row': each term's chunks and occurrences) and each row's token count
    (`_docsize`), compared per table: what BM25 over FTS5 ranks by."""
    out: list[str] = []
    for table in ("chunks_fts", "chunks_fts_meta", "chunks_fts_llmctx"):
        rows = []
        for path in (a, b):
            conn = sqlite3.connect(f"file:{path / 'finrag.sqlite'}?mode=ro", uri=True)
            try:
                conn.execute(f"CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, {table}, row)")
                rows.append(conn.execute("SELECT term, doc, cnt FROM temp.v ORDER BY term").fetchall()
                            + conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id").fetchall())
            except sqlite3.OperationalError as exc:
                rows.append([("missing table", str(exc))])
            finally:
                conn.close()
        if rows[0] != rows[1]:
            out.append(f"{table}: {len(rows[0])} vs {len(rows[1])} terms and rows, different")
        else:
            print(f"{table}: {len(rows[0])} terms and rows identical")
    return out


def _vector_files(a: Path, b: Path, ca: sqlite3.Connection, tol: float) -> list[str]:
    """The chunk vectors each index serves (its vector file), compared chunk by chunk."""
    from finrag.tools.indexing.store import Store

    ids = np.array([r[0] for r in ca.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id")], dtype=np.int64)
    if not len(ids):
        return []
    sa, sb = Store(a), Store(b)
    try:
        va, vb = sa.faiss_index().reconstruct_many(ids), sb.faiss_index().reconstruct_many(ids)
    finally:
        sa.close()
        sb.close()
    diff = float(np.abs(np.asarray(va) - np.asarray(vb)).max())
    msg = f"vector file: {len(ids)} chunk vectors, max |difference| {diff:.3g} (tolerance {tol:g})"
    if diff > tol:
        return [msg]
    print(msg)
    return []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tol", type=float, default=1e-6)
    args = ap.parse_args()
    problems = compare(Path(args.old), Path(args.new), args.tol)
    for p in problems:
        print(f"DIFFERENT {p}")
    print("identical" if not problems else f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
