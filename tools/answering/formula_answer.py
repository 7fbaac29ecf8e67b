"""The question's own arithmetic answered: a metric it defines, arithmetic it composes, or said why not.

    result = answer_formula(facts, tagged, doc_id, info, read_tables)   # a ReaderResult, always

* **Said, not computed** (`refusal`): an empty, circular or too long definition, an operand that is no line item,
  a divisor that is zero whatever the filing reports, a metric-like name the question neither defines nor finrag
  knows. The answer names the part and why; it states no number as the answer.
* **Computed**: the formula becomes a `Metric` (`metrics.metric_for`), so both evidence sources compute it the same
  way: a routed inline-XBRL filing's tagged facts first (each operand cited, `fact_math.metric_answer`), else the
  statement tables (`read_tables`, the table reader, whose plan takes the same metric). The answer writes the
  formula out and says it is the question's; an operand the filing lacks, or a divisor that is zero in the filing,
  is said, with the operands found: another measure is never stated in its place.
"""
from __future__ import annotations

from typing import Callable, Optional

from finrag.state.formula import Formula, expr_text
from finrag.state.question import QuestionFacts
from finrag.tools.answering.arithmetic import Undefined, evaluate
from finrag.tools.answering.fact_math import metric_answer, metric_inputs, number
from finrag.tools.answering.metrics import metric_for
from finrag.tools.answering.questions import Plan
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.xbrl_facts import CONCEPTS, choose_fact, fact_cite, item_display, owner

__all__ = ["answer_formula", "computable", "refusal"]


def computable(formula: Optional[Formula]) -> bool:
    """Is there something to compute (an expression, and nothing the question asks that cannot be)?"""
    return formula is not None and formula.expression is not None and not formula.problems


def refusal(formula: Formula, info: Optional[dict], reasons: Optional[list[str]] = None, found: str = "") -> ReaderResult:
    """The answer that says what was not computed and why (`reasons`: the formula's problems when not given)."""
    why = reasons if reasons is not None else list(formula.problems)
    whose = owner(info or {}) if (info or {}).get("company") else "The"
    shown = f" (the question's formula: {formula.name} = {expr_text(formula.expression)})" \
        if formula.expression is not None and formula.source in ("question", "composed") else ""
    hint = (" Define it in the question (for example \"defined as total current assets divided by total current "
            "liabilities\") to have it computed." if formula.source == "unknown" else "")
    answer = f"{whose} {formula.name} was not computed{shown}: {'; '.join(why)}.{hint}"
    if found:
        answer += f" Found: {found}."
    return ReaderResult(answer=answer, confident=False, kind="metric", asked="metric", missing=why,
                        formula=f"{formula.name} = {expr_text(formula.expression)}" if formula.expression else "",
                        plan=Plan(kind="metric"))


def answer_formula(facts: QuestionFacts, tagged: Optional[dict], doc_id: str, info: Optional[dict],
                   read_tables: Callable[[], ReaderResult]) -> ReaderResult:
    """The question's formula answered (see the module docstring); `facts.formula` must be set."""
    formula = facts.formula
    assert formula is not None
    if not computable(formula):
        return refusal(formula, info)
    metric = metric_for(formula, facts.decimals)
    info = info or {}
    if doc_id and tagged and tagged.get("facts") and all(i.item in CONCEPTS for i in metric.inputs):
        inputs = metric_inputs(metric, lambda item, back: choose_fact(tagged, item, facts, info, years_back=back))
        if inputs is not None:
            values, picked = inputs
            assert formula.expression is not None
            try:
                evaluate(formula.expression, values, _named)
            except Undefined as err:
                if "was not found" not in str(err):  # a divisor zero in the filing: said, with what was found
                    listed = "; ".join(f"{_named(item, off)} = {number(values[(item, off)], item, f)} "
                                       f"{fact_cite(doc_id, f)}" for item, off, f, _p in picked)
                    return refusal(formula, info, [str(err)], listed)
            else:
                answered = metric_answer(metric, inputs, doc_id, info)
                if answered is not None:
                    return answered
    return read_tables()


def _named(item: str, offset: int) -> str:
    return item_display(item) + (" (a year before)" if offset else "")
