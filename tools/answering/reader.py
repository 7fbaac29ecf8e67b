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

import datetime as _dt
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Protocol, cast

from finrag.state.contract import AskedKind, ReaderKind
from finrag.state.formula import Formula
from finrag.state.question import QuestionFacts
from finrag.tools.answering.questions import Plan, plan_question
from finrag.tools.answering.render import render_answer, render_not_applicable, render_not_found, render_series
from finrag.tools.answering.table_types import Table
from finrag.tools.answering.tables import SCALES, page_statement, page_tables, page_titles
from finrag.tools.fiscal import fiscal_year_of
from finrag.tools.fiscal import safe_date as _safe_date
from finrag.tools.question import read_question
from finrag.tools.routing.text import strip_legal_suffix
from finrag.tools.vocabulary.dates import MONTH_PREFIXES, month_num
from finrag.tools.vocabulary.line_items import line_item, match_score
from finrag.tools.vocabulary.metrics import Metric

__all__ = ["Found", "Lookup", "ReaderResult", "PageSource", "read", "PRIMARY", "without_names", "year_end_of"]

PRIMARY = ("income", "balance", "cash_flow")
_MONTH_DAY = re.compile(r"(?i)\b(" + MONTH_PREFIXES + r")[a-z]*\.?(?:\s+(\d{1,2})\b)?")


def without_names(question: str, info: dict) -> str:
    """The question without the routed company's names (company, registrant, aliases)."""
    names = [str(n) for n in [info.get("company"), info.get("registrant"), *(info.get("aliases") or [])] if n]
    names += [strip_legal_suffix(n) for n in names]
    names = sorted({n for n in names if len(n) >= 3}, key=len, reverse=True)
    for n in names:
        question = re.sub(rf"(?i)\b{re.escape(n)}(?:'s|’s|')?", " ", question)
    return question


def year_end_of(info: dict) -> Optional[_dt.date]:
    """The end of the routed filing's fiscal year: a 10-K's period end, a 10-Q's period end plus its remaining
    quarters (None when the quarter or the period end is unknown)."""
    try:
        end = _dt.date.fromisoformat(str(info.get("period_end") or "")[:10])
    except ValueError:
        return None
    form = str(info.get("form") or "").upper().replace("-", "")
    if form == "10Q":
        q = info.get("quarter")
        return end + _dt.timedelta(days=round((4 - int(q)) * 91.31)) if q else None
    return end if form in ("10K", "") else None


class PageSource(Protocol):
    """Where the reader gets page text and PDFs (the index's store and registry, or a test double). A source may
    also have a `table_file` (`finrag.tools.answering.table_file.PageTableFile` or None): where the pages' tables
    read from PDFs are kept for other processes (`StorePages`: the index folder's)."""

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
    scope: str = ""
    """The table's `Table.scope` ('parent', 'segment' or '')."""
    titled: bool = False
    """The table is under a primary statement's title (a balance sheet, not a note's table of the same rows)."""

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
    kind: ReaderKind
    """'item', 'metric', or 'none' (the reader has nothing to say; use another strategy)."""
    plan: Optional[Plan] = None
    found: list[Found] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extraction: str = ""
    """The tables the reader read, as text (extra context for an LLM)."""
    pages_added: list[tuple[str, int]] = field(default_factory=list)
    """Statement pages read beyond the context's pages (doc_id, page)."""
    value: Optional[float] = None
    facts_context: str = ""
    """For an answer from inline-XBRL facts: the tagged facts as a structured block for an LLM (`facts_block`)."""
    asked: Optional[AskedKind] = None
    """For an answer from tagged facts: what it answered (`finrag.state.contract.AskedKind`)."""
    member: str = ""
    """For a member answer: the member's QName and axis."""
    formula: str = ""
    """For a change or metric from tagged facts: the arithmetic stated."""
    table_check: Optional[dict] = None
    """For an answer from an inline-XBRL fact: the table reader's value for the same question beside it
    (`xbrl_facts.check_against_table`), or None when the table reader found none."""
    question_formula: Optional[Formula] = None
    """For a question with arithmetic of its own: the formula computed (or said not computable): `formula_answer`."""
    not_applicable: bool = False
    """The answer says the metric is not a useful one for the company (a lender's or insurer's statements)."""


def _statement_factor(item_stmt: str, table_stmt: Optional[str], flow: bool) -> float:
    if table_stmt == item_stmt:
        return 1.0
    if table_stmt is None:
        return 0.7
    if not flow:
        return 0.0  # a balance item in a flow statement is a change, not a balance
    return 0.55


class Lookup:
    """Tables of a set of pages, and the best row/column for an (item, year)."""

    def __init__(self, source: PageSource, doc_ids: list[str], pages: list[tuple[str, int]], *,
                 quarter: bool = False, lookup_statements: bool = True, months: Optional[int] = None,
                 fiscal_year: Optional[int] = None, year_end: Optional[_dt.date] = None):
        self.source = source
        self.doc_ids = doc_ids
        self.pages = list(dict.fromkeys(pages))
        self.quarter = quarter
        self.months = months  # the asked period's length (3, 6, 9, 12) when the question or the form says it
        self.fiscal_year = int(fiscal_year) if fiscal_year else None
        self.year_end = year_end  # the end of the filing's fiscal year (`year_end_of`)
        self.lookup_statements = lookup_statements
        self.tables: list[Table] = []
        self.read_pages: set[tuple[str, int]] = set()
        self.added: list[tuple[str, int]] = []
        self._statement_done: set[tuple[str, str]] = set()
        for d, p in self.pages:
            self.read_page(d, p)

    def read_page(self, doc_id: str, page: int) -> list[Table]:
        """Reads one page's tables into `tables` (once; a statement continued from the previous page takes its
        title's statement) and returns them ([] when read before or empty)."""
        if (doc_id, page) in self.read_pages:
            return []
        self.read_pages.add((doc_id, page))
        text = self.source.page_text(doc_id, page)
        if not text:
            return []
        indexed = getattr(self.source, "content_hash", None)  # the file's hash at indexing, when the source knows it
        tabs = page_tables(doc_id, page, text, self.source.pdf_path(doc_id), shared=getattr(self.source, "table_file", None),
                           content_hash=indexed(doc_id) if indexed is not None else "")
        if any(t.statement is None for t in tabs) and page > 0:
            # a statement continued from the previous page (balance sheet liabilities) has no title of its own
            prev = page_statement(self.source.page_text(doc_id, page - 1))
            if prev in PRIMARY:
                tabs = [replace(t, statement=prev) if t.statement is None else t for t in tabs]
        self.tables.extend(tabs)
        return tabs

    def add_statement_pages(self, statement: str) -> None:
        """Reads the filings' pages titled with `statement` ('income', 'balance', 'cash_flow') and the page after
        each (at most six), once per filing and statement; the pages that hold a dated table go to `added`."""
        for doc_id in self.doc_ids:
            if (doc_id, statement) in self._statement_done:
                continue
            self._statement_done.add((doc_id, statement))
            n = self.source.page_count(doc_id)
            hits = [p for p in range(n) if statement in page_titles(self.source.page_text(doc_id, p))]
            for p in hits[:6]:
                for q in (p, p + 1):
                    if q < n and (doc_id, q) not in self.read_pages:
                        tabs = self.read_page(doc_id, q)
                        if any(t.rows and any(c.year for c in t.columns) for t in tabs):
                            self.added.append((doc_id, q))

    def column_year(self, col) -> Optional[int]:
        """The fiscal year of a column: a dated header ('August 31, 2024', or '2024' under 'Three Months Ended
        August 31,') is placed in the filing's fiscal calendar by its distance from the end of the filing's fiscal year
        (Oracle's quarter ended August 31, 2024 is fiscal 2025; a 10-Q's 'December 31, 2024' balance column is
        the prior fiscal year); a bare year is taken as printed."""
        if col.year is None or self.year_end is None or self.fiscal_year is None:
            return col.year
        m = _MONTH_DAY.search(f"{col.group} {col.header}")
        if not m:
            return col.year
        month = month_num(m.group(1).lower()[:3])
        day = int(m.group(2)) if m.group(2) else 28
        return fiscal_year_of(_safe_date(col.year, month, day), self.fiscal_year, self.year_end)

    def columns_for(self, table: Table, year: int, flow: bool) -> list[int]:
        """The table's columns of fiscal year `year`, the asked period's length first (`flow`: a flow item; a table
        of quarters holds no annual value)."""
        idx = [i for i, c in enumerate(table.columns) if self.column_year(c) == year]
        if not idx or not flow:
            return idx
        want = self.months or (3 if self.quarter else 12)
        if self.months:  # a column labelled with another period length is the wrong column (six months for a quarter)
            idx = [i for i in idx if table.columns[i].months in (want, None)]
        if want == 12 and len(idx) >= 3 and not any(table.columns[i].months == 12 for i in idx):
            return []  # three or more columns of one year and none of twelve months: a table of quarters
        ranked = sorted(idx, key=lambda i: (table.columns[i].months not in (want, None), table.columns[i].months != want, i))
        return ranked

    def find(self, item: str, year: int) -> Optional[Found]:
        best = self._best(item, year)
        if (best is None or best.score < 0.85 or best.scope or not best.titled) and self.lookup_statements and self.doc_ids:
            for statement in ([line_item(item).statement] if line_item(item).statement else PRIMARY):
                self.add_statement_pages(statement)
            best = self._best(item, year) or best
        return best

    def _best(self, item: str, year: int) -> Optional[Found]:
        spec = line_item(item)
        best: Optional[Found] = None
        for rank, t in enumerate(self.tables):
            if self.doc_ids and t.doc_id not in self.doc_ids:
                continue
            # a row item of no known statement: any primary statement, the balance sheet's row first (a cash flow
            # statement repeats balance-sheet labels for their changes: "Receivables, net")
            factor = _statement_factor(spec.statement, t.statement, spec.flow) if spec.statement else (
                {"balance": 1.0, "income": 0.98, "cash_flow": 0.96}.get(t.statement or "", 0.7))
            if factor <= 0:
                continue
            cols = self.columns_for(t, year, spec.flow)
            if not cols:
                continue
            # a primary statement has two or three years and its title at the top of the page; a one-year
            # summary (a guarantor group's income statement) or a note's table ranks below it, and so does a
            # parent-company-only or segment table (the consolidated value is asked)
            shape = 0.02 * min(3, sum(1 for c in t.columns if c.year)) + (0.03 if t.title else 0.0)
            if t.scope:
                factor *= 0.75
            for row in t.rows:
                s = match_score(item, row.label, row.section)
                if s <= 0:
                    continue
                col = next((c for c in cols if c in row.values), None)
                if col is None:
                    continue
                score = s * factor + shape - 0.001 * rank
                if best is None or score > best.score:
                    head = t.columns[col]
                    best = Found(item=item, year=year, value=row.values[col], label=row.label, raw=row.raw.get(col, ""),
                                 header=f"{head.group} {head.header}".strip() if head.group else head.header,
                                 doc_id=t.doc_id, page=t.page, scale=None if spec.per_share else t.scale,
                                 statement=t.statement, score=score, scope=t.scope,
                                 titled=bool(t.title) and t.statement in PRIMARY)
        return best

    def extraction(self, max_tables: int = 6) -> str:
        useful = [t for t in self.tables if t.statement in PRIMARY and any(c.year for c in t.columns)]
        return "\n\n".join(t.to_text() for t in useful[:max_tables])


def _fill_scale(found: list[Found], lookup: Lookup) -> None:
    """A value from a page without a stated scale takes the scale of the other statement pages of its filing."""
    for f in found:
        if f.scale is None and not line_item(f.item).per_share:  # per-share amounts are never scaled
            same = [t.scale for t in lookup.tables if t.doc_id == f.doc_id and t.scale and t.statement in PRIMARY]
            if same:
                f.scale = max(set(same), key=same.count)


def read(question: str, contexts: list[dict], source: PageSource, *, extracted: Optional[dict] = None,
         routed_docs: Optional[list[str]] = None, doc_info: Optional[dict] = None,
         statement_pages: bool = True, min_score: float = 0.55,
         facts: Optional[QuestionFacts] = None, metric: Optional[Metric] = None) -> ReaderResult:
    """Answer `question` from the statement tables of `contexts` (see the module docstring).

    `routed_docs` and `doc_info` (the routed filing's DocumentInfo as a dict: company, fiscal_year, quarter,
    form) come from the routing step; without a route the reader reads the top context's filing only. `facts`
    is the question's one reading (`read_question(question)` when not given); `metric`: what to compute instead of
    the plan's own (the question's formula, its operands bound to the filing's rows: `formula_answer`)."""
    extracted = extracted or {}
    facts = facts if facts is not None else read_question(question)
    docs = [d for d in (routed_docs or []) if d]
    if len(docs) > 1:
        return ReaderResult(answer="", confident=False, kind="none")
    if not docs and contexts:
        docs = [cast(str, contexts[0].get("doc_id"))]  # a retrieved chunk: it has a doc_id
    info = doc_info or {}
    # the company's own name is no qualifier ('International Business Machines' is not 'international')
    plan = plan_question(without_names(question, info), facts=facts, years=list(extracted.get("years") or []),
                         fiscal_year=info.get("fiscal_year"),
                         quarter=info.get("quarter"), form=str(info.get("form") or ""))
    if metric is not None:
        plan.kind, plan.metric, plan.item = "metric", metric, None
    if plan.kind == "other":
        return ReaderResult(answer="", confident=False, kind="none", plan=plan)
    year_end = year_end_of(info if info.get("quarter") or not plan.quarter else {**info, "quarter": plan.quarter})
    if facts.dates and year_end and info.get("fiscal_year") and plan.aggregate == "single":
        # "for the quarter ended August 31, 2024" names a date, not a fiscal year (Oracle's fiscal 2025)
        d = _dt.date.fromisoformat(facts.dates[0])
        plan.years = [fiscal_year_of(d, int(info["fiscal_year"]), year_end)]
    if plan.blocked:
        return ReaderResult(answer="", confident=False, kind="none", plan=plan)
    series = bool(facts.series_years) and plan.kind == "item" and plan.aggregate == "single"
    if series:  # one value per fiscal year, the latest asked (or the filing's) last
        last = max(facts.years_written or ([int(info["fiscal_year"])] if info.get("fiscal_year") else []), default=0)
        if not last:
            return ReaderResult(answer="", confident=False, kind="none", plan=plan)
        plan.years = list(range(last - int(facts.series_years or 0) + 1, last + 1))
    pages: list[tuple[str, int]] = []
    for c in contexts:
        if c.get("doc_id") not in docs:
            continue
        for p in range(int(c.get("page_start") or 0), int(c.get("page_end") or c.get("page_start") or 0) + 1):
            pages.append((c["doc_id"], p))
    # the asked period's columns: a 10-Q's quarter or year to date, a 10-K's year (a PDF without a form keeps the
    # old preference: three months only when a quarter is named)
    months = plan.months if info.get("form") or plan.period != "annual" else None
    lookup = Lookup(source, docs, pages, quarter=plan.quarter is not None or plan.period == "quarter",
                     lookup_statements=statement_pages, months=months, fiscal_year=info.get("fiscal_year"),
                     year_end=year_end)
    needs = _needs(plan)
    found: dict[tuple[str, int], Found] = {}
    missing: list[str] = []
    for item, year, optional in needs:
        f = lookup.find(item, year)
        if f is not None and f.score >= min_score:
            found[(item, year)] = f
        elif not optional:
            missing.append(f"{line_item(item).display} FY{year}")
    # an optional input (short-term investments, current debt) counts only if every year has it
    for item, year, optional in needs:
        if optional and (item, year) not in found and any(k[0] == item for k in found):
            missing.append(f"{line_item(item).display} FY{year}")
    flist = list(found.values())
    _fill_scale(flist, lookup)
    result = ReaderResult(answer="", confident=False, kind=plan.kind, plan=plan, found=flist, missing=missing,
                          extraction=lookup.extraction(), pages_added=list(lookup.added))
    company = info.get("company") or ""
    if series and flist:  # the years found, and the years missing said (never one year as the series)
        item = plan.item or ""
        gone = [y for y in plan.years if (item, y) not in found]
        result.answer = render_series(plan, company, found, gone)
        result.asked, result.confident = "series", not gone
        result.value = found[(item, max(y for y in plan.years if (item, y) in found))].value
        return result
    if missing or not flist:
        lender = _lender_rows(lookup) if facts.applicability and plan.metric is not None else []
        if lender and any(_OPERATING_ITEM.search(m) for m in missing):
            result.answer = render_not_applicable(plan, company, missing, lender)
            result.not_applicable = True
        else:
            result.answer = render_not_found(plan, company, flist, missing)
        return result
    value, text = render_answer(plan, company, found, _compute)
    if text:
        result.answer, result.value, result.confident = text, value, value is not None
    else:
        result.answer = render_not_found(plan, company, flist, ["a consistent result from the inputs"])
    return result


_LENDER = re.compile(r"(?i)\bnet interest income\b|\bprovisions? for (?:credit|loan) losses\b|\brevenues? net of interest "
                     r"expense\b|\bpremiums earned\b|\bnet investment income\b|\binterest and fees on loans\b")
_OPERATING_ITEM = re.compile(r"(?i)^(?:operating income|gross profit|cost of (?:revenue|sales|goods)|total current)")


def _lender_rows(lookup: Lookup) -> list[Found]:
    """The income-statement rows that mark a lender's or an insurer's statement (net interest income, provisions
    for credit losses, revenues net of interest expense, premiums earned), as found rows; [] when there are none.
    Such a statement has no operating income, gross profit or current assets to take a margin or ratio of."""
    lookup.add_statement_pages("income")
    out: list[Found] = []
    for t in lookup.tables:
        if t.statement != "income" or t.scope or "income" not in page_titles(lookup.source.page_text(t.doc_id, t.page)):
            continue  # the consolidated statement's own page, not a segment's table
        for r in t.rows:
            if _LENDER.search(r.label) and r.values:
                col = next(iter(r.values))
                out.append(Found(item="revenue", year=t.columns[col].year or 0, value=r.values[col], label=r.label,
                                 raw=r.raw.get(col, ""), header=t.columns[col].header, doc_id=t.doc_id, page=t.page,
                                 scale=t.scale, statement=t.statement, score=1.0))
        if out:
            return out
    return out


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
        # an expense printed as an outflow, and a cash flow statement's row the question names by its words (an
        # outflow in parentheses is subtracted as the amount it is: "minus acquisitions of DVD content assets")
        outflow = not line_item(inp.item).statement and f.statement == "cash_flow"
        values[(inp.item, inp.offset)] = abs(v) if line_item(inp.item).sign or outflow else v
    try:
        return metric.compute(values)
    except (KeyError, ZeroDivisionError, TypeError, ValueError):
        return None


ComputeFn = Callable[[Metric, dict, int], Optional[float]]
