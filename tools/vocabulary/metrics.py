"""The reader's metrics: the catalog's entries (`data/metric_catalog.toml`) and the question's own definitions.

Every `Metric` names the line items it needs (`finrag.tools.vocabulary.line_items`) per period offset
(0 = the asked fiscal year, -1 = the year before, for averages and changes), a formula as shown to the
reader, and its expression, computed by the one evaluator (`arithmetic.py`). The reader fetches each input
with its `[doc, p. N]` citation and reports the formula, the inputs and the result. Adding a metric is one
catalog entry; a definition in the question becomes a `Metric` the same way (`formula_metric.py`).

The definitions are the textbook ones (and the ones FinanceBench questions spell out): averages of
balance-sheet items are (this year + last year) / 2; days ratios use 365 days; DPO's denominator is
COGS plus the change in inventory; EBITDA is unadjusted operating income plus depreciation and
amortization from the cash flow statement.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Callable, Optional

from finrag.state.formula import Average, BinOp, Call, Expr, Formula, Item, expr_text
from finrag.tools.vocabulary.arithmetic import equivalent, try_evaluate
from finrag.tools.vocabulary.catalog import CATALOG, CatalogEntry
from finrag.tools.vocabulary.line_items import line_item

__all__ = ["Metric", "METRICS", "metric_in_question", "Input", "metric_of", "inputs_of", "computer", "metric_for", "as_asked"]


@dataclass(frozen=True)
class Input:
    item: str
    offset: int = 0
    """0: the asked year; -1: the year before."""
    optional: bool = False


@dataclass(frozen=True)
class Metric:
    name: str
    display: str
    question: tuple[str, ...]
    """Question patterns (regular expressions, case-insensitive) that ask for this metric."""
    formula: str
    inputs: tuple[Input, ...]
    compute: Callable[[dict], Optional[float]]
    """Takes {(item, offset): value in the table's units}; returns the metric (None when undefined)."""
    unit: str
    """'percent', 'ratio', 'days' or 'currency'."""
    decimals: int = 2
    good: str = ""
    """For yes/no questions on health: 'high' when larger is better, 'low' when smaller is better."""
    threshold: Optional[float] = None
    """A conventional threshold for yes/no questions ('healthy', 'positive'), stated in the answer."""
    threshold_text: str = ""
    expression: Optional[Expr] = None
    """The formula as an expression (`finrag.state.formula`): the catalog's, or the question's own definition."""
    percent_too: bool = False
    """A ratio also stated as a percentage (a return: "0.10 (10.28%)")."""


def metric_of(entry: CatalogEntry) -> Metric:
    """A catalog entry as the reader's `Metric`: its inputs read off the formula, `compute` the one evaluator."""
    return Metric(entry.name, entry.display, entry.names, entry.shown, _listed(inputs_of(entry.expression), entry.listed),
                  computer(entry.expression, entry.unit == "percent"), entry.unit, entry.decimals, entry.good,
                  entry.threshold, entry.threshold_text, expression=entry.expression, percent_too=entry.percent_too)


def _listed(inputs: tuple[Input, ...], order: tuple[str, ...]) -> tuple[Input, ...]:
    """The inputs in the catalog's `listed` order ("prior(x)": x a year before); those it does not name last."""
    rank = {(o[6:-1], -1) if o.startswith("prior(") else (o, 0): k for k, o in enumerate(order)}
    return tuple(sorted(inputs, key=lambda i: rank.get((i.item, i.offset), len(rank))))


def inputs_of(expr: Expr) -> tuple[Input, ...]:
    """The (item, offset) inputs an expression reads, in order; those it can do without (inside `opt()`, or the
    first choice of `first()`) are optional and come last."""
    out: list[tuple[str, int, bool]] = []

    def walk(e: Expr, optional: bool) -> None:
        if isinstance(e, Item):
            out.append((e.item, e.offset, optional))
        elif isinstance(e, Average):
            out.extend([(e.of.item, e.of.offset, optional), (e.of.item, e.of.offset - 1, optional)])
        elif isinstance(e, BinOp):
            walk(e.left, optional)
            walk(e.right, optional)
        elif isinstance(e, Call):
            for k, a in enumerate(e.args):
                walk(a, optional or e.fn == "opt" or (e.fn == "first" and k == 0))

    walk(expr, False)
    required = {(i, o) for i, o, opt in out if not opt}
    ordered = [(i, o, opt) for i, o, opt in out if not opt] + [(i, o, opt) for i, o, opt in out
                                                               if opt and (i, o) not in required]
    return tuple(Input(i, o, opt) for i, o, opt in dict.fromkeys(ordered))


def computer(expr: Expr, percent: bool, magnitudes: bool = False) -> Callable[[dict], Optional[float]]:
    """`Metric.compute` of an expression: its value (x100 for a percentage), None when it has none; `magnitudes`:
    each operand's absolute value (the question asks so)."""
    def compute(values: dict) -> Optional[float]:
        result = try_evaluate(expr, {k: abs(v) if magnitudes else v for k, v in values.items() if v is not None})
        return None if result is None else (100.0 * result if percent else result)
    return compute


_METRICS = [metric_of(entry) for entry in CATALOG.values()]
METRICS: dict[str, Metric] = {m.name: m for m in _METRICS}
_QRX = [(m, [re.compile(p, re.I) for p in m.question]) for m in _METRICS]


def metric_in_question(question: str) -> Optional[Metric]:
    """The metric a question asks for: the earliest match, longer patterns winning ties (so 'EBITDA margin'
    is not plain 'EBITDA' and 'free cash flow conversion' is not 'free cash flow')."""
    q = question.replace("’", "'")
    best: Optional[tuple[int, int, Metric]] = None
    for m, rxs in _QRX:
        for rx in rxs:
            hit = rx.search(q)
            if hit:
                key = (hit.start(), -(hit.end() - hit.start()))
                if best is None or key < best[:2]:
                    best = (key[0], key[1], m)
    return best[2] if best else None


def metric_for(formula: Formula, decimals: Optional[int] = None) -> Metric:
    """The question's formula (`finrag.state.formula.Formula`, computable: an expression and no problems) as a
    `Metric` the readers compute like any other; `decimals`: the rounding the question asks, if any."""
    assert formula.expression is not None
    same = next((m for m in _METRICS if formula.source in ("question", "composed") and m.expression is not None
                 and equivalent(m.expression, formula.expression)
                 and (m.unit == "percent") == (formula.unit == "percent" and not formula.times_100)), None)
    if same is not None and _required(same, formula.expression):  # an operand the question writes is never optional
        same = dataclasses.replace(same, inputs=inputs_of(formula.expression), expression=formula.expression,
                                   compute=computer(formula.expression, same.unit == "percent", formula.magnitudes))
    if same is not None and decimals is not None:  # the rounding the question asks, whichever formula computes it
        same = dataclasses.replace(same, decimals=decimals)
    if same is not None:  # the question defines the catalog's formula: the catalog's metric, under the question's name
        if formula.source == "composed" or any(re.search(p, formula.name, re.I) for p in same.question):
            return same  # composed as the catalog composes it ("EBIT as a percent of revenue"), or named as it is
        return dataclasses.replace(same, display=f"{formula.name} (finrag's {same.display})",
                                   formula=f"{same.formula} (the question's definition)")

    def named(item: str, offset: int) -> str:
        display = line_item(item).display
        return display + (" (a year before)" if offset else "")

    own = {"question": "the question's definition", "composed": "as the question composes it"}.get(formula.source, "")
    shown = expr_text(formula.expression, named) + (f" ({own})" if own else "")
    percent = formula.unit == "percent" and not formula.times_100
    default = {"percent": 2, "ratio": 2, "days": 1, "currency": 0}[formula.unit]
    return Metric(formula.source, formula.name, (), shown, inputs_of(formula.expression),
                  computer(formula.expression, percent, formula.magnitudes), formula.unit,
                  default if decimals is None else decimals,
                  expression=formula.expression)


def _required(metric: Metric, written: Expr) -> bool:
    """Does the question write plainly an operand that the catalog's formula of the same metric can do without
    ("short-term debt + long-term debt" for debt-to-equity's `opt(current_debt)`)? Then a missing one is said."""
    loose = {(i.item, i.offset) for i in metric.inputs if i.optional}
    return bool(loose - {(i.item, i.offset) for i in inputs_of(written) if i.optional})


_ASKS_RATIO = re.compile(r"(?i)\b(?:as|expressed as|express it as|in the form of) an? (?:ratio|decimal|fraction)\b|"
                         r"\bratio with \w+ decimals?\b|\bthe ratio of\b|\bratio \(not (?:a )?percent")


_PER_DOLLAR = re.compile(r"(?i)\b(?:per|for (?:each|every)|of each|on each) (?:dollar|\$1?) of\b|\bhow many cents\b")
"""An amount per dollar of another is a ratio (cents on the dollar), unless a percentage is asked."""


def as_asked(metric: Metric, text: str, asks_percent: bool, decimals: Optional[int]) -> Metric:
    """A catalog metric stated the way the question asks: a ratio as a percentage when it asks a percentage ("ROE ...
    Percent, 2 decimals"), a percentage as a ratio when it asks a ratio ("the ratio of SG&A to net sales"), to the
    decimals it asks."""
    if metric.expression is None or metric.name not in METRICS:
        return metric
    unit, compute, dec = metric.unit, metric.compute, metric.decimals
    if asks_percent and unit == "ratio":
        unit, compute, dec = "percent", computer(metric.expression, True), 2
    elif unit == "percent" and (_ASKS_RATIO.search(text) or (not asks_percent and _PER_DOLLAR.search(text))):
        unit, compute, dec = "ratio", computer(metric.expression, False), 4
    if decimals is not None:
        dec = decimals
    if (unit, dec) == (metric.unit, metric.decimals):
        return metric
    return dataclasses.replace(metric, unit=unit, compute=compute, decimals=dec)
