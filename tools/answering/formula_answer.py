"""The question's own arithmetic answered: a metric it defines, arithmetic it composes, or said why not.

    result = answer_formula(facts, tagged, doc_id, info, read_tables)   # a ReaderResult, always

* **Said, not computed** (`refusal`): an empty, circular or too long definition, a definition in words that are no
  arithmetic, a divisor that is zero whatever the filing reports, a metric-like name the question neither defines
  nor finrag knows. The answer names the part and why; it states no number as the answer.
* **The filing's own line items**: an operand finrag has no line item for ("goodwill", "contract assets", "demand
  creation expense") becomes a row item (`line_items.ROW`), read from the row of the filing that carries that
  label: a tagged fact's displayed row, or a statement table's row. One the filing does not have is said missing.
* **Computed**: the formula becomes a `Metric` (`metrics.metric_for`), so both evidence sources compute it the same
  way: a routed inline-XBRL filing's tagged facts first (each operand cited, `fact_math.metric_answer`), else the
  statement tables (`read_tables(metric, facts)`, the table reader, whose plan takes the same metric). The answer writes
  the formula out and says it is the question's; an operand the filing lacks, or a divisor that is zero in the
  filing, is said, with the operands found: another measure is never stated in its place.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Optional

from finrag.state.formula import (
    Average,
    BinOp,
    Call,
    Expr,
    Formula,
    Item,
    Unknown,
    expr_items,
    expr_text,
    expr_unknowns,
)
from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_math import metric_answer, number, picked_inputs
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts
from finrag.tools.answering.questions import Plan
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.row_facts import bind_row
from finrag.tools.answering.xbrl_facts import fact_cite, item_display, owner
from finrag.tools.question.operand import clean_phrase
from finrag.tools.vocabulary.arithmetic import Undefined, evaluate
from finrag.tools.vocabulary.line_items import ROW, line_item, row_item_name
from finrag.tools.vocabulary.metrics import METRICS, Metric, metric_for

__all__ = ["answer_formula", "computable", "refusal", "with_rows", "year_not_covered"]


def computable(formula: Optional[Formula]) -> bool:
    """Is there something to compute (an expression, and nothing the question asks that cannot be)?"""
    return formula is not None and formula.expression is not None and not formula.problems


def with_rows(formula: Formula, worded: bool = False) -> Formula:
    """The formula with each operand finrag has no line item for read as a row item of the filing (`worded`: every
    operand the question names in two words or more too, by its words)."""
    twice = _named_twice(formula.expression)

    def swap(e: Expr) -> Expr:
        if isinstance(e, Unknown):
            # the row's words without the operand's period and where it is reported ("current deferred revenue on
            # the June 30, 2025 balance sheet" reads the row "current deferred revenue")
            return Item(item=row_item_name(clean_phrase(e.phrase) or e.phrase), phrase=e.phrase, offset=e.offset)
        if isinstance(e, Item) and not e.item.startswith(ROW) and (
                (worded and len(clean_phrase(e.phrase).split()) >= 2) or e.item in twice):
            return e.model_copy(update={"item": row_item_name(clean_phrase(e.phrase), like=e.item)})
        if isinstance(e, BinOp):
            return e.model_copy(update={"left": swap(e.left), "right": swap(e.right)})
        if isinstance(e, Call):
            return e.model_copy(update={"args": [swap(a) for a in e.args]})
        return e

    if formula.expression is None or not (worded or twice or expr_unknowns(formula.expression)):
        return formula
    return formula.model_copy(update={"expression": swap(formula.expression)})


def _named_twice(expr: Optional[Expr]) -> set[str]:
    """Line items two operands read under different words ("Notes payable, current" + "Notes payable and other
    borrowings, non-current" both read as current debt): each is then its own row."""
    seen: dict[tuple[str, int], set[str]] = {}

    def walk(e: Optional[Expr]) -> None:
        if isinstance(e, Item) and e.phrase:
            seen.setdefault((e.item, e.offset), set()).add(clean_phrase(e.phrase).lower())
        elif isinstance(e, BinOp):
            walk(e.left)
            walk(e.right)

    walk(expr)
    return {item for (item, _off), phrases in seen.items() if len(phrases) > 1}


def refusal(formula: Formula, info: Optional[dict], reasons: Optional[list[str]] = None, found: str = "") -> ReaderResult:
    """The answer that says what was not computed and why (`reasons`: the formula's problems when not given)."""
    why = reasons if reasons is not None else list(formula.problems)
    whose = owner(info or {}) if (info or {}).get("company") else "The"
    shown = f" (the question's formula: {formula.name} = {expr_text(formula.expression, _named)})" \
        if formula.expression is not None and formula.source in ("question", "composed") else ""
    hint = (" Define it in the question (for example \"defined as total current assets divided by total current "
            "liabilities\") to have it computed." if formula.source == "unknown" and any(
                "is not a metric finrag knows" in p for p in why) else "")
    answer = f"{whose} {formula.name} was not computed{shown}: {'; '.join(why)}.{hint}"
    if found:
        answer += f" Found: {found}."
    return ReaderResult(answer=answer, confident=False, kind="metric", asked="metric", missing=why,
                        formula=f"{formula.name} = {expr_text(formula.expression, _named)}" if formula.expression else "",
                        plan=Plan(kind="metric"))


def answer_formula(facts: QuestionFacts, tagged: Optional[dict], doc_id: str, info: Optional[dict],
                   read_tables: Callable[[Metric, QuestionFacts], ReaderResult]) -> ReaderResult:
    """The question's formula answered (see the module docstring), its plan recorded (`question_formula`);
    `facts.formula` must be set."""
    assert facts.formula is not None
    result = _answer(facts, tagged, doc_id, info, read_tables)
    if facts.formula.basis_points:
        result = dataclasses.replace(result, answer=in_basis_points(result.answer))
    return dataclasses.replace(result, question_formula=facts.formula)


def in_basis_points(answer: str) -> str:
    """The answer's first stated percentage ("was 12.34%") stated in basis points, the percentage beside it ("was
    1,234 basis points (12.34%)")."""
    return re.sub(r"\bwas (-?\d[\d,]*(?:\.\d+)?)%", lambda m: f"was {float(m.group(1).replace(',', '')) * 100:,.0f} basis "
                  f"points ({m.group(1)}%)", answer, count=1)


def _answer(facts: QuestionFacts, tagged: Optional[dict], doc_id: str, info: Optional[dict],
            read_tables: Callable[[Metric, QuestionFacts], ReaderResult]) -> ReaderResult:
    formula = facts.formula
    assert formula is not None
    if not computable(formula):
        return refusal(formula, info)
    uncovered = year_not_covered(facts, info or {})
    if uncovered:
        return refusal(formula, info, [uncovered])
    formula = with_rows(formula)
    info = info or {}
    if _names_the_company(formula.name, str(info.get("company") or "")):  # "Meta: R&D relative to revenue"
        formula = formula.model_copy(update={"name": expr_text(formula.expression, _named)})
    metric = metric_for(formula, facts.decimals)
    asked = facts
    facts = _undated(facts, formula)
    # the statement tables take the definition's dates as its operands' only when it dates them apart ("inventories
    # at 12/31/2023 + inventories at 12/31/2024"); one date for all ("..., at August 31, 2024") is the asked period's
    table_facts = facts if (formula.source == "question" and any(
        offset < 0 for _item, offset in expr_items(formula.expression))) or _averages(formula.expression) else asked
    source = XbrlFacts(tagged, doc_id, info)
    if doc_id and source:
        source = source.with_rows({i.item: bind_row(tagged or {}, i.item) for i in metric.inputs if i.item.startswith(ROW)})
        if metric.name not in METRICS:  # the row the question names word for word ("Long-term debt") first
            source = source.with_rows({item: bind_row(tagged or {}, row_item_name(phrase), item)
                                       for item, phrase in _phrases(formula).items()})
        if all(source.reads(i.item) for i in metric.inputs):
            values, picked = picked_inputs(metric.inputs, source, facts)
            assert formula.expression is not None
            try:
                evaluate(formula.expression, values, _named)
            except Undefined as err:
                if "was not found" not in str(err):  # a divisor zero in the filing: said, with what was found
                    listed = "; ".join(f"{_named(item, off)} = {number(values[(item, off)], item, f)} "
                                       f"{fact_cite(f)}" for item, off, f in picked)
                    return refusal(formula, info, [str(err)], listed)
            else:
                answered = metric_answer(metric, (values, picked), doc_id, info)
                if answered is not None:
                    return answered
    if formula.source == "unknown" or metric.name in METRICS:
        return read_tables(metric, table_facts)
    # the question's own formula over statement tables: each operand first as the row the question names word for
    # word ("net sales", not the filing's "Total revenues"; "interest expense (income), net"), else as finrag's item
    worded = read_tables(metric_for(with_rows(formula, worded=True), facts.decimals), table_facts)
    if worded.confident:
        return worded
    return _said_if_declined(read_tables(metric, table_facts), formula, metric, info)


_FULL_YEAR = re.compile(r"(?i)\b(?:full[- ](?:fiscal[- ])?year|(?:entire|whole) (?:fiscal )?year|(?:12|twelve)[- ]months? "
                        r"(?:ended|ending|through|to)\b)")


def year_not_covered(facts: QuestionFacts, info: dict) -> str:
    """Why the routed filing cannot answer the full fiscal year the question asks ("" when it can): a 10-Q reports
    its quarter and year to date, never the whole of a fiscal year that has not ended, and another period is never
    stated in its place."""
    fy = info.get("fiscal_year")
    if str(info.get("form") or "") != "10Q" or not fy or not _FULL_YEAR.search(facts.text):
        return ""
    asked = max(facts.years_written or facts.years or [0])
    if asked < int(fy):
        return ""
    end = info.get("period_end") or "its quarter"
    return (f"the question asks the full fiscal year {asked}, and the filing is a 10-Q for the period ended {end}, "
            "which does not report that year; another period is not stated in its place")


def _said_if_declined(result: ReaderResult, formula: Formula, metric: Metric, info: dict) -> ReaderResult:
    """The table reader's answer, or, when it declined the question (a quarter its columns may not hold, no filing
    routed), what was not computed: the operands finrag could not read."""
    if result.kind != "none" and result.answer:
        return result
    rows = [line_item(i.item).display for i in metric.inputs if i.item.startswith(ROW)]
    why = ([f"no row of the filing reads '{r}'" for r in dict.fromkeys(rows)] or
           ["its operands were not found for the asked period in the filing's tagged facts or statement tables"])
    return refusal(formula, info, why)


def _phrases(formula: Formula) -> dict[str, str]:
    """The canonical items of the formula's operands the question names in two words or more, by those words."""
    out: dict[str, str] = {}

    def walk(e: Expr) -> None:
        if isinstance(e, Item) and not e.item.startswith(ROW) and len(clean_phrase(e.phrase).split()) >= 2:
            out.setdefault(e.item, clean_phrase(e.phrase))
        elif isinstance(e, BinOp):
            walk(e.left)
            walk(e.right)

    if formula.expression is not None:
        walk(formula.expression)
    return out


def _undated(facts: QuestionFacts, formula: Formula) -> QuestionFacts:
    """The question's reading with the dates its definition writes for its operands ("inventories at Dec 31, 2023")
    no longer taken as the asked period: the asked period is the latest year written."""
    if not (facts.as_of or facts.dates):
        return facts
    written = [d for d in [*(facts.dates or []), facts.as_of or ""] if d]
    if _averages(formula.expression) and len({d[:4] for d in written}) > 1:
        # "the average of long-term debt at December 31, 2023 and December 31, 2024": the two dates are the
        # average's ends, the asked period the later one's
        years = [int(d[:4]) for d in written]
    else:
        years = [int(y) for y in re.findall(r"\b((?:19|20)\d\d)\b", formula.definition)]
        if not years or not any(d[:4] in formula.definition for d in written):
            return facts
    return facts.model_copy(update={"as_of": None, "dates": [], "years_written": [max(years + facts.years_written)]})


def _names_the_company(name: str, company: str) -> bool:
    """A defined name made only of the routed company's name words ("Meta: A relative to B") heads the question; it
    names no measure, so the measure is named by its formula."""
    words, own = re.findall(r"[a-z0-9&]+", name.lower()), set(re.findall(r"[a-z0-9&]+", company.lower()))
    return bool(words) and bool(own) and all(w in own for w in words)


def _named(item: str, offset: int) -> str:
    return item_display(item) + (" (a year before)" if offset else "")


def _averages(expr: Optional[Expr]) -> bool:
    """Does the expression read the average of a balance at two period ends?"""
    if isinstance(expr, Average):
        return True
    if isinstance(expr, BinOp):
        return _averages(expr.left) or _averages(expr.right)
    return isinstance(expr, Call) and any(_averages(a) for a in expr.args)
