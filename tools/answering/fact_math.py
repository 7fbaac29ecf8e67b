"""Changes, margins and ratios computed from an inline-XBRL filing's own tagged facts, the arithmetic shown.

    result = answer_computed(asked, facts, doc_id, info)   # a ReaderResult, or None (the table reader tries)

* **A metric** of the reader's registry (`metrics.METRICS`: gross/operating/net margin, current ratio,
  debt to equity, free cash flow, ROA...) whose inputs are all tagged: each input is the line item's fact for the
  asked period (`xbrl_facts.choose_fact`; an input of the year before for averages), the metric's own formula
  computes the result (an input it can do without may be missing: gross profit, or revenue less COGS). `LongTermDebt` already holds the current maturities: with it, the current portion is not
  added again.
* **A series**: one line item for each of N fiscal years ("for each of the last three fiscal years", "in fiscal
  2022, 2023 and 2024"), from the filing's comparative columns, as a sentence and a small table.
* **A change** of one line item ("By what percentage did ... change from fiscal 2023 to fiscal 2024?", "How
  much did ... grow year over year through Q3?"): this period's fact and the same period a year (or the years
  named) before, both tagged in the filing (a 10-K's comparative columns, a 10-Q's year-ago quarter and year
  to date). The answer states the percent and the absolute change with both inputs and the arithmetic
  ("(391,035 - 383,285) / 383,285 = +2.0%"); against a negative base the percent is said to be computed on its
  absolute value. A change between two dates the question names ("from December 31, 2024 to June 30, 2025")
  takes each operand at its own date, from the routed filing or, when it does not tag that date, from the
  company's other filing that does (two filings, both cited); a date no filing tags is said, never replaced.

Every input is cited to the page its fact is displayed on. When an input is not tagged for the period the
function returns None and the statement-table reader answers as before: nothing here guesses.
"""
from __future__ import annotations

import datetime as _dt
from typing import Callable, Optional, Sequence

from finrag.state.facts import Fact, FactSource
from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts
from finrag.tools.answering.questions import Plan
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.answering.xbrl_facts import (
    CONCEPTS,
    asked_item,
    fact_cite,
    item_display,
    money,
    owner,
    part_display,
)
from finrag.tools.vocabulary.metrics import METRICS, Input, Metric, as_asked

__all__ = ["answer_computed", "change_answer", "change_of", "found_of", "metric_answer", "metric_inputs", "number",
           "picked_inputs", "years_of"]

_TOTAL_DEBT_CONCEPTS = {"us-gaap:LongTermDebt", "us-gaap:LongTermDebtAndCapitalLeaseObligationsIncludingCurrentMaturities"}


def found_of(item: str, fact: Fact, info: dict, label: str = "") -> Found:
    """A fact as one of the reader's inputs (`label`: its concept unless given, "concept [member]")."""
    return Found(item=item, year=int(info.get("fiscal_year") or 0), value=fact.value, label=label or fact.concept,
                 raw=fact.text, header=fact.period.words, doc_id=fact.doc_id, page=max(fact.citation.page, 0),
                 scale=None, statement=None, score=1.0)


def number(value: float, item: str, fact: Fact) -> str:
    """An input as the answer shows it: money in millions (per share to the cent)."""
    return money(value, fact, item).split(" (")[0]


def years_of(info: dict) -> list[int]:
    """The routed filing's fiscal year as a plan's years ([] without one)."""
    return [int(info["fiscal_year"])] if info.get("fiscal_year") else []


MetricInputs = tuple[dict[tuple[str, int], float], list[tuple[str, int, Fact]]]
"""A metric's input values by (item, offset), and the facts picked: (item, offset, fact)."""


def picked_inputs(inputs: Sequence[Input], source: FactSource, asked: QuestionFacts) -> MetricInputs:
    """Each input as `source` reports it for the asked period (an offset of -1: the year before), by (item, offset),
    and the facts picked; an input it lacks is left out (capital expenditure as its magnitude)."""
    values: dict[tuple[str, int], float] = {}
    picked: list[tuple[str, int, Fact]] = []
    for inp in inputs:
        fact = source.fact(inp.item, asked, -inp.offset)
        if fact is None:
            continue
        values[(inp.item, inp.offset)] = abs(fact.value) if inp.item == "capex" else fact.value
        picked.append((inp.item, inp.offset, fact))
    return values, picked


def metric_inputs(metric: Metric, source: FactSource, asked: QuestionFacts) -> Optional[MetricInputs]:
    """Each input of `metric` as `source` reports it (an input it lacks is left out: the formula decides whether it
    can do without, as gross profit or revenue - COGS); None when the metric takes an input the source cannot read."""
    if any(not source.reads(inp.item) or inp.offset not in (0, -1) for inp in metric.inputs):
        return None
    values, picked = picked_inputs(metric.inputs, source, asked)
    lt = next((f for item, off, f in picked if item == "long_term_debt" and off == 0), None)
    if lt is not None and lt.concept in _TOTAL_DEBT_CONCEPTS and ("current_debt", 0) in values:
        del values[("current_debt", 0)]  # LongTermDebt holds the current maturities already
        picked = [p for p in picked if p[0] != "current_debt"]
    return values, picked


def metric_answer(metric: Metric, inputs: MetricInputs, doc_id: str, info: dict, *, of: str = "",
                  member: Optional[tuple[str, str]] = None) -> Optional[ReaderResult]:
    """The metric computed from `inputs` (`metric_inputs`) with its formula and every input cited, or None when the
    formula cannot be computed; `of` and `member` (QName, axis): the member's name and identity when the inputs are
    one member's facts."""
    values, picked = inputs
    try:
        result = metric.compute(values)
    except (KeyError, ZeroDivisionError, TypeError):
        return None
    if result is None:
        return None
    # the answer is dated by the asked period's inputs, never by "the year before"'s (a growth's earlier year)
    dated = [f for _item, off, f in picked if not off] or [f for _item, _off, f in picked]
    when = dated[0].period.words if dated else ""
    days = 1 if metric.name in METRICS and metric.decimals == METRICS[metric.name].decimals else metric.decimals
    shown = {"percent": f"{result:.{metric.decimals}f}%", "ratio": f"{result:.{metric.decimals}f}",
             "days": f"{result:.{days}f} days"}
    if metric.unit == "currency":
        stated = money(result, picked[0][2], "") if picked else f"{result:,.0f}"
    else:
        stated = shown.get(metric.unit, f"{result:.2f}")
        if metric.unit == "ratio" and metric.percent_too:
            stated += f" ({100 * result:.2f}%)"
    named = (lambda item: f"{of} {part_display(item)}") if of else item_display
    listed = "; ".join(f"{named(item)}{' (the year before)' if off else ''} = "
                       f"{number(values.get((item, off), f.value), item, f)} ({f.concept}, {f.period.words}) "
                       f"{fact_cite(f)}" for item, off, f in picked)
    whose = f"{owner(info)} {metric.display}" + (f" of {of}" if of else "")
    of_member = f", of the member {member[0]} ({member[1]})" if member else ""
    answer = (f"{whose} {('for ' + when) if not when.startswith('as of') else when} was {stated}. Formula: "
              f"{metric.display} = {metric.formula}{of_member}. Inputs (the filing's inline XBRL facts"
              f"{' for ' + of if of else ''}): {listed}.")
    shown_inputs = [(item, f) for item, _off, f in picked if f.citation.shown]
    tag = f" [{member[0]}]" if member else ""
    return ReaderResult(answer=answer, confident=True, kind="metric",
                        found=[found_of(item, f, info, f"{f.concept}{tag}") for item, f in shown_inputs],
                        pages_added=list(dict.fromkeys((f.doc_id, f.citation.page) for _i, f in shown_inputs)),
                        value=float(result), plan=Plan(kind="metric", metric=metric, years=years_of(info)),
                        asked="metric", formula=f"{metric.display} = {metric.formula} = {stated}",
                        member=f"{member[0]} ({member[1]})" if member else "")


def _metric(asked: QuestionFacts, metric: Metric, source: XbrlFacts, info: dict) -> Optional[ReaderResult]:
    metric = as_asked(metric, asked.text, asked.asks_percent, asked.decimals)
    inputs = metric_inputs(metric, source, asked)
    return metric_answer(metric, inputs, source.doc_id, info) if inputs is not None else None


def change_of(asked: QuestionFacts, item: str, source: FactSource, info: dict,
              subject: Optional[str] = None) -> Optional[ReaderResult]:
    """The change of `item` from the same period a year (or the years written) before to the asked period, both
    facts from `source` (a filing's, or one member's); None when either is not reported. `subject`:
    `change_answer`'s."""
    years = sorted(set(asked.years_written))
    back = max(years[-1] - years[0] if len(years) >= 2 else 1, 1)
    now = source.fact(item, asked)
    before = source.fact(item, asked, back)
    if now is None or before is None or now == before:
        return None
    plan = Plan(kind="item", item=item, aggregate="change",
                years=sorted({y - back for y in years_of(info)} | set(years_of(info))))
    return change_answer(item, now, before, info, plan, subject=subject)


Related = Callable[[], list[tuple[str, Optional[dict], dict]]]
"""The company's other filings in the index: (doc_id, tagged facts, DocumentInfo as a dict), read when called."""


def change_answer(item: str, now: Fact, before: Fact, info: dict, plan: Plan,
                  subject: Optional[str] = None) -> ReaderResult:
    """The change from `before` to `now`: the percent and the absolute change, both inputs cited, the arithmetic;
    `subject` names what changed (default: the company's line item; "Amazon's revenue from AWS" for a member)."""
    new, old = now.value, before.value
    if item == "capex":
        new, old = abs(new), abs(old)
    diff = new - old
    sign = "+" if diff >= 0 else "-"
    a, b = number(new, item, now), number(old, item, before)
    delta = f"{sign}{number(abs(diff), item, now)}"
    shown_new, shown_old = now.text or a, before.text or b
    if new < 0 and not shown_new.startswith("-"):
        shown_new = f"-{shown_new}"
    if old < 0 and not shown_old.startswith("-"):
        shown_old = f"-{shown_old}"
    pct = None if old == 0 else 100.0 * diff / abs(old)
    head = f"{subject or owner(info) + ' ' + item_display(item)} changed by " + (f"{pct:+.1f}% ({delta})" if pct is not None else delta)
    arithmetic = f"{a} - {b} = {delta}"
    if pct is None:
        arithmetic += "; a percent change is not defined (the earlier value is zero)"
    else:
        base = f"|{shown_old}|" if old < 0 else shown_old
        arithmetic += f"; ({shown_new} - {shown_old}) / {base} = {pct:+.1f}%"
        if old < 0:
            arithmetic += " (the earlier value is negative: the percent is taken on its absolute value)"
    concepts = (f"fact {now.concept} of both periods" if before.concept == now.concept else
                f"facts {before.concept} and {now.concept}")
    source = (f"the filing's inline XBRL {concepts}" if before.doc_id == now.doc_id else
              f"the inline XBRL {concepts}, of two filings ({before.doc_id} and {now.doc_id})")
    when_old, when_new = (p if p.startswith("as of") else "for " + p for p in (before.period.words, now.period.words))
    answer = (f"{head} from {b} {when_old} {fact_cite(before)} to {a} {when_new} "
              f"{fact_cite(now)}. Arithmetic: {arithmetic}. Source: {source}.")
    shown = [f for f in (before, now) if f.citation.shown]
    return ReaderResult(answer=answer, confident=True, kind="metric",
                        found=[found_of(item, f, info) for f in shown],
                        pages_added=list(dict.fromkeys((f.doc_id, f.citation.page) for f in shown)),
                        value=pct if pct is not None else diff, asked="change", formula=arithmetic, plan=plan)


def _dated_change(asked: QuestionFacts, item: str, source: XbrlFacts, info: dict,
                  related: Optional[Related]) -> ReaderResult:
    """A change between the two dates the question names ("from December 31, 2024 to June 30, 2025"): each
    operand is the fact at (or for the period ending on) its date, within a week, from the routed filing or else
    from the company's other filing that tags it; a date no filing tags is said, and nothing is computed (another
    date's value is not the asked one)."""
    doc_id = source.doc_id
    first, last = min(asked.dates), max(asked.dates)
    others: Optional[list[tuple[str, Optional[dict], dict]]] = None
    picked: list[Fact] = []
    missing: list[str] = []
    for date in (last, first):
        at = asked.model_copy(update={"as_of": date, "years_written": [], "dates": [date]})
        hit = source.fact(item, at)
        if hit is None and related is not None:
            others = related() if others is None else others
            for other, other_facts, other_info in sorted(others, key=lambda o: _distance(o[2], date)):
                hit = XbrlFacts(other_facts, other, other_info).fact(item, at) if other_facts else None
                if hit is not None:
                    break
        if hit is None:
            missing.append(date)
        else:
            picked.append(hit)
    display = item_display(item)
    if missing:
        where = f"{doc_id} or the company's other filings in the index" if related is not None else doc_id
        return ReaderResult(answer=f"No tagged {display} for {' or '.join(missing)} was found in {where}, so the change "
                                   f"from {first} to {last} is not computed (another date's value is not the asked "
                                   "one).", confident=False, kind="metric", asked="change",
                            missing=[f"{display} {d}" for d in missing])
    now, before = picked
    plan = Plan(kind="item", item=item, aggregate="change", years=years_of(info))
    return change_answer(item, now, before, info, plan)


def _distance(info: dict, date: str) -> int:
    """Days between a filing's period end and `date` (a filing without one last)."""
    try:
        return abs((_dt.date.fromisoformat(str(info.get("period_end") or "")[:10]) - _dt.date.fromisoformat(date)).days)
    except ValueError:
        return 10 ** 6


def _series(asked: QuestionFacts, item: str, source: XbrlFacts, info: dict) -> Optional[ReaderResult]:
    """One value per fiscal year, the latest asked (or the filing's) last; the years the filing does not tag are
    said to be missing; None when it tags none of them or the periods are not fiscal years."""
    doc_id = source.doc_id
    n = int(asked.series_years or 0)
    fy = int(info["fiscal_year"]) if info.get("fiscal_year") else None
    years = sorted(set(asked.years_written))
    last = years[-1] if years else fy
    picked: list[tuple[int, Fact]] = []
    missing: list[int] = []
    for back in range(n - 1, -1, -1):
        hit = source.fact(item, asked, back)  # from the latest year asked (choose_fact)
        label_year = (last or 0) - back
        if hit is None or any(hit == f for _y, f in picked):
            missing.append(label_year)
            continue
        if "fiscal year" not in hit.period.words and "as of" not in hit.period.words:
            return None  # a 10-Q's quarters are not fiscal years: the reader says what it can
        picked.append((label_year, hit))
    if not picked:
        return None
    display = item_display(item)

    def when(year: int, period: str) -> str:
        date = period.rsplit(" ", 1)[-1]
        return f"FY{year} ({'ended' if 'ended' in period else 'as of'} {date})" if year else period

    cells = [(when(y, f.period.words), number(abs(f.value) if item == "capex" else f.value, item, f), f)
             for y, f in picked]
    listed = "; ".join(f"{w}: {value} {fact_cite(f)}" for w, value, f in cells)
    rows = "\n".join(f"| {w} | {value} | {f.concept} | {fact_cite(f)} |" for w, value, f in cells)
    gap = (f" No tagged {display} for {', '.join(f'FY{y}' for y in missing)} is in {doc_id} (its statements "
           f"hold fewer comparative years)." if missing else "")
    answer = (f"{owner(info)} {display} by fiscal year: {listed}.{gap} Source: the filing's inline XBRL facts.\n\n"
              f"| fiscal year | {display} | concept | source |\n|---|---|---|---|\n{rows}")
    shown = [f for _y, f in picked if f.citation.shown]
    return ReaderResult(answer=answer, confident=not missing, kind="item",
                        found=[found_of(item, f, info) for f in shown],
                        pages_added=[(doc_id, f.citation.page) for f in shown],
                        value=picked[-1][1].value, asked="series",
                        missing=[f"{display} FY{y}" for y in missing],
                        plan=Plan(kind="item", item=item, years=[y for y, _f in picked if y]))


def answer_computed(asked: QuestionFacts, facts: Optional[dict], doc_id: str,
                    info: Optional[dict], related: Optional[Related] = None) -> Optional[ReaderResult]:
    """A metric or a change computed from the tagged facts (see the module docstring), or None; `related` gives
    the company's other filings, for a change between two named dates that the routed filing does not both tag."""
    source = XbrlFacts(facts, doc_id, info)
    if not source or asked.yesno:
        return None
    info = info or {}
    if asked.metric is not None:
        metric = METRICS.get(asked.metric)
        if metric is None or asked.aggregate != "single":
            return None
        return _metric(asked, metric, source, info)
    if asked.aggregate != "change" and not asked.series_years:
        return None
    item = asked_item(asked.head or asked.text)
    if item is None or item not in CONCEPTS:
        return None
    if asked.aggregate == "change" and len(set(asked.dates)) >= 2:
        return _dated_change(asked, item, source, info, related)
    if asked.aggregate == "change":
        return change_of(asked, item, source, info)
    return _series(asked, item, source, info)
