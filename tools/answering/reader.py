"""The offline reader: answers line-item and ratio questions from the statement tables of the context.

    result = read(question, contexts, source, extracted=..., routed_docs=[...], doc_info={...})
    result.confident, result.answer, result.extraction

1. `plan_question` says what is asked: a metric of the registry (`metrics.py`), a line item
   (`line_items.py`), which fiscal years, a change / average / CAGR, yes/no direction, units and rounding.
2. The tables of the context's pages are recovered (`tables.py`); with `statement_pages=True` the
   reader also reads the routed filing's primary statement pages (found by their titles) when an input
   is not on the context's pages. Those pages are returned in `pages_added` so the caller can put them
   into the answer's contexts.
3. Every input (item, fiscal year) is looked up: the best row by label synonyms, in the statement the
   item belongs to, in the column whose header year is the asked year; its value carries a `[doc, p. N]`
   citation and the page's scale ("in millions").
4. The answer states the result first, then the formula, every input with its citation, and the
   arithmetic. When an input is missing the reader is not confident: `answer` says what it found and
   what it could not find, and `extraction` holds the tables it read (context for an LLM).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Protocol

from finrag.tools.answering.line_items import LINE_ITEMS, match_score
from finrag.tools.answering.metrics import Metric
from finrag.tools.answering.questions import Plan, plan_question
from finrag.tools.answering.render import render_answer, render_not_found
from finrag.tools.answering.tables import SCALES, Table, page_statement, page_tables, statement_titles

__all__ = ["Found", "ReaderResult", "PageSource", "read", "PRIMARY"]

PRIMARY = ("income", "balance", "cash_flow")


class PageSource(Protocol):
    """Where the reader gets page text and PDFs (the index's store and registry, or a test double)."""

    def page_text(self, doc_id: str, page: int) -> str: ...

    def page_count(self, doc_id: str) -> int: ...

    def pdf_path(self, doc_id: str) -> str: ...


@dataclass
class Found:
    """One input the reader found: the value as printed, where, and in which units."""

    item: str
    year: int
    value: float
    label: str
    raw: str
    header: str
    doc_id: str
    page: int
    scale: Optional[str]
    statement: Optional[str]
    score: float

    @property
    def cite(self) -> str:
        return f"[{self.doc_id}, p. {self.page}]"

    def in_units(self) -> float:
        """The value in currency units (dollars), using the page's scale (as printed when none)."""
        return self.value * SCALES.get(self.scale or "", 1.0)


@dataclass
class ReaderResult:
    answer: str
    confident: bool
    kind: str
    """'item', 'metric', or 'none' (the reader has nothing to say; use another strategy)."""
    plan: Optional[Plan] = None
    found: list[Found] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extraction: str = ""
    """The tables the reader read, as text (extra context for an LLM)."""
    pages_added: list[tuple[str, int]] = field(default_factory=list)
    """Statement pages read beyond the context's pages (doc_id, page)."""
    value: Optional[float] = None


def _statement_factor(item_stmt: str, table_stmt: Optional[str], flow: bool) -> float:
    if table_stmt == item_stmt:
        return 1.0
    if table_stmt is None:
        return 0.7
    if not flow:
        return 0.0  # a balance item in a flow statement is a change, not a balance
    return 0.55


class _Lookup:
    """Tables of a set of pages, and the best row/column for an (item, year)."""

    def __init__(self, source: PageSource, doc_ids: list[str], pages: list[tuple[str, int]], *,
                 quarter: bool = False, lookup_statements: bool = True):
        self.source = source
        self.doc_ids = doc_ids
        self.pages = list(dict.fromkeys(pages))
        self.quarter = quarter
        self.lookup_statements = lookup_statements
        self.tables: list[Table] = []
        self.read_pages: set[tuple[str, int]] = set()
        self.added: list[tuple[str, int]] = []
        self._statement_done: set[tuple[str, str]] = set()
        for d, p in self.pages:
            self._read(d, p)

    def _read(self, doc_id: str, page: int) -> list[Table]:
        if (doc_id, page) in self.read_pages:
            return []
        self.read_pages.add((doc_id, page))
        text = self.source.page_text(doc_id, page)
        if not text:
            return []
        tabs = page_tables(doc_id, page, text, self.source.pdf_path(doc_id))
        if any(t.statement is None for t in tabs) and page > 0:
            # a statement continued from the previous page (balance sheet liabilities) has no title of its own
            prev = page_statement(self.source.page_text(doc_id, page - 1))
            if prev in PRIMARY:
                tabs = [replace(t, statement=prev) if t.statement is None else t for t in tabs]
        self.tables.extend(tabs)
        return tabs

    def _add_statement_pages(self, statement: str) -> None:
        for doc_id in self.doc_ids:
            if (doc_id, statement) in self._statement_done:
                continue
            self._statement_done.add((doc_id, statement))
            n = self.source.page_count(doc_id)
            hits = [p for p in range(n) if statement in statement_titles(self.source.page_text(doc_id, p))]
            for p in hits[:6]:
                for q in (p, p + 1):
                    if q < n and (doc_id, q) not in self.read_pages:
                        tabs = self._read(doc_id, q)
                        if any(t.rows and any(c.year for c in t.columns) for t in tabs):
                            self.added.append((doc_id, q))

    def _columns_for(self, table: Table, year: int, flow: bool) -> list[int]:
        idx = [i for i, c in enumerate(table.columns) if c.year == year]
        if len(idx) <= 1 or not flow:
            return idx
        want = 3 if self.quarter else 12
        ranked = sorted(idx, key=lambda i: (table.columns[i].months not in (want, None), i))
        return ranked

    def find(self, item: str, year: int) -> Optional[Found]:
        best = self._best(item, year)
        if (best is None or best.score < 0.85) and self.lookup_statements and self.doc_ids:
            self._add_statement_pages(LINE_ITEMS[item].statement)
            best = self._best(item, year) or best
        return best

    def _best(self, item: str, year: int) -> Optional[Found]:
        spec = LINE_ITEMS[item]
        best: Optional[Found] = None
        for rank, t in enumerate(self.tables):
            if self.doc_ids and t.doc_id not in self.doc_ids:
                continue
            factor = _statement_factor(spec.statement, t.statement, spec.flow)
            if factor <= 0:
                continue
            cols = self._columns_for(t, year, spec.flow)
            if not cols:
                continue
            # a primary statement has two or three years and its title at the top of the page; a one-year
            # summary (a guarantor group's income statement) or a note's table ranks below it
            shape = 0.02 * min(3, sum(1 for c in t.columns if c.year)) + (0.03 if t.title else 0.0)
            for row in t.rows:
                s = match_score(item, row.label)
                if s <= 0:
                    continue
                col = next((c for c in cols if c in row.values), None)
                if col is None:
                    continue
                score = s * factor + shape - 0.001 * rank
                if best is None or score > best.score:
                    best = Found(item=item, year=year, value=row.values[col], label=row.label, raw=row.raw.get(col, ""),
                                 header=t.columns[col].header, doc_id=t.doc_id, page=t.page, scale=t.scale,
                                 statement=t.statement, score=score)
        return best

    def extraction(self, max_tables: int = 6) -> str:
        useful = [t for t in self.tables if t.statement in PRIMARY and any(c.year for c in t.columns)]
        return "\n\n".join(t.to_text() for t in useful[:max_tables])


def _fill_scale(found: list[Found], lookup: _Lookup) -> None:
    """A value from a page without a stated scale takes the scale of the other statement pages of its filing."""
    for f in found:
        if f.scale is None:
            same = [t.scale for t in lookup.tables if t.doc_id == f.doc_id and t.scale and t.statement in PRIMARY]
            if same:
                f.scale = max(set(same), key=same.count)


def read(question: str, contexts: list[dict], source: PageSource, *, extracted: Optional[dict] = None,
         routed_docs: Optional[list[str]] = None, doc_info: Optional[dict] = None,
         statement_pages: bool = True, min_score: float = 0.55) -> ReaderResult:
    """Answer `question` from the statement tables of `contexts` (see the module docstring).

    `routed_docs` and `doc_info` (the routed filing's DocumentInfo as a dict: company, fiscal_year, quarter,
    form) come from the routing step; without a route the reader reads the top context's filing only."""
    extracted = extracted or {}
    docs = [d for d in (routed_docs or []) if d]
    if len(docs) > 1:
        return ReaderResult(answer="", confident=False, kind="none")
    if not docs and contexts:
        docs = [contexts[0].get("doc_id")]
    info = doc_info or {}
    plan = plan_question(question, years=list(extracted.get("years") or []), fiscal_year=info.get("fiscal_year"),
                         quarter=info.get("quarter"))
    if plan.kind == "other":
        return ReaderResult(answer="", confident=False, kind="none", plan=plan)
    if plan.blocked:
        return ReaderResult(answer="", confident=False, kind="none", plan=plan)
    pages: list[tuple[str, int]] = []
    for c in contexts:
        if c.get("doc_id") not in docs:
            continue
        for p in range(int(c.get("page_start") or 0), int(c.get("page_end") or c.get("page_start") or 0) + 1):
            pages.append((c["doc_id"], p))
    lookup = _Lookup(source, docs, pages, quarter=plan.quarter is not None,
                     lookup_statements=statement_pages)
    needs = _needs(plan)
    found: dict[tuple[str, int], Found] = {}
    missing: list[str] = []
    for item, year, optional in needs:
        f = lookup.find(item, year)
        if f is not None and f.score >= min_score:
            found[(item, year)] = f
        elif not optional:
            missing.append(f"{LINE_ITEMS[item].display} FY{year}")
    # an optional input (short-term investments, current debt) counts only if every year has it
    for item, year, optional in needs:
        if optional and (item, year) not in found and any(k[0] == item for k in found):
            missing.append(f"{LINE_ITEMS[item].display} FY{year}")
    flist = list(found.values())
    _fill_scale(flist, lookup)
    result = ReaderResult(answer="", confident=False, kind=plan.kind, plan=plan, found=flist, missing=missing,
                          extraction=lookup.extraction(), pages_added=list(lookup.added))
    company = info.get("company") or ""
    if missing or not flist:
        result.answer = render_not_found(plan, company, flist, missing)
        return result
    value, text = render_answer(plan, company, found, _compute)
    if text:
        result.answer, result.value, result.confident = text, value, value is not None
    else:
        result.answer = render_not_found(plan, company, flist, ["a consistent result from the inputs"])
    return result


def _needs(plan: Plan) -> list[tuple[str, int, bool]]:
    """(item, year, optional) the plan needs."""
    out: list[tuple[str, int, bool]] = []
    for y in plan.years:
        if plan.metric is not None:
            for inp in plan.metric.inputs:
                out.append((inp.item, y + inp.offset, inp.optional))
        elif plan.item:
            out.append((plan.item, y, False))
    return list(dict.fromkeys(out))


def _compute(metric: Metric, found: dict[tuple[str, int], Found], year: int) -> Optional[float]:
    """The metric for one fiscal year from the found inputs (in currency units), or None."""
    values: dict = {}
    for inp in metric.inputs:
        f = found.get((inp.item, year + inp.offset))
        if f is None:
            if inp.optional:
                continue
            return None
        v = f.in_units()
        values[(inp.item, inp.offset)] = abs(v) if LINE_ITEMS[inp.item].sign else v
    try:
        return metric.compute(values)
    except (KeyError, ZeroDivisionError, TypeError, ValueError):
        return None


ComputeFn = Callable[[Metric, dict, int], Optional[float]]
