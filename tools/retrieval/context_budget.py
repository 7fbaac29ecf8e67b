"""The context of a routed filing: a budget that follows the question, section preference, expansion.

Inside a routed filing every chunk is a candidate (the filing has a few hundred), so the question is not
which company but which part of the filing. `plan_context` decides, from the question alone:

* the scope (`section_intent.question_scope`): a `line_item` question keeps the paper's adaptive cutoff
  (its answer is one table row); an `open` one may fill `budget_tokens` (the paper's HDRR budget is
  5k-15k tokens), in score order, down to `floor` x the top chunk's score;
* the sections it points to (`section_intent.sections_for`): for an open question, chunks inside them get
  `section_weight` on top of their rerank score (a preference, never a filter: a chunk outside them can
  still win; a line item's answer is a statement row, so its scores stay the reranker's);
* expansion: for the top `expand_top` chunks of an open question, the chunk before and after it and the
  first chunk of its section (a note's heading, a table's title) join the context while the budget allows,
  so a table's title and its rows, or a note's heading and its body, arrive together.

The plan is returned as a dict and lands in the answer's `retrieval.context` record with the reason.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from finrag.tools.llm.tokens import count_tokens
from finrag.tools.retrieval.section_intent import Scope, question_scope, sections_for
from finrag.tools.retrieval.statements import statement_intent
from finrag.tools.retrieval.text_memo import TextMemo

__all__ = ["plan_context", "prefer_sections", "fill_budget", "expansion_ids", "chunk_tokens", "chunk_tokens_of"]

Labels = dict[int, tuple[Optional[str], Optional[str]]]


def chunk_tokens(text: str) -> int:
    """Tokens of one chunk, as the answer's `cost.context_tokens` counts them (`tools/llm/tokens.py`)."""
    return max(1, count_tokens(text or ""))


_TOKENS = TextMemo(chunk_tokens, max_units=500_000)  # entries: a chunk's token count, a few MB


def chunk_tokens_of(c: dict) -> int:
    """`chunk_tokens` of a candidate's text, remembered per chunk (keyed by chunk id and text, `TextMemo`): an
    open question's budget counts some thirty chunks, and the next question over the filing meets them again."""
    return _TOKENS(c.get("text", "") or "", c.get("chunk_id"))


def plan_context(question: str, *, budget_tokens: int, floor: float, section_weight: float,
                 expand_top: int, scope: Optional[Scope] = None) -> dict:
    """The context plan of one question: scope (`scope` when the caller knows it, else `question_scope`),
    budget, preferred sections and why."""
    if scope is None:
        scope = question_scope(question, bool(statement_intent(question)))
    cues = sections_for(question)
    plan: dict[str, Any] = {"rule": "budget", "scope": scope, "sections": [k for k, _ in cues],
            "cues": sorted({c for _, c in cues}), "budget_tokens": int(budget_tokens) if scope == "open" else None,
            "floor": float(floor) if scope == "open" else None, "section_weight": float(section_weight),
            "expand_top": int(expand_top) if scope == "open" else 0}
    plan["reason"] = (f"{'an open question' if scope == 'open' else 'a line-item question'}"
                      + (f": up to {budget_tokens} tokens" if scope == "open" else ": the adaptive cutoff")
                      + (f"; preferring {', '.join(plan['sections'])} (cue: {', '.join(plan['cues'])})"
                         if plan["sections"] and section_weight > 0 and scope == "open" else ""))
    return plan


def prefer_sections(candidates: Sequence[dict], labels: Labels, sections: Sequence[str], weight: float) -> int:
    """Add `weight` to `rerank_score` (and `score`) of every candidate whose item or note is in `sections`;
    each candidate's `section` is set to its (item, note) label. Returns how many got the bonus."""
    wanted = set(sections)
    boosted = 0
    for c in candidates:
        item, note = labels.get(int(c["chunk_id"]), (None, None))
        c["section"] = {"item": item, "note": note}
        if weight > 0 and wanted and (item in wanted or note in wanted):
            c["rerank_score"] = float(c["rerank_score"]) + weight
            c["score"] = c["rerank_score"]
            boosted += 1
    return boosted


def fill_budget(ranked: Sequence[dict], budget_tokens: int, floor: float,
                extra: Optional[Callable[[dict, int], list[dict]]] = None,
                always: Optional[set[int]] = None) -> list[dict]:
    """Chunks of `ranked` (best first) until `budget_tokens` is spent or a score falls below `floor` x the
    top score (the chunk ids in `always` pass that test); `extra(chunk, position)` may add chunks right
    after one (expansion), spent from the same budget. Chunks already in the context are not added twice;
    the first chunk always is."""
    if not ranked:
        return []
    top = float(ranked[0]["rerank_score"])
    kept: list[dict] = []
    seen: set[int] = set()
    used = 0

    def add(c: dict) -> bool:
        nonlocal used
        cid = int(c["chunk_id"])
        if cid in seen:
            return True
        cost = chunk_tokens_of(c)
        if kept and used + cost > budget_tokens:
            return False
        seen.add(cid)
        kept.append(c)
        used += cost
        return True

    for i, c in enumerate(ranked):
        if kept and float(c["rerank_score"]) < floor * top and int(c["chunk_id"]) not in (always or ()):
            break
        if not add(c):
            break
        for e in (extra(c, i) if extra else []):
            add(e)
    return kept


def expansion_ids(chunk: dict, labels: Labels, doc_chunk_ids: Sequence[int]) -> list[int]:
    """Chunk ids to add after `chunk`: its section's first chunk, then the chunk before and after it (same
    filing). `doc_chunk_ids` are the filing's chunk ids in order."""
    cid = int(chunk["chunk_id"])
    try:
        pos = list(doc_chunk_ids).index(cid)
    except ValueError:
        return []
    out: list[int] = []
    label = labels.get(cid)
    if label and (label[0] or label[1]):
        start = pos
        while start > 0 and labels.get(doc_chunk_ids[start - 1]) == label:
            start -= 1
        if start < pos - 1:
            out.append(int(doc_chunk_ids[start]))
    if pos > 0:
        out.append(int(doc_chunk_ids[pos - 1]))
    if pos + 1 < len(doc_chunk_ids):
        out.append(int(doc_chunk_ids[pos + 1]))
    return out
