"""The one typed state every graph shares, and its public input/output views.

Chunks travel as plain dicts (`RetrievedChunk.model_dump()`), so the whole state is
JSON: LangGraph Studio shows it, LangServe serialises it, checkpoints store it.
`llm_calls` and `timings_ms` have reducers, so nodes that run more than once
(Agentic retries) or in parallel (FTS and vector search) add to them.
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Optional

from typing_extensions import TypedDict


def add_timings(left: dict | None, right: dict | None) -> dict:
    out = dict(left or {})
    for k, v in (right or {}).items():
        out[k] = round(out.get(k, 0.0) + float(v), 3)
    return out


class InputState(TypedDict):
    """What a caller gives a graph: the question (and optionally an id)."""

    question: str


class FinragState(TypedDict, total=False):
    question: str
    qid: str
    # extract_metadata / resolve_docs
    extracted: dict[str, Any]
    routed_docs: list[str]
    routing_status: str
    routing_reason: str
    # rewrite
    query: str
    keywords: list[str]
    # retrieval
    fts_results: list[dict]
    vector_results: list[dict]
    fused: list[dict]
    reranked: list[dict]
    # verify (Agentic)
    verification: dict[str, Any]
    retries: int
    # generate
    contexts: list[dict]
    answer: str
    context_tokens: int
    # accounting
    llm_calls: Annotated[list[dict], operator.add]
    timings_ms: Annotated[dict[str, float], add_timings]
    error: Optional[str]


class OutputState(TypedDict, total=False):
    """What a graph returns to callers (the JSON contract is built from it)."""

    question: str
    answer: str
    extracted: dict[str, Any]
    routed_docs: list[str]
    routing_status: str
    routing_reason: str
    contexts: list[dict]
    context_tokens: int
    verification: dict[str, Any]
    retries: int
    llm_calls: list[dict]
    timings_ms: dict[str, float]
    error: Optional[str]
