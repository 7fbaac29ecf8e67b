"""A thread's turns: the record of a finished turn, and the state keys that start afresh each turn.

A checkpointed thread keeps every state key between invocations, so the first step of a turn
(`resolve_question`) records the previous turn (`turn_record`, appended to `turns`) and resets the keys of
`PER_TURN_KEYS` (to None, which every node reads as absent) and the two reducer keys (`llm_calls`,
`timings_ms`, overwritten) so that nothing of one turn leaks into the next.
"""
from __future__ import annotations

from typing import Any, Mapping

from finrag.tools.answering.citations import _BRACKET, parse_citation
from finrag.tools.answering.page_labels import display_citations

PER_TURN_KEYS = ("extracted", "routed_docs", "routing_status", "routing_reason", "routing_confidence",
                 "query_from_router", "question_facts", "query", "keywords", "fts_results", "vector_results",
                 "vector_status", "fused", "reranked", "context_plan", "verification", "retries", "contexts",
                 "answer", "context_tokens", "rejected_citations", "reader", "error")
"""The state keys one turn writes and the next must not see (`turns`, the history, is kept)."""



def citations_of(answer: str) -> list[dict[str, Any]]:
    """The citations of an answer (`[DOC, p. N]`, `[DOC, pp. N-M]`, several in one bracket), in order, each
    once, as {doc_id, page_start, page_end, shown}: the pages as the answer writes them (the graph's answer
    counts from 0, the contract's from 1: `finrag.tools.answering.page_labels`) and `shown`, the part as written."""
    out: dict[tuple[str, int, int], str] = {}
    for m in _BRACKET.finditer(answer or ""):
        parts = parse_citation(m.group(1)) or []
        texts = m.group(1).split(";") if parts else []
        for (doc, first, last), text in zip(parts, texts):
            out.setdefault((doc, first, last), " ".join(text.split()))
    return [{"doc_id": d, "page_start": a, "page_end": b, "shown": s} for (d, a, b), s in out.items()]


def turn_record(state: Mapping[str, Any]) -> dict[str, Any]:
    """The record of the turn `state` holds (after its run): turn, question as typed, resolved question, the
    inherited slots, routing, answer (as the contract shows it: pages as a viewer counts them), citations
    (`page_start` / `page_end` zero-based like the contract's contexts, `shown` as the answer writes them)."""
    conv = state.get("conversation") or {}
    answer = str(state.get("answer") or "")  # its citations zero-based, as the contexts count pages
    shown = display_citations(answer, state.get("contexts") or [])  # as people read it (the contract's answer)
    cites = [{**c, "shown": d["shown"]} for c, d in zip(citations_of(answer), citations_of(shown))]
    return {"turn": int(conv.get("turn") or 0), "question": conv.get("typed") or state.get("question") or "",
            "resolved_question": conv.get("resolved") or state.get("question") or "",
            "inherited": dict(conv.get("inherited") or {}), "slots": dict(conv.get("slots") or {}),
            "strategy": conv.get("strategy") or "none",
            "routing": {"status": state.get("routing_status") or "not_routed",
                        "routed_docs": list(state.get("routed_docs") or []),
                        "reason": state.get("routing_reason") or ""},
            "answer": shown, "citations": cites}


def reset_update() -> dict[str, Any]:
    """The update that empties the per-turn keys (the reducer keys are overwritten by the caller)."""
    return {k: None for k in PER_TURN_KEYS}
