"""rewrite: a clarified query for vector search and keywords for BM25.

With an LLM (`rewriter` role) the paper's rewrite; offline a deterministic
extractor: expand common financial abbreviations and statement names, drop
instruction boilerplate ("answer in USD millions", "round to one decimal"),
keep financial terms, names and numbers. Agentic retries arrive with
`retries > 0` and the entity-anchored prefix is put in front of the question.
When the merged router + rewriter call (`router_rewrite`, in `extract_metadata`)
already wrote `query` and `keywords` (it says so in `query_from_router`), the first
attempt keeps them and makes no call. The node also records the question's scope
(`question_facts`, once per run, unless `extract_metadata` already did), which the searches and `rerank` read.
"""
from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, question_facts, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.llm.calls import try_structured
from finrag.tools.llm.chat import get_chat_model
from finrag.tools.retrieval.query_rewrite import Rewrite, SearchTerms, offline_rewrite
from finrag.tools.retrieval.question_search import anchored


@timed("rewrite")
def rewrite(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Turn the question (anchored on a retry) into a search `query` and BM25 `keywords`."""
    cfg = configuration(runtime)
    # the question's reading, once per run: an Agentic retry asks the same question
    scope = {} if state.get("question_facts") is not None else {"question_facts": question_facts(state)}
    if not state.get("retries") and state.get("query_from_router"):
        return {**scope, "llm_calls": []}  # the router's merged call already rewrote the question
    question = anchored(state, cfg.retry_prefix)  # the Agentic retry prefix on a retry (one home: question_search)
    model = get_chat_model("rewriter", cfg)
    calls = []
    result: SearchTerms | None = None
    if model is not None:
        reply, rec = try_structured("rewriter", model, Rewrite, [SystemMessage(cfg.rewrite_prompt), HumanMessage(question)])
        calls.append(rec)
        result = SearchTerms.model_validate(reply.model_dump()) if reply is not None else None
    if result is None or not (result.query or "").strip():
        result = offline_rewrite(question)
    elif state.get("retries"):
        result.query = question if question not in result.query else result.query
    return {**scope, "query": result.query, "keywords": list(result.keywords), "llm_calls": calls}
