"""Issue 9 end to end on real PDFs: the paper's layout `{year}/{TICKER}.pdf` indexes one filing per year and
routes by year; a byte-identical copy under another name is one document with an alias; a question about a
company the index does not hold gets no other company's chunks; an LLM router (a LangChain fake chat model)
adjudicates the linker's candidates in one merged router + rewrite call and can only name registered filings."""
from __future__ import annotations

import json
import shutil

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from finrag import run_query
from finrag.eval.routing_corpus import load_companies, write_pdf
from finrag.tools.indexing import open_index
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import index_paths
from finrag.tools.indexing.store import Store

YEARS = (2021, 2022, 2023, 2024)


@pytest.fixture(scope="module")
def paper_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("paper")
    corpus, index_dir = root / "corpus", root / "index"
    companies = {c.ticker: c for c in load_companies()}
    for y in YEARS:
        write_pdf(corpus / str(y) / "MMM.pdf", companies["MMM"], y)
    write_pdf(corpus / "2023" / "AAPL.pdf", companies["AAPL"], 2023)
    mirror = root / "mirror" / "2023" / "MMM.pdf"  # the same bytes under another folder
    mirror.parent.mkdir(parents=True)
    shutil.copyfile(corpus / "2023" / "MMM.pdf", mirror)
    store = Store(index_dir, embedder=get_embedder(), create=True)
    report = index_paths([corpus, mirror], store, workers=1, progress=False, log=lambda *_: None)
    again = index_paths([corpus, mirror], store, workers=1, progress=False, log=lambda *_: None)
    infos = {d.doc_id: d for d in store.documents()}
    store.close()
    open_index.reset()
    yield index_dir, report, again, infos, mirror
    open_index.reset()


def test_four_years_of_one_ticker_are_four_filings(paper_index):
    _, report, again, infos, mirror = paper_index
    assert not report.failed, report.failed
    assert set(infos) == {"MMM_2021", "MMM_2022", "MMM_2023", "MMM_2024", "AAPL_2023"}
    assert [(infos[f"MMM_{y}"].fiscal_year, infos[f"MMM_{y}"].company) for y in YEARS] == [(y, "3M") for y in YEARS]
    assert report.duplicates == [(str(mirror), "MMM_2023")]
    assert str(mirror.resolve()) in infos["MMM_2023"].alias_paths
    assert sorted(again.unchanged) == sorted(infos) and not again.indexed and again.duplicates


@pytest.mark.parametrize("question, doc", [
    ("What was 3M's net sales in fiscal 2022?", "MMM_2022"),
    ("MMM capex FY21", "MMM_2021"),
    ("3M net sales 2024", "MMM_2024"),
    ("MMM FY2025 capex guidance", "MMM_2024"),
    ("Apple net sales FY2023", "AAPL_2023"),
])
def test_routes_by_year(paper_index, question, doc):
    index_dir = paper_index[0]
    res = run_query(question, system="hdrr", index_dir=str(index_dir))
    assert res["routing"]["routed_docs"] == [doc], res["routing"]
    assert res["contexts"] and {c["doc_id"] for c in res["contexts"]} == {doc}


@pytest.mark.parametrize("system", ["hdrr", "sfr", "agentic"])
def test_company_not_in_the_index_gets_no_other_companys_chunks(paper_index, system):
    res = run_query("What was Zorblax Corporation's revenue in FY2023?", system=system, index_dir=str(paper_index[0]))
    assert res["routing"]["status"] == "company_not_indexed" and res["contexts"] == []
    assert "Zorblax Corporation" in res["answer"]
    if system == "agentic":
        assert res["verification"]["belongs"] is False


def _router(reply: dict) -> FakeListChatModel:
    return FakeListChatModel(responses=[json.dumps(reply)])


def test_llm_router_merged_with_rewrite_adjudicates_and_names_only_registered_filings(paper_index):
    index_dir = str(paper_index[0])
    reply = {"companies": ["3M"], "tickers": ["MMM"], "years": [], "periods": [], "forms": [], "dates": [],
             "documents": ["MMM_2022", "../../etc/passwd", "NOPE_2022"], "rejected": ["Apple"],
             "query": "3M net sales fiscal 2022 management's discussion", "keywords": ["net sales", "2022"]}
    res = run_query("3M vs Apple net sales", system="hdrr", index_dir=index_dir,
                    configurable={"router_model": _router(reply)})
    assert res["routing"]["routed_docs"] == ["MMM_2022"]  # Apple dropped, the two unknown ids ignored
    assert [c["role"] for c in res["cost"]["calls"]] == ["router"]  # no separate rewriter call
    assert {c["doc_id"] for c in res["contexts"]} == {"MMM_2022"}
    # without the merged call: the router call, then a rewriter call of its own
    rewriter = FakeListChatModel(responses=[json.dumps({"query": "3M net sales", "keywords": ["net sales"]})])
    res = run_query("3M net sales FY2023", system="hdrr", index_dir=index_dir,
                    configurable={"router_model": _router({**reply, "documents": [], "rejected": []}),
                                  "rewriter_model": rewriter, "router_rewrite": False})
    assert [c["role"] for c in res["cost"]["calls"]] == ["router", "rewriter"]
    assert res["routing"]["routed_docs"] == ["MMM_2023"]


def test_llm_router_cannot_route_to_a_company_the_registry_does_not_hold(paper_index):
    reply = {"companies": ["Zorblax Corporation"], "tickers": ["ZBLX"], "years": [2023], "periods": ["FY2023"],
             "forms": [], "dates": [], "documents": ["ZBLX_2023"], "rejected": [], "query": "Zorblax revenue",
             "keywords": ["revenue"]}
    res = run_query("Zorblax revenue FY2023", system="hdrr", index_dir=str(paper_index[0]),
                    configurable={"router_model": _router(reply)})
    assert res["routing"]["status"] == "company_not_indexed" and res["contexts"] == []
