"""generate: answer only from the context, citing document and page.

First the statement reader (`finrag.tools.answering`, unless `reader` is off) reads the statement tables of
the context: line items and registry metrics, each input cited `[doc, p. N]`. Statement pages of the routed
filing that it read beyond the context and cites are added to `contexts`.

With an LLM (`generator` role, GPT-4.1 at temperature 0 by default when OPENAI_API_KEY is set) the paper's
generation prompt, with the reader's tables appended to the context; on the fast path (`fast_path`: 'auto'
is on for the graphs that bind `fast_path_default=True`, i.e. HDRR) a confident reader answer is used and
the generator call is skipped (`cost.llm_calls_saved`). Offline: the reader's answer for line-item and
metric questions (or what it found and could not find), else the evidence sentences for yes/no, drivers and
which questions, else an extractive answer; never an empty string.

`whole_document=True` (SFR) sends the routed filings page by page instead of reranked chunks (and, with
`sfr_pdf_input`, the PDF itself as an OpenAI file input).

The generator's prompt fits the model's window (`llm_context_window`, else what its server says,
`finrag.tools.retrieval.model_window`): system prompt, question, context and the completion limit; passages
that do not fit are left out (SFR's page budget is cut to the window first), and the generator's call
record (and HDRR's `retrieval.context`) says so: `window_tokens`, `cut_to_window`.
"""
from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Optional, cast

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, question_facts, reader_of, registry_of, timed
from finrag.state.configuration import Configuration
from finrag.state.contract import NO_RETRIEVAL_STATUSES, Reader
from finrag.state.graph_state import FinragState
from finrag.state.index_reader import IndexReader
from finrag.tools.answering.citations import check_citations, escape_labels
from finrag.tools.answering.extractive import context_label
from finrag.tools.answering.fallback_answer import (
    candidate_docs,
    fallback_answer,
    fallback_of,
    withhold_foreign_figures,
)
from finrag.tools.answering.fast_path import (
    cited_page_contexts,
    fast_path_enabled,
    offline_answer,
    reader_context,
    reader_summary,
    run_reader,
)
from finrag.tools.answering.list_answer import list_evidence
from finrag.tools.answering.number_check import unmatched_note, unmatched_numbers
from finrag.tools.answering.page_labels import with_printed_labels
from finrag.tools.answering.route_notes import answer_caveats, instruction_of_fallback, unanswerable_answer
from finrag.tools.answering.whole_document import whole_document_contexts
from finrag.tools.documents.file_identity import CHANGED, file_state
from finrag.tools.llm.calls import cut_answer, try_text
from finrag.tools.llm.chat import get_chat_model
from finrag.tools.llm.tokens import count_tokens
from finrag.tools.retrieval.form_evidence import form_evidence
from finrag.tools.retrieval.model_window import (
    completion_limit,
    context_room,
    fit_to_window,
    model_window,
    server_token_ratio,
    window_record,
)
from finrag.tools.retrieval.query_rewrite import offline_rewrite, without_company_words
from finrag.tools.sequences import uniq


def format_context(contexts: list[dict]) -> str:
    """The context as the generator reads it: each passage under its `[document, pages]` label (label-like
    brackets in the passage's own text escaped, so that filing text cannot pose as another context)."""
    return "\n\n".join(f"{context_label(c)}\n{escape_labels(c.get('text', ''))}" for c in contexts)


def _pdf_block(path: str, content_hash: str = "") -> dict | None:
    """An OpenAI file-input content block carrying the PDF at `path`, or None if it is not a PDF, or (with the hash
    recorded at indexing) no longer the file that was indexed (issue 49: never another filing's bytes)."""
    p = Path(path)
    if p.suffix.lower() != ".pdf" or not p.is_file():
        return None
    if content_hash and file_state(path, content_hash) != "ok":
        return None
    data = base64.b64encode(p.read_bytes()).decode()
    return {"type": "file", "file": {"filename": p.name, "file_data": f"data:application/pdf;base64,{data}"}}


def _replaced_files(cfg: Configuration, docs: list[str]) -> list[str]:
    """One line per routed filing whose file was replaced since indexing (its bytes are not read: the answer comes
    from the indexed text), so the answer says to index it again (one `stat` per filing; issue 49)."""
    if not docs:
        return []
    try:
        store = reader_of(cfg)
        registry = registry_of(cfg, store)
        found = [(d, info.path) for d in docs if (info := registry.get(d)) is not None and info.path]
        return [f"{d}: {CHANGED}." for d, path in found if file_state(path, store.content_hash_of(d)) == "changed"]
    except Exception:  # an index that cannot say: nothing to add
        return []


def passage_tokens(c: dict) -> int:
    """Tokens of one passage in the generator's context (its label, text and the blank line after it)."""
    return count_tokens(format_context([c])) + 2


def window_room(cfg: Configuration, model, question: str, ratio: float = 1.0) -> tuple[int, int]:
    """(the generator's window, the tokens its context may take there); (0, 0) when the window is unknown.
    `ratio`: the server's tokens per finrag token (`server_token_ratio`); the room is then in server tokens."""
    window = model_window(cfg, model) if model is not None else 0
    if not window:
        return 0, 0
    fixed = count_tokens(cfg.generate_prompt) + count_tokens(cfg.generate_user_prompt.format(context="", question=question))
    return window, context_room(window, int(fixed * ratio), completion_limit(cfg))


def _form_evidence(state: FinragState, cfg: Configuration, contexts: list[dict]) -> list[dict]:
    """The routed filings' chunks holding the sentence a count, date or name question asks, not in `contexts` yet
    (`tools/retrieval/form_evidence.py`), or the one that enumerates a list question's noun saying how many
    (`list_answer.list_evidence`); [] for other questions, or when the index cannot be read."""
    facts = question_facts(state)
    if not facts.form:
        return []
    question, routed = state.get("question", ""), list(state.get("routed_docs") or [])
    keywords = without_company_words(list(state.get("keywords") or []) or offline_rewrite(question).keywords, question,
                                     cast(Optional[dict], state.get("extracted")))
    try:
        store = reader_of(cfg)
        if facts.form == "list":  # the sentence that enumerates the asked noun, saying how many
            return list_evidence(store, routed, facts.form_nouns, contexts)
        return form_evidence(store, routed, facts, keywords, contexts, _company_words(state, cfg))
    except Exception:  # no index to read chunks from: the context stays as retrieved
        return []


def _company_words(state: FinragState, cfg: Configuration) -> frozenset[str]:
    """The words of the routed companies' names, lower-cased ('amazon', 'com' of 'Amazon.com, Inc.'), their tickers,
    and the words the question named them by (the linker's accepted mention: "Square" for Block, "JNJ"): none is a
    topic word of the question (a sentence of the filing calls its company "we" or "the Company")."""
    try:
        registry = registry_of(cfg)
    except Exception:  # no index: no names
        return frozenset()
    docs = list(state.get("routed_docs") or [])
    keys = {registry.company_of(d) for d in docs} - {""}
    named = [str(c.get("text") or "") for c in (cast(Optional[dict], state.get("extracted")) or {}).get("candidates") or []
             if isinstance(c, dict) and c.get("key") in keys]
    return frozenset([w for d in docs for w in re.findall(r"[a-z]{3,}", registry.name_of(d).lower())]
                     + [w for text in named for w in re.findall(r"[a-z0-9&]{2,}", text.lower())]
                     + [t.lower() for k in keys for t in registry.tickers_of(k)])


def _index_of(cfg: Configuration) -> Optional[IndexReader]:
    """The open index, or None without one."""
    try:
        return reader_of(cfg)
    except Exception:  # no index: the contexts alone
        return None


@timed("generate")
def generate(state: FinragState, runtime: Runtime[Configuration], *, whole_document: bool = False,
             fast_path_default: bool = False) -> dict:
    """Answer from `reranked` (or, for SFR, the routed filings): `answer`, `contexts`, `context_tokens`, `reader`,
    and `rejected_citations` when the generator LLM cited what it was not given (removed from the answer)."""
    cfg = configuration(runtime)
    question = state.get("question", "")
    if state.get("routing_status") in NO_RETRIEVAL_STATUSES:  # routing ended the run (issue 9): say why
        return {"answer": unanswerable_answer(state["routing_status"], state.get("routing_reason", "")),
                "contexts": [], "context_tokens": 0, "llm_calls": []}
    verification = state.get("verification") or {}
    if verification.get("unverified_dropped") and not state.get("reranked"):  # Agentic: nothing of the target left
        return {"answer": f"No passage of {verification.get('anchor') or 'the asked company'}'s filings was found "
                          f"after {verification.get('attempt', 1)} attempt(s), so the question is not answered from "
                          f"other companies' filings ({verification.get('reason', '')}).",
                "contexts": [], "context_tokens": 0, "llm_calls": []}
    model = get_chat_model("generator", cfg)
    window, room = window_room(cfg, model, question)
    if whole_document:
        store = reader_of(cfg)
        budget = cfg.sfr_max_context_tokens
        contexts = whole_document_contexts(store, list(state.get("routed_docs") or []),
                                           min(budget, room) if window else budget)
    else:
        contexts = [{k: c.get(k) for k in ("chunk_id", "doc_id", "page_start", "page_end", "score", "text")}
                    for c in (state.get("reranked") or [])]
    fallback = fallback_of(state)
    if not whole_document and fallback is None and state.get("routed_docs"):  # the sentence a count/date/name asks
        contexts = contexts + _form_evidence(state, cfg, contexts)
    fast = fast_path_enabled(cfg.fast_path, fast_path_default)
    result, reader_error = None, ""
    if cfg.reader and contexts:
        try:
            store = reader_of(cfg)
            result, source = run_reader(question, [] if whole_document else contexts, store,
                                        registry_of(cfg, store),
                                        routed_docs=list(state.get("routed_docs") or []) or candidate_docs(fallback),
                                        extracted=cast(dict, state.get("extracted") or {}),
                                        statement_pages=cfg.reader_statement_pages or whole_document,
                                        facts=question_facts(state))
            contexts = contexts + cited_page_contexts(result, source, contexts)  # pages it cites beyond the context
        except Exception as exc:  # no index to read pages from, or a reader bug: the other strategies answer
            result, reader_error = None, f"{type(exc).__name__}: {exc}"[:200]
    context_text = format_context(contexts)
    calls = []
    answer = ""
    rejected: list[str] = []
    saved = 0
    unmatched: list[str] = []
    on_fast_path = False
    fit: dict = {}
    withheld = ""
    if model is not None and contexts and result is not None and result.confident and fast and fallback is None:
        answer, on_fast_path, saved = result.answer, True, 1
    elif model is not None and contexts:
        extra = reader_context(result)
        if fallback is not None:  # the generator is told that no filing was chosen, and whose each passage is
            registry = registry_of(cfg)
            told = instruction_of_fallback(fallback, {d: registry.name_of(d) for d in uniq(c["doc_id"] for c in contexts)})
            extra = f"{told}\n\n{extra}" if extra else told
        if window:  # the prompt fits the model's window: passages that do not fit are left out
            extra = extra if count_tokens(extra) < room // 2 else ""
            ratio = server_token_ratio(model, context_text, count_tokens)  # the server's tokenizer, not ours
            if ratio > 1.0:  # the room and every passage's cost in the server's tokens
                room = window_room(cfg, model, question, ratio)[1]
            fitted = fit_to_window(contexts, room - int(count_tokens(extra) * ratio),
                                   lambda c: int(passage_tokens(c) * ratio) + 1)
            fit = window_record(window, room, contexts, fitted)
            contexts, context_text = fitted, format_context(fitted)
        if extra:
            context_text = f"{context_text}\n\n{extra}"
        user = cfg.generate_user_prompt.format(context=context_text, question=question)
        content: list | str = user
        if whole_document and cfg.sfr_pdf_input:
            registry = registry_of(cfg)
            blocks = [b for d in state.get("routed_docs") or [] if (info := registry.get(d))
                      for b in [_pdf_block(info.path, reader_of(cfg).content_hash_of(d))] if b]
            if blocks:
                content = blocks + [{"type": "text", "text": cfg.generate_user_prompt.format(
                    context="(the attached filing)", question=question)}]
        answer, rec = try_text("generator", model, [SystemMessage(cfg.generate_prompt), HumanMessage(content)],
                               cut_ok=True)  # a reply cut at its limit is an answer that says so (issue 51)
        calls.append({**rec, **fit} if fit else rec)
        answer, rejected = check_citations(answer, contexts)  # only citations of the contexts it was given
        unmatched = unmatched_numbers(answer, result) if answer else []
        if answer:  # a cut reply says where the text stops; its number is no figure of the answer's
            answer = cut_answer(answer, rec)
        if unmatched:  # figures the LLM states that are none of the operands or results the reader computed
            answer = f"{answer.rstrip()} {unmatched_note(unmatched)}"
        if fallback is not None and answer:  # a figure no filing of a company the question may name states
            answer, withheld = withhold_foreign_figures(answer, question, contexts, fallback, registry_of(cfg))
    if not answer:
        keywords = list(state.get("keywords") or []) or offline_rewrite(question).keywords
        if fallback is not None:
            answer = fallback_answer(question, keywords, contexts, result, fallback, registry_of(cfg)) + withheld
        else:
            answer = offline_answer(question, keywords, contexts, result, question_facts(state), _company_words(state, cfg),
                                    _index_of(cfg))
    caveats = answer_caveats(cast(Optional[dict], state.get("extracted")), str(state.get("routing_status") or ""),
                             str(state.get("routing_reason") or ""))
    caveats += _replaced_files(cfg, list(state.get("routed_docs") or []))
    if caveats:  # said first, in the answer itself: a missing company or period is never only in `routing`
        answer = " ".join(caveats) + "\n\n" + answer
    try:  # the numbers the filings print on these pages, for the citations people read (page_labels)
        contexts = with_printed_labels(contexts, reader_of(cfg).pages_of)
    except Exception:  # no index to read pages from: the viewer's page numbers only
        pass
    update = {"answer": answer, "contexts": contexts, "context_tokens": count_tokens(context_text), "llm_calls": calls}
    if rejected:
        update["rejected_citations"] = rejected
    if fit and state.get("context_plan"):
        update["context_plan"] = {**state["context_plan"], **fit}
    if result is not None:
        summary = reader_summary(result, fast_path=on_fast_path, saved=saved)
        update["reader"] = {**summary, "unmatched_numbers": unmatched} if unmatched else summary
    elif reader_error:
        failed = Reader(kind="error", confident=False, fast_path=False).model_dump(exclude_unset=True)
        update["reader"] = {**failed, "llm_calls_saved": 0, "error": reader_error}  # the kind's extra key `error`
    return update
