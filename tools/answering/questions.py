"""What a question asks the reader for: a metric or line item, which fiscal years, units and rounding.

`plan_question(question, years=..., fiscal_year=...)` returns a `Plan`. The years come from the question
text (ranges such as "FY2019 - FY2021" or "from FY2016 to FY2018" need the text), then from the routing
step's extracted years, then from the routed filing's fiscal year.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from finrag.tools.answering.line_items import LINE_ITEMS, item_in_question
from finrag.tools.answering.metrics import Metric, metric_in_question

__all__ = ["Plan", "plan_question", "question_years", "period_kind"]

_FY = re.compile(r"(?i)\b(?:fy|fiscal(?: year)?|year(?: end)?|calendar year|cy)?\s*'?((?:19|20)\d\d|\d\d)\b")
_FY4 = re.compile(r"(?i)\b(?:fy\s*|fiscal(?: year)?\s*|year\s*)?((?:19|20)\d\d)\b")
_FY2 = re.compile(r"(?i)\bfy\s*'?(\d\d)\b")
_RANGE = re.compile(r"(?i)(?:from|between)?\s*(?:fy|fiscal(?: year)?)?\s*'?((?:19|20)?\d\d)\s*(?:-|–|to|and|through|until)\s*"
                    r"(?:the\s+)?(?:fy|fiscal(?: year)?)?\s*'?((?:19|20)?\d\d)\b")
_NUMWORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_AVG = re.compile(r"(?i)\b(two|three|four|five|[2-5])[- ]year average\b|\baverage of\b.*\bfrom\b")
_CAGR = re.compile(r"(?i)\bcagr\b|compound annual growth")
_GROWTH = re.compile(r"(?i)\bgrowth rate\b|year[- ]over[- ]year (?:change|growth)|\byoy\b|\b% change\b|"
                     r"\bchange in\b|\bgrowth in\b|\bhow much has\b.*\bchanged\b|\bchanged? between\b|\bgrow\b|\bgrew\b|"
                     r"\bincreased?\b.*\bbetween\b|\bdecreased?\b.*\bbetween\b|\bimprov(?:e|ed|ing)\b|\bdeclin(?:e|ed|ing)\b")
_YESNO = re.compile(r"(?i)^\s*(?:does|did|is|are|has|have|was|were|can|could|will|would|should)\b")
_DRIVERS = re.compile(r"(?i)\bwhat (?:drove|drives|caused|led to|explains?|were the (?:main |primary )?(?:drivers|reasons))\b|"
                      r"\bwhy did\b|\bwhat (?:is|was|were) the (?:main |primary )?(?:driver|reason)s?\b|\bwhy\b")
_SCALE = re.compile(r"(?i)\b(?:in|usd|\$)\s*(?:usd\s*)?(thousands|millions|billions)\b|\bunits of (?:usd )?(millions|billions|thousands)")
_DECIMALS = re.compile(r"(?i)round(?:ed)?(?: your answer)? to (one|two|three|zero|no|\d) decimal")
_ALTERNATIVES = re.compile(r"(?i)\b(?:improved|increased?|grown|grew|risen|higher) or (?:declined|decreased?|fallen|lower|"
                           r"worsened)\b")
_QUARTER = re.compile(r"(?i)\bq([1-4])\b|\b(first|second|third|fourth) quarter\b")
_QUARTER_WORDS = {"first": "1", "second": "2", "third": "3", "fourth": "4"}
_BOILERPLATE = re.compile(r"(?i)\bif (?:the )?[\w ,&%/-]+ (?:is )?not (?:a )?(?:useful|relevant|something)\b.*$")
_QUALIFIERS = re.compile(r"(?i)\b(?:which|why|drove|drivers?|reasons?|categor(?:y|ies)|segments?|regions?|regional|"
                         r"geograph\w*|domestic|international|adjusted|non[- ]?gaap|organic|real|excluding|exclude[sd]?|"
                         r"constant currency|comparable|wages?|per store|stores?|spend|occurred|guidance|expects?|"
                         r"expected|forecast|numerator|denominator|per share|eps|headcount|employees|backlog|"
                         r"capital[- ]intensive|high growth)\b")
_US = re.compile(r"\b(?:US|U\.S\.|USA)\b")
# which period of a filing a question asks about (shared with the XBRL fact answerer)
YTD = re.compile(r"(?i)\b(?:six|nine) months\b|\byear[- ]to[- ]date\b|\bytd\b|\bfirst (?:half|six|nine)\b|"
                 r"\b(?:first|1st) (?:two|three) quarters\b|\bh1\b")
QTR = re.compile(r"(?i)\bq[1-4]\b|\bquarter\b|\bthree months\b|\b[1-4]q\b")
ANNUAL = re.compile(r"(?i)\bfiscal(?: year)?\b|\bfy\s*'?\d|\bannual\b|\bfull[- ]year\b|\bfor (?:the )?(?:year|twelve months)\b|"
                    r"\bin (?:19|20)\d\d\b")
_YTD_MONTHS = re.compile(r"(?i)\b(six|nine) months\b|\bfirst (half|six|nine)\b|\b(?:first|1st) (two|three) quarters\b|\b(h1)\b")
_WORDNUM = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3}


@dataclass
class Plan:
    """The reader's reading of a question."""

    kind: str
    """'metric', 'item', or 'other' (no metric or line item the reader knows)."""
    metric: Optional[Metric] = None
    item: Optional[str] = None
    years: list[int] = field(default_factory=list)
    """Fiscal years the answer is about, oldest first (one for a plain value, two for a change, N for an average)."""
    aggregate: str = "single"
    """'single', 'average' (mean of per-year values), 'change' (from the first year to the last), 'cagr'."""
    yesno: bool = False
    direction: str = ""
    """For yes/no: 'positive', 'healthy', 'increase', 'decrease', 'improve'."""
    scale: Optional[str] = None
    """Requested scale: 'thousands', 'millions', 'billions' (None: as in the filing)."""
    decimals: Optional[int] = None
    drivers: bool = False
    quarter: Optional[int] = None
    """The fiscal quarter the question asks about (1-4), when it names one."""
    period: str = "annual"
    """'quarter', 'ytd' or 'annual' (`period_kind`): which column of a statement spanning periods to read."""
    months: Optional[int] = None
    """The months of that period (3, 6, 9 or 12) when known."""
    blocked: str = ""
    """Why the reader should not answer this question itself (a qualifier it does not model), or ''."""


def _year(tok: str) -> int:
    y = int(tok)
    return y if y >= 100 else 2000 + y


def question_years(question: str) -> list[int]:
    """Four-digit fiscal years named in the question ('FY2018', 'fiscal 2019', 'FY20'), in order of appearance."""
    out = [(m.start(), int(m.group(1))) for m in _FY4.finditer(question)]
    out += [(m.start(), 2000 + int(m.group(1))) for m in _FY2.finditer(question)]
    seen, years = set(), []
    for _, y in sorted(out):
        if y not in seen:
            seen.add(y)
            years.append(y)
    return years


def period_kind(question: str, quarterly: bool) -> str:
    """'quarter', 'ytd' or 'annual': the period a question asks of a filing (`quarterly`: a 10-Q, whose
    default is its quarter); year to date only in a 10-Q."""
    if YTD.search(question) and quarterly:
        return "ytd"
    if QTR.search(question) or (quarterly and not ANNUAL.search(question)):
        return "quarter"
    return "annual"


def ytd_months(question: str, quarter: Optional[int]) -> Optional[int]:
    """6 or 9 for a year-to-date question: from its words ('nine months', 'first half'), else the filing's quarter."""
    m = _YTD_MONTHS.search(question)
    if m:
        word = next(g for g in m.groups() if g).lower()
        return {"six": 6, "half": 6, "two": 6, "h1": 6, "nine": 9, "three": 9}[word]
    return 3 * quarter if quarter and quarter > 1 else None


def _blocked(head: str, metric: Optional[Metric], question: str, item: Optional[str] = None) -> str:
    """A qualifier in the question that changes what is asked beyond the metric or line item."""
    text = _BOILERPLATE.sub("", head)
    if metric is not None:
        for p in metric.question:
            text = re.sub(p, " ", text, flags=re.I)
    if item is not None and LINE_ITEMS[item].per_share:  # 'diluted EPS' names the item, not a qualifier
        for p in LINE_ITEMS[item].question:
            text = re.sub(p, " ", text, flags=re.I)
    m = _QUALIFIERS.search(text) or _US.search(text)
    return f"the question asks about '{m.group(0)}', which the reader does not model" if m else ""


def plan_question(question: str, *, years: Optional[list[int]] = None, fiscal_year: Optional[int] = None,
                  quarter: Optional[int] = None, form: str = "") -> Plan:
    """How the reader should answer `question`; `years` are the routing step's extracted years, and
    `fiscal_year`, `quarter` and `form` ('10K', '10Q') the routed filing's."""
    q = " ".join(question.split())
    head = re.split(r"(?i)\b(?:is defined as|defined as|calculate (?:unadjusted )?\w+ using|where)\b", q)[0]
    bare = re.sub(r"\s*\([^)]*\)", "", head)
    metric = metric_in_question(bare) or metric_in_question(head) or metric_in_question(q)
    items = item_in_question(head)
    plan = Plan(kind="metric" if metric else ("item" if items else "other"), metric=metric,
                item=None if metric or not items else items[0][1])
    plan.yesno = bool(_YESNO.match(q)) and not _ALTERNATIVES.search(q)
    plan.blocked = _blocked(head, metric, q, plan.item)
    qs = {_QUARTER_WORDS.get((m.group(1) or m.group(2)).lower(), m.group(1)) for m in _QUARTER.finditer(q)}
    if qs:
        plan.quarter = int(next(iter(qs))) if len(qs) == 1 else None
        years_named = len(_FY4.findall(q)) + len(_FY2.findall(q))
        # a 10-Q whose quarter is not known (no dei facts, a cover without it) is taken to be the one asked
        unknown = quarter is None and str(form or "").upper().replace("-", "") == "10Q"
        if len(qs) > 1 or (plan.quarter != quarter and not unknown) or len(_QUARTER.findall(q)) < years_named:
            plan.blocked = plan.blocked or "a quarter the routed filing's columns may not hold"
    plan.period = period_kind(q, str(form or "").upper().replace("-", "") == "10Q")
    plan.months = {"quarter": 3, "annual": 12}.get(plan.period) or ytd_months(q, quarter or plan.quarter)
    plan.drivers = bool(_DRIVERS.search(q))
    m = _SCALE.search(q)
    plan.scale = (m.group(1) or m.group(2)).lower() if m else None
    m = _DECIMALS.search(q)
    if m:
        w = m.group(1).lower()
        plan.decimals = _WORDNUM.get(w, int(w) if w.isdigit() else None)

    qyears = question_years(head) or question_years(q) or sorted(set(years or []))
    rng = _RANGE.search(head)
    avg = _AVG.search(head)
    if _CAGR.search(head):
        plan.aggregate = "cagr"
    elif avg:
        plan.aggregate = "average"
    elif _GROWTH.search(head):
        plan.aggregate = "change"
    # "average" over a span of years means an average of yearly values, unless the metric itself averages
    # two balances ("net income over the average of FY2018 and FY2019 total assets")
    averaging_metric = metric is not None and any(i.offset for i in metric.inputs)
    if rng and plan.aggregate == "single" and re.search(r"(?i)\baverage\b", head) and not averaging_metric:
        plan.aggregate = "average"
    if rng:
        a, b = sorted((_year(rng.group(1)), _year(rng.group(2))))
        if plan.aggregate in ("average", "cagr"):
            qyears = list(range(a, b + 1))
        elif plan.aggregate == "change" or (plan.yesno and a != b):
            qyears = [a, b]
            plan.aggregate = "change"
    if plan.aggregate == "average" and avg and avg.group(1):
        n = _NUMWORDS.get(avg.group(1).lower(), 0)
        end = max(qyears) if qyears else fiscal_year
        if n and end:
            qyears = list(range(end - n + 1, end + 1))
    if not qyears and fiscal_year:
        qyears = [fiscal_year]
    if plan.aggregate == "single" and qyears:
        qyears = qyears[:1]
    if plan.aggregate in ("change", "cagr") and len(qyears) == 1:
        qyears = [qyears[0] - 1, qyears[0]]
    plan.years = sorted(set(qyears))
    if plan.aggregate == "change" and len(plan.years) > 2:
        plan.years = [plan.years[0], plan.years[-1]]
    ql = q.lower()
    if plan.yesno:
        if re.search(r"\bpositive\b", ql):
            plan.direction = "positive"
        elif re.search(r"\b(?:healthy|adequate|strong) liquidity|\bhealthy\b", ql):
            plan.direction = "healthy"
        elif re.search(r"\bimprov", ql):
            plan.direction = "improve"
        elif re.search(r"\b(?:increase|grow|grew|rise|rose|higher)", ql):
            plan.direction = "increase"
        elif re.search(r"\b(?:decrease|decline|drop|fall|fell|reduc|lower)", ql):
            plan.direction = "decrease"
    elif re.search(r"\bimproved or declined\b|\bincreased? or decreased?\b", ql):
        plan.direction = "improve"
    if plan.direction in ("improve", "increase", "decrease") and plan.aggregate == "single" and plan.years:
        plan.aggregate = "change"
        plan.years = [plan.years[0] - 1, plan.years[0]] if len(plan.years) == 1 else plan.years
    return plan
