"""The body of an answer when routing chose no filing (issue 48; the lead is `route_notes.lead_of_fallback`).

    fallback = fallback_of(state)                    # routing.extracted.fallback of a run with no routed filing
    answer = fallback_answer(question, keywords, contexts, result, fallback, registry)       # offline
    answer, note = withhold_foreign_figures(answer, question, contexts, fallback, registry)  # an LLM's answer

The offline answer quotes passages, each labelled with its company and filing, and gives the statement reader's
figure as an answer only when every input it read comes from a filing of a candidate the question may name
("If you meant Costco Wholesale (COST): ..."). An LLM's answer is kept only when each of its figures is stated
by the question or by a passage of such a candidate; otherwise it is withheld (`note` says which figures) and the
offline answer stands in for it.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Protocol

from finrag.tools.answering.extractive import context_label, extractive_answer
from finrag.tools.answering.number_check import figures_outside
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.route_notes import passages_of_fallback
from finrag.tools.routing.fallback import FALLBACK_STATUSES

__all__ = ["candidate_docs", "fallback_answer", "fallback_of", "withhold_foreign_figures"]


class _Names(Protocol):
    def name_of(self, doc_id: str) -> str: ...

    def company_of(self, doc_id: str) -> str: ...


def fallback_of(state: Mapping[str, Any]) -> Optional[dict]:
    """The fallback record of a run that retrieved without a routed filing, else None."""
    record = (state.get("extracted") or {}).get("fallback")
    if isinstance(record, dict) and not state.get("routed_docs") and state.get("routing_status") in FALLBACK_STATUSES:
        return record
    return None


def candidate_docs(fallback: Optional[Mapping[str, Any]]) -> list[str]:
    """The filings the question about an indexed candidate would be routed to (read by the statement reader for
    "If you meant ..."; the answer states their figures only there)."""
    return [str(d) for c in (fallback or {}).get("candidates") or [] for d in c.get("doc_ids") or []]


def _candidate_keys(fallback: Mapping[str, Any]) -> set[str]:
    return {str(c.get("key")) for c in fallback.get("candidates") or [] if c.get("key") and c.get("in_index")}


def _best_sentence(question: str, keywords: list[str], context: dict) -> str:
    text = extractive_answer(question, keywords, [context], max_units=1)
    text = text.removeprefix("From the filings: ")
    label = context_label(context)
    return text[:-len(label)].rstrip() if text.endswith(label) else text


def fallback_answer(question: str, keywords: list[str], contexts: list[dict], result: Optional[ReaderResult],
                    fallback: Mapping[str, Any], registry: _Names) -> str:
    """The offline answer of a fallback: the reader's answer for a candidate (only from its own filings), then
    the passages labelled with their companies and filings."""
    keys = _candidate_keys(fallback)
    parts = []
    if result is not None and result.kind in ("item", "metric") and result.answer and result.found \
            and keys and all(registry.company_of(f.doc_id) in keys for f in result.found):
        key = registry.company_of(result.found[0].doc_id)
        cand = next(c for c in fallback.get("candidates") or [] if c.get("key") == key)
        named = f"{cand['name']} ({cand['ticker']})" if cand.get("ticker") else str(cand["name"])
        parts.append(f"If you meant {named}: {result.answer}")
    parts.append(passages_of_fallback(contexts, registry.name_of, context_label,
                                   lambda c: _best_sentence(question, keywords, c)))
    return "\n\n".join(parts)


def withhold_foreign_figures(answer: str, question: str, contexts: list[dict], fallback: Mapping[str, Any],
                             registry: _Names) -> tuple[str, str]:
    """(the answer, '') when each figure of an LLM's fallback answer is stated by the question or a passage of a
    candidate's filing; else ('', a sentence naming the figures withheld)."""
    keys = _candidate_keys(fallback)
    own = [question, *(str(c.get("text") or "") for c in contexts if registry.company_of(str(c.get("doc_id"))) in keys)]
    outside = figures_outside(answer, own)
    if not outside:
        return answer, ""
    shown = ", ".join(f"'{f}'" for f in outside[:5])
    return "", (f"\n\n(The generator's answer was withheld: it stated {shown}, which no filing of a company the "
                "question may name states.)")
