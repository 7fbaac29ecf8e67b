"""The public Python API: run a system on a question and get the JSON contract back.

    from finrag import run_query
    result = run_query("What was 3M's FY2018 capex?", system="hdrr", index_dir=".finrag")

The contract's fields: `finrag.state.contract.Answer` (state/contract.py) and docs/contract.md.
"""
from __future__ import annotations

import dataclasses
import re
import time
import uuid
from typing import Any, Mapping

from finrag.graphs import SYSTEMS, get_graph
from finrag.state.configuration import MAX_QUESTION_CHARS, Configuration
from finrag.state.contract import Answer, Context, Cost, Routing
from finrag.tools.llm.tokens import count_tokens


class QuestionError(ValueError):
    """The question cannot be answered as given (empty, too long, not text)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def validate_question(question: Any, max_chars: int = MAX_QUESTION_CHARS) -> str:
    """The question with whitespace collapsed; QuestionError when it is not a non-empty string of at most
    `max_chars` characters, or not text: a lone surrogate is a byte of a command-line argument that is not
    UTF-8 (Python passes byte 0xNN on as U+DCNN) or a `\\ud800` escape in JSON, and no encoder, tokenizer
    or UTF-8 output takes it."""
    if not isinstance(question, str):
        raise QuestionError("question must be a string")
    bad = _SURROGATE.search(question)
    if bad:
        code = ord(bad.group())
        if 0xDC80 <= code <= 0xDCFF:
            raise QuestionError(f"question is not UTF-8 text (byte 0x{code - 0xDC00:02x} at character "
                                f"{bad.start() + 1}); give it as UTF-8")
        raise QuestionError(f"question is not valid Unicode text (a lone surrogate, U+{code:04X}, at character "
                            f"{bad.start() + 1})")
    q = " ".join(question.split())
    if not q:
        raise QuestionError("question is empty")
    if len(q) > max_chars:
        raise QuestionError(f"question is too long ({len(q):,} characters; the limit is {max_chars:,})")
    return q


def to_contract(state: dict, *, system: str, qid: str, question: str, total_ms: float) -> dict:
    """A graph's final state as the JSON contract: built through `finrag.state.contract.Answer`, returned as
    a plain dict (optional fields, `verification`, `error` and `offline_fallback`, only when the run produced
    them)."""
    calls = list(state.get("llm_calls") or [])
    contexts = [Context(chunk_id=c.get("chunk_id"), doc_id=c.get("doc_id"), page_start=c.get("page_start"),
                        page_end=c.get("page_end"), score=round(float(c.get("score") or 0.0), 6), text=c.get("text", ""))
                for c in state.get("contexts") or []]
    timings = {k: round(float(v), 3) for k, v in (state.get("timings_ms") or {}).items()}
    timings["total"] = round(total_ms, 3)
    optional: dict[str, Any] = {}
    if state.get("verification") is not None:
        optional["verification"] = {**state["verification"], "retries": int(state.get("retries") or 0)}
    if state.get("error"):
        optional["error"] = state["error"]
    fell_back = list(dict.fromkeys(str(c.get("role")) for c in calls if c.get("model") == "error"))
    if fell_back:  # only possible with on_llm_error=offline: otherwise a failed call stops the run
        optional["offline_fallback"] = fell_back
    if state.get("vector_status"):
        optional["retrieval"] = state["vector_status"]
    reader = state.get("reader") or {}
    if reader:
        optional["reader"] = {k: v for k, v in reader.items() if k != "llm_calls_saved"}
    return Answer(
        id=qid,
        system=system,
        question=question,
        answer=state.get("answer", ""),
        routing=Routing(status=state.get("routing_status", "not_routed"), routed_docs=list(state.get("routed_docs") or []),
                        reason=state.get("routing_reason", ""), extracted=state.get("extracted") or {},
                        confidence=state.get("routing_confidence")),
        contexts=contexts,
        cost=Cost(llm_calls=len([c for c in calls if c.get("model") != "error"]),
                  prompt_tokens=sum(int(c.get("prompt_tokens") or 0) for c in calls),
                  completion_tokens=sum(int(c.get("completion_tokens") or 0) for c in calls),
                  context_tokens=int(state.get("context_tokens") or count_tokens("".join(c.text for c in contexts))),
                  calls=calls, llm_calls_saved=int(reader.get("llm_calls_saved") or 0)),
        timings_ms=timings,
        **optional,
    ).to_dict()


def run_configuration(configurable: Mapping[str, Any] | Configuration | None = None, *,
                      index_dir: str | None = None) -> Configuration:
    """The Configuration of one run: `configurable` (values of its fields, or a Configuration used as it
    is) with `index_dir` on top when given; the FINRAG_* environment fills the rest."""
    if isinstance(configurable, Configuration):
        return dataclasses.replace(configurable, index_dir=str(index_dir)) if index_dir else configurable
    values = dict(configurable or {})
    if index_dir:
        values["index_dir"] = str(index_dir)
    return Configuration(**values)


def run_query(question: str, system: str = "hdrr", *, index_dir: str | None = None, qid: str | None = None,
              configurable: Mapping[str, Any] | Configuration | None = None) -> dict:
    """Answer one question with one system; returns the JSON contract as a dict.

    `configurable` sets fields of `finrag.state.configuration.Configuration` for this run (e.g.
    `{"llm": "openai/gpt-4.1", "fts_k": 30}`; a role's model may be a LangChain chat model); the
    Configuration is built once, here, and given to the graph as its run context (`context=`).
    """
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    cfg = run_configuration(configurable, index_dir=index_dir)
    q = validate_question(question, int(cfg.max_question_chars))
    graph = get_graph(system)
    t0 = time.perf_counter()
    state = graph.invoke({"question": q}, context=cfg)
    total = (time.perf_counter() - t0) * 1000.0
    return to_contract(state, system=system, qid=qid or uuid.uuid4().hex[:12], question=q, total_ms=total)
