"""Each node on a hand-made state, without an index: rrf, rerank's cutoff (with a stand-in reranker),
rewrite and generate offline and with recording fake models (prompts come from the configuration),
verify's routing function, the configuration channel, and the node modules' import rule."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from support.readers import MemoryReader

from finrag.nodes import generate, rerank, rewrite, route_after_verify, rrf
from finrag.nodes.common import configuration, scope_of
from finrag.nodes.rrf import reciprocal_rank_fusion
from finrag.state.configuration import Configuration

rerank_module = importlib.import_module("finrag.nodes.rerank")  # the attribute `finrag.nodes.rerank` is the node
NODES_DIR = Path(__file__).resolve().parents[2] / "nodes"


def run(reader=None, **values) -> Runtime[Configuration]:
    """The runtime a node sees in a run with these configuration values, reading the index `reader` (None: the
    process's index of `index_dir`, which these tests never reach)."""
    return Runtime(context=Configuration(index_reader=reader, **values))


def hit(chunk_id: int, doc_id: str = "ACME_2023_10K", **extra) -> dict:
    return {"chunk_id": chunk_id, "doc_id": doc_id, "page_start": chunk_id, "page_end": chunk_id,
            "text": f"chunk {chunk_id}", "score": 0.0, **extra}


class Recording(GenericFakeChatModel):
    """LangChain's fake chat model that also keeps the messages it was sent."""

    seen: list = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def recording(*replies: str) -> Recording:
    return Recording(messages=iter([AIMessage(r) for r in replies]), seen=[])


# ----------------------------------------------------------------------- rrf
def test_rrf_fuses_both_lists_by_reciprocal_rank():
    fts = [hit(1, fts_rank=1), hit(2, fts_rank=2), hit(3, fts_rank=3)]
    vec = [hit(3, vector_rank=1, vector_distance=0.5), hit(4, vector_rank=2, vector_distance=0.7)]
    out = rrf({"fts_results": fts, "vector_results": vec}, run())
    fused = out["fused"]
    assert [h["chunk_id"] for h in fused] == [3, 1, 2, 4]
    top = fused[0]
    assert top["rrf_score"] == pytest.approx(1 / 63 + 1 / 61) and top["score"] == top["rrf_score"]
    assert top["fts_rank"] == 3 and top["vector_rank"] == 1 and top["vector_distance"] == 0.5
    assert set(out) == {"fused", "timings_ms"} and out["timings_ms"]["rrf"] >= 0


def test_rrf_uses_the_configured_constant_and_handles_empty_lists():
    out = rrf({"fts_results": [hit(7)], "vector_results": []}, run(rrf_k=1))
    assert out["fused"][0]["rrf_score"] == pytest.approx(0.5)
    assert rrf({}, run())["fused"] == []
    assert reciprocal_rank_fusion([[hit(2)], [hit(1)]])[0]["chunk_id"] == 1  # ties broken by chunk id


# -------------------------------------------------------------------- rerank
class StandIn:
    """A reranker that gives each candidate the score listed for its chunk id."""

    def __init__(self, scores: dict[int, float]):
        self.scores = scores
        self.calls: list[tuple] = []
        self.stores: list = []  # the index each run handed the reranker

    def score(self, query, keywords, candidates):
        self.calls.append((query, list(keywords)))
        return [self.scores[c["chunk_id"]] for c in candidates]


class ChunkOrder:
    """The part of a store the routed filing's context plan reads: chunk order, chunks, pages."""

    def chunk_ids_of(self, doc_ids):
        return [i for i in range(1, 7) if ("A" if i <= 3 else "B") in doc_ids]

    def get_chunks(self, ids):
        return {}

    def pages_of(self, doc_id):
        return []


ORDER = ChunkOrder()  # the index the rerank tests hand their runs (`Configuration.index_reader`)


@pytest.fixture
def stand_in(monkeypatch):
    holder = {}

    def install(scores: dict[int, float]) -> StandIn:
        holder["reranker"] = StandIn(scores)
        return holder["reranker"]

    def get_reranker(spec, store, variant="base"):
        holder["reranker"].stores.append(store)
        return holder["reranker"]

    monkeypatch.setattr(rerank_module, "get_reranker", get_reranker)
    return install


def test_rerank_keeps_the_top_until_the_cliff(stand_in):
    reranker = stand_in({1: 0.9, 2: 0.85, 3: 0.8, 4: 0.5, 5: 0.49})
    state = {"question": "revenue?", "query": "total revenue", "keywords": ["revenue"],
             "fused": [hit(i) for i in (5, 4, 3, 2, 1)]}
    out = rerank(state, run(ORDER, rerank_cumulative=0.99))
    assert [c["chunk_id"] for c in out["reranked"]] == [1, 2, 3]
    assert all(c["score"] == c["rerank_score"] for c in out["reranked"])
    assert reranker.calls == [("total revenue", ["revenue"])]
    assert reranker.stores == [ORDER]  # the reader the run's context carries, not a process-wide index


def test_rerank_cutoff_follows_the_configuration(stand_in):
    stand_in({i: 0.5 for i in range(20)})
    state = {"question": "q", "fused": [hit(i) for i in range(20)]}
    assert len(rerank(state, run(ORDER))["reranked"]) == 10  # max_chunks
    assert len(rerank(state, run(ORDER, max_chunks=4))["reranked"]) == 4
    assert len(rerank(state, run(ORDER, rerank_cumulative=0.2))["reranked"]) == 4  # 4 x 5% reaches 20%


def test_rerank_with_no_candidates_needs_no_index():
    assert rerank({"question": "q", "fused": []}, run())["reranked"] == []


def test_rerank_shares_the_chunks_between_routed_documents(stand_in):
    stand_in({1: 0.9, 2: 0.88, 3: 0.86, 4: 0.4, 5: 0.39, 6: 0.38})
    fused = [hit(1, "A"), hit(2, "A"), hit(3, "A"), hit(4, "B"), hit(5, "B"), hit(6, "B")]
    state = {"question": "q", "fused": fused, "routed_docs": ["A", "B"]}
    kept = rerank(state, run(ORDER, max_chunks=4, rerank_cumulative=1.0, routed_context="paper"), scoped=True)["reranked"]
    assert [c["chunk_id"] for c in kept] == [1, 2, 4, 5]  # two each, best first


def test_an_open_question_over_two_routed_filings_keeps_both(stand_in):
    stand_in({1: 0.9, 2: 0.88, 3: 0.86, 4: 0.6, 5: 0.59, 6: 0.58})
    fused = [hit(1, "A"), hit(2, "A"), hit(3, "A"), hit(4, "B"), hit(5, "B"), hit(6, "B")]
    out = rerank({"question": "Why did revenue change?", "fused": fused, "routed_docs": ["A", "B"]}, run(ORDER),
                 scoped=True)
    assert {c["doc_id"] for c in out["reranked"]} == {"A", "B"}  # each filing gets half the budget
    assert out["context_plan"]["scope"] == "open" and out["context_plan"]["chunks"] == len(out["reranked"])


def test_rerank_top_document_fallback_keeps_one_filing(stand_in):
    stand_in({1: 0.9, 2: 0.3, 3: 0.8, 4: 0.7})
    fused = [hit(1, "A"), hit(2, "A"), hit(3, "B"), hit(4, "B")]
    state = {"question": "q", "fused": fused, "routed_docs": []}
    mixed = rerank(state, run(ORDER, rerank_cumulative=1.0, rerank_cliff=1.0), scoped=True)["reranked"]
    assert {c["doc_id"] for c in mixed} == {"A", "B"}
    single = rerank({**state, "fused": [hit(1, "A"), hit(2, "A"), hit(3, "B"), hit(4, "B")]},
                    run(ORDER, rerank_cumulative=1.0, rerank_cliff=1.0, fallback_scope="top_document"), scoped=True)
    assert {c["doc_id"] for c in single["reranked"]} == {"B"}  # 0.8 + 0.7 outweighs 0.9 + 0.3


def test_rerank_inside_routed_filings_uses_the_routed_cliff_and_drops_the_company_name(stand_in):
    reranker = stand_in({1: 0.9, 2: 0.7, 3: 0.6, 4: 0.5})
    state = {"question": "What was Acme's revenue?", "query": "Acme revenue", "keywords": ["acme", "revenue"],
             "extracted": {"companies": ["Acme"], "tickers": ["ACME"],
                           "candidates": [{"text": "Acme", "in_index": True, "name": "Acme"}]},
             "fused": [hit(i) for i in (1, 2, 3, 4)], "routed_docs": ["ACME_2023_10K"]}
    routed = rerank(state, run(ORDER, rerank_cumulative=1.0), scoped=True)["reranked"]
    assert [c["chunk_id"] for c in routed] == [1, 2]  # 0.9 - 0.7 <= 0.25 (routed_rerank_cliff) < 0.9 - 0.6
    assert reranker.calls[-1] == ("Acme revenue", ["revenue"])  # the company's own name is no keyword there
    paper = rerank(state, run(ORDER, rerank_cumulative=1.0, routed_rerank_cliff=0.15), scoped=True)["reranked"]
    assert [c["chunk_id"] for c in paper] == [1]
    unscoped = rerank({**state, "routed_docs": []}, run(ORDER, rerank_cumulative=1.0), scoped=True)["reranked"]
    assert [c["chunk_id"] for c in unscoped] == [1] and reranker.calls[-1][1] == ["acme", "revenue"]


# ------------------------------------------------------------------- rewrite
def test_rewrite_offline_expands_and_extracts_keywords():
    out = rewrite({"question": "What was Acme's FY2022 capex? Answer in USD millions."}, run())
    assert "capital expenditure" in out["query"].lower()
    assert out["keywords"] and out["llm_calls"] == []
    assert "rewrite" in out["timings_ms"]


def test_rewrite_offline_keeps_its_own_limits_not_the_llm_reply_bounds():
    """Issue 46: the bounds of an LLM's reply (10 keywords, a 240-character query) once cut the offline
    rewriter's keywords too, and CBR lost 19 points of evidence unnoticed. The offline strategy keeps what it
    makes (its own 32 keywords); an LLM's reply is still cut to the schema's bounds."""
    question = ("Using the cash flow statement and the balance sheet, what is 3M's FY2018 free cash flow conversion, "
                "capex as a share of revenue, working capital and inventory turnover? Answer in USD millions.")
    out = rewrite({"question": question}, run())
    assert len(out["keywords"]) > 10 and len(out["query"]) > 240
    assert {"inventory", "turnover", "working", "capital"} <= set(out["keywords"])
    model = recording('{"query": "' + "revenue " * 60 + '", "keywords": ' + str(["kw%d" % i for i in range(30)]).replace("'", '"') + "}")
    out = rewrite({"question": question}, run(rewriter_model=model))
    assert len(out["keywords"]) == 10 and len(out["query"]) <= 240


def test_rewrite_on_a_retry_puts_the_configured_anchor_prefix_first():
    state = {"question": "What was revenue in FY2022?", "retries": 1, "verification": {"anchor": "ACME"}}
    assert rewrite(state, run())["query"].startswith("In ACME's 10-K annual report: ")
    out = rewrite(state, run(retry_prefix="About {ticker}: "))
    assert out["query"].startswith("About ACME: ")


def test_rewrite_sends_the_configured_prompt_to_the_model():
    model = recording('{"query": "Acme total revenue 2022", "keywords": ["total revenue", "2022"]}')
    out = rewrite({"question": "Acme revenue 2022?"}, run(rewriter_model=model, rewrite_prompt="REWRITE IT"))
    assert out["query"] == "Acme total revenue 2022" and out["keywords"] == ["total revenue", "2022"]
    assert model.seen[0][0].content == "REWRITE IT"
    assert [c["role"] for c in out["llm_calls"]] == ["rewriter"]


# ------------------------------------------------------------------ generate
CHUNKS = [
    {**hit(1, "ACMEWIDGETS_2022_10K"), "text": "Total revenue was $1,476.2 million in fiscal 2022.", "rerank_score": 0.9,
     "score": 0.9},
    {**hit(2, "ACMEWIDGETS_2022_10K"), "text": "Operating expenses rose 4% to $900.0 million.", "rerank_score": 0.5,
     "score": 0.5},
]


def test_generate_offline_answers_from_the_reranked_chunks_with_citations():
    state = {"question": "What was Acme Widgets' total revenue in FY2022?", "keywords": ["total revenue", "2022"],
             "reranked": CHUNKS}
    out = generate(state, run())
    assert "1,476.2" in out["answer"] and "ACMEWIDGETS_2022_10K" in out["answer"]
    assert [c["chunk_id"] for c in out["contexts"]] == [1, 2]
    assert set(out["contexts"][0]) == {"chunk_id", "doc_id", "page_start", "page_end", "score", "text"}
    assert out["context_tokens"] > 0 and out["llm_calls"] == []


def test_generate_with_no_context_still_answers():
    out = generate({"question": "What was revenue?", "reranked": []}, run())
    assert out["answer"].strip() and out["contexts"] == []


def test_generate_sends_the_configured_prompts_to_the_model():
    model = recording("Revenue was $1,476.2 million [ACMEWIDGETS_2022_10K, p. 1].")
    cfg = run(generator_model=model, generate_prompt="SYSTEM", generate_user_prompt="Q={question}\nC={context}")
    out = generate({"question": "Revenue?", "reranked": CHUNKS}, cfg)
    system, user = model.seen[0]
    assert system.content == "SYSTEM"
    assert user.content.startswith("Q=Revenue?\nC=") and "Total revenue was $1,476.2 million" in user.content
    assert out["answer"].startswith("Revenue was $1,476.2 million")


# -------------------------------------------------------------------- verify
@pytest.mark.parametrize("verification, nxt", [({"retry": True}, "rewrite"), ({"retry": False}, "generate"),
                                               ({}, "generate"), (None, "generate")])
def test_route_after_verify(verification, nxt):
    state = {} if verification is None else {"verification": verification}
    assert route_after_verify(state) == nxt


# ---------------------------------------------------------- shared helpers
def test_scope_of():
    assert scope_of({"routed_docs": ["A"]}, scoped=False) is None
    assert scope_of({"routed_docs": []}, scoped=True) is None
    assert scope_of({"routed_docs": ["A", "B"]}, scoped=True) == ["A", "B"]


def test_nodes_read_the_configuration_only_from_the_run_context():
    cfg = Configuration(fts_k=3)
    assert configuration(Runtime(context=cfg)) is cfg
    with pytest.raises(TypeError, match=r"context=\{'index_dir'"):
        configuration(Runtime(context=None))
    with pytest.raises(TypeError, match="must be a finrag Configuration"):
        configuration(Runtime(context={"fts_k": 3}))


def test_a_graph_run_without_context_says_how_to_pass_one():
    from finrag.graphs import get_graph

    with pytest.raises(TypeError, match="context="):
        get_graph("cbr").invoke({"question": "What was revenue?"}, config={"configurable": {"index_dir": "x"}})


def test_node_modules_import_only_the_shared_helpers():
    for path in sorted(NODES_DIR.glob("*.py")):
        if path.name == "__init__.py":
            continue
        imported = set(re.findall(r"finrag\.nodes\.(\w+)", path.read_text()))
        assert imported <= {"common"}, (path.name, imported)


def test_nodes_reach_the_index_only_through_the_run_context_helpers():
    for path in sorted(NODES_DIR.glob("*.py")):
        text = path.read_text()
        assert "get_store" not in text, path.name
        if path.name != "common.py":
            assert "open_index" not in text and "registry_for" not in text, path.name


@pytest.mark.parametrize("question, scope, status", [
    ("Which of ALL the segments grew in 2023?", "ask", "fallback_low_confidence"),  # a mention: corpus fallback
    ("Which segment grew the most in 2023?", "ask", "which_company"),  # no company at all: ask
    ("Which segment grew the most in 2023?", "corpus", "fallback_no_tickers"),  # the paper's fallback
])
def test_resolve_docs_asks_only_when_the_question_names_no_company(tmp_path, question, scope, status):
    from finrag.nodes import resolve_docs
    from finrag.nodes.common import registry_of

    reader = MemoryReader(tmp_path, {"/c/2023/ALL.pdf": [], "/c/2023/MSFT.pdf": []})  # two filings, no pages
    registry = registry_of(Configuration(index_reader=reader))
    assert registry.doc_ids() == ["ALL_2023", "MSFT_2023"]
    extracted = registry.link(question).model_dump()  # what extract_metadata hands on (offline)
    out = resolve_docs({"question": question, "extracted": extracted},
                       run(reader, fallback_scope=scope, default_year=2023))
    assert out["routing_status"] == status and out["routed_docs"] == []


# ------------------------------------------------------- typed seams (explicit keys, one home)
def test_rewrite_keeps_the_merged_router_rewrite_only_when_the_state_says_so():
    state = {"question": "What was Acme's FY2022 capex?", "query": "Acme capex 2022", "keywords": ["capex"]}
    kept = rewrite({**state, "query_from_router": True}, run())
    assert kept["llm_calls"] == [] and "query" not in kept and "keywords" not in kept
    assert kept["question_facts"].scope == "line_item"
    # a router record in `llm_calls` is no signal any more: only the explicit key skips the rewrite
    router_call = {"role": "router", "model": "m", "prompt_tokens": 1, "completion_tokens": 1}
    redone = rewrite({**state, "llm_calls": [router_call]}, run())
    assert "capital expenditure" in redone["query"].lower()
    retried = rewrite({**state, "query_from_router": True, "retries": 1, "question_facts": kept["question_facts"]},
                      run())
    assert retried["query"].startswith("In ") and "question_facts" not in retried  # read once per run


def test_extract_metadata_says_whether_the_merged_call_wrote_the_query(tmp_path):
    from finrag.nodes import extract_metadata

    reader = MemoryReader(tmp_path, MEMORY_FILINGS)
    question = "What was Acme's total revenue in fiscal 2023?"
    assert extract_metadata({"question": question}, run(reader))["query_from_router"] is False
    model = recording('{"companies": ["Acme Corp"], "query": "Acme total revenue 2023", "keywords": ["revenue"]}')
    out = extract_metadata({"question": question}, run(reader, router_model=model))
    assert out["query_from_router"] is True and out["query"] == "Acme total revenue 2023"


def test_a_failed_call_is_recognised_by_one_helper():
    from finrag.tools.llm.calls import error_record, failed_call

    assert failed_call(error_record("router", ValueError("boom")))
    assert not failed_call({"role": "router", "model": "gpt-4.1", "prompt_tokens": 1, "completion_tokens": 1})


MEMORY_FILINGS = {
    "/c/2023/ACME.pdf": ["Acme Corp annual report, Form 10-K, fiscal year 2023.",
                         "Total revenue was $1,200.0 million in fiscal 2023, up from $1,050.0 million.",
                         "Management's discussion: revenue grew because of higher widget volumes."],
    "/c/2023/MSFT.pdf": ["Microsoft Corporation annual report, Form 10-K, fiscal year 2023.",
                         "Total revenue was $211,915 million in fiscal 2023."],
}


@pytest.mark.parametrize("system", ["hdrr", "agentic", "cbr"])
@pytest.mark.parametrize("question", ["What was Acme's total revenue in fiscal 2023?",
                                      "What drove Acme's revenue growth in fiscal 2023?"])
def test_the_question_is_read_once_per_run(tmp_path, monkeypatch, system, question):
    from finrag.graphs import get_graph
    from finrag.nodes import common
    from finrag.tools.question import read as question_read
    from finrag.tools.question import section_intent
    from finrag.tools.retrieval import context_budget

    calls: list[str] = []
    reads: list[str] = []
    original, original_read = section_intent.question_scope, common.read_question

    def counted(q, statement):
        calls.append(q)
        return original(q, statement)

    def counted_read(q):
        reads.append(q)
        return original_read(q)

    question_read._read.cache_clear()  # the memo would hide a second reading
    monkeypatch.setattr(section_intent, "question_scope", counted)
    monkeypatch.setattr(context_budget, "question_scope", counted)
    monkeypatch.setattr(question_read, "question_scope", counted)  # read.py imports it at its top
    monkeypatch.setattr(common, "read_question", counted_read)
    reader = MemoryReader(tmp_path, MEMORY_FILINGS)
    out = get_graph(system).invoke({"question": question},
                                   context=Configuration(index_reader=reader, max_retries=2))
    assert out["answer"].strip()
    assert calls == [question], calls  # the scope: computed once, in the reading
    assert reads == [question], reads  # the first node reads the question; every later one takes the state's


def test_nodes_without_rewrite_compute_the_scope_themselves():
    from finrag.nodes.common import candidates_k, scope_of_question
    from finrag.state.question import QuestionFacts

    line_item = {"question": "What was Acme's total revenue in fiscal 2023?"}
    read_open = QuestionFacts(text=line_item["question"], scope="open")
    assert scope_of_question(line_item) == "line_item"
    assert scope_of_question({**line_item, "question_facts": read_open}) == "open"  # the state's reading wins
    assert scope_of_question({**line_item, "question_facts": None}) == "line_item"  # reset on a new turn: read
    cfg = Configuration(routed_candidates=300)
    assert candidates_k(cfg, ["ACME_2023"], 20, line_item) == 20
    assert candidates_k(cfg, ["ACME_2023"], 20, {**line_item, "question_facts": read_open}) == 300
    assert candidates_k(cfg, None, 20, {**line_item, "question_facts": read_open}) == 20


def test_offline_rewrite_is_worked_out_once_per_question_and_returns_fresh_values():
    from finrag.tools.retrieval import query_rewrite

    question = "What is the FY2018 capex for 3M? Answer in USD millions."
    first = query_rewrite.offline_rewrite(question)
    hits = query_rewrite._offline_rewrite.cache_info().hits
    second = query_rewrite.offline_rewrite(question)
    assert query_rewrite._offline_rewrite.cache_info().hits == hits + 1
    assert first == second and first is not second
    first.keywords.append("changed")
    assert "changed" not in query_rewrite.offline_rewrite(question).keywords


def test_verify_and_vector_search_build_their_records_with_the_contract_models():
    from finrag.nodes.vector_search import coverage_status
    from finrag.nodes.verify import verification_record

    assert verification_record(belongs=False, reason="r", anchor="ACME", retry=True, attempt=1) == \
        {"belongs": False, "reason": "r", "anchor": "ACME", "retry": True, "attempt": 1}
    dropped = verification_record(belongs=False, reason="r", anchor="ACME", retry=False, attempt=3,
                                  unverified_dropped=0)
    assert list(dropped) == ["belongs", "reason", "anchor", "retry", "attempt", "unverified_dropped"]
    status = coverage_status(["B"], 2, [], scoped=False)
    assert list(status) == ["vectors", "missing_vectors", "missing_count", "embedded_on_demand", "note"]
    assert status["vectors"] == "partial" and status["missing_count"] == 1
