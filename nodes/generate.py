"""generate: answer only from the context, citing document and page.

With an LLM (`generator` role, GPT-4.1 at temperature 0 by default when
OPENAI_API_KEY is set) the paper's generation prompt. Offline an extractive
answer: the sentences or table rows of the context that best cover the
question's keywords and numbers, each with its citation; never an empty string.

`whole_document=True` (SFR) sends the routed filings page by page instead of
reranked chunks (and, with `sfr_pdf_input`, the PDF itself as an OpenAI file
input).
"""
from __future__ import annotations

import base64
import re
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from finrag.nodes.common import config_of, context_label, timed
from finrag.nodes.prompts import GENERATE_SYSTEM, GENERATE_USER
from finrag.nodes.rewrite import offline_rewrite
from finrag.tools.llm import get_chat_model, try_text
from finrag.tools.rerankers import keyword_coverage
from finrag.tools.runtime import get_registry, get_store
from finrag.tools.tokens import count_tokens

NO_CONTEXT = ("I could not find passages in the indexed filings that answer this question"
              " (no relevant context was retrieved).")
_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def whole_document_contexts(store, doc_ids: list[str], max_tokens: int) -> list[dict]:
    """One context per page of the routed documents; each document gets an equal share of the budget,
    so a multi-company question is not answered from the first filing alone."""
    out = []
    share = max_tokens // max(1, len(doc_ids))
    for doc_id in doc_ids:
        budget = share
        for page_no, text in enumerate(store.pages_of(doc_id)):
            cost = count_tokens(text)
            if cost > budget:
                break
            budget -= cost
            out.append({"chunk_id": None, "doc_id": doc_id, "page_start": page_no, "page_end": page_no,
                        "score": 1.0, "text": text})
    return out


_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"$])")
_LABEL = re.compile(r"[A-Za-z]{3}")


def _units(text: str) -> list[str]:
    """Candidate answer units: sentences (PDF lines re-joined) and table rows.

    PyMuPDF often puts each table cell on its own line, so a row is a line with a
    label followed by up to four short lines that carry its numbers.
    """
    lines = [ln.strip() for ln in text.splitlines()]
    units = [s.strip() for s in _SENTENCE_END.split(" ".join(ln for ln in lines if ln)) if 25 <= len(s.strip()) <= 600]
    for i, line in enumerate(lines):
        if not _LABEL.search(line) or len(line) > 160:
            continue
        row = [line]
        for nxt in lines[i + 1 : i + 5]:
            if not nxt or _LABEL.search(nxt.replace("million", "").replace("$", "")) or len(nxt) > 40:
                break
            row.append(nxt)
        if _NUM.search(" ".join(row)):
            units.append(" ".join(row))
    return units


def extractive_answer(question: str, keywords: list[str], contexts: list[dict], max_units: int = 3) -> str:
    if not contexts:
        return NO_CONTEXT
    wants_number = bool(re.search(r"\b(how much|how many|what (?:is|was|were|are) (?:the )?(?:total|amount|fy|year)|"
                                  r"ratio|margin|rate|percent|%|usd|million|billion|amount|change|growth)\b",
                                  question, re.I))
    kws = keywords or question.split()
    scored = []
    for rank, ctx in enumerate(contexts):
        for unit in _units(ctx.get("text", "")):
            s = keyword_coverage(kws, unit) + 0.02 * (len(contexts) - rank) / len(contexts)
            if wants_number and _NUM.search(unit):
                s += 0.15
            scored.append((s, rank, unit, ctx))
    if not scored:
        c = contexts[0]
        return f"{' '.join(c.get('text', '').split())[:400]} {context_label(c)}"
    scored.sort(key=lambda t: (-t[0], t[1]))
    picked, seen = [], set()
    for s, _, unit, ctx in scored:
        key = unit[:80]
        if key in seen:
            continue
        seen.add(key)
        picked.append(f"{' '.join(unit.split())[:500]} {context_label(ctx)}")
        if len(picked) >= max_units:
            break
    return "From the filings: " + " ... ".join(picked)


def format_context(contexts: list[dict]) -> str:
    return "\n\n".join(f"{context_label(c)}\n{c.get('text', '')}" for c in contexts)


def _pdf_block(path: str) -> dict | None:
    p = Path(path)
    if p.suffix.lower() != ".pdf" or not p.is_file():
        return None
    data = base64.b64encode(p.read_bytes()).decode()
    return {"type": "file", "file": {"filename": p.name, "file_data": f"data:application/pdf;base64,{data}"}}


@timed("generate")
def generate(state: dict, config=None, *, whole_document: bool = False) -> dict:
    cfg = config_of(config)
    question = state.get("question", "")
    if whole_document:
        store = get_store(cfg)
        contexts = whole_document_contexts(store, list(state.get("routed_docs") or []), int(cfg.sfr_max_context_tokens))
    else:
        contexts = [{k: c.get(k) for k in ("chunk_id", "doc_id", "page_start", "page_end", "score", "text")}
                    for c in (state.get("reranked") or [])]
    context_text = format_context(contexts)
    model = get_chat_model("generator", cfg)
    calls = []
    answer = ""
    if model is not None and contexts:
        user = GENERATE_USER.format(context=context_text, question=question)
        content: list | str = user
        if whole_document and cfg.sfr_pdf_input:
            registry = get_registry(get_store(cfg), cfg.alias_file)
            blocks = [b for d in state.get("routed_docs") or [] if registry.get(d)
                      for b in [_pdf_block(registry.get(d).path)] if b]
            if blocks:
                content = blocks + [{"type": "text", "text": GENERATE_USER.format(context="(the attached filing)",
                                                                                  question=question)}]
        answer, rec = try_text("generator", model, [SystemMessage(GENERATE_SYSTEM), HumanMessage(content)])
        calls.append(rec)
    if not answer:
        keywords = list(state.get("keywords") or []) or offline_rewrite(question).keywords
        answer = extractive_answer(question, keywords, contexts)
    return {"answer": answer, "contexts": contexts, "context_tokens": count_tokens(context_text), "llm_calls": calls}
