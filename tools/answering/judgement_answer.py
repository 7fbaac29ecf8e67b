"""Judgement questions answered from computed figures (issue 50): "Is 3M a capital-intensive business?", "Does Amcor
have an improving gross margin profile?", "Does Verizon have a healthy liquidity profile based on its quick ratio?".

    result = answer_judgement(facts, info, measure)    # a ReaderResult; `measure` computes one catalog metric

The rules are data (`finrag.tools.vocabulary.judgements`, the judgement catalog): which metrics of the metric catalog
decide, against which threshold, in which words. Each figure is computed as finrag computes any catalog metric (the
`measure` kind: the routed filing's tagged facts, else its statement tables), from the routed filing only, every input
cited. The answer leads with the verdict ("Yes: ...", "No: ...", "Improved: ..."), says that it is a judgement and the
convention it reads the figures by, then shows the figures and their inputs.

* **level**: the asked year's value of each test's metric against its threshold; the first test decides, the others
  are shown beside it (and said when they read the other way).
* **trend**: the named metric over every year the filing reports (up to three, or the span the question names); the
  latest year's change decides, read against the metric's better direction (`good`).

Where the metric is not meaningful for the company (a lender's gross margin or working capital) the reader's "not a
useful metric" answer is the answer; where a deciding figure cannot be computed the answer says which inputs are
missing and gives no verdict.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.render import fmt_money, fmt_value, possessive
from finrag.tools.question import read_question
from finrag.tools.sequences import uniq
from finrag.tools.vocabulary.judgements import JUDGEMENTS, NAMED, Judgement, Test
from finrag.tools.vocabulary.metrics import METRICS, Metric

__all__ = ["Measure", "answer_judgement", "metric_question", "period_label"]

Measure = Callable[[str, QuestionFacts], ReaderResult]
"""Computes one catalog metric for one year: (the question in finrag's words, its reading) -> the reader's result."""

_TREND_YEARS = 3
"""A 10-K's income and cash flow statements report three fiscal years (its balance sheet two)."""


def period_label(year: int, quarter: Optional[int] = None) -> str:
    """'FY2022', or 'Q2 FY2023' for a quarter."""
    return f"Q{quarter} FY{year}" if quarter else f"FY{year}"


def metric_question(metric: str, year: int, quarter: Optional[int] = None) -> tuple[str, QuestionFacts]:
    """The question one figure of a judgement asks, in finrag's words ("What was the quick ratio in FY2022?", "... in
    Q2 FY2023?"), and its reading: that catalog metric for that period, one value, allowed to be said not useful for
    the company."""
    text = f"What was the {METRICS[metric].display} in {period_label(year, quarter)}?"
    facts = read_question(text).model_copy(update={
        "metric": metric, "line_item": None, "formula": None, "yesno": False, "direction": "", "judgement": None,
        "aggregate": "single", "series_years": None, "form": "", "applicability": True, "asks_percent": False,
        "share_of_total": False, "ranking": None, "cover": None, "member_cue": None})
    return text, facts


def _value_text(metric: Metric, value: float) -> str:
    if metric.unit == "currency":
        return fmt_money(value, "millions")
    return fmt_value(value, metric.unit, metric.decimals)


def _cites(result: ReaderResult) -> str:
    return " ".join(uniq(f.cite for f in result.found))


def _figures(result: ReaderResult) -> str:
    """The computation as the metric answer shows it: from its formula on (the formula, every input cited)."""
    at = result.answer.find("Formula:")
    return result.answer[at:].strip() if at >= 0 else result.answer.strip()


_INPUT = re.compile(r"(?:^\s*|;\s*)([A-Za-z][\w&%,' -]*?) ((?:FY|Q[1-4] )\d{4})[^=;]*= "
                    r"(\(?-?\$?[\d,.]+\)?(?: (?:million|billion|thousand))?)")


def _with_billions(value: str) -> str:
    """An amount in millions of a billion or more, also in billions as a filing's prose rounds it ("$20,286 million"
    -> "$20,286 million ($20.3 billion)"): the sentence that states the figure writes it so."""
    m = re.fullmatch(r"([-(]*)\$?([-(]*)([\d,]+(?:\.\d+)?)\)? million", value.strip())
    if not m:
        return value
    amount = float(m.group(3).replace(",", ""))
    if amount < 1000:
        return value
    sign = "-" if m.group(1) or m.group(2) else ""
    return f"{value} ({sign}${amount / 1000:,.1f} billion)"


def _inputs_brief(result: ReaderResult, billions: bool = True) -> str:
    """The inputs of a computed figure, as its answer lists them after "Inputs:" ("capital expenditure $442 million,
    total revenue $17,606 million"): a ratio judged is shown with the amounts it divides, which the filing states."""
    at = result.answer.find("Inputs:")
    if at < 0:
        return ""
    text = result.answer[at + len("Inputs:"):]
    text = text[:m.start()] if (m := re.search(r"\. (?:Result|Average|Values)\b", text)) else text
    found = _INPUT.findall(text)
    names = [name.strip() for name, _period, _value in found]
    found = [(name, period, _with_billions(value) if billions else value) for name, period, value in found]
    # an input read for two periods ("total revenue" of a growth) is named with its period
    return ", ".join(uniq(f"{name}{f' {period}' if names.count(name) > 1 else ''} {value}"
                          for name, (_n, period, value) in zip(names, found)))


def _asked_year(facts: QuestionFacts, info: dict) -> Optional[int]:
    years = facts.head_years or facts.years_written or facts.years
    if years:
        return max(years)
    return int(info["fiscal_year"]) if info.get("fiscal_year") else None


def _asked_quarter(facts: QuestionFacts, info: dict) -> Optional[int]:
    """The fiscal quarter the figures are for: the one the question names, else a 10-Q's own when the question asks
    no year ("Is Pfizer profitable?" over its Q2 10-Q: the quarter's columns); None for a year."""
    if len(set(facts.quarters)) == 1:
        return facts.quarters[0]
    quarterly = str(info.get("form") or "").upper().replace("-", "") == "10Q"
    return int(info["quarter"]) if quarterly and info.get("quarter") and not facts.asks_annual else None


def _words(judgement: Judgement, yes: bool, info: dict, metric: Optional[Metric]) -> str:
    company = str(info.get("company") or "the company")
    template = judgement.yes if yes else judgement.no
    return template.format(company=company, whose=possessive(company, "the company's"),
                           metric=metric.display if metric is not None else "metric")


def _missing(what: str, metric: Metric, period: str, result: ReaderResult) -> str:
    """No verdict: what was needed and not found (never a guess, never another filing's figure)."""
    miss = ", ".join(result.missing) or "its inputs"
    found = "; ".join(uniq(f"{f.label} = {f.raw or f.value} {f.cite}" for f in result.found))
    return (f"Not judged: whether {what} needs the {period} {metric.display}, which could not be computed from the "
            f"routed filing: {miss} not found." + (f" Found: {found}." if found else ""))


def _tests(judgement: Judgement, named: Optional[str]) -> list[tuple[Test, str]]:
    """The judgement's tests with their metrics: the one the question names where a test allows it, without repeats."""
    out: list[tuple[Test, str]] = []
    for test in judgement.tests:
        metric = named if test.metric == NAMED or (named and named in test.named) else test.metric
        if metric and metric in METRICS and metric not in [m for _t, m in out]:
            out.append((test, metric))
    return out


def _level(judgement: Judgement, facts: QuestionFacts, info: dict, measure: Measure) -> Optional[ReaderResult]:
    year = _asked_year(facts, info)
    tests = _tests(judgement, facts.metric)
    if year is None or not tests:
        return None
    quarter = _asked_quarter(facts, info)
    period = period_label(year, quarter)
    results = [(test, METRICS[m], measure(*metric_question(m, year, quarter))) for test, m in tests]
    test, metric, first = results[0]
    if first.not_applicable:
        return first
    what = _words(judgement, True, info, metric)
    if not first.confident or first.value is None:
        return ReaderResult(answer=_missing(what, metric, period, first), confident=False, kind="metric",
                            plan=first.plan, found=first.found, missing=first.missing, pages_added=first.pages_added)
    passes = test.passes(first.value)
    reading = (metric.threshold_text if test.metric == NAMED and metric.threshold_text else test.reading)
    lead = (f"{'Yes' if passes else 'No'}: {_words(judgement, passes, info, metric)}, judged by its {period} figures: "
            f"its {metric.display} was {_value_text(metric, first.value)}"
            + (f" ({inputs})" if (inputs := _inputs_brief(first)) else "")
            + (f" ({test.negative_reading})" if test.negative_reading and first.value < 0 else "")
            + f" {_cites(first)}.")
    parts = [lead]
    others = []
    for t, m, r in results[1:]:
        if r.confident and r.value is not None:
            agrees = t.passes(r.value) == passes
            others.append(f"Its {m.display} was {_value_text(m, r.value)} {_cites(r)}"
                          + ("" if agrees else ", which reads the other way") + ".")
        else:
            others.append(f"Its {m.display} could not be computed ({', '.join(r.missing) or 'inputs'} not found).")
    parts += others
    readings = "; ".join(x for x in [reading] + [t.reading for t, _m, _r in results[1:]] if x)
    parts.append(f"This is a judgement, not a figure the filing states: {readings}"
                 + ("; the first measure decides" if len(results) > 1 else "") + ".")
    parts.append("Figures: " + " ".join(f"{m.display} {period}: {_figures(r)}" for _t, m, r in results
                                       if r.confident and r.value is not None))
    found = [f for _t, _m, r in results if r.confident for f in r.found]
    pages = uniq(p for _t, _m, r in results if r.confident for p in r.pages_added)
    return ReaderResult(answer=" ".join(parts), confident=True, kind="metric", plan=first.plan, found=found,
                        pages_added=pages, value=first.value, formula=first.formula, extraction=first.extraction,
                        facts_context=first.facts_context)


def _trend_years(facts: QuestionFacts, info: dict) -> list[int]:
    written = sorted(set(facts.head_years or facts.years_written))
    if len(written) >= 2:  # "between FY2023 and FY2022": the span asked
        return list(range(written[0], written[-1] + 1))[-6:]
    last = _asked_year(facts, info)
    return list(range(last - _TREND_YEARS + 1, last + 1)) if last else []


def _direction_words(values: list[tuple[int, float]], high: bool) -> str:
    """'better each year' or 'worse each year' over three or more years that all moved one way, else ''."""
    steps = [(b[1] > a[1]) == high if b[1] != a[1] else None for a, b in zip(values, values[1:])]
    if len(steps) < 2 or None in steps or len(set(steps)) != 1:
        return ""
    return f" It was {'better' if steps[0] else 'worse'} in each year from FY{values[0][0]} to FY{values[-1][0]}."


def _trend(judgement: Judgement, facts: QuestionFacts, info: dict, measure: Measure) -> Optional[ReaderResult]:
    name = facts.metric
    years = _trend_years(facts, info)
    if name is None or name not in METRICS or len(years) < 2:
        return None
    metric = METRICS[name]
    quarter = _asked_quarter(facts, info)
    computed = {y: measure(*metric_question(name, y, quarter)) for y in years}
    last, before = years[-1], years[-2]
    for y in (last, before):
        r = computed[y]
        if r.not_applicable:
            return r
        if not r.confident or r.value is None:
            what = _words(judgement, True, info, metric)
            return ReaderResult(answer=_missing(what, metric, period_label(y, quarter), r), confident=False, kind="metric", plan=r.plan,
                                found=r.found, missing=r.missing, pages_added=r.pages_added)
    shown = [(y, computed[y]) for y in years if computed[y].confident and computed[y].value is not None]
    values = [(y, float(r.value or 0.0)) for y, r in shown]
    high = metric.good == "high"
    v0, v1 = float(computed[before].value or 0.0), float(computed[last].value or 0.0)
    better = v1 != v0 and (v1 > v0) == high
    yesno = facts.yesno or facts.form == "yesno"  # "Based on FY2023, is ... improving?" asks yes or no too
    worse = v1 != v0 and not better
    asked = worse if judgement.worse else better  # "is it getting worse?" is answered Yes when it got worse
    verdict = ("Yes" if asked else "No") if yesno else ("Improved" if better else "Declined" if v1 != v0
                                                                 else "Unchanged")
    cites = [_cites(computed[y]) for y, _v in values]
    same = len(set(cites)) == 1  # one statement page for every year: cited once
    series = ", ".join(f"{period_label(y, quarter)} {_value_text(metric, v)}" + ("" if same else f" {c}") for (y, v), c in zip(values, cites))
    series += f" {cites[0]}" if same else ""
    # a margin's change is written in basis points too, as filings write it ("up 100 basis points")
    step = float(f"{v1 - v0:.1f}")  # the change in percentage points as shown; its basis points agree with it
    delta = (f"{step:+.1f} percentage points, {round(100 * step):+d} basis points" if metric.unit == "percent" else
             fmt_money(v1 - v0, "millions") if metric.unit == "currency" else f"{v1 - v0:+.2f}")
    moved = "rose" if v1 > v0 else "fell" if v1 < v0 else "was unchanged"
    change = (f"{moved} from {_value_text(metric, v0)} in {period_label(before, quarter)} to {_value_text(metric, v1)} "
              f"in {period_label(last, quarter)} ({delta})")
    # the two years' amounts the metric divides, which the filing states ("operating income $11,987 million")
    amounts = [f"{period_label(y, quarter)} {inputs}" for y in (before, last)
               if (inputs := _inputs_brief(computed[y], billions=False))]
    change += f". From: {'; '.join(amounts)}" if amounts else ""
    text = (f"{verdict}: {_words(judgement, asked, info, metric)}: it {change}." if yesno else
            f"{verdict}: {possessive(str(info.get('company') or ''), 'The company')} {metric.display} {change}.")
    text += f" By fiscal year: {series}." + _direction_words(values, high)
    text += (f" This is a judgement, not a figure the filing states: a metric is read as "
             f"{'getting worse' if judgement.worse else 'improving'} when its latest "
             f"year is {'worse' if judgement.worse else 'better'} than the year before ({'higher' if high else 'lower'} is better for {metric.display}).")
    text += f" Figures ({period_label(last, quarter)}): {_figures(computed[last])}"
    found = [f for _y, r in shown for f in r.found]
    pages = uniq(p for _y, r in shown for p in r.pages_added)
    return ReaderResult(answer=text, confident=True, kind="metric", plan=computed[last].plan, found=found,
                        pages_added=pages, value=v1 - v0, formula=computed[last].formula,
                        extraction=computed[last].extraction, facts_context=computed[last].facts_context)


def answer_judgement(facts: QuestionFacts, info: Optional[dict], measure: Measure) -> Optional[ReaderResult]:
    """The judgement `facts.judgement` answered from the routed filing's figures (see the module docstring), or None
    when the question asks none, or names no year and the filing has none (another kind answers)."""
    judgement = JUDGEMENTS.get(facts.judgement or "")
    if judgement is None:
        return None
    info = info or {}
    if judgement.mode == "trend":
        return _trend(judgement, facts, info, measure)
    return _level(judgement, facts, info, measure)

