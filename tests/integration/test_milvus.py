"""The Milvus backend on real Milvus Lite (no mocks): copy both ways, parity with the embedded backend on
the demo corpus, `finrag index` into Milvus, the LangChain retriever, and one-line errors."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from finrag.cli import main  # noqa: E402
from finrag.tools.indexing import open_index  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_index")


@pytest.fixture(scope="module")
def milvus_index(tmp_path_factory, demo_index) -> str:
    """The demo index copied into Milvus Lite with `finrag copy`."""
    loc = f"milvus:{tmp_path_factory.mktemp('milvus') / 'demo.db'}"
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    return loc


def _stores(demo_index, loc):
    from finrag.tools.indexing.backend import open_store

    return open_store(str(demo_index)), open_store(loc)


def test_copy_moves_everything_without_re_embedding(demo_index, milvus_index, capsys):
    emb, mil = _stores(demo_index, milvus_index)
    try:
        assert [d.doc_id for d in mil.documents()] == [d.doc_id for d in emb.documents()]
        for doc in [d.doc_id for d in emb.documents()]:
            assert mil.pages_of(doc) == emb.pages_of(doc)
            assert [(c.chunk_id, c.text, c.page_start) for c in mil.chunks_of(doc)] == \
                   [(c.chunk_id, c.text, c.page_start) for c in emb.chunks_of(doc)]
        s = mil.stats()
        assert s["chunks"] == emb.stats()["chunks"] and s["variants"] == emb.stats()["variants"]
        cid = emb.chunks_of(emb.documents()[0].doc_id)[3].chunk_id
        for variant in ("base", "meta", "llmctx"):  # the stored vectors, bit for bit
            assert np.allclose(mil.faiss_index(variant).reconstruct(cid), emb.faiss_index(variant).reconstruct(cid))
        missing = 10 ** 9  # no such chunk: a zero row on both backends (the reranker's cosine 0)
        many = [mil.faiss_index().reconstruct_many([cid, missing]), emb.faiss_index().reconstruct_many([cid, missing])]
        assert np.allclose(many[0], many[1]) and many[0].shape == (2, emb.vector_file().dim) and not many[0][1].any()
        assert mil.prefix_of("llmctx", cid) == emb.prefix_of("llmctx", cid)
    finally:
        emb.close()
        mil.close()
    capsys.readouterr()
    assert main(["copy", str(demo_index), milvus_index, "-q"]) == 0  # again: nothing to do
    assert "copied 0 document(s)" in capsys.readouterr().out


def test_interrupted_copy_resumes_without_duplicates(demo_index, tmp_path, capsys):
    from finrag.tools.indexing.backend import open_store

    loc = f"milvus:{tmp_path / 'resume.db'}"
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    mil = open_store(loc)
    doc = mil.documents()[2].doc_id
    chunks = mil.variant_status("base")[0]
    # as if cut off mid-document: its rows partly written, the pending mark set, its documents row not yet
    mil.client.delete(mil.location.name("documents"), filter=f'doc_id == "{doc}"')
    mil.client.delete(mil.location.name("chunks"), filter=f'doc_id == "{doc}" and ord >= 5')
    mil.set_meta("copy_pending", doc)
    mil.close()
    capsys.readouterr()
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    assert "copied 1 document(s)" in capsys.readouterr().out
    mil = open_store(loc)
    try:
        assert mil.variant_status("base")[0] == chunks and mil.count_documents() == 6
        assert mil.get_meta("copy_pending") == ""
        # as if cut off while writing the BM25 statistics: a wrong df, the statistics marked unfinished
        mil.client.upsert(mil.location.name("lex_terms"), [{"id": "base:revenu", "df": 1, "v": [0.0, 0.0]}])
        mil.set_meta("lex_state", "writing")
    finally:
        mil.close()
    capsys.readouterr()
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    assert "copied 0 document(s)" in capsys.readouterr().out
    _lex_equals_source(demo_index, loc)


def _lex_equals_source(index_dir, loc: str) -> None:
    """Milvus' BM25 statistics (N, tokens, df of every term, per variant) equal the embedded index's FTS5's."""
    from finrag.tools.indexing.backend import open_store
    from finrag.tools.indexing.milvus import lex

    emb, mil = open_store(str(index_dir)), open_store(loc)
    try:
        assert mil.get_meta("lex_state") == "ok"
        for variant in ("base", "meta", "llmctx"):
            n, tokens, df = lex.source_stats(emb, variant)
            assert mil.lex_stats(variant) == (n, tokens)
            assert n == (emb.stats()["chunks"] if variant == "base" else emb.variant_status(variant)[0])
            assert mil.lex_df(variant, sorted(df)) == df and df["revenu"] > 1
    finally:
        emb.close()
        mil.close()


def test_search_parity_with_the_embedded_backend(demo_index, milvus_index):
    from finrag.tools.indexing.embedders import get_embedder

    emb, mil = _stores(demo_index, milvus_index)
    e = get_embedder()
    try:
        docs = [d.doc_id for d in emb.documents()]
        for q in ("total revenue 2022", "capital expenditures", "number of employees", "net income per share"):
            qv = e.embed_query(q)
            for scope in (None, docs[:1], docs[2:4]):
                for variant in ("base", "meta", "llmctx"):
                    a = emb.search_vectors(qv, 10, scope, variant)
                    b = mil.search_vectors(qv, 10, scope, variant)
                    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
                    assert np.allclose([c.score for c in a], [c.score for c in b], atol=1e-5)
                assert all(c.doc_id in (scope or docs) for c in mil.search_fts(q, 10, scope))
    finally:
        emb.close()
        mil.close()


def _same_bm25(a, b, k: int) -> None:
    """b (Milvus, top k) equals a (embedded, top k + 10): the same chunks in the same order with the same
    scores (within 1e-4), where two chunks may swap only if the embedded backend scores them equal (ties:
    FTS5 orders them as it finds them, finrag's postings by chunk id)."""
    assert len(b) == min(k, len(a))
    emb_score = {c.chunk_id: c.score for c in a}
    for x, y in zip(a, b):
        assert y.chunk_id == x.chunk_id or abs(emb_score.get(y.chunk_id, -1.0) - x.score) <= 1e-6 * x.score, \
            ([(c.chunk_id, c.score) for c in a], [(c.chunk_id, c.score) for c in b])
        assert abs(x.score - y.score) <= 1e-4 * x.score
    assert [c.fts_rank for c in b] == list(range(1, len(b) + 1))


def test_bm25_equals_the_embedded_backend(demo_index, milvus_index):
    """bm25=finrag: Milvus returns the embedded backend's BM25 (same chunks, same order, same scores)."""
    _lex_equals_source(demo_index, milvus_index)
    emb, mil = _stores(demo_index, milvus_index)
    try:
        assert mil.bm25 == "finrag"
        docs = [d.doc_id for d in emb.documents()]
        queries = ("total revenue 2022", "capital expenditures", "number of employees", "net income per share",
                   "cash and cash equivalents at the end of the year", "company")
        for q in queries + ("3M's year-over-year P&L growth",):  # base: phrases as lexical.py approximates them
            for scope in (None, docs[:1], docs[2:4]):
                a, b = emb.search_fts(q, 30, scope), mil.search_fts(q, 20, scope)
                assert a, (q, scope)
                _same_bm25(a, b, 20)
                assert {c.chunk_id: c.text for c in a}[b[0].chunk_id] == b[0].text
        for variant in ("meta", "llmctx"):  # variants (FTS5 in the embedded backend), single-word terms
            for q in queries:
                for scope in (None, docs[1:2]):
                    _same_bm25(emb.search_fts(q, 25, scope, variant), mil.search_fts(q, 15, scope, variant), 15)
    finally:
        emb.close()
        mil.close()


def test_bm25_function_stays_selectable(demo_index, tmp_path, monkeypatch):
    """FINRAG_MILVUS_BM25=function at copy time: Milvus' own BM25 function (another analyzer and IDF)."""
    loc = f"milvus:{tmp_path / 'fn.db'}"
    monkeypatch.setenv("FINRAG_MILVUS_BM25", "function")
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    monkeypatch.delenv("FINRAG_MILVUS_BM25")
    emb, mil = _stores(demo_index, loc)
    try:
        assert mil.bm25 == "function" and mil.get_meta("lex_rows_base") is None
        docs = [d.doc_id for d in emb.documents()]
        for q in ("total revenue 2022", "capital expenditures", "number of employees"):
            for scope in (None, docs[2:4]):
                f1 = [c.chunk_id for c in emb.search_fts(q, 10, scope)]
                f2 = [c.chunk_id for c in mil.search_fts(q, 10, scope)]
                assert f2 and all(c.doc_id in (scope or docs) for c in mil.search_fts(q, 10, scope))
                assert len(set(f1) & set(f2)) >= 0.3 * min(len(f1), 10), (q, scope, f1, f2)
    finally:
        emb.close()
        mil.close()
    monkeypatch.setenv("FINRAG_MILVUS_BM25", "okapi")
    code = main(["copy", str(demo_index), f"milvus:{tmp_path / 'bad.db'}", "-q"])
    assert code == 2


@pytest.mark.parametrize("system", ["hdrr", "cbr"])
def test_answers_parity_on_the_demo_questions(demo_index, milvus_index, demo_qas, system):
    from finrag import run_query

    hits = {}
    for where in (str(demo_index), milvus_index):
        routed, found = [], 0
        for q in demo_qas:
            res = run_query(q["question"], system, index_dir=where)
            routed.append(res["routing"]["routed_docs"])
            found += any(c["doc_id"] == q["doc_id"] and c["page_start"] <= p <= c["page_end"]
                         for c in res["contexts"] for p in q["evidence_pages"])
        hits[where] = (routed, found)
    (r1, f1), (r2, f2) = hits.values()
    assert r1 == r2
    assert abs(f1 - f2) <= 1 and f2 >= len(demo_qas) // 2


def test_copy_back_to_embedded_gives_the_same_index(milvus_index, demo_index, tmp_path):
    from finrag.tools.indexing.embedders import get_embedder

    back = tmp_path / "back"
    assert main(["copy", milvus_index, str(back), "-q"]) == 0
    emb, again = _stores(demo_index, str(back))
    try:
        assert emb.document_hashes() == {k: (h, p) for k, (h, p) in again.document_hashes().items()}
        assert again.variant_status("llmctx") == emb.variant_status("llmctx")
        qv = get_embedder().embed_query("total revenue")
        for variant in ("base", "meta", "llmctx"):  # meta: its prefix vectors are recovered, not embedded
            a = [(c.text, round(c.score, 5)) for c in emb.search_vectors(qv, 8, None, variant)]
            b = [(c.text, round(c.score, 5)) for c in again.search_vectors(qv, 8, None, variant)]
            assert a == b
    finally:
        emb.close()
        again.close()


def test_index_into_milvus_is_incremental_and_removes(demo_corpus, tmp_path, capsys):
    from finrag.tools.indexing.backend import open_store

    folder = tmp_path / "two"
    folder.mkdir()
    for pdf in sorted(demo_corpus[1])[:2]:
        shutil.copy(pdf, folder)
    loc = f"milvus:{tmp_path / 'ix.db'}"
    assert main(["index", str(folder), "--index", loc, "-q", "--workers", "1"]) == 0
    assert "copied 2 document(s)" in capsys.readouterr().out
    assert main(["index", str(folder), "--index", loc, "-q", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "unchanged 2" in out and "copied 0 document(s)" in out
    mil = open_store(loc)
    doc = mil.documents()[0].doc_id
    mil.close()
    assert main(["index", "--remove", doc, "--index", loc, "-q"]) == 0
    assert f"removed {doc} from {loc}" in capsys.readouterr().out
    mil = open_store(loc)
    try:
        assert [d.doc_id for d in mil.documents()] != [] and doc not in mil.document_hashes()
        assert mil.search_fts("revenue", 5, [doc]) == [] and mil.search_fts("revenue", 5)
    finally:
        mil.close()
    _lex_matches_staging(loc, 1)
    for pdf in sorted(demo_corpus[1])[2:4]:  # two more filings: df / N / tokens follow
        shutil.copy(pdf, folder)
    assert main(["index", str(folder), "--index", loc, "-q", "--workers", "1"]) == 0
    assert "copied 3 document(s)" in capsys.readouterr().out  # the removed one comes back, and two new
    _lex_matches_staging(loc, 4)


def _lex_matches_staging(loc: str, n_docs: int) -> None:
    """Milvus' BM25 statistics after incremental writes equal the staging index's (FTS5's) own; a full
    `finrag copy` from it with no drift allowed rewrites the weights, and then the scores are equal too."""
    from finrag.tools.indexing.backend import open_store
    from finrag.tools.indexing.milvus import lex
    from finrag.tools.indexing.milvus.schema import parse_location

    staging = parse_location(loc).cache_dir / "staging"
    emb, mil = open_store(str(staging)), open_store(loc)
    try:
        assert mil.count_documents() == emb.count_documents() == n_docs
        n, tokens, df = lex.source_stats(emb, "base")
        assert mil.lex_stats("base") == (n, tokens)
        assert mil.lex_df("base", sorted(df)) == df
        assert all(v == 0 for v in mil.lex_df("base", ["zzzunseen", "qqqnever", "café", "日本"]).values())
        ids = [c.chunk_id for c in emb.search_fts("revenue growth net income", 10)]
        assert set(ids) == {c.chunk_id for c in mil.search_fts("revenue growth net income", 10)}
    finally:
        emb.close()
        mil.close()
    import os

    os.environ["FINRAG_MILVUS_AVGDL_DRIFT"] = "0"
    try:
        from finrag.tools.indexing.milvus.writer import copy_index

        rep = copy_index(str(staging), loc, progress=False)
        assert not rep.removed
    finally:
        del os.environ["FINRAG_MILVUS_AVGDL_DRIFT"]
    emb, mil = open_store(str(staging)), open_store(loc)
    try:
        for q in ("revenue growth net income", "employees", "capital expenditures"):
            _same_bm25(emb.search_fts(q, 20), mil.search_fts(q, 10), 10)
    finally:
        emb.close()
        mil.close()


def test_langchain_retriever_in_an_lcel_chain(milvus_index, demo_index, demo_qas):
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    import finrag

    q = demo_qas[0]
    for where in (milvus_index, str(demo_index)):
        retriever = finrag.retriever(system="hdrr", index=where)
        docs = retriever.invoke(q["question"])
        assert docs and all(d.metadata["doc_id"] == q["doc_id"] for d in docs)
        m = docs[0].metadata
        assert m["routing"]["routed_docs"] == [q["doc_id"]] and m["pages"] and isinstance(m["score"], float)
        prompt = ChatPromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
        chain = ({"context": retriever | RunnableLambda(lambda ds: "\n".join(
                    f"[{d.metadata['doc_id']} p.{d.metadata['page_start']}] {d.page_content}" for d in ds)),
                  "question": RunnablePassthrough()} | prompt | RunnableLambda(lambda p: p.to_string())
                 | StrOutputParser())
        text = chain.invoke(q["question"])
        assert f"[{q['doc_id']} p." in text and q["question"] in text
    with pytest.raises(ValueError, match="supports the systems"):
        finrag.retriever(system="sfr", index=milvus_index)


def test_errors_are_one_line(milvus_index, demo_index, tmp_path, capsys):
    from finrag.tools.indexing.backend import open_store

    def err(*argv) -> tuple[int, str]:
        capsys.readouterr()
        code = main(list(argv))
        e = capsys.readouterr().err
        return code, e

    code, e = err("info", "--index", "milvus://127.0.0.1:9")  # nothing listens on port 9
    assert code == 2 and "unreachable" in e and "Traceback" not in e and len(e.strip().splitlines()) == 1
    code, e = err("ask", "--index", f"milvus:{tmp_path / 'none.db'}", "What was revenue?")
    assert code == 2 and "no finrag index" in e and len(e.strip().splitlines()) == 1
    code, e = err("info", "--index", f"milvus:{tmp_path / 'nodb'}")
    assert code == 2 and "must end in .db" in e

    src = milvus_index.removeprefix("milvus:")
    broken = tmp_path / "broken.db"
    shutil.copytree(src, broken)
    s = open_store(f"milvus:{broken}")
    s.set_meta("milvus_schema_version", 99)
    s.close()
    code, e = err("info", "--index", f"milvus:{broken}")
    assert code == 2 and "schema version 99" in e and len(e.strip().splitlines()) == 1
    old = tmp_path / "old.db"  # collections of the first schema (Milvus' BM25 function, no lex_terms)
    shutil.copytree(src, old)
    s = open_store(f"milvus:{old}")
    s.client.drop_collection(s.location.name("lex_terms"))
    s.set_meta("milvus_schema_version", 1)
    s.close()
    for argv in (("info", "--index", f"milvus:{old}"), ("ask", "--index", f"milvus:{old}", "What was revenue?"),
                 ("copy", str(demo_index), f"milvus:{old}")):
        code, e = err(*argv)
        assert code == 2 and "schema version 1" in e and "copy the index again" in e, (argv, e)
        assert len(e.strip().splitlines()) == 1 and "Traceback" not in e

    gone = tmp_path / "gone.db"
    shutil.copytree(src, gone)
    s = open_store(f"milvus:{gone}")
    s.client.drop_collection(s.location.name("chunks"))
    s.close()
    code, e = err("ask", "--index", f"milvus:{gone}", "What was revenue?")
    assert code == 2 and "finrag_chunks" in e and "missing" in e and len(e.strip().splitlines()) == 1
    code, e = err("copy", f"milvus:{gone}", f"milvus:{tmp_path / 'x.db'}")
    assert code == 2 and "between backends" in e
    assert json.loads(json.dumps({"ok": True}))  # (the JSON contract is covered by the parity test)


def test_server_and_finrag_home_accept_a_milvus_index(milvus_index, demo_qas, monkeypatch):
    from fastapi.testclient import TestClient

    from finrag.graphs import get_graph
    from finrag.server import create_app
    from finrag.state.configuration import Configuration

    q = demo_qas[0]
    with TestClient(create_app(milvus_index)) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and health["documents"] == 6
        assert health["index"] == "milvus:demo.db"  # the name, not the path (issue 21)
        out = client.post("/hdrr/invoke", json={"input": {"question": q["question"]}}).json()["output"]
        assert out["routing"]["routed_docs"] == [q["doc_id"]] and out["contexts"]
    open_index.reset()
    monkeypatch.setenv("FINRAG_HOME", milvus_index)  # as Studio (langgraph dev) runs the graphs
    state = get_graph("hdrr").invoke({"question": q["question"]}, context=Configuration())
    assert state["routed_docs"] == [q["doc_id"]] and state["contexts"]



def test_copy_carries_the_xbrl_facts(tmp_path):
    """An inline-XBRL filing's line item answers the same from a Milvus copy as from the embedded index (from
    its tagged facts, not the table reader), and a copy back to a directory keeps the facts."""
    from support.ixbrl import tenq_markup

    from finrag import run_query
    from finrag.tools.indexing.backend import open_store
    from finrag.tools.indexing.facts_store import load_facts

    filings = tmp_path / "filings"
    filings.mkdir()
    (filings / "acmw-10-q-2025-08-01.html").write_text(tenq_markup())
    idx, loc, back = tmp_path / "idx", f"milvus:{tmp_path / 'facts.db'}", tmp_path / "back"
    assert main(["index", str(filings), "--index", str(idx), "-q"]) == 0
    assert main(["copy", str(idx), loc, "-q"]) == 0
    q = "What was Acme Widgets, Inc.'s diluted EPS for the quarter ended June 28, 2025?"
    answers = []
    for where in (str(idx), loc):
        res = run_query(q, "hdrr", index_dir=where)
        open_index.reset()
        assert "$1.57 per share" in res["answer"] and "inline XBRL fact us-gaap:EarningsPerShareDiluted" in res["answer"]
        answers.append(res["answer"])
    assert answers[0] == answers[1]
    store = open_store(loc)
    try:
        facts = store.xbrl_facts("acmw-10-q-2025-08-01")
        assert facts and any(f["concept"] == "us-gaap:EarningsPerShareDiluted" for f in facts["facts"])
    finally:
        store.close()
    assert main(["copy", loc, str(back), "-q"]) == 0
    store = open_store(str(back))
    try:
        assert load_facts(store, "acmw-10-q-2025-08-01") == facts
    finally:
        store.close()
