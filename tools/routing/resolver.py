"""Which filing of one company a question is about: the per-company half of `Registry.resolve`.

Resolution of one company, in order of precedence:

* **Date** – a non-period-end date ("May 26, 2023") selects the dated filing
  (8-K) filed on the date or up to 14 days after it (2 days before tolerated),
  closest first. Period-end dates ("December 31, 2022") only give a year.
* **Quarter** – "Q2 of FY2024", "2023 Q1", "Q2'2023"... select the filings of
  that fiscal quarter (the latest quarter that has filings). If there is none,
  the quarter's fiscal year is tried next (a 10-K covers its Q4 and the year).
* **Year** – the latest mentioned fiscal year that has filings ("FY2019 -
  FY2021" reads the FY2021 filing, which holds the comparatives). Years marked
  as fiscal ("FY2021", "fiscal 2021") outrank bare years, so "as of FY2021 ...
  expected payments in 2024" stays in 2021.
* **Default** – nothing time-like in the question: `default_year`, or the
  company's latest fiscal year if it has no filing in `default_year`.

Within the selected period the filings are scored::

    prior(form, level)            year level:    10K 3.0, ANNUALREPORT 2.9, Q4 EARNINGS 2.0,
                                                 10Q 1.0, EARNINGS 0.5, 8K 0.3  (+0.1 x quarter)
                                  quarter level: 10Q 3.0, EARNINGS 2.0, 10K 1.0, 8K 0.3
  + 5.0  the form is named ("10-K", "quarterly report", "8-K", "earnings release")
  + 4.5  the other annual form is named (10-K <-> annual report)
  + 2.0  EARNINGS filing and earnings-release vocabulary in the question
         (adjusted / non-GAAP / EBITDA(R) / guidance / outlook / organic /
         constant currency / excluding the impact of ... / sales growth ...)
  + 3.0  8-K and corporate-event vocabulary (new CEO, appointed, resigned,
         nominees, votes, credit agreement, Item 5.02 ...)

and the best one wins (ties: later quarter, later filing date, doc id).
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Optional

from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.routing.filenames import FORMS

__all__ = ["best_document"]

_FORM_ANNUAL = {"10K", "ANNUALREPORT"}
_YEAR_PRIOR = {"10K": 3.0, "ANNUALREPORT": 2.9, "10Q": 1.0, "EARNINGS": 0.5, "8K": 0.3, "": 0.2}
_QUARTER_PRIOR = {"10Q": 3.0, "EARNINGS": 2.0, "10K": 1.0, "ANNUALREPORT": 0.9, "8K": 0.3, "": 0.2}
_Q4_EARNINGS_PRIOR = 2.0
_NAMED_FORM, _ANNUAL_FAMILY, _EARNINGS_CUE, _EVENT_CUE = 5.0, 4.5, 2.0, 3.0
_DATE_WINDOW = (-2, 14)  # days the filing may be before / after the date in the question


def _is_period_end(iso: str) -> bool:
    return iso[5:] in ("03-31", "06-30", "09-30", "12-31")


def _doc_year(d: DocumentInfo) -> Optional[int]:
    if d.fiscal_year:
        return d.fiscal_year
    return int(d.filed_date[:4]) if d.filed_date and d.filed_date[:4].isdigit() else None


def best_document(docs: list[DocumentInfo], name: str, ex: ExtractedMetadata, cues: set[str],
                  default_year: int) -> tuple[Optional[str], str, str]:
    """(doc id or None, status, reason): the filing of one company (`docs`, display `name`) to read."""
    forms = {f for f in (ex.forms or []) if f in FORMS}
    quarters, fy_years = [], []
    for p in ex.periods or []:
        m = re.fullmatch(r"(\d{4})Q([1-4])", str(p).strip().upper())
        if m:
            quarters.append((int(m.group(1)), int(m.group(2))))
        m = re.fullmatch(r"FY\s*(\d{4})", str(p).strip().upper())
        if m:
            fy_years.append(int(m.group(1)))
    years = set(fy_years) | {y for y, _ in quarters} if (fy_years or quarters) \
        else {int(y) for y in ex.years or [] if str(y).isdigit()}
    dates = [d for d in (ex.dates or []) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(d))]

    dated = _by_date(docs, dates)
    if dated:
        doc, delta = dated
        return doc.doc_id, "filename_fallback", f"{name}: filing dated {doc.filed_date}, {delta} day(s) " \
                                                f"after the date in the question"
    if not years and dates:
        years = {int(d[:4]) for d in dates}
    for y, q in sorted(set(quarters), reverse=True):
        cands = [d for d in docs if _doc_year(d) == y and d.quarter == q]
        if cands:
            return _pick(cands, "quarter", forms, cues, f"{name} {y}Q{q}")
    for y in sorted(years, reverse=True):
        cands = [d for d in docs if _doc_year(d) == y]
        if cands:
            return _pick(cands, "year", forms, cues, f"{name} fiscal {y}")
    if years or quarters:
        asked = ", ".join([f"{y}Q{q}" for y, q in quarters] + [f"FY{y}" for y in sorted(years)])
        have = ", ".join(sorted({str(_doc_year(d)) for d in docs}))
        return None, "fallback_no_files_on_disk", f"{name}: no filing for {asked} (have {have})"
    have_years = sorted({y for y in (_doc_year(d) for d in docs) if y})
    year = default_year if default_year in have_years else (have_years[-1] if have_years else None)
    cands = [d for d in docs if _doc_year(d) == year] or docs
    doc_id, _, why = _pick(cands, "year", forms, cues, f"{name} fiscal {year}")
    how = "default year" if year == default_year else f"latest year (none in {default_year})"
    return doc_id, "default_year", f"no period in the question, {how}: {why}"


def _by_date(docs: list[DocumentInfo], dates: list[str]) -> Optional[tuple[DocumentInfo, int]]:
    best = None
    for iso in dates:
        if _is_period_end(iso):
            continue
        asked = _dt.date.fromisoformat(iso)
        for d in docs:
            if not d.filed_date:
                continue
            try:
                delta = (_dt.date.fromisoformat(d.filed_date) - asked).days
            except ValueError:
                continue
            if _DATE_WINDOW[0] <= delta <= _DATE_WINDOW[1]:
                rank = (delta < 0, abs(delta), d.doc_id)
                if best is None or rank < best[0]:
                    best = (rank, d, delta)
    return (best[1], best[2]) if best else None


def _score(d: DocumentInfo, level: str, forms: set[str], cues: set[str]) -> float:
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
    return s


def _pick(cands: list[DocumentInfo], level: str, forms: set[str], cues: set[str],
          what: str) -> tuple[str, str, str]:
    ranked = sorted(cands, key=lambda d: (_score(d, level, forms, cues), d.quarter or 0,
                                          d.filed_date or "", d.doc_id), reverse=True)
    best = ranked[0]
    if len(cands) == 1:
        return best.doc_id, "exact_path", f"{what}: the only filing"
    runner = ranked[1]
    return best.doc_id, "filename_fallback", (
        f"{what}: {len(cands)} filings, {best.form or '?'} scored "
        f"{_score(best, level, forms, cues):.1f} vs {runner.doc_id} "
        f"{_score(runner, level, forms, cues):.1f}"
        + (f" (cues: {', '.join(sorted(cues))})" if cues else "")
        + (f" (forms: {', '.join(sorted(forms))})" if forms else ""))
