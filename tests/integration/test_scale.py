"""Issue 14 on real indexes: text first and vectors after, on-demand vectors, the vector file, ANN, migration.

Costs are not asserted here (timings belong to `bench/scale.py`); these tests check that the fast paths give
the same answers as the slow ones and that nothing is lost when vectors come late.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import embed_pending, index_paths
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import fts_query

REPO = Path(__file__).resolve().parents[2]


def _open(path) -> Store:
    s = Store(path)
    s.check_embedder(get_embedder())
    return s


@pytest.fixture()
def text_only(tmp_path, demo_corpus):
    """The demo corpus indexed text-first, without the embed pass."""
    store = Store(tmp_path / "idx", create=True)
    store.check_embedder(get_embedder())
    rep = index_paths([demo_corpus[0]], store, progress=False, workers=1, embed=False)
    assert not rep.failed and rep.indexed and not rep.embedded
    store.close()
    return tmp_path / "idx"


def _no_document_embedding(monkeypatch, store):
    def refuse(texts, progress=False):
        raise AssertionError(f"re-embedded {len(texts)} texts")

    monkeypatch.setattr(store.embedder, "embed_documents", refuse)


# -------------------------------------------------------------- BM25 paths
def test_lexical_and_fts5_paths_rank_alike(demo_index):
    from finrag.tools.indexing import lexical_runs

    s = _open(demo_index)
    conn = s._reader()
    # `finrag index` left every filing's postings in a run: the corpus-wide searches below read the runs
    assert conn.execute("SELECT COUNT(*) FROM lex_docs WHERE run IS NULL").fetchone()[0] == 0
    assert lexical_runs.fetch_runs(conn, ["revenu"]) is not None
    # and each run's memory-mapped file, which the corpus-wide block-max search reads (lexical_blocks.py)
    files = [f for (f,) in conn.execute("SELECT file FROM lex_runs")]
    assert files and all((Path(demo_index) / f"lexrun-{f}.bin").exists() for f in files if f)
    assert None not in files
    for q in ("total revenue net income", "effective tax rate", "capital expenditures cash flows",
              "inventories balance sheet", "share repurchase program dividends"):
        phrases = fts_query(q).replace('"', "").split(" OR ")
        for doc in [None] + [d.doc_id for d in s.documents()[:3]]:
            scope = None if doc is None else [doc]
            fast = [(h.chunk_id, h.score) for h in s.search_fts(q, 10, doc_ids=scope)]
            slow = s._fts5_search(conn, phrases, 10, scope, "base")
            # equal up to the terms at FTS5's IDF floor (1e-6 each), which the corpus-wide search may skip
            assert [sc for _, sc in fast] == pytest.approx([sc for _, sc in slow], rel=1e-9, abs=1e-5), (q, doc)
            scores = [round(sc, 4) for _, sc in slow]
            unique = [i for i, sc in enumerate(scores) if scores.count(sc) == 1]  # the demo has tied chunks
            assert [fast[i][0] for i in unique] == [slow[i][0] for i in unique], (q, doc)
            if doc:
                assert {h.doc_id for h in s.search_fts(q, 10, doc_ids=scope)} <= {doc}
    s.close()


def test_cached_postings_give_the_same_ranking_and_never_outlive_a_write(demo_index, tmp_path, monkeypatch):
    from finrag.tools.indexing import lexical, lexical_search
    from finrag.tools.indexing.indexer import remove_documents

    monkeypatch.setattr(lexical_search, "search_blocks", lambda *a: None)  # the path that caches decoded postings

    idx = tmp_path / "idx"
    shutil.copytree(demo_index, idx)
    s = _open(idx)
    lexical.POSTINGS.clear()
    q = "total revenue net income"
    first = [(h.chunk_id, h.score) for h in s.search_fts(q, 20)]
    assert lexical.POSTINGS._items, "a corpus-wide search keeps its terms' postings"
    assert [(h.chunk_id, h.score) for h in s.search_fts(q, 20)] == first  # from the cache
    other = _open(demo_index)  # another index: its own keys, its own results
    assert [(h.chunk_id, h.score) for h in other.search_fts(q, 20)] == first
    other.close()
    top = next(h.doc_id for h in s.search_fts(q, 1))
    path = next(d.path for d in s.documents() if d.doc_id == top)
    remove_documents(s, [top])
    assert top not in {h.doc_id for h in s.search_fts(q, 20)}  # postings cached without the document
    rep = index_paths([Path(path)], s, progress=False, workers=1, embed=False)  # back, under new chunk ids
    assert rep.indexed and not rep.failed
    assert top in {h.doc_id for h in s.search_fts(q, 20)}, "stale cached postings hid a new document"
    runs = s.conn.execute("SELECT COUNT(*) FROM lex_runs").fetchone()[0]
    assert runs == 2 and not s.conn.execute("SELECT COUNT(*) FROM lex_docs WHERE run IS NULL").fetchone()[0]
    lexical.POSTINGS.clear()  # the re-indexed filing from its own run, its earlier copy skipped: as FTS5 ranks
    phrases = fts_query(q).replace('"', "").split(" OR ")
    fts5 = s._fts5_search(s._reader(), phrases, 20, None, "base")
    assert [h.score for h in s.search_fts(q, 20)] == pytest.approx([sc for _, sc in fts5], rel=1e-9, abs=1e-5)
    s.close()


def test_readers_in_parallel_threads_agree(demo_index):
    s = _open(demo_index)
    docs = [d.doc_id for d in s.documents()]
    vec = s.embedder.embed_query("total revenue")
    want = [([h.chunk_id for h in s.search_fts("revenue income", 10, doc_ids=[d])],
             [h.chunk_id for h in s.search_vectors(vec, 10, doc_ids=[d])]) for d in docs]
    errors, results = [], {}
    done, release = threading.Barrier(9), threading.Event()

    def work(i):
        try:
            for _ in range(20):
                got = [([h.chunk_id for h in s.search_fts("revenue income", 10, doc_ids=[d])],
                        [h.chunk_id for h in s.search_vectors(vec, 10, doc_ids=[d])]) for d in docs]
                results[i] = got
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        done.wait()
        release.wait(60)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    done.wait()
    alive = len(s._readers)
    release.set()
    for t in threads:
        t.join()
    assert not errors and all(r == want for r in results.values())
    assert alive >= 8  # one connection per thread: no lock held across a query
    assert len(s._readers) <= 1  # and each closed with its thread (issue 49)
    s.close()


# --------------------------------------------------------- text first, vectors after
def test_text_first_index_is_searchable_and_routable_before_vectors(text_only):
    from finrag.api import run_query
    from finrag.tools.indexing import open_index

    s = _open(text_only)
    missing, total = s.vector_coverage()
    assert total == s.count_documents() > 0 and len(missing) == total
    assert s.search_fts("revenue", 5)
    open_index.reset()
    q = "What was Acme Widgets' total revenue in FY2022?"
    off = run_query(q, system="hdrr", index_dir=str(text_only), configurable={"embed_on_demand": False})
    assert off["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"] and off["contexts"]
    assert off["retrieval"]["vectors"] == "none" and "BM25 only" in off["retrieval"]["note"]
    cbr = run_query(q, system="cbr", index_dir=str(text_only))
    assert cbr["retrieval"]["vectors"] == "none" and cbr["retrieval"]["missing_count"] == total
    on = run_query(q, system="hdrr", index_dir=str(text_only))
    assert on["retrieval"]["vectors"] == "embedded_on_demand"
    assert on["retrieval"]["embedded_on_demand"] == ["ACMEWIDGETS_2022_10K"]
    again = run_query(q, system="hdrr", index_dir=str(text_only))
    assert again["retrieval"]["vectors"] == "complete" and again["retrieval"]["note"] == ""
    partial = run_query(q, system="cbr", index_dir=str(text_only))
    assert partial["retrieval"]["vectors"] == "partial" and partial["retrieval"]["missing_count"] == total - 1
    assert "ACMEWIDGETS_2022_10K" not in partial["retrieval"]["missing_vectors"]
    open_index.reset()
    s.close()


def test_embed_pass_completes_a_text_first_index_like_a_one_pass_build(text_only, demo_index, monkeypatch):
    s = _open(text_only)
    rep = embed_pending(s, progress=False)
    assert len(rep.embedded) == s.count_documents() and rep.segments > 0 and rep.embed_seconds > 0
    assert rep.embed_pass_seconds >= rep.embed_seconds
    assert s.vector_coverage() == ([], s.count_documents())
    ref = _open(demo_index)
    for doc in [d.doc_id for d in ref.documents()]:  # same vectors as the one-pass demo index, chunk by chunk
        a = s.faiss_index().reconstruct(s.chunks_of(doc)[1].chunk_id)
        b = ref.faiss_index().reconstruct(ref.chunks_of(doc)[1].chunk_id)
        assert float(a @ b) > 0.9999
    assert s.faiss_index().ntotal == s.stats()["chunks"]
    _no_document_embedding(monkeypatch, s)
    assert not embed_pending(s, progress=False).embedded  # nothing left to do
    s.close()
    ref.close()


def test_cli_no_embed_then_embed(demo_corpus, tmp_path):
    env_py = sys.executable
    idx = tmp_path / "idx"
    r = subprocess.run([env_py, "-m", "finrag.cli", "index", str(demo_corpus[0]), "--index", str(idx), "--no-embed",
                        "-q", "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "embedded 0 file(s)" in r.stdout, r.stdout + r.stderr
    info = subprocess.run([env_py, "-m", "finrag.cli", "index", "--check", "--index", str(idx)],
                          capture_output=True, text=True, timeout=300)
    assert info.returncode == 0 and "have no vectors yet" in info.stdout, info.stdout + info.stderr
    r = subprocess.run([env_py, "-m", "finrag.cli", "index", "--embed", "--index", str(idx), "-q"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and f"embedded {len(demo_corpus[1])} file(s)" in r.stdout, r.stdout + r.stderr
    check = subprocess.run([env_py, "-m", "finrag.cli", "index", "--check", "--index", str(idx)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "have no vectors yet" not in check.stdout, check.stdout


# ---------------------------------------------------------------- vector file
def test_vector_file_is_rebuilt_from_sqlite_without_embedding(demo_index, tmp_path, monkeypatch):
    idx = tmp_path / "idx"
    shutil.copytree(demo_index, idx)
    s = _open(idx)
    vec = s.embedder.embed_query("total revenue and net income")
    before = [(h.chunk_id, round(h.score, 5)) for h in s.search_vectors(vec, 20)]
    s.close()
    for f in idx.glob("vectors_*"):
        f.unlink()
    s = _open(idx)
    _no_document_embedding(monkeypatch, s)
    assert [(h.chunk_id, round(h.score, 5)) for h in s.search_vectors(vec, 20)] == before
    assert s.faiss_is_current() and s.faiss_index().ntotal == s.stats()["chunks"]
    s.close()


def test_removed_documents_leave_no_vectors_behind(demo_index, tmp_path):
    from finrag.tools.indexing.indexer import remove_documents

    idx = tmp_path / "idx"
    shutil.copytree(demo_index, idx)
    s = _open(idx)
    doc = s.documents()[0].doc_id
    ids = [c.chunk_id for c in s.chunks_of(doc)]
    remove_documents(s, [doc])
    assert not s.vector_file().gather(np.array(ids)).any()
    vec = s.embedder.embed_query("total revenue")
    assert doc not in {h.doc_id for h in s.search_vectors(vec, 50)}
    assert doc not in {h.doc_id for h in s.search_fts("revenue", 50)}
    s.close()


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_index_matches_exact_search_and_sees_new_documents(demo_index, tmp_path, kind, monkeypatch):
    idx = tmp_path / "idx"
    shutil.copytree(demo_index, idx)
    s = _open(idx)
    s.set_meta("vector_index", kind)  # `auto` would search this small corpus exactly
    record = s.build_ann("base")
    assert record["kind"] == kind and record["ntotal"] == s.stats()["chunks"] and 0 <= record["recall_at_30"] <= 1
    assert s.stats()["ann"]["kind"] == kind
    from finrag.tools.indexing.vectors import retune_ann

    vf = s.vector_file()
    again = retune_ann(vf, vf.file_id())  # the side file is rewritten, the index kept; the tuning is deterministic
    assert (again["file"], again["param"], again["recall_at_30"]) == (record["file"], record["param"],
                                                                      record["recall_at_30"])
    vec = s.embedder.embed_query("effective tax rate")
    exact = s.vector_file().exact_search(vec, 10)[0].tolist()
    approx = [h.chunk_id for h in s.search_vectors(vec, 10)]
    assert len(set(exact) & set(approx)) >= 8
    # a document whose vectors are written after the approximate index was built is searched exactly
    doc = s.documents()[0].doc_id
    s.forget_vector_rows(doc)
    s.write_doc_vectors(doc)
    top = s.chunks_of(doc)[3]
    hits = s.search_vectors(s.faiss_index().reconstruct(top.chunk_id), 5)
    assert hits[0].chunk_id == top.chunk_id
    s.close()


# ------------------------------------------------------------------ migration
def test_an_index_of_the_previous_schema_migrates_in_place_without_re_embedding(demo_index, tmp_path, monkeypatch):
    """Schema 1 had no BM25 postings, no vector rows and a FAISS file per variant; opening and re-running
    `finrag index` adds the postings and writes the vector file from the stored segments."""
    idx = tmp_path / "old"
    shutil.copytree(demo_index, idx)
    conn = sqlite3.connect(idx / "finrag.sqlite")
    for t in ("lex_docs", "lex_post", "lex_df", "lex_stats", "vec_rows"):
        conn.execute(f"DROP TABLE {t}")
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    for f in idx.glob("vectors_*"):
        f.unlink()
    s = _open(idx)
    _no_document_embedding(monkeypatch, s)
    doc = s.documents()[0].doc_id
    hits = s.search_fts("revenue", 5, doc_ids=[doc])  # FTS5 with the document's rowid range meanwhile
    assert hits and {h.doc_id for h in hits} == {doc}
    rep = index_paths([], s, progress=False)
    assert not rep.embedded and s.vector_coverage()[0] == []
    assert [h.chunk_id for h in s.search_fts("revenue", 5, doc_ids=[doc])] == [h.chunk_id for h in hits]
    assert s.faiss_index().ntotal == s.stats()["chunks"]
    s.close()


# --------------------------------------------------------------- query encoder
def test_numpy_query_encoder_equals_sentence_transformers():
    from finrag.tools.indexing.embedders import MiniLMEmbedder
    from finrag.tools.indexing.minilm_numpy import NumpyMiniLM

    emb = MiniLMEmbedder(device="cpu")
    enc = NumpyMiniLM(emb.model_path)
    texts = ["What was 3M's FY2018 capital expenditure?", "x", "Revenue " * 400, "café — 10-K s&p \uf0b7 ümlaut"]
    ref = emb.embed_documents(texts)
    for t, r in zip(texts, ref):
        assert float(enc.embed(t) @ r) > 0.9999


def test_onnx_query_encoder_equals_sentence_transformers_and_is_built_once(tmp_path, monkeypatch):
    from finrag.tools.indexing.embedders import MiniLMEmbedder
    from finrag.tools.indexing.minilm_numpy import NumpyMiniLM
    from finrag.tools.indexing.minilm_onnx import OnnxMiniLM, cache_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    emb = MiniLMEmbedder(device="cpu")
    weights = Path(emb.model_path) / "model.safetensors"
    enc = OnnxMiniLM(NumpyMiniLM(emb.model_path), weights)
    built = cache_file(weights)
    assert built.is_file() and built.parent == tmp_path / "cache" / "finrag"
    assert not list(built.parent.glob("*.tmp"))
    texts = ["What was 3M's FY2018 capital expenditure?", "x", "", "Revenue " * 400, "café — 10-K s&p \uf0b7 ümlaut"]
    ref = emb.embed_documents(texts)
    for t, r in zip(texts, ref):
        v = enc.embed(t)
        assert v.dtype == np.float32 and v.shape == (384,)
        assert float(v @ r) > 0.9999
    stamp = built.stat().st_mtime_ns
    again = OnnxMiniLM(NumpyMiniLM(emb.model_path), weights)  # reads the cached graph, does not rebuild it
    assert built.stat().st_mtime_ns == stamp
    assert np.array_equal(again.embed(texts[0]), enc.embed(texts[0]))


def test_query_encoder_follows_the_environment(tmp_path, monkeypatch, caplog):
    from finrag.tools.indexing import embedders
    from finrag.tools.indexing.embedders import MiniLMEmbedder
    from finrag.tools.indexing.minilm_numpy import NumpyMiniLM
    from finrag.tools.indexing.minilm_onnx import OnnxMiniLM

    monkeypatch.setitem(embedders._PREFERRED_QUERY_ENCODER, "kind", "auto")  # whatever ran before in this process
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for value, kind in (("numpy", NumpyMiniLM), ("onnx", OnnxMiniLM), ("auto", OnnxMiniLM), ("", OnnxMiniLM)):
        monkeypatch.setenv("FINRAG_QUERY_ENCODER", value)
        assert type(MiniLMEmbedder(device="cpu")._query_encoder()) is kind, value
    monkeypatch.setenv("FINRAG_QUERY_ENCODER", "tensorrt")
    with pytest.raises(ValueError, match="FINRAG_QUERY_ENCODER"):
        MiniLMEmbedder(device="cpu")._query_encoder()
    monkeypatch.setenv("FINRAG_QUERY_ENCODER", "auto")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # the graph cannot be written: NumPy, with a warning
    with caplog.at_level("WARNING", logger="finrag"):
        assert type(MiniLMEmbedder(device="cpu")._query_encoder()) is NumpyMiniLM
    assert "ONNX Runtime failed" in caplog.text
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # not installed
    monkeypatch.setenv("FINRAG_QUERY_ENCODER", "auto")
    assert type(MiniLMEmbedder(device="cpu")._query_encoder()) is NumpyMiniLM
    monkeypatch.setenv("FINRAG_QUERY_ENCODER", "onnx")
    with pytest.raises(RuntimeError, match="ONNX Runtime"):
        MiniLMEmbedder(device="cpu")._query_encoder()


def _one_shot_ask(index: Path, question: str) -> subprocess.CompletedProcess:
    """`finrag ask` in a fresh process; stdout ends with TORCH/NO-TORCH and the query encoder's class."""
    code = ("import sys; from finrag.cli import main; rc = main(['ask', '--index', sys.argv[1], sys.argv[2]]); "
            "from finrag.tools.indexing.embedders import get_embedder, resolve_spec; "
            "from finrag.tools.indexing.store import Store; "
            "e = get_embedder(resolve_spec(None, Store(sys.argv[1]).get_meta('embedder'))); "
            "q = getattr(e, '_query_encoder', None); "
            "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH', type(q() if q else e).__name__); "
            "sys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code, str(index), question], capture_output=True, text=True,
                          timeout=300, env={k: v for k, v in os.environ.items() if k != "FINRAG_QUERY_ENCODER"})


def test_one_shot_ask_never_imports_torch(demo_index):
    """The default (static) index: a question is embedded with the distilled table, torch never imported."""
    r = _one_shot_ask(demo_index, "What was Acme Widgets total revenue in FY2022?")
    assert r.returncode == 0 and r.stdout.strip().endswith("NO-TORCH StaticEmbedder"), r.stdout[-500:] + r.stderr[-2000:]


def test_one_shot_ask_on_a_minilm_index_embeds_with_numpy(tmp_path):
    """A MiniLM index (`--embedder minilm`): the question is embedded by the NumPy encoder (ONNX Runtime's session
    costs more than one query saves), and torch is never imported."""
    pytest.importorskip("sentence_transformers", reason="MiniLM document vectors need the minilm extra")
    from finrag.cli import main

    note = tmp_path / "acme.txt"
    note.write_text("Acme Widgets annual report for fiscal 2022. Total revenue was $512 million. " * 30)
    assert main(["index", str(note), "--index", str(tmp_path / "idx"), "--embedder", "minilm", "-q"]) == 0
    r = _one_shot_ask(tmp_path / "idx", "What was Acme Widgets total revenue?")
    assert r.returncode == 0 and r.stdout.strip().endswith("NO-TORCH NumpyMiniLM"), r.stdout[-500:] + r.stderr[-2000:]


def test_registry_is_stored_and_reused(demo_index, tmp_path, monkeypatch):
    from finrag.tools.indexing import open_index
    from finrag.tools.routing import registry as reg_mod

    idx = tmp_path / "idx"
    shutil.copytree(demo_index, idx)
    for f in idx.glob("registry*.pickle"):
        f.unlink()
    s = _open(idx)
    open_index.reset()
    first = open_index.registry_for(s)
    assert (idx / open_index.REGISTRY_FILE).exists()
    open_index.reset()

    def no_build(*a, **k):
        raise AssertionError("registry rebuilt")

    monkeypatch.setattr(reg_mod.Registry, "__init__", no_build)
    again = open_index.registry_for(s)
    assert sorted(again.doc_ids()) == sorted(first.doc_ids())
    open_index.reset()
    s.close()


def test_scale_bench_copies_score_like_their_originals(demo_index, tmp_path):
    """bench/scale.py's grown corpus: a copy of a filing has the original's BM25 postings (same scores when each
    is searched alone) and a vector close to the original's, and corpus-wide BM25 finds original and copies."""
    from bench import scale
    scale.build(Path(demo_index), tmp_path / "x3", 3, fts5_up_to=1, text_up_to=1, log=lambda s: None)
    src, big = _open(demo_index), _open(tmp_path / "x3")
    doc = src.documents()[0].doc_id
    assert big.count_documents() == 3 * src.count_documents()
    query = "revenue net income total assets"
    orig = [(c.page_start, round(c.score, 6)) for c in big.search_fts(query, k=10, doc_ids=[doc])]
    for j in (1, 2):
        copy = [(c.page_start, round(c.score, 6)) for c in big.search_fts(query, k=10, doc_ids=[f"{doc}~{j}"])]
        assert copy == orig and orig
    wide = big.search_fts(query, k=30)
    assert {c.doc_id.split("~")[0] for c in wide} and any("~" in c.doc_id for c in wide)
    top = big.search_fts(query, k=3 * len(src.documents()))
    by_doc = {c.doc_id: c.score for c in top}
    assert by_doc.get(f"{doc}~1") is None or abs(by_doc[f"{doc}~1"] - by_doc.get(doc, by_doc[f"{doc}~1"])) < 1e-6
    a, b = big.chunk_ranges([doc, f"{doc}~2"]).values()
    va, vb = big.vector_file("base").gather(np.arange(a[0], a[1] + 1)), big.vector_file("base").gather(np.arange(b[0], b[1] + 1))
    cos = np.sum(va * vb, axis=1)
    assert cos.min() > 0.7
    src.close()
    big.close()
