"""The public Python API: run a system on a question and get the JSON contract back.

    from finrag import run_query
    result = run_query("What was 3M's FY2018 capex?", system="hdrr", index_dir=".finrag")

See ../shared/DESIGN.md (and README) for the contract's fields.
"""
from __future__ import annotations

import time
import uuid
from typing import Any

from finrag.graphs import SYSTEMS, get_graph
from finrag.tools.llm.tokens import count_tokens


class QuestionError(ValueError):
    """The question cannot be answered as given (empty, too long)."""


def validate_question(question: Any, max_chars: int = 4000) -> str:
    if not isinstance(question, str):
        raise QuestionError("question must be a string")
    q = " ".join(question.split())
    if not q:
        raise QuestionError("question is empty")
    if len(q) > max_chars:
        raise QuestionError(f"question is too long ({len(q):,} characters; the limit is {max_chars:,})")
    return q


def to_contract(state: dict, *, system: str, qid: str, question: str, total_ms: float) -> dict:
    calls = list(state.get("llm_calls") or [])
    contexts = [{"chunk_id": c.get("chunk_id"), "doc_id": c.get("doc_id"), "page_start": c.get("page_start"),
                 "page_end": c.get("page_end"), "score": round(float(c.get("score") or 0.0), 6), "text": c.get("text", "")}
                for c in state.get("contexts") or []]
    timings = {k: round(float(v), 3) for k, v in (state.get("timings_ms") or {}).items()}
    timings["total"] = round(total_ms, 3)
    out = {
        "id": qid,
        "system": system,
        "question": question,
        "answer": state.get("answer", ""),
        "routing": {"status": state.get("routing_status", "not_routed"), "routed_docs": list(state.get("routed_docs") or []),
                    "reason": state.get("routing_reason", ""), "extracted": state.get("extracted") or {}},
        "contexts": contexts,
        "cost": {"llm_calls": len([c for c in calls if c.get("model") != "error"]),
                 "prompt_tokens": sum(int(c.get("prompt_tokens") or 0) for c in calls),
                 "completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in calls),
                 "context_tokens": int(state.get("context_tokens") or count_tokens("".join(c["text"] for c in contexts))),
                 "calls": calls},
        "timings_ms": timings,
    }
    if state.get("verification") is not None:
        out["verification"] = {**state["verification"], "retries": int(state.get("retries") or 0)}
    if state.get("error"):
        out["error"] = state["error"]
    return out


def run_query(question: str, system: str = "hdrr", *, index_dir: str | None = None, qid: str | None = None,
              configurable: dict | None = None) -> dict:
    """Answer one question with one system; returns the JSON contract as a dict."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    conf = dict(configurable or {})
    if index_dir:
        conf["index_dir"] = str(index_dir)
    q = validate_question(question, int(conf.get("max_question_chars") or 4000))
    graph = get_graph(system)
    t0 = time.perf_counter()
    state = graph.invoke({"question": q}, config={"configurable": conf})
    total = (time.perf_counter() - t0) * 1000.0
    return to_contract(state, system=system, qid=qid or uuid.uuid4().hex[:12], question=q, total_ms=total)
