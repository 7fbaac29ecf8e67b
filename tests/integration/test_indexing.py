"""Parsing, chunking, the SQLite/FTS5/FAISS store and the indexing pipeline, on real files."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from support.bad_files import make_bad_files

from finrag.tools.documents.file_checks import ParseError
from finrag.tools.documents.parsing import parse_file
from finrag.tools.indexing.chunking import chunk_pages, chunk_segment_span, join_pages, segments
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import index_paths, remove_documents
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import EmbedderMismatch, IndexMissing, fts_query


# ----------------------------------------------------------------- chunking
def test_chunks_cover_text_with_overlap_and_page_spans():
    pages = ["a" * 3000, "b" * 1000, "c" * 4000]
    chunks = chunk_pages(pages, 2500, 1250)
    text, starts = join_pages(pages)
    assert chunks[0].char_start == 0 and chunks[0].char_end == 2500
    assert all(b.char_start - a.char_start == 1250 for a, b in zip(chunks, chunks[1:]))
    assert chunks[-1].char_end == len(text)
    for c in chunks:
        assert c.text == text[c.char_start:c.char_end]
        assert starts[c.page_start] <= c.char_start
        assert c.page_start <= c.page_end
    # the chunk spanning 2500..5000 starts on page 0 and ends on page 2
    c = next(c for c in chunks if c.char_start == 2500)
    assert (c.page_start, c.page_end) == (0, 2)


def test_segments_make_up_each_chunk_exactly():
    text = "".join(chr(65 + i % 26) for i in range(11_000))
    chunks = chunk_pages([text], 2500, 1250)
    segs = segments(text, 1250)
    for c in chunks:
        span = chunk_segment_span(c, 2500, 1250, len(segs))
        assert "".join(segs[i] for i in span) == c.text


def test_invalid_chunking_is_rejected():
    with pytest.raises(ValueError):
        chunk_pages(["x"], 100, 100)


def test_fts_query_cannot_inject_syntax():
    q = fts_query('revenue" OR 1=1; NEAR( * ../../etc/passwd')
    assert q and all(part.startswith('"') and part.endswith('"') for part in q.split(" OR "))


# ------------------------------------------------------------------ parsing
@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    return make_bad_files(tmp_path_factory.mktemp("bad"))


@pytest.mark.parametrize("key,reason", [
    ("corrupt", "corrupt PDF"), ("encrypted", "encrypted"), ("empty", "empty file"),
    ("scanned", "no extractable text"), ("notapdf", "not a PDF"), ("dangling", "not found"),
    ("directory", "directory"),
])
def test_bad_files_raise_clear_reasons(bad_files, key, reason):
    with pytest.raises(ParseError) as exc:
        parse_file(bad_files[key])
    assert reason in str(exc.value)


def test_txt_and_htm_filings_parse(bad_files):
    txt = parse_file(bad_files["good_txt"])
    htm = parse_file(bad_files["good_htm"])
    assert len(txt.pages) > 1 and "Exact name of registrant" in txt.pages[0]
    assert len(htm.pages) > 1 and "<" not in htm.pages[0][:200]
    assert "&amp;" not in "".join(htm.pages)


# ------------------------------------------------------------------- store
@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "idx", create=True)
    s.check_embedder(get_embedder())
    yield s
    s.close()


def test_missing_index_is_a_clear_error(tmp_path):
    with pytest.raises(IndexMissing, match="finrag index"):
        Store(tmp_path / "nothing")


def test_other_embedder_is_refused(store):
    class Other:
        identity, dim = "other:model:8", 8

    with pytest.raises(EmbedderMismatch, match="built with embedder"):
        Store(store.index_dir).check_embedder(Other())


def test_index_reports_bad_files_and_indexes_the_rest(store, tmp_path, demo_corpus):
    folder = tmp_path / "mixed"
    make_bad_files(folder)
    shutil.copy(demo_corpus[1][0], folder / "good_demo.pdf")
    report = index_paths([folder], store, progress=False, workers=2)
    failed = {Path(p).name: why for p, why in report.failed}
    for name in ("corrupt.pdf", "encrypted.pdf", "empty.pdf", "scanned.pdf", "notapdf.pdf", "dangling.pdf",
                 "directory.pdf"):
        assert name in failed, failed
    # good.htm and good.txt would share the id "good" (different content): the second is told apart by its
    # folder (issue 9: ids unique in every layout), neither is dropped nor merged
    assert not any("duplicate" in why for why in failed.values())
    assert sorted(report.indexed) == ["good", "good_demo", "mixed_good"]
    assert store.count_documents() == 3
    assert store.faiss_index().ntotal == store.stats()["chunks"] > 0


def test_reindex_is_idempotent_and_changes_replace_chunks(store, demo_corpus, tmp_path):
    folder = tmp_path / "filings"
    folder.mkdir()
    for p in demo_corpus[1][:2]:
        shutil.copy(p, folder / p.name)
    first = index_paths([folder], store, progress=False, workers=1)
    assert len(first.indexed) == 2
    again = index_paths([folder], store, progress=False, workers=1)
    assert again.indexed == [] and sorted(again.unchanged) == sorted(first.indexed) and again.segments == 0
    # change one file: its chunks are replaced, ids never reused, FTS follows
    target = folder / demo_corpus[1][0].name
    doc_id = target.stem
    old_ids = {c.chunk_id for c in store.chunks_of(doc_id)}
    target.write_text("Plain text filing.\fRevenue recognition zebracorn policy " * 50)
    target.rename(target.with_suffix(".txt"))
    changed = index_paths([folder], store, progress=False, workers=1)
    assert changed.indexed == [doc_id]
    new_ids = {c.chunk_id for c in store.chunks_of(doc_id)}
    assert new_ids and not (new_ids & old_ids)
    hits = store.search_fts("zebracorn", 5)
    assert hits and all(h.doc_id == doc_id for h in hits)
    assert store.faiss_index().ntotal == store.stats()["chunks"]
    # remove
    rep = remove_documents(store, [doc_id])
    assert rep.removed == [doc_id]
    assert store.search_fts("zebracorn", 5) == []
    assert store.faiss_index().ntotal == store.stats()["chunks"]


def test_scoped_vector_and_fts_search_stay_inside_the_scope(demo_index):
    s = Store(demo_index)
    s.check_embedder(get_embedder())
    docs = [d.doc_id for d in s.documents()]
    target = docs[0]
    vec = s.embedder.embed_query("total revenue and net income")
    scoped = s.search_vectors(vec, 30, doc_ids=[target])
    assert scoped and {h.doc_id for h in scoped} == {target}
    assert {h.doc_id for h in s.search_vectors(vec, 30)} != {target}
    fts = s.search_fts("revenue", 20, doc_ids=[target])
    assert fts and {h.doc_id for h in fts} == {target}
    assert s.search_vectors(vec, 5, doc_ids=[]) == []
    s.close()


def test_interrupted_run_leaves_a_consistent_index(store, demo_corpus, monkeypatch):
    real = store.embedder.embed_documents
    calls = {"n": 0}

    def flaky(texts, progress=False):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(texts)

    monkeypatch.setattr(store.embedder, "embed_documents", flaky)
    rep = index_paths([demo_corpus[0]], store, progress=False, workers=1)
    n = len(demo_corpus[1])
    # every document committed is whole: routable and BM25-searchable, with vectors or listed as missing them (a
    # MiniLM index commits every text first and embeds after; the static embedder embeds as it goes)
    assert rep.interrupted and len(rep.embedded) == 1 and set(rep.embedded) <= set(rep.indexed)
    monkeypatch.setattr(store.embedder, "embed_documents", real)
    reopened = Store(store.index_dir)
    reopened.check_embedder(get_embedder())
    assert reopened.count_documents() == len(rep.indexed)
    assert sorted(reopened.vector_coverage()[0]) == sorted(set(rep.indexed) - set(rep.embedded))
    # the embedded document is complete; its vectors are written from SQLite on demand
    assert reopened.faiss_index().ntotal == len(reopened.chunks_of(rep.embedded[0])) > 0
    resumed = index_paths([demo_corpus[0]], reopened, progress=False, workers=1)
    assert sorted(resumed.unchanged) == sorted(rep.indexed) and len(rep.indexed) + len(resumed.indexed) == n
    assert len(rep.embedded) + len(resumed.embedded) == n and not set(rep.embedded) & set(resumed.embedded)
    assert reopened.count_documents() == n and reopened.faiss_index().ntotal == reopened.stats()["chunks"]
    reopened.close()


def test_chunk_vectors_cover_the_whole_chunk(demo_index):
    """A chunk's vector is the mean of its two segments, not only its first 256 tokens."""
    s = Store(demo_index)
    s.check_embedder(get_embedder())
    doc = s.documents()[0].doc_id
    chunk = s.chunks_of(doc)[2]
    tail = chunk.text[1250:]
    v_chunk = s.faiss_index().reconstruct(chunk.chunk_id)
    v_tail = s.embedder.embed_query(tail)
    v_head = s.embedder.embed_query(chunk.text[:1250])
    assert float(np.dot(v_chunk, v_tail)) > 0.6 and float(np.dot(v_chunk, v_head)) > 0.6
    s.close()
