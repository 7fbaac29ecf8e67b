"""The pipelined indexer (issue 37): the parse pool chunks and embeds (static embedder) while the writer stores.

Its index is the one the text-first order builds (same chunks, ids, texts, sections, BM25 postings, vectors:
bench/index_diff.py's comparison), corrupt files are one line each, Ctrl-C keeps what was committed and a
second run completes it, and every stage's time is in the report."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.index_diff import compare
from finrag.tools.indexing import pipeline
from finrag.tools.indexing import static_embedder as se
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import index_paths
from finrag.tools.indexing.store import Store


def _index(folder: Path, files, **kw):
    store = Store(folder, create=True)
    store.check_embedder(get_embedder("static"))
    report = index_paths(files, store, progress=False, **kw)
    store.close()
    return report


@pytest.fixture(scope="module")
def files(demo_corpus):
    se.ensure_model()  # the user cache's model (distilled there once per machine when missing)
    return demo_corpus[1][:4]


@pytest.fixture(scope="module")
def text_first(tmp_path_factory, files):
    """The index the order before issue 37 builds: every document's text, then the embed pass."""
    mp = pytest.MonkeyPatch()
    mp.setattr(pipeline, "embeds_in_workers", lambda embedder: False)
    import finrag.tools.indexing.indexer as indexer

    mp.setattr(indexer, "embeds_in_workers", lambda embedder: False)
    folder = tmp_path_factory.mktemp("textfirst") / "idx"
    try:
        report = _index(folder, files, workers=1)
    finally:
        mp.undo()
    assert len(report.embedded) == len(files) and "embed" not in report.stages
    return folder


@pytest.mark.parametrize("workers", [1, 2])
def test_the_pipelined_index_is_the_text_first_one(tmp_path, files, text_first, workers):
    report = _index(tmp_path / "idx", files, workers=workers)
    assert not report.failed and len(report.indexed) == len(report.embedded) == len(files)
    assert report.stages["embed"]["calls"] == len(files)  # embedded where it was parsed
    assert report.stages["embed_pass"]["calls"] == 1 and report.segments > 0
    for stage in ("parse", "chunk", "wait", "write_text", "sections_facts", "write_vectors", "lexical_flush",
                  "registry", "vector_files", "pipeline"):
        assert report.stages[stage]["wall_s"] >= 0 and report.stages[stage]["cpu_s"] >= 0, stage
    assert compare(text_first, tmp_path / "idx") == []


def test_a_corrupt_file_is_one_line_and_the_rest_is_indexed(tmp_path, files, text_first):
    folder = tmp_path / "filings"
    folder.mkdir()
    for f in files:
        shutil.copy(f, folder / Path(f).name)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    report = _index(tmp_path / "idx", [folder], workers=2)
    assert [Path(p).name for p, _ in report.failed] == ["broken.pdf"]
    assert "PDF" in report.failed[0][1] and "\n" not in report.failed[0][1]
    assert len(report.indexed) == len(report.embedded) == len(files)


def test_ctrl_c_keeps_the_committed_documents_and_a_rerun_completes(tmp_path, files, text_first, monkeypatch):
    real = Store.add_segments
    calls = {"n": 0}

    def interrupted(self, doc_id, vectors):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, doc_id, vectors)

    monkeypatch.setattr(Store, "add_segments", interrupted)
    first = _index(tmp_path / "idx", files, workers=2)
    assert first.interrupted and len(first.embedded) == 1
    assert len(first.indexed) == 2  # the second document's text was committed, its vectors were not
    monkeypatch.setattr(Store, "add_segments", real)
    store = Store(tmp_path / "idx")
    store.check_embedder(get_embedder("static"))
    assert store.count_documents() == 2 and len(store.vector_coverage()[0]) == 1
    store.close()
    second = _index(tmp_path / "idx", files, workers=2)
    assert not second.interrupted and len(second.unchanged) == 2 and len(second.indexed) == len(files) - 2
    assert len(second.embedded) == len(files) - 1  # the interrupted one by the embed pass
    assert compare(text_first, tmp_path / "idx") == []
