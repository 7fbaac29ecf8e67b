"""Which filing(s) of one company a question is about: the per-company half of `Registry.resolve`.

Resolution of one company, in order of precedence (each step says how sure it is, `Pick.confidence`):

* **Date** – a date that is not a period end ("May 26, 2023") selects the dated filing (8-K) filed on the
  date or up to 14 days after it (2 days before tolerated). A date within a week of a filing's period
  end ("as of January 28, 2023" for a January year end) selects that filing's fiscal period; any other
  date the fiscal year that contains it (fiscal years that do not end in December included).
* **Quarter** – "Q2 of FY2024", "2023 Q1", "Q2'23", "H1 2023"... select the filings of that fiscal quarter;
  without one, the quarter's fiscal year is tried next (a 10-K covers its Q4 and the year).
* **Forward-looking** – what a company *expects* for a period ("guidance for FY2023", "2025 outlook",
  "FY24E capex") is in the filings published before it: the latest fiscal year before that period
  (`forward_looking`), unless the question names that earlier year itself.
* **Year** – the latest mentioned fiscal year that has filings ("FY2019 - FY2021" reads the FY2021 filing,
  which holds the comparatives). Years marked as fiscal outrank bare years.
* **Past years only later filings report** – a year without a filing of its own is still reported by the
  next annual filings (a 10-K carries three years of income statements and two of balance sheets): the
  earliest later annual filing within two years (`comparative_period`).
* **No filing for the period** – stay inside the company: its nearest filing(s), status
  `period_not_in_index`; never another company's.
* **No period** – a named form ("in its 10-Q", "the 8-K") picks among the company's filings of that form;
  otherwise `default_year`, else the company's latest fiscal year. A prose question (a count, a date, a name,
  yes/no, drivers, a list: `QuestionFacts.form`) that names no period, no form and no earnings or event cue asks
  about the company as its filings describe it: a quarterly report tells only the quarter's changes (its Part I
  is the quarter's statements, not the business), so where that year holds no annual report the company's
  latest annual report is read instead of a later 10-Q (`form`; "Has Tesla ever paid a cash dividend?",
  "What day does Apple's fiscal year end on?"). A date asked that way ("When did Microsoft announce the LinkedIn
  deal?") is an event's, and the event's year is what the question does not say: the company's other periodic
  reports are read too (`Pick.wider`: the reports filed after that annual report, then the earlier annual reports,
  newest first), and the sentence that states the date on the question's topic decides
  (`retrieval/form_evidence.py`).

Within the selected period the filings are scored::

    prior(form, level)            year level:    10K 3.0, ANNUALREPORT 2.9, Q4 EARNINGS 2.0,
                                                 10Q 1.0, EARNINGS 0.5, 8K 0.3  (+0.1 x quarter)
                                  quarter level: 10Q 3.0, EARNINGS 2.0, 10K 1.0, 8K 0.3
  + 5.0  the form is named ("10-K", "quarterly report", "8-K", "earnings release")
  + 4.5  the other annual form is named (10-K <-> annual report)
  + 2.0  EARNINGS filing and earnings-release vocabulary in the question
  + 3.0  8-K and corporate-event vocabulary (new CEO, votes, credit agreement, Item 5.02 ...)
  + 2.0  8-K whose cover lists an item the question asks about (5.02 officers, 5.07 votes ...)

and the best one wins (ties: later quarter, later filing date, doc id). Filings that tie with the best
(within `TIE`) are returned too as `alternates`: the registry widens the scope to them when its
confidence policy says so.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, cast

from finrag.state.question import QuestionFacts
from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.routing.filenames import FORMS

__all__ = ["Pick", "best_document", "same_identity_groups"]

_FORM_ANNUAL = {"10K", "ANNUALREPORT"}
_YEAR_PRIOR = {"10K": 3.0, "ANNUALREPORT": 2.9, "10Q": 1.0, "EARNINGS": 0.5, "8K": 0.3, "": 0.2}
_QUARTER_PRIOR = {"10Q": 3.0, "EARNINGS": 2.0, "10K": 1.0, "ANNUALREPORT": 0.9, "8K": 0.3, "": 0.2}
_Q4_EARNINGS_PRIOR = 2.0
_NAMED_FORM, _ANNUAL_FAMILY, _EARNINGS_CUE, _EVENT_CUE, _ITEM_CUE = 5.0, 4.5, 2.0, 3.0, 2.0
_DATE_WINDOW = (-2, 14)  # days the filing may be before / after the date in the question
_PERIOD_END_SLACK = 7  # days between a date in the question and a filing's period end
_COVER_DAYS = 100  # the most days between a periodic report's period end and its cover date (10-K: 60-90)
TIE = 0.05


@dataclass
class Pick:
    """One company's route: the filing, how it was found, how sure, and filings that tie with it."""

    doc_id: Optional[str]
    status: str
    reason: str
    confidence: float = 1.0
    alternates: list[str] = field(default_factory=list)
    wider: list[str] = field(default_factory=list)  # filings read with it whatever the confidence (an event's date)


def _doc_year(d: DocumentInfo) -> Optional[int]:
    if d.fiscal_year:
        return d.fiscal_year
    return int(d.filed_date[:4]) if d.filed_date and d.filed_date[:4].isdigit() else None


def _iso(value: Optional[str]) -> Optional[_dt.date]:
    try:
        return _dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _is_period_end(iso: str) -> bool:
    return iso[5:] in ("03-31", "06-30", "09-30", "12-31")


def _periods(ex: ExtractedMetadata) -> tuple[list[tuple[int, int]], list[int]]:
    quarters, fy_years = [], []
    for p in ex.periods or []:
        m = re.fullmatch(r"(\d{4})Q([1-4])", str(p).strip().upper())
        if m:
            quarters.append((int(m.group(1)), int(m.group(2))))
        m = re.fullmatch(r"FY\s*(\d{4})", str(p).strip().upper())
        if m:
            fy_years.append(int(m.group(1)))
    return quarters, fy_years


def _date_periods(docs: list[DocumentInfo], dates: list[str]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Dates as fiscal periods of this company: (quarters, fiscal years, calendar years)."""
    quarters, years, calendar = [], [], []
    for iso in dates:
        day = _iso(iso)
        if day is None:
            continue
        near = [d for d in docs if (end := _iso(d.period_end)) and abs((end - day).days) <= _PERIOD_END_SLACK]
        if near:
            d = near[0]
            # _doc_year is None only for a filing with neither a fiscal year nor a filing date (not expected of a
            # quarterly filing); such a year would reach the caller as None, as it always did
            (quarters.append((cast(int, _doc_year(d)), d.quarter)) if d.quarter else years.append(_doc_year(d)))
            continue
        covering = [d for d in docs if d.form in _FORM_ANNUAL and (end := _iso(d.period_end))
                    and 0 <= (end - day).days < 365]
        if covering:
            years.append(_doc_year(covering[0]))
        else:
            calendar.append(day.year)
    return quarters, [y for y in years if y], calendar


def ytd_quarter(facts: QuestionFacts) -> Optional[int]:
    """The fiscal quarter whose 10-Q holds the year to date a question asks ("the first nine months of fiscal
    2024": 3) when it names no quarter itself, else None."""
    if facts.asks_ytd and facts.ytd_months in (6, 9) and not facts.quarters:
        return facts.ytd_months // 3
    return None


def _cover_dated(docs: list[DocumentInfo], dates: list[str]) -> Optional[tuple[DocumentInfo, str]]:
    """The periodic report whose cover counts shares as of a date in `dates`: a cover date falls after the period
    (a 10-K's weeks after its fiscal year, a 10-Q's weeks after its quarter), so the filing of the latest period
    ended at most `_COVER_DAYS` before it."""
    best: Optional[tuple[_dt.date, DocumentInfo, str]] = None
    for iso in dates:
        day = _iso(iso)
        if day is None:
            continue
        for d in docs:
            end = _iso(d.period_end)
            if end is None or d.form not in ("10K", "10Q", "20F", "40F", "10KT") or not 0 < (day - end).days <= _COVER_DAYS:
                continue
            if best is None or end > best[0]:
                best = (end, d, iso)
    return (best[1], best[2]) if best else None


def best_document(docs: list[DocumentInfo], name: str, ex: ExtractedMetadata, cues: set[str],
                  default_year: int, forward: tuple[int, ...] = (), items: frozenset[str] = frozenset(), *,
                  cover_date: bool = False, ytd_quarter: Optional[int] = None, whole_years: bool = False,
                  form: str = "") -> Pick:
    """The filing of one company (`docs`, display `name`) to read for a question (see the module docstring).
    `cover_date`: the question asks a cover count as of its date (shares outstanding): the filing whose cover
    date that is (`_cover_dated`); `ytd_quarter`: the quarter of the year to date it asks (`ytd_quarter`);
    `whole_years`: it asks values of whole fiscal years without naming one ("for each of the last three fiscal
    years"): an annual report, as if it named the form; `form`: the prose answer it asks (count, date, name,
    yesno, drivers, list; `QuestionFacts.form`), which a question naming no period reads from an annual report,
    a date from all the periodic reports (module docstring)."""
    forms = {f for f in (ex.forms or []) if f in FORMS}
    if whole_years and not forms:
        forms = {f for f in ("10K", "ANNUALREPORT") if f in FORMS}
    quarters, fy_years = _periods(ex)
    if ytd_quarter and not quarters and fy_years:
        quarters = [(y, ytd_quarter) for y in fy_years]
    bare = {int(y) for y in ex.years or [] if str(y).isdigit()}
    dates = [d for d in (ex.dates or []) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(d))]
    ctx = (forms, cues, items)
    covered = _cover_dated(docs, dates) if cover_date else None
    if covered is not None:
        doc, iso = covered
        return Pick(doc.doc_id, "exact_path", f"{name}: the {doc.form} for the period ended {doc.period_end}, whose "
                                               f"cover counts shares as of a date after it ({iso})", 0.9)

    dated = _by_date(docs, dates)
    if dated:
        doc, delta = dated
        return Pick(doc.doc_id, "filename_fallback", f"{name}: filing dated {doc.filed_date}, {delta} day(s) after "
                                                     f"the date in the question", 0.95)
    dq, dy, dcal = _date_periods(docs, [d for d in dates])
    quarters = sorted(set(quarters) | set(dq))
    years = set(fy_years) | set(dy) | {y for y, _ in quarters} if (fy_years or quarters or dy) \
        else bare | set(dcal)
    have = sorted({y for y in (_doc_year(d) for d in docs) if y})
    fwd = sorted({y for y in forward if y in years or y in bare}, reverse=True)
    if fwd and not quarters:
        target = fwd[0]
        asked_before = [y for y in years if y < target and y in have]
        before = [y for y in have if y < target]
        if not asked_before and before:
            y = before[-1]
            pick = _pick([d for d in docs if _doc_year(d) == y], "year", ctx, f"{name} fiscal {y}")
            pick.status, pick.confidence = "forward_looking", 0.85
            pick.reason = f"expectations for {target} are in the filings published before it: {pick.reason}"
            return pick
        years.discard(target) if asked_before else None
    for y, q in sorted(set(quarters), reverse=True):
        cands = [d for d in docs if _doc_year(d) == y and d.quarter == q]
        if cands:
            return _pick(cands, "quarter", ctx, f"{name} {y}Q{q}")
    for y in sorted(years, reverse=True):
        cands = [d for d in docs if _doc_year(d) == y]
        if cands:
            return _pick(cands, "year", ctx, f"{name} fiscal {y}")
    if years or quarters:
        return _missing_period(docs, name, sorted(years | {y for y, _ in quarters}), have, ctx)
    year: int | None
    if forms:
        formed = [d for d in docs if d.form in forms or (d.form in _FORM_ANNUAL and forms & _FORM_ANNUAL)]
        if formed:
            fy = sorted({_doc_year(d) or 0 for d in formed})
            year = default_year if default_year in fy else fy[-1]
            pick = _pick([d for d in formed if (_doc_year(d) or 0) == year], "year", ctx,
                         f"{name} {'/'.join(sorted(forms))} of {year or 'unknown year'}")
            pick.status, pick.confidence = "default_year", 0.8
            pick.reason = f"no period in the question, the form it names: {pick.reason}"
            return pick
    year = default_year if default_year in have else (have[-1] if have else None)
    cands = [d for d in docs if _doc_year(d) == year] or docs
    if items and "8K" in cues:  # an event question: the 8-Ks reporting that item, whatever their year
        evented = [d for d in docs if d.form == "8K" and set(d.items) & items]
        if evented and not any(d in evented for d in cands):
            cands = evented
    prose = bool(form) and not cues
    annual = _latest_annual(docs, year) if prose and (form == "date" or not any(d.form in _FORM_ANNUAL for d in cands)) \
        else None
    if annual is not None:  # a prose question about the company: its latest annual report, not a later 10-Q
        pick = _pick(annual, "year", ctx, f"{name} fiscal {_doc_year(annual[0])}")
        pick.status, pick.confidence = "default_year", 0.75 if len(have) > 1 else 0.95
        pick.reason = f"no period in the question, a prose question: the latest annual report: {pick.reason}"
        if form == "date":  # an event's date: the reports after it, then the earlier annual reports
            pick.wider = _event_reports(docs, annual[0], pick.doc_id)
            pick.reason += (f"; a date asked without a period (an event's): also read {', '.join(pick.wider)}"
                            if pick.wider else "")
        return pick
    pick = _pick(cands, "year", ctx, f"{name} fiscal {year}")
    how = "default year" if year == default_year else f"latest year (none in {default_year})"
    pick.status, pick.confidence = "default_year", 0.75 if len(have) > 1 else 0.95
    pick.reason = f"no period in the question, {how}: {pick.reason}"
    return pick


def _latest_annual(docs: list[DocumentInfo], year: Optional[int]) -> Optional[list[DocumentInfo]]:
    """The annual reports (10-K, annual report) of the company's latest fiscal year that has one, not after `year`
    (any year when `year` is None); None when it has none."""
    years = sorted({y for d in docs if d.form in _FORM_ANNUAL and (y := _doc_year(d)) and (year is None or y <= year)})
    if not years:
        return None
    return [d for d in docs if d.form in _FORM_ANNUAL and _doc_year(d) == years[-1]]


def _event_reports(docs: list[DocumentInfo], annual: DocumentInfo, chosen: Optional[str]) -> list[str]:
    """The company's periodic reports (10-K, annual report, 10-Q) other than `chosen`: those filed after the
    annual report `annual` (latest first), then the earlier annual reports (newest first)."""
    def period(d: DocumentInfo) -> tuple:  # an annual report closes its fiscal year, after the year's 10-Qs
        return _doc_year(d) or 0, 5 if d.form in _FORM_ANNUAL else d.quarter or 0, d.filed_date or ""

    periodic = [d for d in docs if d.doc_id != chosen and (d.form in _FORM_ANNUAL or d.form == "10Q")]
    later = sorted((d for d in periodic if period(d) > period(annual)), key=period, reverse=True)
    earlier = sorted((d for d in periodic if d.form in _FORM_ANNUAL and d not in later), key=period, reverse=True)
    return [d.doc_id for d in [*later, *earlier]]


def _missing_period(docs: list[DocumentInfo], name: str, asked: list[int], have: list[int], ctx) -> Pick:
    """No filing of the asked period: a later annual filing that still reports it, else the nearest filing."""
    target = asked[-1]
    label = ", ".join(f"FY{y}" for y in asked)
    for ahead in (1, 2):
        annual = [d for d in docs if _doc_year(d) == target + ahead and d.form in _FORM_ANNUAL]
        if annual:
            pick = _pick(annual, "year", ctx, f"{name} fiscal {target + ahead}")
            pick.status, pick.confidence = "comparative_period", 0.85 if ahead == 1 else 0.7
            pick.reason = (f"no filing for {label}; the FY{target + ahead} annual report still reports FY{target} as a "
                           f"comparative period: {pick.reason}")
            return pick
    if not have:
        return Pick(None, "period_not_in_index", f"{name}: no filing for {label} and no dated filing", 0.3)
    nearest = min(have, key=lambda y: (abs(y - target), -y))
    pick = _pick([d for d in docs if _doc_year(d) == nearest], "year", ctx, f"{name} fiscal {nearest}")
    pick.status, pick.confidence = "period_not_in_index", 0.4
    pick.reason = (f"no filing of {name} for {label} (have {', '.join(map(str, have))}); staying inside "
                   f"{name}'s filings, nearest: {pick.reason}")
    return pick


def _by_date(docs: list[DocumentInfo], dates: list[str]) -> Optional[tuple[DocumentInfo, int]]:
    best = None
    for iso in dates:
        if _is_period_end(iso):
            continue
        asked = _iso(iso)
        for d in docs:
            filed = _iso(d.filed_date)
            if asked is None or filed is None:
                continue
            delta = (filed - asked).days
            if _DATE_WINDOW[0] <= delta <= _DATE_WINDOW[1]:
                rank = (delta < 0, abs(delta), d.doc_id)
                if best is None or rank < best[0]:
                    best = (rank, d, delta)
    return (best[1], best[2]) if best else None


def _score(d: DocumentInfo, level: str, ctx) -> float:
    forms, cues, items = ctx
    if level == "year":
        s = _Q4_EARNINGS_PRIOR if (d.form == "EARNINGS" and d.quarter == 4) else _YEAR_PRIOR.get(d.form, 0.2)
        s += 0.1 * (d.quarter or 0)
    else:
        s = _QUARTER_PRIOR.get(d.form, 0.2)
    if d.form in forms:
        s += _NAMED_FORM
    elif d.form in _FORM_ANNUAL and forms & _FORM_ANNUAL:
        s += _ANNUAL_FAMILY
    if d.form == "EARNINGS" and "EARNINGS" in cues:
        s += _EARNINGS_CUE
    if d.form == "8K" and "8K" in cues:
        s += _EVENT_CUE
        if set(d.items) & set(items):
            s += _ITEM_CUE
    return s


def _pick(cands: list[DocumentInfo], level: str, ctx, what: str) -> Pick:
    forms, cues, _ = ctx
    ranked = sorted(cands, key=lambda d: (_score(d, level, ctx), d.quarter or 0, d.filed_date or "", d.doc_id),
                    reverse=True)
    best = ranked[0]
    if len(cands) == 1:
        return Pick(best.doc_id, "exact_path", f"{what}: the only filing", 1.0)
    top = _score(best, level, ctx)
    runner = ranked[1]
    ties = [d.doc_id for d in ranked[1:] if top - _score(d, level, ctx) <= TIE]
    margin = top - _score(runner, level, ctx)
    conf = 0.95 if margin >= 1.5 else 0.85 if margin >= 0.5 else 0.7 if margin > TIE else 0.55
    return Pick(best.doc_id, "filename_fallback", (
        f"{what}: {len(cands)} filings, {best.form or '?'} scored {top:.1f} vs {runner.doc_id} "
        f"{_score(runner, level, ctx):.1f}"
        + (f" (cues: {', '.join(sorted(cues))})" if cues else "")
        + (f" (forms: {', '.join(sorted(forms))})" if forms else "")), conf, ties)


def _identity(d: DocumentInfo) -> tuple:
    return d.fiscal_year, d.period, d.form, d.filed_date


def same_identity_groups(read: list[DocumentInfo], company_docs: Callable[[DocumentInfo], list[DocumentInfo]]
                         ) -> list[dict]:
    """Each group (two or more) of a company's filings (`company_docs(d)`) that share the identity of a filing in
    `read` (fiscal year and period, form, filing date; identical copies are already one document), as
    identity (a label: 'Acme 10K FY2023'), doc_ids (all of them) and read (those in `read`): issue 34 case 7."""
    ids = [d.doc_id for d in read]
    out: list[dict] = []
    seen: set[str] = set()
    for doc in read:
        if doc.doc_id in seen or not (doc.period or doc.filed_date):
            continue
        group = sorted(o.doc_id for o in company_docs(doc) if _identity(o) == _identity(doc))
        seen.update(group)
        if len(group) > 1:
            period = doc.period if doc.quarter or not doc.period.isdigit() else f"FY{doc.period}"
            label = " ".join(x for x in (doc.company, doc.form, period, doc.filed_date and f"filed {doc.filed_date}")
                             if x)
            out.append({"identity": label, "doc_ids": group, "read": [g for g in group if g in ids]})
    return out
