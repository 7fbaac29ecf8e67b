"""Breakdowns for ranking questions from the routed filing's statement tables (PDFs, EDGAR HTML, text).

    result = answer_ranking_from_tables(facts, contexts, source, doc_id=..., info=...)   # ReaderResult or None

The same table reader as the line items' (`tables.py`, `reader.Lookup` for the asked period's columns):

* a **breakdown** is a run of rows of one table that ends at its total row ("Total Domestic revenue") or at a
  change of section, with at least two parts. It is taken for the asked measure when the total's label, the
  section or a heading line of the table's caption names it ("SUPPLEMENTAL DATA - NET REVENUES", "Revenues:"),
  and for the asked breakdown when the section or total names the question's qualifier ("domestic"). A printed
  total must equal the sum of its rows (within 1.5%); rows of percentages are never parts;
* the **liabilities** (or assets) of a balance sheet are the rows between "Total assets" and "Total liabilities"
  (before "Total assets"), without subtotals;
* pages read: the context's pages of the routed filing first, then (when none of them holds a breakdown that
  names the measure in its own labels) its pages that name the measure, pages of figures and pages naming the
  breakdown first (at most 40), or its balance-sheet pages.

The best breakdown is ranked by `rankings.render_ranking`; reconciling rows (corporate, eliminations, other)
are listed, never ranked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

from finrag.state.question import QuestionFacts, Ranking
from finrag.tools.answering.member_facts import company_words
from finrag.tools.answering.questions import Plan, plan_question
from finrag.tools.answering.rankings import Breakdown, Part, is_reconciling, operands, render_ranking
from finrag.tools.answering.reader import PRIMARY, Lookup, PageSource, ReaderResult, without_names, year_end_of
from finrag.tools.answering.table_types import Row, Table
from finrag.tools.answering.tables import page_titles
from finrag.tools.question.measure import word_forms
from finrag.tools.vocabulary.dates import MONTH_NAMES

__all__ = ["AskedTables", "answer_ranking_from_tables", "asked_tables", "breakdowns_of", "context_pages",
           "read_breakdown_pages"]

_MEASURE_RE = {
    "revenue": re.compile(r"(?i)\brevenues?\b|\bsales\b"),
    "operating_income": re.compile(r"(?i)\boperating (?:income|profit|earnings|loss)|\bsegment (?:profit|earnings)|"
                                   r"earnings from operations|\(loss\)/earnings from operations"),
    "ebitda": re.compile(r"(?i)\bebitda(?:r)?\b"),
    "net_income": re.compile(r"(?i)\bnet (?:income|earnings)\b"),
}
_BREAKDOWN_WORDS = re.compile(r"(?i)\bsegments?\b|\bregions?\b|\bgeograph|\bcategor|\bproducts?\b|\bmarkets?\b|"
                              r"\bdivisions?\b")
_PLACE_KINDS = re.compile(r"(?i)segment|region|geograph|market|countr|division")
_TOTAL = re.compile(r"(?i)^(?:total|consolidated|net revenues?$|revenues?$|net sales$|sales$)|\btotal\b")
_GEOGRAPHIC = re.compile(r"(?i)\b(?:americas?|north|south|latin|europe\w*|asia\w*|pacific|africa\w*|middle east|china|japan|"
                         r"india|canada|mexico|brazil|germany|france|united (?:states|kingdom)|u\.\s?s\.?|us|uk|emea|apac|"
                         r"apla|latam|domestic|international|rest of (?:the )?world|countr\w*|region\w*|"
                         r"greater|west\w*|east\w*|central)\b")
_LINE_ITEM_WORDS = re.compile(r"(?i)\b(?:income|expenses?|gains?|loss(?:es)?|depreciation|amortization|taxe?s?|"
                              r"interest|costs?|rent|charges?|impairments?|payments?|earnings|margin|per share|"
                              r"transactions?|cash|receivables?|payables?)\b")
_TOTAL_WORDS = {"total", "revenue", "sale", "net", "consolidated", "the", "of", "and", "income", "operating",
                "ebitda", "ebitdar", "adjusted", "property", "earning", "profit", "all", "company"}
_MAX_SCAN_PAGES = 40
_AMOUNT = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")
_STOP = {"which", "what", "was", "were", "the", "a", "an", "of", "in", "for", "during", "had", "has", "have", "by",
         "and", "or", "its", "their", "highest", "lowest", "largest", "smallest", "best", "worst", "most", "least",
         "top", "line", "topline", "performance", "perform", "performed", "contribution", "market", "fiscal", "year",
         "quarter", "fy", "q1", "q2", "q3", "q4", "balance", "sheet", "region", "segment", "category", "product",
         "service", "usa", "u", "s", "revenue", "sale", "total", "net", "there", "any", "that", "represent", "more",
         "than", "is", "are", "did", "do", "does"}


@dataclass
class _Candidate:
    bd: Breakdown
    score: float


def _heading_lines(caption: str) -> list[str]:
    """The caption's short lines that read as headings (not prose sentences)."""
    lines = [ln.strip() for ln in caption.splitlines() if ln.strip()] if "\n" in caption else [caption]
    return [ln for ln in lines[-6:] if len(ln.split()) <= 14 and not ln.rstrip().endswith(".")]


def _money_row(row: Row, col: int) -> bool:
    raw = row.raw.get(col, "")
    return col in row.values and "%" not in raw


def _blocks(table: Table) -> list[tuple[str, list[Row], Optional[Row]]]:
    """Runs of rows: (section, rows, the total row that closes the run or None)."""
    out: list[tuple[str, list[Row], Optional[Row]]] = []
    run: list[Row] = []
    section: Optional[str] = None
    for row in table.rows:
        if _TOTAL.search(row.label) and run:
            out.append((section or "", run, row))
            run, section = [], None
            continue
        if run and row.section != section:
            out.append((section or "", run, None))
            run = []
        section = row.section
        run.append(row)
    if run:
        out.append((section or "", run, None))
    return out


def _section_blocks(table: Table, measure: re.Pattern) -> list[tuple[str, list[Row], Optional[Row]]]:
    """A table of sections, one per member, each with its own measure row ("Family of Apps:" then "Revenue",
    "Income from operations"): the measure's rows named by their sections, a "Total" section's row the total."""
    rows = [r for r in table.rows if r.section and measure.match(re.sub(r"(?i)^(?:net|total)\s+", "", r.label))
            and not re.search(r"(?i)\btotal\b", r.label)]  # the row is the measure ("Revenues"), not "Cost of revenues"
    if len({r.section for r in rows}) < 2 or len({r.section for r in rows}) != len(rows):
        return []
    named = [replace(r, label=r.section.strip(" :")) for r in rows]
    total = next((r for r in named if _TOTAL.search(r.label)), None)
    return [(rows[0].label, [r for r in named if r is not total], total)]  # the measure's row label names it


def _sums_with_subtotals(values: list[float], total: float) -> bool:
    """Do the values add up to `total` once the subtotals among them (a value equal to the sum of the two or more
    values just above it: "Family of Apps" under "Advertising" and "Other revenue") are left out?"""
    kept: list[float] = []
    for v in values:
        if any(abs(sum(kept[-k:]) - v) <= 0.005 * max(abs(v), 1.0) for k in range(2, len(kept) + 1)):
            continue
        kept.append(v)
    return abs(sum(kept) - total) <= 0.015 * max(abs(total), 1.0)


def _period_words(year: int, quarter: Optional[int]) -> str:
    return f"Q{quarter} FY{year}" if quarter else f"FY{year}"


_PER_SHARE_ROW = re.compile(r"(?i)\bper (?:common |ordinary )?share\b|\bearnings per\b|\beps\b|^\s*(?:basic|diluted)\b")
"""A row (or section) of an earnings-per-share table ("Diluted", "Basic earnings per share"): no segment, region or
product of a breakdown."""


def breakdowns_of(ranking: Ranking, lookup: Lookup, year: int, *, qualifiers: set[str], quarter: Optional[int],
                  context_pages: set[tuple[str, int]], facts: QuestionFacts,
                  statements: bool = False) -> list[_Candidate]:
    """Every breakdown of the lookup's tables that fits the ranking, scored (see the module docstring);
    `statements`: one member's value is asked, not a ranking: a primary statement's own breakdown (Apple's Products
    and Services net sales) counts as any other, and a reconciling row may be the member asked."""
    flow = ranking.group == "member"
    out: list[_Candidate] = []
    period = _period_words(year, quarter)
    prior_period = _period_words(year - 1, quarter)
    for t in lookup.tables:
        if ranking.group != "member" and t.statement != "balance":
            continue
        cols = lookup.columns_for(t, year, flow)
        if not cols:
            continue
        col = cols[0]
        if flow and _caption_months(t) not in (None, lookup.months or 12) and t.columns[col].months is None:
            continue  # 'Three months ended' over the header: a quarter's table, not the asked period's
        prior_cols = lookup.columns_for(t, year - 1, flow) if ranking.by == "growth" else []
        pcol = next((c for c in prior_cols if t.columns[c].months == t.columns[col].months), prior_cols[0] if prior_cols else None)
        if ranking.by == "growth" and pcol is None:
            continue
        blocks = _balance_blocks(t, ranking) if ranking.group != "member" else \
            _blocks(t) + _section_blocks(t, _MEASURE_RE[ranking.measure])
        for section, rows, total in blocks:
            rows = [r for r in rows if _money_row(r, col) and re.search(r"[A-Za-z]{2}", r.label)
                    and (not flow or len(r.label.split()) <= 10)  # a sentence is no segment's name
                    and not _UNITS_LINE.search(r.label)  # nor a header's 'Year Ended December 31,'
                    and not (flow and (_PER_SHARE_ROW.search(r.label) or _PER_SHARE_ROW.search(str(section or ""))))]
            split = _parts_of(rows, col, pcol, t.page, ranking, statements=statements)
            if split is None:
                continue
            parts, others = split
            total_value = total.values.get(col) if total is not None and _money_row(total, col) else None
            score = 0.0
            if total_value is not None:
                s = sum(p.value for p in parts + others)
                if abs(s - total_value) > 0.015 * max(abs(total_value), 1.0) and not _sums_with_subtotals(
                        [r.values[col] for r in rows], total_value):
                    continue  # not the parts of this total (another table's rows)
                score += 2.0
            if flow:
                fit = _member_fit(t, section, total, ranking, lookup, qualifiers=qualifiers, asked=facts,
                                  statements=statements)
                if fit is None:
                    continue
                score += fit
            else:
                score += 3.0 + (0.5 if t.title else 0.0)
            if (t.doc_id, t.page) in context_pages:
                score += 0.5
            title = _title(t, section, total, balance=not flow, measure=_MEASURE_RE.get(ranking.measure))
            bd = Breakdown(doc_id=t.doc_id, page=t.page, parts=parts, others=others, title=title, period=period,
                           prior_period=prior_period, scale=t.scale, total=total_value,
                           total_label=total.label if total is not None and total_value is not None else "")
            out.append(_Candidate(bd, score + 0.01 * min(len(parts), 10)))
    out.sort(key=lambda c: -c.score)
    return out


def _parts_of(rows: list[Row], col: int, pcol: Optional[int], page: int, ranking: Ranking, *,
              statements: bool) -> Optional[tuple[list[Part], list[Part]]]:
    """(parts, rows not ranked) of a run of rows, or None when the rows are no breakdown's members: fewer than two,
    line items (expenses, gains, another measure by name), or percent shares printed without a sign."""
    flow = ranking.group == "member"
    parts: list[Part] = []
    others: list[Part] = []
    for r in rows:
        prior = r.values.get(pcol) if pcol is not None and _money_row(r, pcol) else None
        part = Part(name=r.label, value=r.values[col], prior=prior, raw=r.raw.get(col, ""),
                    prior_raw=r.raw.get(pcol, "") if pcol is not None else "", page=page)
        (others if flow and is_reconciling(r.label) else parts).append(part)
    if flow and re.search(r"(?i)region|geograph|countr", ranking.kind_word):
        places = [p for p in parts if _GEOGRAPHIC.search(p.name)]
        if len(places) * 4 >= 3 * len(parts):  # a breakdown of places: its one other row is no region
            others += [p for p in parts if p not in places]
            parts = places
    if len(parts) + (len(others) if statements else 0) < 2:
        return None
    if flow and sum(bool(_LINE_ITEM_WORDS.search(p.name) or any(
            m.search(p.name) for name, m in _MEASURE_RE.items() if statements is False or name != ranking.measure))
                    for p in parts) * 2 >= len(parts):
        # line items (expenses, gains, a measure by name: "Las Vegas net revenues" beside "Las Vegas Adjusted
        # EBITDAR" in a reconciliation), not the members of a breakdown; for one member's value the asked measure
        # may name the parts ("Sales of products", "Automotive sales")
        return None
    every = [p.value for p in parts + others]
    if flow and abs(sum(every) - 100.0) <= 0.6 and all(0 <= abs(v) <= 100 for v in every):
        return None  # shares in percent printed without a sign (a mix table), not amounts
    return parts, others


def _member_fit(t: Table, section: str, total: Optional[Row], ranking: Ranking, lookup: Lookup, *,
                qualifiers: set[str], asked: QuestionFacts, statements: bool) -> Optional[float]:
    """How well a run of rows is the asked measure's breakdown (None: another measure's, or none named)."""
    named = f"{section} {total.label if total is not None else ''}"
    measure_re = _MEASURE_RE[ranking.measure]
    if measure_re.search(named):
        score = 3.0
    elif any(measure_re.search(h) for h in _heading_lines(t.caption)):
        score = 2.0
    elif measure_re.search(t.title or ""):
        score = 1.0
    else:
        return None
    if any(other.search(named) for name, other in _MEASURE_RE.items() if name != ranking.measure
           and not measure_re.search(named)):
        return None
    qual = set(word_forms(named)) & qualifiers
    score += 2.0 * len(qual)
    # a total named with words the question does not use ("Total non-U.S. revenues", "Total segment revenue from
    # contracts with customers") is a part's own breakdown, not the asked total's
    extra = {w for w in word_forms(total.label) if w not in _TOTAL_WORDS and w not in qual
             and w not in asked.words} if total is not None else set()
    score -= 0.75 * len(extra)
    if _BREAKDOWN_WORDS.search(f"{named} {t.caption}"):
        score += 0.5
    noun = ranking.kind_word.split()[-1][:6] if ranking.kind_word else ""
    if noun and re.search(rf"(?i)\b{re.escape(noun)}", f"{named} {t.caption}"):
        score += 1.0  # the breakdown the question names ("segment": a table of segments)
    if not statements and t.statement in PRIMARY and set(page_titles(lookup.source.page_text(t.doc_id, t.page))) & set(PRIMARY):
        # a primary statement's revenue rows are kinds of revenue, never segments or regions
        score -= 6.0 if _PLACE_KINDS.search(ranking.kind_word) else 3.0
    return score


def _caption_months(t: Table) -> Optional[int]:
    """The period length the caption's last line names over the columns ('Three months ended' -> 3), or None."""
    lines = [ln for ln in t.caption.splitlines() if ln.strip()][-1:]
    g = " ".join(lines).lower()
    for word, n in (("three months", 3), ("thirteen weeks", 3), ("quarter", 3), ("six months", 6), ("nine months", 9),
                    ("twelve months", 12), ("year ended", 12), ("years ended", 12)):
        if word in g:
            return n
    return None


def _balance_blocks(t: Table, ranking: Ranking) -> list[tuple[str, list[Row], Optional[Row]]]:
    """A balance sheet's liabilities (between 'Total assets' and 'Total liabilities', or the first equity row when
    the sheet prints no such total) or assets (before 'Total assets'), without their subtotals, contra rows ('Less
    accumulated depreciation') and the gross rows a net row follows ('Accounts receivable' before '..., net')."""
    labels = [r.label.lower() for r in t.rows]
    ta = next((i for i, lb in enumerate(labels) if re.match(r"total assets\b", lb)), None)
    if ta is None:
        return []
    if ranking.group == "asset":
        rows = t.rows[:ta]
        total: Optional[Row] = t.rows[ta]
    else:
        tl = next((i for i, lb in enumerate(labels) if i > ta and re.match(r"total liabilities$", lb)), None)
        if tl is None:
            end = next((i for i, lb in enumerate(labels) if i > ta and re.search(
                r"equity|stockholders|shareholders|common stock|preferred stock|redeemable|commitments", lb)
                or "equity" in t.rows[i].section.lower()), len(labels))
            rows, total = t.rows[ta + 1:end], None
        else:
            rows, total = t.rows[ta + 1:tl], t.rows[tl]
    items = []
    for i, r in enumerate(rows):
        low = r.label.lower()
        if _TOTAL.search(r.label) or low.startswith(("less", "commitments", "liabilities")):
            continue
        if any(n.label.lower().startswith(low) and "net" in n.label.lower()[len(low):] for n in rows[i + 1:i + 4]):
            continue  # a gross amount whose net row follows
        items.append(r)
    # a subtotal's parts are listed above it: the sum check uses the items only when no subtotal hides among them
    return [("", items, total if _sums(items, total, t) else None)]


def _sums(rows: list[Row], total: Optional[Row], t: Table) -> bool:
    if total is None or not total.values:
        return False
    col = next(iter(total.values))
    s = sum(r.values.get(col, 0.0) for r in rows)
    return abs(s - total.values[col]) <= 0.015 * max(abs(total.values[col]), 1.0)


_UNITS_LINE = re.compile(r"(?i)^\(?(?:in|dollars in|\$ ?in) (?:thousands|millions|billions)|unaudited|ended|^page \d|"
                         r"^table of contents|^(?:(?:" + "|".join(MONTH_NAMES) + r") \d{1,2},?\s*)+$")


def _title(t: Table, section: str, total: Optional[Row], *, balance: bool, measure: Optional[re.Pattern]) -> str:
    """What the breakdown is, as printed: its section, its total's label, or the caption's heading that names the
    measure (else its last heading that is more than dates and units)."""
    if balance:
        return "balance sheet"
    heads = [h for h in _heading_lines(t.caption) if re.search(r"[A-Za-z]{3}", h) and not _UNITS_LINE.search(h)]
    named = [h for h in heads if measure is not None and measure.search(h)]
    for cand in (section, total.label if total is not None else "", (named or heads or [""])[-1], t.title or ""):
        cand = " ".join(str(cand).split()).strip(" :")
        if cand and not re.fullmatch(r"(?i)total", cand) and not _UNITS_LINE.search(cand):
            return f"'{cand}'"
    return ""


@dataclass
class AskedTables:
    """The asked period in a routed filing's tables: the reader's plan, the fiscal year, the quarter (None for a
    year), the context's pages and a lookup over them that reads the asked period's columns."""

    plan: Plan
    year: int
    quarter: Optional[int]
    pages: list[tuple[str, int]]
    lookup: Lookup


def asked_tables(facts: QuestionFacts, contexts: list[dict], source: PageSource, doc_id: str,
                 info: dict) -> Optional[AskedTables]:
    """The question's period in the routed filing's calendar, as the line-item reader plans it, and a lookup over
    the context's pages of that filing; None when no fiscal year is asked or known."""
    plan = plan_question(without_names(facts.text, info), facts=facts, fiscal_year=info.get("fiscal_year"),
                         quarter=info.get("quarter"), form=str(info.get("form") or ""))
    if not plan.years:
        return None
    year_end = year_end_of(info if info.get("quarter") or not plan.quarter else {**info, "quarter": plan.quarter})
    pages = context_pages(contexts, doc_id)
    months = plan.months if info.get("form") or plan.period != "annual" else None
    lookup = Lookup(source, [doc_id], pages, quarter=plan.period == "quarter", lookup_statements=True,
                     months=months, fiscal_year=info.get("fiscal_year"), year_end=year_end)
    return AskedTables(plan=plan, year=max(plan.years), quarter=plan.quarter if plan.period == "quarter" else None,
                       pages=pages, lookup=lookup)


def answer_ranking_from_tables(facts: QuestionFacts, contexts: list[dict], source: PageSource, *, doc_id: str,
                               info: Optional[dict] = None) -> Optional[ReaderResult]:
    """The ranking the question asks, from the routed filing's tables (see the module docstring); None when it
    asks none or no breakdown of the asked measure and period is found (the other answerers go on)."""
    ranking = facts.ranking
    if ranking is None:
        return None
    info = info or {}
    asked = asked_tables(facts, contexts, source, doc_id, info)
    if asked is None:
        return None
    lookup, year, quarter, pages = asked.lookup, asked.year, asked.quarter, asked.pages
    own = company_words(info)
    qualifiers = {w for w in facts.words if w not in _STOP and w not in own and not w.isdigit() and len(w) > 2}
    def search() -> list[_Candidate]:
        return breakdowns_of(ranking, lookup, year, qualifiers=qualifiers, quarter=quarter, context_pages=set(pages),
                             facts=facts)

    found = search()
    if not found or found[0].score < 3.0:
        if ranking.group == "member":
            read_breakdown_pages(lookup, source, doc_id, ranking)
        else:
            lookup.add_statement_pages("balance")
        found = search()
    if not found:
        return None
    best = found[0].bd
    text, named = render_ranking(ranking, best, company=str(info.get("company") or ""))
    if not text:
        return None
    cited = operands(best, named, year=year, item=ranking.measure)
    extraction = "\n\n".join(t.to_text() for t in lookup.tables if t.doc_id == best.doc_id and t.page == best.page)
    return ReaderResult(answer=text, confident=True, kind="item", found=cited, extraction=extraction,
                        pages_added=[(best.doc_id, best.page)], value=named[0].value if named else None,
                        asked="ranking")


def context_pages(contexts: list[dict], doc_id: str) -> list[tuple[str, int]]:
    """The (doc, page) pairs the contexts of `doc_id` cover, in order."""
    return [(doc_id, p) for c in contexts if c.get("doc_id") == doc_id
            for p in range(int(c.get("page_start") or 0), int(c.get("page_end") or c.get("page_start") or 0) + 1)]


def read_breakdown_pages(lookup: Lookup, source: PageSource, doc_id: str, ranking: Ranking) -> None:
    """Reads the filing's pages that name the measure: pages of figures, those that name the question's breakdown
    noun or a breakdown word, and those that name the measure most first; at most `_MAX_SCAN_PAGES`."""
    measure_re = _MEASURE_RE[ranking.measure]
    kind = re.compile(rf"(?i)\b{re.escape(ranking.kind_word.split()[-1][:6])}") if ranking.kind_word else None
    scored = []
    for p in range(source.page_count(doc_id)):
        if (doc_id, p) in lookup.read_pages:
            continue
        text = source.page_text(doc_id, p)
        hits = len(measure_re.findall(text))
        if hits:
            tabular = len(_AMOUNT.findall(text)) >= 12  # a page of figures, not of prose
            scored.append((-(min(hits, 4) + (3 if kind is not None and kind.search(text) else 0) + 4 * tabular
                             + (2 if _BREAKDOWN_WORDS.search(text) else 0)), p))
    for _s, p in sorted(scored)[:_MAX_SCAN_PAGES]:
        lookup.read_page(doc_id, p)
