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
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.answering.extractive import context_label, extractive_answer
from finrag.tools.answering.whole_document import whole_document_contexts
from finrag.tools.llm.calls import try_text
from finrag.tools.llm.chat import get_chat_model
from finrag.tools.llm.tokens import count_tokens
from finrag.tools.retrieval.query_rewrite import offline_rewrite
from finrag.tools.runtime import get_registry, get_store


def format_context(contexts: list[dict]) -> str:
    """The context as the generator reads it: each passage under its `[document, pages]` label."""
    return "\n\n".join(f"{context_label(c)}\n{c.get('text', '')}" for c in contexts)


def _pdf_block(path: str) -> dict | None:
    """An OpenAI file-input content block carrying the PDF at `path`, or None if it is not a PDF."""
    p = Path(path)
    if p.suffix.lower() != ".pdf" or not p.is_file():
        return None
    data = base64.b64encode(p.read_bytes()).decode()
    return {"type": "file", "file": {"filename": p.name, "file_data": f"data:application/pdf;base64,{data}"}}


@timed("generate")
def generate(state: FinragState, runtime: Runtime[Configuration], *, whole_document: bool = False) -> dict:
    """Answer from `reranked` (or, for SFR, the routed filings): `answer`, `contexts`, `context_tokens`."""
    cfg = configuration(runtime)
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
        user = cfg.generate_user_prompt.format(context=context_text, question=question)
        content: list | str = user
        if whole_document and cfg.sfr_pdf_input:
            registry = get_registry(get_store(cfg), cfg.alias_file)
            blocks = [b for d in state.get("routed_docs") or [] if registry.get(d)
                      for b in [_pdf_block(registry.get(d).path)] if b]
            if blocks:
                content = blocks + [{"type": "text", "text": cfg.generate_user_prompt.format(
                    context="(the attached filing)", question=question)}]
        answer, rec = try_text("generator", model, [SystemMessage(cfg.generate_prompt), HumanMessage(content)])
        calls.append(rec)
    if not answer:
        keywords = list(state.get("keywords") or []) or offline_rewrite(question).keywords
        answer = extractive_answer(question, keywords, contexts)
    return {"answer": answer, "contexts": contexts, "context_tokens": count_tokens(context_text), "llm_calls": calls}
