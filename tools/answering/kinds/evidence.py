"""What an answerer may read for one question: the question's reading, the context, the routed filing's pages, its
inline-XBRL facts (read once, when first asked for), its company's other filings, and the statement-table reader."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Optional

from finrag.state.index_reader import IndexReader
from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_math import Related
from finrag.tools.answering.reader import ReaderResult, read
from finrag.tools.answering.sources import StorePages
from finrag.tools.indexing.facts_store import load_facts
from finrag.tools.vocabulary.metrics import Metric

__all__ = ["Evidence", "related_filings"]


@dataclass
class Evidence:
    """One question's evidence (see the module docstring)."""

    question: str
    """The question as read (shorthand written out)."""
    facts: QuestionFacts
    """Its one reading."""
    contexts: list[dict]
    """The retrieved context."""
    source: StorePages
    """Pages of the indexed filings."""
    store: IndexReader
    """The index (for the filing's tagged facts)."""
    registry: object
    """The index's document registry (None without one)."""
    docs: list[str]
    """The routed filings."""
    info: Optional[dict]
    """The routed filing's `DocumentInfo` as a dict (or the top context's, when nothing was routed)."""
    extracted: dict = field(default_factory=dict)
    """The routing step's extracted metadata (years)."""
    statement_pages: bool = True
    """Whether the reader may read the routed filing's statement pages beyond the context."""

    @property
    def doc_id(self) -> str:
        """The one routed filing, '' when none or several."""
        return self.docs[0] if len(self.docs) == 1 else ""

    @functools.cached_property
    def tagged(self) -> Optional[dict]:
        """The routed filing's inline-XBRL facts (None for a PDF, HTML without them, or no single routed filing)."""

        return load_facts(self.store, self.doc_id) if self.doc_id else None

    def related(self) -> Optional[Related]:
        """The routed company's other filings, read when called (None without a registry)."""
        return related_filings(self.store, self.registry, self.doc_id)

    def tables(self, metric: Optional[Metric] = None, facts: Optional[QuestionFacts] = None) -> ReaderResult:
        """The statement-table reader over the context (and the routed filing's statement pages); `metric`: what to
        compute instead of the plan's own; `facts`: the question's reading to use instead of its own (a formula's
        asked period, without the dates its definition gives its operands)."""
        return read(self.question, self.contexts, self.source, extracted=self.extracted, routed_docs=self.docs,
                    doc_info=self.info, statement_pages=self.statement_pages and bool(self.docs),
                    facts=facts or self.facts, metric=metric)


def related_filings(store: IndexReader, registry, doc_id: str) -> Optional[Related]:
    """The routed company's other filings as (doc_id, tagged facts, DocumentInfo dict), read when called (a change
    between two dates that the routed filing does not both tag); None without a registry."""
    if registry is None:
        return None

    def others() -> list[tuple[str, Optional[dict], dict]]:
        company = registry.company_of(doc_id)
        out = []
        for other in registry.doc_ids():
            info = registry.get(other)
            if other != doc_id and info is not None and company and registry.company_of(other) == company:
                out.append((other, load_facts(store, other), info.model_dump()))
        return out

    return others
