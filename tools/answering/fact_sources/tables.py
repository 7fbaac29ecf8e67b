"""The statement-table evidence source: a filing's primary statements read from its pages (`TableFacts`), for PDFs,
HTML without inline XBRL and text.

    source = TableFacts(pages, doc_id, info)        # pages: a `reader.PageSource` (the index's, or PDF files)
    fact = source.fact("revenue", asked)             # a Fact: the row label, the value in units, the cited page

A line item is the best row of the statement it belongs to, in the column of the asked fiscal year (the filing's
fiscal year, or the latest the question writes; `years_back` before it), as the statement reader finds it
(`reader.Lookup.find`: the context's pages first, then the filing's statement pages by their titles). The value is in
currency units (the page's scale applied; per-share amounts as printed), `concept` and `label` are the row's label,
the period is the column's header and fiscal year.
"""
from __future__ import annotations

from typing import Optional, Sequence

from finrag.state.facts import Citation, Fact, Period
from finrag.state.question import QuestionFacts
from finrag.tools.answering.reader import PRIMARY, Found, Lookup, PageSource, year_end_of
from finrag.tools.vocabulary.line_items import LINE_ITEMS, ROW, line_item

__all__ = ["TableFacts", "fact_of_cell"]

MIN_SCORE = 0.55
"""The least match score of a row (the statement reader's `read(min_score=)`)."""


def fact_of_cell(found: Found) -> Fact:
    """A statement table's cell, as the reader found it, as a typed `Fact`."""
    return Fact(concept=found.label, value=found.in_units(), period=Period(words=found.header, fiscal_year=found.year),
                citation=Citation(found.doc_id, found.page), label=found.label, text=found.raw, scale=found.scale or "",
                source="table")


class TableFacts:
    """A filing's statement tables as a `finrag.state.facts.FactSource` (see the module docstring)."""

    def __init__(self, pages: PageSource, doc_id: str, info: Optional[dict] = None, *,
                 contexts: Sequence[dict] = (), statement_pages: bool = True, quarter: bool = False,
                 months: Optional[int] = None):
        self.doc_id = doc_id
        self.info = info or {}
        read = [(doc_id, p) for c in contexts if c.get("doc_id") == doc_id
                for p in range(int(c.get("page_start") or 0), int(c.get("page_end") or c.get("page_start") or 0) + 1)]
        self.lookup = Lookup(pages, [doc_id], read, quarter=quarter, lookup_statements=statement_pages, months=months,
                             fiscal_year=self.info.get("fiscal_year"), year_end=year_end_of(self.info))

    def reads(self, item: str) -> bool:
        return item in LINE_ITEMS or item.startswith(ROW)

    def fact(self, item: str, asked: QuestionFacts, years_back: int = 0) -> Optional[Fact]:
        """The cell of `item` in the asked fiscal year's column, `years_back` years before it; None when no row
        matches well enough or the filing's fiscal year is unknown."""
        year = max(asked.years_written) if asked.years_written else int(self.info.get("fiscal_year") or 0)
        if not year or not self.reads(item):
            return None
        found = self.lookup.find(item, year - years_back)
        if found is None or found.score < MIN_SCORE:
            return None
        if found.scale is None and not line_item(item).per_share:  # a page without a stated scale: its filing's
            same = [t.scale for t in self.lookup.tables if t.doc_id == found.doc_id and t.scale and t.statement in PRIMARY]
            if same:
                found.scale = max(set(same), key=same.count)
        return fact_of_cell(found)
