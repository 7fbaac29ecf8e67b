"""Issue 14 units: device selection, vector-index choice, recall, and BM25 postings equal to FTS5's bm25()."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from finrag.tools.indexing import lexical, lexical_search
from finrag.tools.indexing.embedders import select_device
from finrag.tools.indexing.vectors import AUTO_ANN_ROWS, choose_kind, merge_top, recall_at


# ------------------------------------------------------------------ --device
@pytest.mark.parametrize("requested,gpu,expected", [
    ("cpu", True, "cpu"), ("cpu", False, "cpu"), ("auto", True, "cuda"), ("auto", False, "cpu"),
    (None, True, "cuda"), ("", False, "cpu"), ("cuda", True, "cuda"), ("cuda:1", True, "cuda:1"), ("AUTO", False, "cpu"),
])
def test_device_selection(requested, gpu, expected):
    assert select_device(requested, cuda_available=lambda: gpu) == expected


def test_cuda_without_a_gpu_and_unknown_devices_are_clear_errors():
    with pytest.raises(ValueError, match="no CUDA GPU"):
        select_device("cuda", cuda_available=lambda: False)
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        select_device("tpu", cuda_available=lambda: True)


def test_a_broken_cuda_install_counts_as_no_gpu():
    def broken():
        raise RuntimeError("CUDA driver version is insufficient")

    assert select_device("auto", cuda_available=broken) == "cpu"


def test_cpu_never_asks_torch():
    def boom():
        raise AssertionError("asked for CUDA")

    assert select_device("cpu", cuda_available=boom) == "cpu"


def test_auto_follows_what_torch_reports(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert select_device("auto") == "cuda"
    assert select_device("cuda") == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert select_device("auto") == "cpu"
    with pytest.raises(ValueError, match="no CUDA GPU"):
        select_device("cuda")


def test_configuration_device_reaches_the_embedder(monkeypatch, tmp_path):
    from finrag.state.configuration import Configuration
    from finrag.tools.indexing.embedders import get_embedder

    assert Configuration().embed_device == "auto"
    monkeypatch.setenv("FINRAG_EMBED_DEVICE", "cpu")
    assert Configuration().embed_device == "cpu"
    assert get_embedder("minilm").requested_device == "cpu"
    assert get_embedder("minilm", device="cuda").requested_device == "cuda"  # chosen, checked when the model loads


# -------------------------------------------------------------- vector index
def test_vector_index_kind_by_setting_and_size():
    assert choose_kind("auto", AUTO_ANN_ROWS - 1) == "flat"
    assert choose_kind("auto", AUTO_ANN_ROWS) == "ivf"
    assert choose_kind(None, 10) == "flat"
    assert choose_kind("hnsw", 10) == "hnsw" and choose_kind("FLAT", 10**9) == "flat"
    with pytest.raises(ValueError, match="unknown vector index"):
        choose_kind("annoy", 10)


def test_recall_and_merge():
    exact = [np.array([1, 2, 3, 4]), np.array([5, 6])]
    approx = [np.array([1, 2, 9, 4]), np.array([6, 5])]
    assert recall_at(exact, approx, k=4) == pytest.approx((3 / 4 + 1.0) / 2)
    ids, sims = merge_top([(np.array([1, 2]), np.array([0.9, 0.5])), (np.array([3, 2]), np.array([0.7, 0.6]))], 3)
    assert ids.tolist() == [1, 3, 2] and sims.tolist() == pytest.approx([0.9, 0.7, 0.6])


# ------------------------------------------------------------- BM25 postings
TEXTS = [
    "Capital expenditures were $1,577 million in 2018; purchases of property, plant and equipment rose.",
    "Revenue recognition: revenue is recognized when control transfers. Revenue grew 5% year-over-year.",
    "The P&L statement shows cost of sales and SG&A expenses; café naïve Ünïcode \uf0b7 bullet_point.",
    "Cash flows from operating activities funded dividends and share repurchases in fiscal 2018.",
    "Inventories are stated at the lower of cost or net realizable value; inventory turnover improved.",
    "Depreciation and amortization of property and equipment was recorded on a straight-line basis.",
]


def _db(texts):
    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61');")
    lexical.ensure_schema(conn)
    docs = {"A": (1, texts[:3]), "B": (101, texts[3:])}
    for doc, (lo, part) in docs.items():
        ids = list(range(lo, lo + len(part)))
        conn.executemany("INSERT INTO f(rowid, text) VALUES (?, ?)", list(zip(ids, part)))
        lexical.add_document(conn, doc, ids, part)
    return conn


def _fts5(conn, terms, lo=None, hi=None, k=10):
    match = " OR ".join(f'"{t}"' for t in terms)
    sql = "SELECT rowid, -bm25(f) FROM f WHERE f MATCH ?"
    params: list = [match]
    if lo is not None:
        sql += " AND rowid BETWEEN ? AND ?"
        params += [lo, hi]
    return conn.execute(sql + " ORDER BY bm25(f) LIMIT ?", (*params, k)).fetchall()


@pytest.mark.parametrize("terms", [
    ["revenue"], ["property", "equipment", "2018"], ["cash", "flows", "dividends", "revenue"],
    ["inventory", "inventories", "cost"], ["cafe", "naive", "unicode"], ["expenditures", "purchases"],
])
def test_postings_give_fts5_bm25_scores(terms):
    conn = _db(TEXTS)
    want = _fts5(conn, terms)
    got = lexical_search.search(conn, terms, 10)
    assert [c for c, _ in got] == [c for c, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)
    scoped_want = _fts5(conn, terms, 101, 103)
    scoped = lexical_search.search(conn, terms, 10, [101])
    assert [c for c, _ in scoped] == [c for c, _ in scoped_want]
    assert [s for _, s in scoped] == pytest.approx([s for _, s in scoped_want], rel=1e-9)
    assert all(101 <= c <= 103 for c, _ in scoped)


def test_token_counts_match_fts5_including_private_use_characters():
    conn = _db(TEXTS)
    want = {r[0]: r[1] for r in conn.execute("SELECT rowid, -bm25(f) FROM f WHERE f MATCH '\"bullet\"'")}
    assert want and dict(lexical_search.search(conn, ["bullet"], 5)) == pytest.approx(want, rel=1e-9)


def test_phrases_need_all_their_tokens():
    conn = _db(TEXTS)
    hits = dict(lexical_search.search(conn, ["p&l", "year-over-year"], 10))
    assert set(hits) == {3, 2}  # the chunk with P&L, the one with year-over-year


def test_removing_a_document_restores_the_statistics():
    conn = _db(TEXTS)
    before = conn.execute("SELECT rows, tokens FROM lex_stats").fetchone()
    extra = ["Revenue revenue revenue from a third filing.", "Another chunk about cash."]
    lexical.add_document(conn, "C", [201, 202], extra)
    conn.execute("INSERT INTO f(rowid, text) VALUES (201, ?), (202, ?)", extra)
    conn.commit()
    assert lexical_search.search(conn, ["revenue"], 1)[0][0] == 201
    # chunk texts are read from `chunks` on removal
    conn.execute("CREATE TABLE chunks(chunk_id INTEGER PRIMARY KEY, doc_id TEXT, char_start INT, char_end INT, text TEXT)")
    conn.executemany("INSERT INTO chunks VALUES (?, 'C', NULL, NULL, ?)", [(201, extra[0]), (202, extra[1])])
    lexical.remove_document(conn, "C")
    assert conn.execute("SELECT rows, tokens FROM lex_stats").fetchone() == before
    assert lexical_search.search(conn, ["revenue"], 10) and all(c < 200 for c, _ in lexical_search.search(conn, ["revenue"], 10))
    assert conn.execute("SELECT COUNT(*) FROM lex_post WHERE lo = 201").fetchone()[0] == 0
