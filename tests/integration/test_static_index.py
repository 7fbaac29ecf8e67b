"""The indexing pipeline with the static embedder (MiniLM distilled by model2vec) on the demo filings."""
from __future__ import annotations

import pytest

from finrag.tools.indexing import static_embedder as se
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import index_paths
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import EmbedderMismatch


@pytest.fixture(scope="module")
def static_index(tmp_path_factory, demo_corpus):
    se.ensure_model()  # the user cache's model (distilled there once per machine when missing)
    store = Store(tmp_path_factory.mktemp("static") / "idx", create=True)
    store.check_embedder(get_embedder("static"))
    files = demo_corpus[1][:3]
    report = index_paths(files, store, progress=False, workers=1)
    yield store, report
    store.close()


def test_indexer_embeds_with_the_static_model(static_index):
    store, report = static_index
    assert not report.failed and len(report.embedded) == 3 and report.segments > 0
    assert store.get_meta("embedder") == se.IDENTITY and int(store.get_meta("embedding_dim")) == se.DIMS
    missing, total = store.vector_coverage()
    assert not missing and total == 3
    counts = store.segment_counts([d.doc_id for d in store.documents()])  # the progress bar's total
    assert sum(counts.values()) == report.segments
    doc = store.documents()[0]
    chunk = store.chunks_of(doc.doc_id)[2]
    hits = store.search_vectors(store.embedder.embed_query(chunk.text), k=5, max_distance=2.0)
    assert chunk.chunk_id in [h.chunk_id for h in hits[:2]]  # its own text finds the chunk (or its overlap)


def test_static_index_refuses_minilm_and_the_other_way_round(static_index, tmp_path):
    store, _ = static_index
    with pytest.raises(EmbedderMismatch, match="built with embedder 'model2vec:"):
        Store(store.index_dir).check_embedder(get_embedder("minilm"))
    other = Store(tmp_path / "minilm", create=True)
    other.check_embedder(get_embedder("minilm"))
    other.close()
    with pytest.raises(EmbedderMismatch, match="sentence-transformers:all-MiniLM"):
        Store(tmp_path / "minilm").check_embedder(get_embedder("static"))


def test_readers_open_a_static_index_with_its_own_embedder(static_index, demo_qas):
    from finrag.api import run_query
    from finrag.tools.indexing import open_index

    store, _ = static_index
    open_index.reset()
    res = run_query(demo_qas[0]["question"], "cbr", index_dir=str(store.index_dir))  # embedder: auto (default)
    assert res["contexts"] or res["answer"]
    open_index.reset()


def test_a_new_index_gets_the_static_embedder_and_minilm_by_flag(tmp_path, monkeypatch):
    from finrag.cli import main

    monkeypatch.delenv("FINRAG_EMBEDDER", raising=False)
    se.ensure_model()
    few = tmp_path / "few"
    few.mkdir()
    (few / "ACME_2023_10K.txt").write_text("Acme annual report. Revenue was $5 million. " * 30)
    assert main(["index", str(few), "--index", str(tmp_path / "idx"), "-q"]) == 0
    s = Store(tmp_path / "idx")
    assert s.get_meta("embedder") == se.IDENTITY
    s.close()
    assert main(["index", str(few), "--index", str(tmp_path / "idx2"), "--embedder", "minilm", "-q"]) == 0
    s = Store(tmp_path / "idx2")
    assert s.get_meta("embedder") == "sentence-transformers:all-MiniLM-L6-v2:384"
    s.close()
