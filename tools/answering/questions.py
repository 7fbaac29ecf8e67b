"""What a question asks the reader for: a metric or line item, which fiscal years, units and rounding.

`plan_question(question, facts=..., years=..., fiscal_year=...)` returns a `Plan` from the question's one
reading (`finrag.state.question.QuestionFacts`, built by `finrag.tools.question.read_question`) and the routed
filing. The years come from the question text (ranges such as "FY2019 - FY2021" or "from FY2016 to FY2018"
need the text), then from the routing step's extracted years, then from the routed filing's fiscal year.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Optional

from finrag.state.question import Aggregate, Direction, QuestionFacts
from finrag.tools.question import read_question
from finrag.tools.question.asks import definition_head
from finrag.tools.vocabulary.line_items import LINE_ITEMS
from finrag.tools.vocabulary.metrics import METRICS, Metric, as_asked, metric_for

__all__ = ["Plan", "plan_question", "period_kind", "ytd_months"]

_BOILERPLATE = re.compile(r"(?i)\bif (?:the )?[\w ,&%/-]+ (?:is )?not (?:a )?(?:useful|relevant|something)\b.*$")
_QUALIFIERS = re.compile(r"(?i)\b(?:which|why|drove|drivers?|reasons?|categor(?:y|ies)|segments?|regions?|regional|"
                         r"geograph\w*|domestic|international|adjusted|non[- ]?gaap|organic|real|excluding|exclude[sd]?|"
                         r"constant currency|comparable|wages?|per store|stores?|spend|occurred|guidance|expects?|"
                         r"expected|forecast|numerator|denominator|per share|eps|headcount|employees|backlog|"
                         r"capital[- ]intensive|high growth)\b")
_US = re.compile(r"\b(?:US|U\.S\.|USA)\b")


@dataclass
class Plan:
    """The reader's reading of a question."""

    kind: Literal["metric", "item", "other"]
    """'metric', 'item', or 'other' (no metric or line item the reader knows)."""
    metric: Optional[Metric] = None
    item: Optional[str] = None
    years: list[int] = field(default_factory=list)
    """Fiscal years the answer is about, oldest first (one for a plain value, two for a change, N for an average)."""
    aggregate: Aggregate = "single"
    """'single', 'average' (mean of per-year values), 'change' (from the first year to the last), 'cagr'."""
    yesno: bool = False
    direction: Direction = ""
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


def period_kind(facts: QuestionFacts, quarterly: bool) -> str:
    """'quarter', 'ytd' or 'annual': the period a question asks of a filing (`quarterly`: a 10-Q, whose
    default is its quarter); year to date only in a 10-Q."""
    if facts.asks_ytd and quarterly:
        return "ytd"
    if facts.asks_quarter or (quarterly and not facts.asks_annual):
        return "quarter"
    return "annual"


def ytd_months(facts: QuestionFacts, quarter: Optional[int]) -> Optional[int]:
    """6 or 9 for a year-to-date question: from its words ('nine months', 'first half'), else the filing's quarter."""
    if facts.ytd_months:
        return facts.ytd_months
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


def plan_question(question: str, *, facts: Optional[QuestionFacts] = None, years: Optional[list[int]] = None,
                  fiscal_year: Optional[int] = None, quarter: Optional[int] = None, form: str = "") -> Plan:
    """How the reader should answer `question` (the question without the routed company's names: a name is no
    qualifier); `facts` is the question's reading (`read_question`, of `question` when not given), `years` the
    routing step's extracted years, and `fiscal_year`, `quarter` and `form` ('10K', '10Q') the routed filing's."""
    facts = facts if facts is not None else read_question(question)
    q = " ".join(question.split())
    head = definition_head(q)
    own = facts.formula is not None and facts.formula.expression is not None and not facts.formula.problems
    metric = metric_for(facts.formula, facts.decimals) if own and facts.formula is not None else (
        as_asked(METRICS[facts.metric], q, facts.asks_percent, None) if facts.metric in METRICS else None)
    plan = Plan(kind="metric" if metric else ("item" if facts.line_item else "other"), metric=metric,
                item=None if own else facts.line_item)
    plan.yesno = facts.yesno
    plan.blocked = "" if own else _blocked(head, metric, q, plan.item)  # the question's formula is what it asks
    quarterly = str(form or "").upper().replace("-", "") == "10Q"
    qs = set(facts.quarters)
    if qs:
        plan.quarter = next(iter(qs)) if len(qs) == 1 else None
        # a 10-Q whose quarter is not known (no dei facts, a cover without it) is taken to be the one asked
        unknown = quarter is None and quarterly
        if len(qs) > 1 or (plan.quarter != quarter and not unknown) or len(facts.quarters) < facts.year_mentions:
            plan.blocked = plan.blocked or "a quarter the routed filing's columns may not hold"
    plan.period = period_kind(facts, quarterly)
    plan.months = {"quarter": 3, "annual": 12}.get(plan.period) or ytd_months(facts, quarter or plan.quarter)
    plan.drivers = facts.drivers
    plan.scale = facts.scale
    plan.decimals = facts.decimals

    # the years as written ("FY2019", "May 26, 2023"), else as routing read them ("'24", "CY2023", or an LLM
    # router's), else as the question names them when nothing was routed (a corpus-wide graph)
    qyears = list(facts.head_years or facts.years_written) or sorted(set(years or facts.years))
    plan.aggregate = facts.aggregate
    # "average" over a span of years means an average of yearly values, unless the metric itself averages
    # two balances ("net income over the average of FY2018 and FY2019 total assets")
    averaging_metric = metric is not None and any(i.offset for i in metric.inputs)
    if facts.year_range and plan.aggregate == "single" and facts.averages_span and not averaging_metric:
        plan.aggregate = "average"
    if facts.year_range:
        a, b = sorted(facts.year_range)
        if plan.aggregate in ("average", "cagr"):
            qyears = list(range(a, b + 1))
        elif plan.aggregate == "change" or (plan.yesno and a != b):
            qyears = [a, b]
            plan.aggregate = "change"
    if plan.aggregate == "average" and facts.average_years:
        end = max(qyears) if qyears else fiscal_year
        if end:
            qyears = list(range(end - facts.average_years + 1, end + 1))
    if not qyears and fiscal_year:
        qyears = [fiscal_year]
    if plan.aggregate == "single" and qyears:
        # the question's own formula dates its operands against the latest year it writes ("inventories at Dec 31,
        # 2023 + inventories at Dec 31, 2024"): that is the year asked
        qyears = [max(qyears)] if own else qyears[:1]
    if plan.aggregate in ("change", "cagr") and len(qyears) == 1:
        qyears = [qyears[0] - 1, qyears[0]]
    plan.years = sorted(set(qyears))
    if plan.aggregate == "change" and len(plan.years) > 2:
        plan.years = [plan.years[0], plan.years[-1]]
    plan.direction = facts.direction
    if plan.direction in ("improve", "increase", "decrease") and plan.aggregate == "single" and plan.years:
        plan.aggregate = "change"
        plan.years = [plan.years[0] - 1, plan.years[0]] if len(plan.years) == 1 else plan.years
    return plan
