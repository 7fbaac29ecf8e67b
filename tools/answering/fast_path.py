"""How the generate node uses the reader: run it on the context, answer offline, and decide the LLM fast path.

* `run_reader` gives the question to the answerer of its kind (`finrag.tools.answering.kinds`: the question's own
  formula, a ranking, a cover fact, or a measure: a member, a catalog metric, a change, a series or a line item,
  from the routed filing's inline-XBRL facts first and its statement tables else) and returns a `ReaderResult`;
  for a line item from a tagged fact the table reader's reading of the same question is compared with it
  (`check_against_table`: a disagreement is one sentence of the answer and the reader's `table_check`).
* `cited_page_contexts` turns the statement pages the reader read beyond the context, and cited in its
  answer, into contexts (so `contexts` stay exactly what the answer was made from).
* `offline_answer`: the reader's answer when it is confident, or when it tried and says what it found and
  what it could not find (for a drivers question after the sentence that names the causes, for a yes/no question
  whose figure states no verdict of its own after the sentence that decides it (the figure alone when none does), for a count, date or name
  question that it found nothing of after that sentence's answer); else the sentence that
  answers the question's form (`prose.py`: a count, a date, a name, yes/no, drivers, a list); else the evidence
  sentences (yes/no, drivers, which); else the extractive answer (also the whole answer when the reader is off),
  led by "Not stated in the retrieved passages" when none of them mentions a thing the question names, or no
  sentence of them speaks of half of what it asks (`unstated.py`). Every form reads only the asked company's
  passages where some are (`prose_units.own_contexts`: a corpus-wide search brings other companies' passages).
* `fast_path_enabled`: with an LLM, whether a confident reader answer skips the generator call
  (`Configuration.fast_path`: 'auto' = on for the graphs that ask for it (HDRR), 'on', 'off').
* `reader_context`: the reader's tables (and an iXBRL filing's tagged facts, as a structured block) as extra
  context for the LLM when the fast path is not taken.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Literal, Optional

from finrag.state.contract import Reader, ReaderInput, TableCheck
from finrag.state.formula import expr_text
from finrag.state.index_reader import IndexReader
from finrag.state.question import QuestionFacts
from finrag.tools.answering.evidence import evidence_answer
from finrag.tools.answering.extractive import extractive_answer
from finrag.tools.answering.kinds import Evidence
from finrag.tools.answering.kinds import answer as answer_by_kind
from finrag.tools.answering.prose import prose_answer
from finrag.tools.answering.prose_units import own_contexts
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.sources import StorePages
from finrag.tools.answering.unstated import Corpus, unstated_answer
from finrag.tools.question import read_question
from finrag.tools.routing.text import strip_legal_suffix

__all__ = ["run_reader", "cited_page_contexts", "offline_answer", "fast_path_enabled", "reader_context", "reader_summary"]


def fast_path_enabled(setting: Literal["auto", "on", "off"], graph_default: bool) -> bool:
    """'auto' follows the graph (HDRR binds `fast_path_default=True`); 'on'/'off' decide (`Configuration.fast_path`,
    which validates the value and reads 'true'/'yes'/'1' as 'on')."""
    return graph_default if setting == "auto" else setting == "on"


def run_reader(question: str, contexts: list[dict], store: IndexReader, registry, *, routed_docs: list[str],
               extracted: Optional[dict] = None, statement_pages: bool = True,
               facts: Optional[QuestionFacts] = None) -> tuple[ReaderResult, StorePages]:
    """The reader over `contexts`; the routed filing's statement pages are read only for a routed question.
    `facts` is the question's one reading (`read_question(question)` when not given). An amount it finds for a
    question that asks a percentage is said to be another measure (`not_a_percent`)."""
    facts = facts if facts is not None else read_question(question)
    result, source = _read_asked(facts.text or question, contexts, store, registry, routed_docs=routed_docs,
                                 extracted=extracted, statement_pages=statement_pages, facts=facts)
    return not_a_percent(result, facts), source


def _read_asked(question: str, contexts: list[dict], store: IndexReader, registry, *, routed_docs: list[str],
                extracted: Optional[dict], statement_pages: bool,
                facts: QuestionFacts) -> tuple[ReaderResult, StorePages]:
    """The answerer of the question's kind (`finrag.tools.answering.kinds`) over the routed filing, or over the top
    context's filing when the question names its company (`question`: as read, shorthand written out)."""
    source = StorePages(store, registry)
    docs = [d for d in routed_docs if d]
    info = None
    if len(docs) == 1 and registry is not None and registry.get(docs[0]) is not None:
        info = registry.get(docs[0]).model_dump()
    elif not docs and contexts and registry is not None and registry.get(contexts[0].get("doc_id")) is not None:
        info = registry.get(contexts[0]["doc_id"]).model_dump()
        # without a route the top chunk's filing may be another company's: read it only when the question
        # names that company (else the reader would answer about the wrong company)
        if not names_company(question, info):
            return ReaderResult(answer="", confident=False, kind="none"), source
    evidence = Evidence(question=question, facts=facts, contexts=contexts, source=source, store=store, registry=registry,
                        docs=docs, info=info, extracted=extracted or {}, statement_pages=statement_pages)
    return answer_by_kind(evidence), source


def not_a_percent(result: ReaderResult, facts: QuestionFacts) -> ReaderResult:
    """An amount (one line item's or one member's value) found for a question that asks a percentage is another
    measure: the answer says that the percentage was not computed and gives the amount as what was found, never as
    the answer ("AWS % of total AMZN net sales" answered with AWS's net sales)."""
    # a change, a CAGR, a metric, a share or a cover fact answers in its own terms
    own_terms = result.asked not in (None, "line_item", "member") or (
        result.plan is not None and (result.plan.kind != "item" or result.plan.aggregate != "single"))
    if not facts.asks_percent or result.kind != "item" or not result.confident or own_terms:
        return result
    return dataclasses.replace(result, confident=False, answer=(
        "The asked percentage was not computed: what the question asks of the figures was not read, and an amount "
        "is not a percentage. What the filing states, which is not the asked measure: " + result.answer))


def names_company(question: str, info: dict) -> bool:
    """Does the question name the filing's company (its name, registrant, an alias or a ticker)?"""
    names = [info.get("company"), info.get("registrant"), *(info.get("aliases") or [])]
    for name in names:
        core = strip_legal_suffix(str(name or "")).strip()
        if len(core) >= 3 and re.search(rf"(?i)\b{re.escape(core)}\b", question):
            return True
    return any(re.search(rf"\b{re.escape(t)}\b", question) for t in info.get("tickers") or [] if len(t) >= 2)


def cited_page_contexts(result: ReaderResult, source: StorePages, contexts: list[dict]) -> list[dict]:
    """Whole-page contexts for the statement pages the reader added and cited (not already in `contexts`)."""
    have = {(c.get("doc_id"), p) for c in contexts
            for p in range(int(c.get("page_start") or 0), int(c.get("page_end") or c.get("page_start") or 0) + 1)}
    cited = {(f.doc_id, f.page) for f in result.found}
    out = []
    for doc_id, page in result.pages_added:
        if (doc_id, page) in cited and (doc_id, page) not in have:
            out.append({"chunk_id": None, "doc_id": doc_id, "page_start": page, "page_end": page, "score": 0.0,
                        "text": source.page_text(doc_id, page)})
            have.add((doc_id, page))
    return out


def offline_answer(question: str, keywords: list[str], contexts: list[dict], result: Optional[ReaderResult],
                   facts: Optional[QuestionFacts] = None, company: frozenset[str] = frozenset(),
                   index: Optional[Corpus] = None) -> str:
    """The answer without an LLM (see the module docstring); `facts`: the question's one reading (`read_question`
    when not given). A drivers question asks the causes, not the figure: the sentence that names them leads, the
    reader's figures follow. `company`: the words of the routed companies' names (no topic of a prose answer);
    `index`: the open index (whether the filing, and how many companies' filings, write what the question names)."""
    facts = facts if facts is not None else read_question(question)
    figure = result.answer if result is not None and result.kind in ("item", "metric") and result.answer else ""
    # a reader that found nothing only says so: the sentence a count, date or name question asks still leads
    found = result is not None and (result.confident or bool(result.found))
    # a yes/no question asks the verdict, not a bare figure; the reader's answer that states its own verdict from
    # its figures ("No. Its total debt decreased ...", a judgement's) decides it
    verdict_first = facts.form == "yesno" and not facts.judgement and not re.match(r"(?:Yes|No)\b", figure)
    if figure and facts.form != "drivers" and not verdict_first and (found or facts.form not in ("count", "date", "name")):
        return figure
    contexts = own_contexts(question, contexts)  # only the asked company's passages answer, in every form
    prose = prose_answer(question, keywords, contexts, company, facts=facts)  # the sentence that answers the question's form
    if figure and found and verdict_first and prose.startswith("Undecided"):
        return figure  # no sentence decides it: the figure found is what the filing says of it
    if prose:
        return f"{prose}\n\n{figure}" if figure else prose
    if figure:
        return figure
    if result is None:  # the reader is off: the plain extractive answer
        return extractive_answer(question, keywords, contexts)
    text = evidence_answer(question, keywords, contexts, facts=facts) or extractive_answer(question, keywords, contexts)
    return unstated_answer(question, text, contexts, company, index)  # a thing the question names that no passage mentions


def reader_context(result: Optional[ReaderResult]) -> str:
    """The reader's statement tables (and its own reading, when it has one) as extra context for an LLM; for an
    answer from inline XBRL, the tagged facts as a structured block first."""
    if result is None or not (result.extraction or result.facts_context or result.question_formula):
        return ""
    parts = [result.facts_context] if result.facts_context else []
    if result.question_formula is not None:  # the question's own arithmetic, as finrag read and computed it
        f = result.question_formula
        parts.insert(0, f"The question's formula as finrag read it ({f.source}): {f.name} = "
                        f"{expr_text(f.expression) if f.expression is not None else '(none)'}; unit: {f.unit}"
                        + (f"; not computed: {'; '.join(f.problems)}" if f.problems else "")
                        + (f"; finrag's result: {result.value:g}" if result.value is not None and result.confident else ""))
    if result.extraction:
        parts.append(f"Statement tables recovered by finrag's reader (row | one column per period):\n{result.extraction}")
    note = f"\nReader's note: {result.answer}" if result.answer else ""
    return "\n\n".join(parts) + note


def reader_summary(result: Optional[ReaderResult], *, fast_path: bool, saved: int) -> dict:
    """What the reader did, for the state's `reader` key and the contract: a `finrag.state.contract.Reader`
    dump with `llm_calls_saved` after `fast_path` (the contract reports it as `cost.llm_calls_saved`)."""
    if result is None:
        none = Reader(kind="none", confident=False, fast_path=False).model_dump(exclude_unset=True)
        return {**none, "llm_calls_saved": 0}
    plan = result.plan
    record = Reader(
        kind=result.kind,
        confident=bool(result.confident),
        fast_path=bool(fast_path),
        metric=plan.metric.name if plan is not None and plan.metric is not None else None,
        item=plan.item if plan is not None else None,
        years=list(plan.years) if plan is not None else [],
        inputs=[ReaderInput(item=f.item, year=f.year, value=f.value, label=f.label, doc_id=f.doc_id, page=f.page,
                            scale=f.scale) for f in result.found],
        missing=list(result.missing),
        value=result.value,
        asked=result.asked,
        member=result.member or None,
        formula=result.formula or None,
        table_check=TableCheck.model_validate(dict(result.table_check)) if result.table_check else None,
        question_formula=result.question_formula.model_dump() if result.question_formula is not None else None,
    ).model_dump()
    head = {k: record.pop(k) for k in ("kind", "confident", "fast_path")}
    return {**head, "llm_calls_saved": int(saved), **record}
