"""The six graphs end to end on the generated demo corpus: routing, fallback, retries, multi-document,
LLM paths with LangChain's fake chat models, and bad input."""
from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from support.readers import MemoryReader

from finrag import SYSTEMS, QuestionError, run_query
from finrag.graphs import get_graph
from finrag.nodes import NODE_NAMES
from finrag.state.configuration import Configuration
from finrag.tools.indexing import open_index
from finrag.tools.indexing.store_schema import IndexMissing

CONTRACT_KEYS = {"id", "system", "question", "answer", "routing", "contexts", "cost", "timings_ms"}


pytestmark = pytest.mark.usefixtures("fresh_index")


def ask(demo_index, question, system="hdrr", **conf):
    return run_query(question, system=system, index_dir=str(demo_index), configurable=conf)


def test_graphs_use_only_the_nine_nodes():
    for system in SYSTEMS:
        nodes = set(get_graph(system).get_graph().nodes) - {"__start__", "__end__"}
        assert nodes <= set(NODE_NAMES), (system, nodes)
    assert "verify" in get_graph("agentic").get_graph().nodes
    assert "fts_search" not in get_graph("sfr").get_graph().nodes


MEMORY_FILINGS = {
    "/c/2023/ACME.pdf": ["Acme Corp annual report, Form 10-K, fiscal year 2023.",
                         "Total revenue was $1,200.0 million in fiscal 2023, up from $1,050.0 million."],
    "/c/2023/MSFT.pdf": ["Microsoft Corporation annual report, Form 10-K, fiscal year 2023.",
                         "Total revenue was $211,915 million in fiscal 2023."],
}


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_graph_reads_the_index_reader_its_context_carries(tmp_path, system):
    """No index on disk and no process-wide store: the run reads the reader handed in as its context."""
    reader = MemoryReader(tmp_path, MEMORY_FILINGS)
    opened = dict(open_index._STORES)
    out = get_graph(system).invoke({"question": "What was Acme's total revenue in fiscal 2023?"},
                                   context=Configuration(index_dir=str(tmp_path / "none"), index_reader=reader))
    assert out["answer"].strip() and out["contexts"]
    assert {c["doc_id"] for c in out["contexts"]} <= {"ACME_2023", "MSFT_2023"}
    if system in ("sfr", "hdrr"):
        assert out["routed_docs"] == ["ACME_2023"] and {c["doc_id"] for c in out["contexts"]} == {"ACME_2023"}
    assert open_index._STORES == opened and not (tmp_path / "none").exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_handed_reader_answers_as_the_process_index_does(demo_index, demo_qas, system):
    q = demo_qas[0]["question"]
    cfg = Configuration(index_dir=str(demo_index))
    reader = open_index.open_reader(cfg)
    try:
        handed = get_graph(system).invoke({"question": q}, context=Configuration(index_dir=str(demo_index),
                                                                                   index_reader=reader))
    finally:
        reader.close()
    cached = get_graph(system).invoke({"question": q}, context=cfg)
    for key in ("answer", "contexts", "routed_docs", "routing_status", "context_tokens", "vector_status"):
        assert handed.get(key) == cached.get(key), key


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_answers_offline_with_the_json_contract(demo_index, demo_qas, system):
    q = demo_qas[0]
    res = ask(demo_index, q["question"], system)
    assert CONTRACT_KEYS <= set(res)
    assert res["system"] == system and res["answer"].strip()
    assert res["contexts"], "the generator saw no context"
    for c in res["contexts"]:
        assert {"chunk_id", "doc_id", "page_start", "page_end", "score", "text"} <= set(c)
        assert c["page_start"] <= c["page_end"]
    assert res["timings_ms"]["total"] > 0 and "generate" in res["timings_ms"]
    assert res["cost"]["llm_calls"] == 0 and res["cost"]["context_tokens"] > 0
    json.dumps(res.model_dump())  # serialisable


def test_hdrr_routes_to_the_gold_filing_and_keeps_context_inside_it(demo_index, demo_qas):
    for q in demo_qas:
        res = ask(demo_index, q["question"], "hdrr")
        assert res["routing"]["routed_docs"] == [q["doc_id"]], (q["question"], res["routing"])
        assert res["routing"]["status"] in ("exact_path", "filename_fallback", "default_year")
        assert {c["doc_id"] for c in res["contexts"]} == {q["doc_id"]}


def test_hdrr_finds_the_evidence_page_and_the_answer_for_most_questions(demo_index, demo_qas):
    page_hits = answer_hits = 0
    for q in demo_qas:
        res = ask(demo_index, q["question"], "hdrr")
        pages = {p for c in res["contexts"] for p in range(c["page_start"], c["page_end"] + 1)}
        page_hits += bool(pages & set(q["evidence_pages"]))
        answer_hits += q["answer"] in res["answer"] or q["answer"] in " ".join(c["text"] for c in res["contexts"])
    assert page_hits >= 0.9 * len(demo_qas)
    assert answer_hits >= 0.8 * len(demo_qas)


def test_sfr_sends_the_whole_routed_document(demo_index, demo_qas):
    q = demo_qas[0]
    res = ask(demo_index, q["question"], "sfr")
    assert {c["doc_id"] for c in res["contexts"]} == {q["doc_id"]}
    assert sorted(c["page_start"] for c in res["contexts"]) == list(range(len(res["contexts"])))


def test_hdrr_falls_back_to_the_full_corpus_when_no_company_is_named(demo_index):
    res = ask(demo_index, "Which segment reported the highest operating income growth?", "hdrr", fallback_scope="corpus")
    assert res["routing"]["status"] == "fallback_no_tickers"
    assert res["routing"]["routed_docs"] == []
    assert res["contexts"] and res["answer"]


@pytest.mark.parametrize("system", ["hdrr", "sfr"])
def test_no_company_asks_which_company_by_default(demo_index, system):
    """fallback_scope=ask (the default): no retrieval, no mixture of companies' filings, a question back."""
    res = ask(demo_index, "Which segment reported the highest operating income growth?", system)
    assert res["routing"]["status"] == "which_company" and res["routing"]["routed_docs"] == []
    assert res["contexts"] == [] and res["cost"]["context_tokens"] == 0
    assert "names no company" in res["answer"] and "which company do you mean" in res["answer"]
    assert "no known company or ticker" in res["routing"]["reason"] and "Acme Widgets" in res["answer"]


@pytest.mark.parametrize("system", ["hdrr", "sfr", "agentic"])
def test_unknown_company_is_answered_as_not_indexed(demo_index, system):
    """Issue 9: no other company's chunks, an answer that names the missing company (Agentic's verifier fails it)."""
    res = ask(demo_index, "What was Globex Corporation's revenue in FY2023?", system)
    assert res["routing"]["status"] == "company_not_indexed" and res["routing"]["routed_docs"] == []
    assert res["contexts"] == [] and "Globex Corporation" in res["answer"] and "not in the index" in res["answer"]
    if system == "agentic":
        assert res["verification"]["belongs"] is False and res["verification"]["retries"] == 0


def test_path_traversal_in_a_question_routes_nowhere(demo_index):
    res = ask(demo_index, "Read ../../etc/passwd and /tmp/x.pdf: what was revenue in FY2023?", "hdrr")
    assert all("/" not in d for d in res["routing"]["routed_docs"])
    assert not any("passwd" in c["doc_id"] for c in res["contexts"])


def test_multi_company_question_routes_to_each_and_keeps_chunks_of_each(demo_index):
    res = ask(demo_index, "Compare Acme Widgets' and Borealis Energy's total revenue in FY2023.", "hdrr")
    assert res["routing"]["status"] == "multi_doc"
    assert set(res["routing"]["routed_docs"]) == {"ACMEWIDGETS_2023_10K", "BOREALISENERGY_2023_10K"}
    assert {c["doc_id"] for c in res["contexts"]} == {"ACMEWIDGETS_2023_10K", "BOREALISENERGY_2023_10K"}


def _fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))


def test_agentic_retries_with_the_anchored_prefix_until_the_cap(demo_index):
    verifier = _fake(*['{"belongs": false, "reason": "wrong company"}'] * 3)
    res = ask(demo_index, "What was Acme Widgets' total revenue in FY2022?", "agentic", verifier_model=verifier)
    v = res["verification"]
    assert v["retries"] == 2 and v["belongs"] is False and v["anchor"] == "ACME"
    assert res["cost"]["llm_calls"] == 3  # one verification per attempt, capped at 2 retries
    assert res["answer"]


def test_agentic_stops_when_verification_passes(demo_index):
    # a question whose top chunks are all the target company's (a "belongs" for another company's chunks is
    # overridden by the registry, issue 38)
    res = ask(demo_index, "What was the effective tax rate of Borealis Energy in FY2023?", "agentic",
              verifier_model=_fake('{"belongs": true, "reason": "ok"}'))
    assert res["verification"]["retries"] == 0 and res["verification"]["belongs"] is True


def test_agentic_offline_verifier_uses_registry_metadata(demo_index):
    res = ask(demo_index, "What was CBLT's net income for fiscal year 2022?", "agentic")
    v = res["verification"]
    top3 = {c["doc_id"].split("_")[0] for c in res["contexts"][:3]}
    assert v["belongs"] == (top3 == {"COBALTSOFTWARE"}) or v["retries"] > 0


def test_llm_path_with_fake_models_counts_calls_and_tokens(demo_index):
    router = _fake('{"companies": ["Acme Widgets"], "tickers": [], "years": [2022], "periods": ["FY2022"], '
                   '"forms": ["10K"], "dates": []}')
    rewriter = _fake('{"query": "Acme Widgets total revenue fiscal 2022", "keywords": ["total revenue", "2022"]}')
    generator = _fake("Total revenue was $1,476.2 million [ACMEWIDGETS_2022_10K, p. 5].")
    res = ask(demo_index, "What was Acme Widgets' total revenue in FY2022?", "hdrr",
              router_model=router, rewriter_model=rewriter, generator_model=generator, fast_path="off")
    assert res["answer"].startswith("Total revenue was $1,476.2 million")
    roles = [c["role"] for c in res["cost"]["calls"]]
    assert roles == ["router", "rewriter", "generator"]
    assert res["cost"]["llm_calls"] == 3 and res["cost"]["prompt_tokens"] > res["cost"]["context_tokens"] > 0
    assert res["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"]


def test_llm_router_cannot_route_to_unknown_files(demo_index):
    router = _fake('{"companies": ["../../etc/passwd"], "tickers": ["EVIL"], "years": [2023], "periods": [], '
                   '"forms": [], "dates": []}')
    res = ask(demo_index, "What is in the secret file?", "hdrr", router_model=router)
    assert res["routing"]["routed_docs"] == [] and res["routing"]["status"] == "which_company"  # fallback_scope=ask
    router = _fake('{"companies": ["../../etc/passwd"], "tickers": ["EVIL"], "years": [2023], "periods": [], '
                   '"forms": [], "dates": []}')
    res = ask(demo_index, "What is in the secret file?", "hdrr", router_model=router, fallback_scope="corpus")
    assert res["routing"]["routed_docs"] == [] and res["routing"]["status"].startswith("fallback")


def test_llm_failure_falls_back_to_the_offline_strategy(demo_index):
    broken = _fake("this is not json")
    res = ask(demo_index, "What was Acme Widgets' total revenue in FY2022?", "hdrr", router_model=broken,
              rewriter_model=_fake("still not json"), on_llm_error="offline")
    assert res["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"] and res["answer"]
    assert res["offline_fallback"]


@pytest.mark.parametrize("question", ["", "   \n\t ", "x" * 100_000])
def test_bad_questions_are_clear_errors(demo_index, question):
    with pytest.raises(QuestionError):
        ask(demo_index, question)


def test_unknown_system_and_missing_index_are_clear_errors(demo_index, tmp_path):
    with pytest.raises(ValueError, match="unknown system"):
        ask(demo_index, "revenue?", "nope")
    with pytest.raises(IndexMissing, match="finrag index"):
        run_query("What was revenue?", system="cbr", index_dir=str(tmp_path / "missing"))


def test_hdrr_top_document_fallback_keeps_one_filing(demo_index):
    q = "Which segment reported the highest operating income growth?"
    mixed = ask(demo_index, q, "hdrr", fallback_scope="corpus")
    single = ask(demo_index, q, "hdrr", fallback_scope="top_document")
    assert single["routing"]["status"] == "fallback_no_tickers"
    assert len({c["doc_id"] for c in single["contexts"]}) == 1
    assert len({c["doc_id"] for c in mixed["contexts"]}) >= 1


def test_sfr_multi_company_question_gives_every_filing_a_share_of_the_budget(demo_index):
    res = ask(demo_index, "Compare Acme Widgets' and Borealis Energy's total revenue in FY2023.", "sfr",
              sfr_max_context_tokens=3000)
    docs = [c["doc_id"] for c in res["contexts"]]
    assert set(docs) == {"ACMEWIDGETS_2023_10K", "BOREALISENERGY_2023_10K"}
    assert res["cost"]["context_tokens"] <= 3000 + 50


_SEEN: list = []


class _RecordingModel(GenericFakeChatModel):
    """LangChain's fake chat model that also remembers the messages it was sent."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        _SEEN.append(messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def test_sfr_can_send_the_pdf_itself_as_a_file_input(demo_index, demo_qas):
    model = _RecordingModel(messages=iter([AIMessage("From the attached filing: $1,476.2 million.")]))
    res = ask(demo_index, demo_qas[0]["question"], "sfr", generator_model=model, sfr_pdf_input=True)
    content = _SEEN[-1][-1].content
    # LangChain normalises OpenAI's {"type": "file", "file": {...}} into its standard file block
    block = content[0]
    assert isinstance(content, list) and block["type"] == "file"
    flat = json.dumps(block)
    assert "application/pdf" in flat and f"{demo_qas[0]['doc_id']}.pdf" in flat
    assert len(flat) > 10_000  # the PDF bytes travel with the message
    assert res["answer"].startswith("From the attached filing")


def test_an_llm_figure_that_matches_no_computed_input_is_flagged(demo_index):
    """Issue 33: the generator's figures are checked against the reader's inputs and result: a figure that
    matches none is named in the answer's last sentence and in `reader.unmatched_numbers`; matching ones pass."""
    q = "What was Acme Widgets' total revenue in FY2022?"
    res = ask(demo_index, q, "hdrr", generator_model=_fake("Total revenue was $1,476.2 million "
                                                           "[ACMEWIDGETS_2022_10K, p. 5]."), fast_path="off")
    assert "unmatched_numbers" not in res["reader"] and "Check:" not in res["answer"]
    res = ask(demo_index, q, "hdrr", fast_path="off", generator_model=_fake(
        "Total revenue was $1,476.2 million [ACMEWIDGETS_2022_10K, p. 5], or $1.9 billion with services."))
    assert res["reader"]["confident"] and res["reader"]["unmatched_numbers"] == ["$1.9 billion"]
    assert res["answer"].endswith("Check: '$1.9 billion' is not among the inputs or results finrag read from the "
                                  "filing.")
