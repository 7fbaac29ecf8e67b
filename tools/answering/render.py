"""The reader's answers as text: the result first, then the formula, each input with its citation,
and the arithmetic; or what was found and what could not be found."""
from __future__ import annotations

import math
from typing import Callable, Optional

from finrag.tools.answering.questions import Plan
from finrag.tools.numbers import SCALES
from finrag.tools.numbers import SINGULAR as _SCALE_WORD
from finrag.tools.vocabulary.line_items import LINE_ITEMS, line_item
from finrag.tools.vocabulary.metrics import Metric

__all__ = ["render_answer", "render_not_found", "render_not_applicable", "render_series", "fmt_money", "fmt_value",
           "possessive"]


def fmt_money(dollars: float, scale: Optional[str], *, decimals: Optional[int] = None) -> str:
    """'$1,577 million' for 1.577e9 in millions; '$8.74 billion'; '$2,822,795 thousand'; '$12.50' unscaled."""
    if scale in SCALES:
        v = dollars / SCALES[scale]
        d = decimals if decimals is not None else (2 if scale == "billions" else (0 if abs(v) >= 100 or v == int(v) else 1))
        s = f"{abs(v):,.{d}f}"
        return f"{'-' if v < 0 else ''}${s} {_SCALE_WORD[scale]}"
    d = decimals if decimals is not None else (2 if abs(dollars) < 1000 and dollars != int(dollars) else 0)
    return f"{'-' if dollars < 0 else ''}${abs(dollars):,.{d}f}"


def fmt_value(v: float, unit: str, decimals: Optional[int] = None) -> str:
    if unit == "percent":
        return f"{v:,.{1 if decimals is None else decimals}f}%"
    if unit == "days":
        return f"{v:,.{2 if decimals is None else decimals}f} days"
    return f"{v:,.{2 if decimals is None else decimals}f}"


def possessive(company: str, default: str = "The filing's") -> str:
    """A company's name as a possessive ("Apple's", "American Express'"), `default` without a name."""
    if not company:
        return default
    return f"{company}'" if company.endswith("s") else f"{company}'s"


def _company(company: str) -> str:
    return possessive(company) + " "


def _decimals(f) -> Optional[int]:
    """The decimals printed in the cell ('1,476.2' -> 1), to keep the filing's precision."""
    raw = (f.raw or "").strip("()$%, ")
    return len(raw.split(".")[1]) if "." in raw else None


def _item_value(f, plan: Plan) -> float:
    spec = line_item(f.item)
    dollars = f.in_units()
    return abs(dollars) if spec.sign else dollars


def _source(f) -> str:
    scale = f", {f.scale}" if f.scale else ""
    where = {"income": "income statement", "balance": "balance sheet", "cash_flow": "cash flow statement"}.get(
        f.statement or "", "table")
    return f"{where}, '{f.label}', {f.header} column: {f.raw or f.value}{scale} {f.cite}"


def _inputs(found: dict, items_years: list[tuple[str, int]], scale_req: Optional[str]) -> str:
    parts = []
    for item, year in items_years:
        f = found.get((item, year))
        if f is None:
            continue
        v = abs(f.in_units()) if line_item(item).sign else f.in_units()
        target = scale_req or f.scale
        money = fmt_money(v, target, decimals=_decimals(f) if target == f.scale else None)
        parts.append(f"{line_item(item).display} FY{year} = {money} "
                     f"('{f.label}') {f.cite}")
    return "; ".join(dict.fromkeys(parts))


def _change_words(v0: float, v1: float) -> str:
    return "increased" if v1 > v0 else ("decreased" if v1 < v0 else "was unchanged")


def _yesno_change(plan: Plan, v0: float, v1: float, good: str) -> Optional[str]:
    if not plan.yesno or plan.direction not in ("increase", "decrease", "improve"):
        return None
    up = v1 > v0
    if plan.direction == "increase":
        return "Yes" if up else "No"
    if plan.direction == "decrease":
        return "No" if up else "Yes"
    if not good:
        return None
    return "Yes" if (up == (good == "high")) else "No"


def render_answer(plan: Plan, company: str, found: dict, compute: Callable[[Metric, dict, int], Optional[float]]
                  ) -> tuple[Optional[float], str]:
    """(the result, the answer text); (None, '') when the inputs give no result."""
    if plan.metric is not None:
        return _render_metric(plan, company, found, compute)
    return _render_item(plan, company, found)


def _period_text(plan: Plan, year: int) -> str:
    """'FY2025', 'FY2025 Q2' (a quarter's column), 'FY2025 six months year to date'."""
    if plan.period == "quarter":
        return f"FY{year} Q{plan.quarter}" if plan.quarter else f"FY{year} quarter"
    if plan.period == "ytd":
        words = {6: "six", 9: "nine"}.get(plan.months or 0)
        return f"FY{year} {words + ' months ' if words else ''}year to date"
    return f"FY{year}"


def _years_text(years: list[int]) -> str:
    return f"FY{years[0]}" if len(years) == 1 else f"FY{years[0]}-FY{years[-1]}"


def _render_item(plan: Plan, company: str, found: dict) -> tuple[Optional[float], str]:
    item = plan.item
    if item is None:  # not an item plan: the lookup below raised KeyError(None), as this does
        raise KeyError(item)
    spec = LINE_ITEMS[item]
    fs = [found[(item, y)] for y in plan.years if (item, y) in found]
    if len(fs) != len(plan.years) or not fs:
        return None, ""
    scale = plan.scale or fs[-1].scale
    vals = [_item_value(f, plan) for f in fs]
    sources = " ".join(f"FY{f.year}: {_source(f)}." for f in fs)
    who = _company(company)
    if plan.aggregate == "single":
        v = vals[0]
        same = scale == fs[0].scale
        money = fmt_money(v, scale, decimals=_decimals(fs[0]) if same else None)
        if spec.per_share:  # dollars and cents per share, whatever the table's "in millions"
            money = f"{'-' if v < 0 else ''}${abs(fs[0].value):,.2f} per share"
        return v, f"{who}{_period_text(plan, fs[0].year)} {spec.display} was {money} {fs[0].cite}. Source: {sources}"
    if plan.aggregate == "average":
        v = sum(vals) / len(vals)
        return v, (f"{who}{_years_text(plan.years)} average {spec.display} was {fmt_money(v, scale)}. "
                   f"Values: {sources}")
    v0, v1 = vals[0], vals[-1]
    if plan.aggregate == "cagr":
        n = plan.years[-1] - plan.years[0]
        if v0 <= 0 or v1 <= 0 or n <= 0:
            return None, ""
        g = 100.0 * ((v1 / v0) ** (1.0 / n) - 1.0)
        return g, (f"{who}{n}-year {spec.display} CAGR from FY{plan.years[0]} to FY{plan.years[-1]} was "
                   f"{fmt_value(g, 'percent', plan.decimals)}. Formula: (value FY{plan.years[-1]} / value FY{plan.years[0]})"
                   f"^(1/{n}) - 1. Values: {sources}")
    if v0 == 0:
        return None, ""
    g = 100.0 * (v1 - v0) / abs(v0)
    diff = v1 - v0
    verdict = _yesno_change(plan, v0, v1, "high")
    head = f"{verdict}. " if verdict else ""
    pct = f"{'+' if g > 0 else ''}{fmt_value(g, 'percent', plan.decimals)}"
    text = (f"{head}{who}{spec.display} changed by {pct} from FY{plan.years[0]} to FY{plan.years[-1]}: it "
            f"{_change_words(v0, v1)} from {fmt_money(v0, scale)} to {fmt_money(v1, scale)} "
            f"({'+' if diff > 0 else ''}{fmt_money(diff, scale)}). Values: {sources}")
    return g, text


def _metric_value_text(metric: Metric, v: float, plan: Plan, decimals: Optional[int] = None) -> str:
    if metric.unit == "currency":
        return fmt_money(v, plan.scale or "millions", decimals=decimals)
    text = fmt_value(v, metric.unit, plan.decimals if plan.decimals is not None else metric.decimals)
    return text + (f" ({100 * v:.2f}%)" if metric.unit == "ratio" and metric.percent_too else "")


def _render_metric(plan: Plan, company: str, found: dict, compute) -> tuple[Optional[float], str]:
    m = plan.metric
    assert m is not None  # render_answer calls this for a metric plan only
    per_year = {y: compute(m, found, y) for y in plan.years}
    if any(v is None or (isinstance(v, float) and not math.isfinite(v)) for v in per_year.values()):
        return None, ""
    needs = [(inp.item, y + inp.offset) for y in plan.years for inp in m.inputs]
    scale = plan.scale or next((f.scale for f in found.values() if f.scale), None)
    inputs = _inputs(found, needs, scale)
    who = _company(company)
    years = plan.years
    formula = f"Formula: {m.display} = {m.formula}."
    if plan.aggregate == "single" or len(years) == 1:
        v = per_year[years[0]]
        # a sum or difference of amounts keeps the precision they are printed with ('3,316.1 - 568.7')
        same = [f for f in found.values() if f.scale == (plan.scale or "millions")]
        dec = max((_decimals(f) or 0 for f in same), default=0) if m.unit == "currency" and same else None
        vt = _metric_value_text(m, v, plan, dec)
        head = ""
        if plan.yesno and plan.direction in ("positive", "healthy") and m.threshold is not None:
            ok = v > m.threshold if plan.direction == "positive" else v >= m.threshold
            head = f"{'Yes' if ok else 'No'}. "
            tail = f" ({m.threshold_text})" if m.threshold_text else ""
            return v, (f"{head}{who}FY{years[0]} {m.display} was {vt}{tail}. {formula} Inputs: {inputs}. "
                       f"Result: {vt}.")
        return v, f"{head}{who}FY{years[0]} {m.display} was {vt}. {formula} Inputs: {inputs}. Result: {vt}."
    vals = [per_year[y] for y in years]
    per = ", ".join(f"FY{y}: {_metric_value_text(m, per_year[y], plan)}" for y in years)
    if plan.aggregate == "average":
        v = sum(vals) / len(vals)
        vt = _metric_value_text(m, v, plan)
        return v, (f"{who}{_years_text(years)} {len(years)}-year average {m.display} was {vt} ({per}). {formula} "
                   f"Inputs: {inputs}. Average of the yearly values: {vt}.")
    v0, v1 = vals[0], vals[-1]
    verdict = _yesno_change(plan, v0, v1, m.good)
    if plan.direction == "improve" and not plan.yesno and m.good:
        better = (v1 > v0) == (m.good == "high")
        verdict = "Improved" if better else "Declined"
    head = f"{verdict}. " if verdict else ""
    if m.unit == "percent":
        delta = f"{v1 - v0:+.{plan.decimals if plan.decimals is not None else 1}f} percentage points"
    elif m.unit == "currency":
        delta = _metric_value_text(m, v1 - v0, plan)
        if v0:
            delta += f", {100.0 * (v1 - v0) / abs(v0):+.1f}%"
    else:
        delta = f"{v1 - v0:+.2f}"
    t0, t1 = _metric_value_text(m, v0, plan), _metric_value_text(m, v1, plan)
    return v1 - v0, (f"{head}{who}{m.display} {_change_words(v0, v1)} from {t0} in FY{years[0]} to {t1} in "
                     f"FY{years[-1]} ({delta}). {formula} Inputs: {inputs}.")


def render_not_found(plan: Plan, company: str, found: list, missing: list[str]) -> str:
    """What the reader found, and what it could not find (so it does not answer)."""
    what = plan.metric.display if plan.metric is not None else (LINE_ITEMS[plan.item].display if plan.item else "this")
    years = _years_text(plan.years) if plan.years else ""
    got = "; ".join(f"{line_item(f.item).display} FY{f.year} = {f.raw or f.value}"
                    f"{' (' + f.scale + ')' if f.scale else ''} ('{f.label}') {f.cite}" for f in found)
    miss = ", ".join(missing) if missing else "the inputs"
    text = f"The reader could not compute {years} {what} from the filing's statement tables: {miss} not found."
    if got:
        text += f" Found: {got}."
    return text.replace("  ", " ")


def render_not_applicable(plan: Plan, company: str, missing: list[str], rows: list) -> str:
    """A margin or ratio the question allows to call not useful, of a lender's or insurer's statements: what the
    statement reports instead (`rows`: its lender rows, cited) and what it lacks."""
    what = plan.metric.display if plan.metric is not None else "this metric"
    who = company or "this company"
    lacks = " or ".join(dict.fromkeys(m.rsplit(" FY", 1)[0] for m in missing
                                      if not m.lower().startswith(("total revenue", "revenue", "net sales"))))
    shown = "; ".join(f"'{r.label}' {r.raw or r.value} ({', '.join(x for x in (r.scale, r.header) if x)}) {r.cite}"
                      for r in rows[:3])
    if lacks and all(m.startswith("total current") for m in lacks.split(" or ")):  # an unclassified balance sheet
        return (f"{what[:1].upper() + what[1:]} is not a useful metric for {who}: its statements are a financial "
                f"company's, whose balance sheet is not classified into current and non-current items (no {lacks} "
                f"line), so its liquidity is not measured through {what}. Its income statement reports instead: "
                f"{shown}.")
    return (f"{what[:1].upper() + what[1:]} is not a useful metric for {who}: its income statement is a financial "
            f"company's, with no {lacks} line, so its performance is not measured through {what}. It reports "
            f"instead: {shown}.")


def render_series(plan: Plan, company: str, found: dict, missing_years: list[int]) -> str:
    """One line item for each fiscal year of `plan.years` (the latest last), as a sentence and a small table; the
    years not found are said to be missing (the series is never one year's value)."""
    item = plan.item or ""
    display = LINE_ITEMS[item].display if item in LINE_ITEMS else item
    cells = []
    for y in plan.years:
        f = found.get((item, y))
        if f is None:
            continue
        money = fmt_money(_item_value(f, plan), plan.scale or f.scale, decimals=_decimals(f) if not plan.scale else None)
        cells.append((y, money, f))
    listed = "; ".join(f"FY{y}: {m} {f.cite}" for y, m, f in cells)
    gap = (f" No {display} for {', '.join(f'FY{y}' for y in missing_years)} was found in the filing's statement "
           "tables (its statements hold fewer comparative years)." if missing_years else "")
    rows = "\n".join(f"| FY{y} | {m} | '{f.label}', {f.header} | {f.cite} |" for y, m, f in cells)
    return (f"{_company(company)}{display} by fiscal year: {listed}.{gap}\n\n| fiscal year | {display} | row, column "
            f"| source |\n|---|---|---|---|\n{rows}")
