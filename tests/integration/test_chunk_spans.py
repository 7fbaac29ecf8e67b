"""Each text stored once (issue 51): a new index keeps chunks as spans of the page text and contentless FTS5 tables;
an index built before schema version 3 keeps its chunk text and reads, searches and changes as before."""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from finrag.state.schema import DocumentInfo
from finrag.tools.indexing import chunk_text
from finrag.tools.indexing.check import check_index
from finrag.tools.indexing.chunking import chunk_pages, chunk_segment_span
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import build_variant, index_paths, remove_documents
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import (
    PAGE_SIZE,
    SCHEMA,
    TEXT_CHUNKS,
    TEXT_VARIANT,
    VARIANTS,
    IndexError_,
)

QUERIES = ("total revenue", "net income per share", "risk factors competition", "cash and cash equivalents")


def older_layout(index_dir: Path) -> Path:
    """An empty index database with the layout of schema version 2 (chunk text in the rows, FTS5 by triggers)."""
    index_dir.mkdir(parents=True)
    conn = sqlite3.connect(index_dir / "finrag.sqlite")
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    conn.executescript(SCHEMA + TEXT_CHUNKS + "".join(TEXT_VARIANT.format(v=v) for v in VARIANTS[1:]))
    conn.commit()
    conn.close()
    return index_dir


def build(index_dir: Path, folder: Path, variants: tuple[str, ...] = ("meta",)) -> Store:
    store = Store(index_dir, create=True)
    store.check_embedder(get_embedder())
    report = index_paths([folder], store, progress=False, workers=1)
    assert report.indexed and not report.failed, report.failed
    for v in variants:
        build_variant(store, v, progress=False)
    return store


def full_text(store: Store, variant: str) -> list[tuple]:
    """A variant's FTS5 terms (term, chunks, occurrences) and its rows' token counts: what its BM25 ranks by."""
    table = chunk_text.fts_table(variant)
    conn = sqlite3.connect(f"file:{store.db_path}?mode=ro", uri=True)
    try:
        conn.execute(f"CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, {table}, row)")
        return (conn.execute("SELECT term, doc, cnt FROM temp.v ORDER BY term").fetchall()
                + [("rows", conn.execute(f"SELECT COUNT(*), SUM(sz) FROM {table}_docsize").fetchone())])
    finally:
        conn.close()


def texts(store: Store) -> dict[int, str]:
    return {c.chunk_id: c.text for d in store.documents() for c in store.chunks_of(d.doc_id)}


def test_a_new_index_keeps_each_chunk_as_a_span_of_its_pages(tmp_path, demo_corpus):
    store = build(tmp_path / "idx", demo_corpus[0])
    try:
        conn = store.read_connection()
        cols = [r[1] for r in conn.execute("PRAGMA table_info(chunks)")]
        assert "text" not in cols and "page_off" in cols
        ddl = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
        assert "content=''" in ddl
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name LIKE 'chunks_%_v'").fetchone()
        for doc in store.documents():
            made = chunk_pages(store.pages_of(doc.doc_id), *(store.chunking_params() or ()))
            chunks = store.chunks_of(doc.doc_id)
            assert chunks and [c.text for c in chunks] == [c.text for c in made]
            by_id = store.get_chunks([c.chunk_id for c in chunks])
            assert [by_id[c.chunk_id].text for c in chunks] == [c.text for c in chunks]
        assert check_index(store.index_dir).ok
    finally:
        store.close()


def test_both_layouts_read_and_search_the_same(tmp_path, demo_corpus):
    spans = build(tmp_path / "spans", demo_corpus[0])
    rows = build(older_layout(tmp_path / "rows"), demo_corpus[0])
    try:
        assert rows.text_in_rows and not spans.text_in_rows
        assert texts(spans) == texts(rows)
        for variant in ("base", "meta"):
            assert full_text(spans, variant) == full_text(rows, variant), variant
            for q in QUERIES:
                assert ([(h.chunk_id, h.score) for h in spans.search_fts(q, 20, variant=variant)]
                        == [(h.chunk_id, h.score) for h in rows.search_fts(q, 20, variant=variant)]), (variant, q)
        doc = spans.documents()[0].doc_id  # scoped FTS5 search of a variant
        assert ([h.chunk_id for h in spans.search_fts("revenue", 10, [doc], "meta")]
                == [h.chunk_id for h in rows.search_fts("revenue", 10, [doc], "meta")])
        assert check_index(rows.index_dir).ok and check_index(spans.index_dir).ok
    finally:
        spans.close()
        rows.close()


@pytest.mark.parametrize("layout", ["spans", "rows"])
def test_removing_re_adding_and_rebuilding_a_variant_leave_the_full_text_of_a_fresh_build(tmp_path, demo_corpus,
                                                                                          layout):
    """Contentless FTS5 rows are deleted with the text they were indexed with: a left-over term would show here."""
    fresh = build(tmp_path / "fresh", demo_corpus[0])
    where = tmp_path / "changed"
    changed = build(older_layout(where) if layout == "rows" else where, demo_corpus[0])
    try:
        name = demo_corpus[1][0].stem
        assert remove_documents(changed, [name]).removed == [name]
        assert full_text(changed, "base") != full_text(fresh, "base")
        index_paths([demo_corpus[0]], changed, progress=False, workers=1)
        changed.delete_prefixes("meta")
        build_variant(changed, "meta", progress=False)
        for variant in ("base", "meta"):
            assert full_text(changed, variant) == full_text(fresh, variant), variant
        assert sorted(texts(changed).values()) == sorted(texts(fresh).values())
        assert check_index(changed.index_dir).ok
    finally:
        fresh.close()
        changed.close()


def test_every_page_layout_reads_back_exactly(tmp_path):
    """Empty pages, a NUL (SQLite's substr and length stop at one), characters of several bytes, chunks across many
    pages and ones that end on the newline between two pages: each chunk read back is its text."""
    rng = random.Random(7)
    alphabet = "abc de\nfé€𝄞\x00"
    store = Store(tmp_path / "idx", create=True)
    try:
        for n in range(30):
            pages = ["".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 9, 40])))
                     for _ in range(rng.randint(1, 12))]
            size = rng.choice([4, 6, 10])
            chunks = chunk_pages(pages, size, size // 2)
            segs = [(s.start, len(s)) for s in (chunk_segment_span(c, size, size // 2, 10**6) for c in chunks)
                    if s is not None]
            store.replace_document(DocumentInfo(doc_id=f"d{n}"), "", pages, chunks, None, segs)
            got = store.chunks_of(f"d{n}")
            assert [c.text for c in got] == [c.text for c in chunks], (pages, size)
            by_id = store.get_chunks([c.chunk_id for c in got])
            assert [by_id[c.chunk_id].text for c in got] == [c.text for c in chunks]
        assert not [p for p in check_index(store.index_dir).problems if "span" in p]
        conn = sqlite3.connect(store.db_path)  # a span moved off its page: `finrag index --check` names it
        conn.execute("UPDATE chunks SET page_off = page_off + 1 WHERE chunk_id = (SELECT MAX(chunk_id) FROM chunks)")
        conn.commit()
        conn.close()
        assert [p for p in check_index(store.index_dir).problems if "span is not inside" in p]
        other = chunk_pages(["something else entirely"], 10, 5)
        with pytest.raises(IndexError_, match="not its span of the page text"):
            store.replace_document(DocumentInfo(doc_id="odd"), "", ["another page"], other, None,
                                   [(0, 1)] * len(other))
    finally:
        store.close()
