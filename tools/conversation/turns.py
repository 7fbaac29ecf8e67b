"""A thread's turns: the record of a finished turn, and the state keys that start afresh each turn.

A checkpointed thread keeps every state key between invocations, so the first step of a turn
(`resolve_question`) records the previous turn (`turn_record`, appended to `turns`) and resets the keys of
`PER_TURN_KEYS` (to None, which every node reads as absent) and the two reducer keys (`llm_calls`,
`timings_ms`, overwritten) so that nothing of one turn leaks into the next.
"""
from __future__ import annotations

from typing import Any, Mapping

from finrag.tools.answering.citations import _BRACKET, parse_citation

PER_TURN_KEYS = ("extracted", "routed_docs", "routing_status", "routing_reason", "routing_confidence",
                 "query_from_router", "question_facts", "query", "keywords", "fts_results", "vector_results",
                 "vector_status", "fused", "reranked", "context_plan", "verification", "retries", "contexts",
                 "answer", "context_tokens", "rejected_citations", "reader", "error")
"""The state keys one turn writes and the next must not see (`turns`, the history, is kept)."""



def citations_of(answer: str) -> list[dict[str, Any]]:
    """The citations of an answer (`[DOC, p. N]`, `[DOC, pp. N-M]`, several in one bracket), in order, each
    once, as {doc_id, page_start, page_end}."""
    out: dict[tuple[str, int, int], None] = {}
    for m in _BRACKET.finditer(answer or ""):
        for doc, first, last in parse_citation(m.group(1)) or []:
            out[(doc, first, last)] = None
    return [{"doc_id": d, "page_start": a, "page_end": b} for d, a, b in out]


def turn_record(state: Mapping[str, Any]) -> dict[str, Any]:
    """The record of the turn `state` holds (after its run): turn, question as typed, resolved question, the
    inherited slots, routing, answer, citations."""
    conv = state.get("conversation") or {}
    answer = str(state.get("answer") or "")
    return {"turn": int(conv.get("turn") or 0), "question": conv.get("typed") or state.get("question") or "",
            "resolved_question": conv.get("resolved") or state.get("question") or "",
            "inherited": dict(conv.get("inherited") or {}), "slots": dict(conv.get("slots") or {}),
            "strategy": conv.get("strategy") or "none",
            "routing": {"status": state.get("routing_status") or "not_routed",
                        "routed_docs": list(state.get("routed_docs") or []),
                        "reason": state.get("routing_reason") or ""},
            "answer": answer, "citations": citations_of(answer)}


def reset_update() -> dict[str, Any]:
    """The update that empties the per-turn keys (the reducer keys are overwritten by the caller)."""
    return {k: None for k in PER_TURN_KEYS}
