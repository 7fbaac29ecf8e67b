"""The Python API beyond `run_query`: `finrag.index` (files into an index, embedded or Milvus Lite),
`FinragLoader` (a filing's pages as LangChain documents with the registry's identity), `dir(finrag)`,
py.typed and `finrag --version`."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.document_loaders import BaseLoader

import finrag
from finrag.tools.indexing import open_index

REPO = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("fresh_index")


def test_index_from_python_then_answer(demo_corpus, demo_qas, tmp_path):
    folder, pdfs = demo_corpus
    where = tmp_path / "idx"
    report = finrag.index([folder], index=where)
    assert sorted(report.indexed) == sorted(p.stem for p in pdfs) and not report.failed and report.chunks > 0
    again = finrag.index(folder, index=str(where))  # one path, a str index: nothing changed
    assert again.indexed == [] and sorted(again.unchanged) == sorted(report.indexed)
    q = demo_qas[0]
    res = finrag.run_query(q["question"], index=str(where))
    assert res.routing.routed_docs == [q["doc_id"]]


def test_index_into_milvus_lite(demo_corpus, demo_qas, tmp_path):
    pytest.importorskip("pymilvus")
    pytest.importorskip("milvus_lite")
    folder, pdfs = demo_corpus
    loc = f"milvus:{tmp_path / 'api.db'}"
    report = finrag.index([p for p in pdfs[:2]], index=loc)
    assert sorted(report.indexed) == sorted(p.stem for p in pdfs[:2])
    docs = finrag.retriever(index=loc, k=2).invoke(f"What was {demo_qas[0]['company']}'s revenue?")
    assert len(docs) == 2 and {d.metadata["doc_id"] for d in docs} <= set(report.indexed)


def test_loader_yields_pages_with_identity(demo_corpus, demo_qas, demo_index):
    from finrag.state.configuration import Configuration

    folder, pdfs = demo_corpus
    loader = finrag.FinragLoader(pdfs[0])
    assert isinstance(loader, BaseLoader)
    pages = loader.load()
    assert len(pages) > 3 and [d.metadata["page"] for d in pages] == list(range(len(pages)))
    q = next(q for q in demo_qas if q["doc_id"] == pdfs[0].stem)
    meta = pages[0].metadata
    assert meta["doc_id"] == pdfs[0].stem and meta["source"] == str(pdfs[0]) and meta["pages"] == len(pages)
    assert q["ticker"] in meta["tickers"] and meta["fiscal_year"] == q["fiscal_year"] and meta["form"] == "10K"
    store = open_index.open_index(Configuration(index_dir=str(demo_index)))
    info = open_index.registry_for(store).get(pdfs[0].stem)  # the identity routing sees for the indexed filing
    assert {k: meta[k] for k in ("company", "tickers", "fiscal_year", "form", "period")} == \
        {k: getattr(info, k) for k in ("company", "tickers", "fiscal_year", "form", "period")}
    assert q["answer"].split()[0].strip("$") in " ".join(d.page_content for d in pages)
    everything = list(finrag.FinragLoader([folder]).lazy_load())
    assert {d.metadata["doc_id"] for d in everything} == {p.stem for p in pdfs}


def test_loader_errors_are_one_line(tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7 not really")
    for paths in ([tmp_path / "missing.pdf"], [bad]):
        with pytest.raises(ValueError) as info:
            finrag.FinragLoader(paths).load()
        assert len(str(info.value).splitlines()) == 1
    assert finrag.FinragLoader([bad], skip_failed=True).load() == []


def test_public_names_typed_and_versioned():
    assert set(finrag.__all__) <= set(dir(finrag))
    assert {"retriever", "FinragRetriever", "index", "FinragLoader", "arun_query", "stream_answer"} <= set(dir(finrag))
    assert (REPO / "app" / "py.typed").is_file()
    out = subprocess.run([sys.executable, "-m", "finrag.cli", "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == f"finrag {finrag.__version__}"
    import tomllib

    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"] == finrag.__version__
