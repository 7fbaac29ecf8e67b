"""The question's own arithmetic, as data: an expression over line items, and the formula a question asks for.

A `Formula` is what `finrag.tools.question.formula_text.formula_of(question)` reads from a question that defines a
metric ("Define working capital ratio as total current assets divided by total current liabilities"), composes one
("unadjusted EBITDA less capital expenditure") or names one that finrag does not know ("What is Meta's hyper-growth
efficiency score?"). The reader computes it (`finrag.tools.answering.formula_metric`) from whichever facts the
filing offers (inline XBRL, statement tables), cites every operand, and says what it could not compute and why.

Expressions are a small tree (`Expr`): a line item at a period offset, a number, a binary operation, the average of
a balance at the two period ends, or an operand the question names that is no line item finrag reads (`Unknown`).
The metric catalog (`finrag/tools/answering/metric_catalog.toml`) writes its formulas in the same language.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAlias

__all__ = ["Average", "BinOp", "Call", "Expr", "Formula", "Item", "Number", "Op", "Unknown", "expr_items", "expr_text",
           "expr_unknowns", "expr_size"]

Op = Literal["+", "-", "*", "/"]


class _Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Item(_Node):
    """A line item (`finrag.tools.vocabulary.line_items.LINE_ITEMS`) at a period."""

    kind: Literal["item"] = "item"
    item: str
    """The line item's canonical name ('total_current_assets')."""
    offset: int = 0
    """0: the asked period; -1: the period a year before (a balance at the start of the year, last year's flow)."""
    phrase: str = ""
    """How the question wrote it ("total current assets", "D&A from the cash flow statement")."""


class Number(_Node):
    """A constant the formula writes (365, 100, 2, zero)."""

    kind: Literal["number"] = "number"
    value: float


class BinOp(_Node):
    """`left op right`."""

    kind: Literal["op"] = "op"
    op: Op
    left: "Expr"
    right: "Expr"


class Average(_Node):
    """The average of a balance at the asked period's end and a year before ("average total assets")."""

    kind: Literal["average"] = "average"
    of: Item


class Call(_Node):
    """A function of the catalog's formulas: `abs(x)` (a magnitude), `opt(x)` (0 when the filing lacks it),
    `first(a, b)` (a when the filing has it, else b), `expense(x, base)` (an expense printed negative against a
    positive base, taken as its magnitude)."""

    kind: Literal["call"] = "call"
    fn: Literal["abs", "opt", "first", "expense"]
    args: list["Expr"]


class Unknown(_Node):
    """An operand the question names that is no line item finrag can read ("total widgets sold"): the formula is
    not computed, and the answer says which operand and why."""

    kind: Literal["unknown"] = "unknown"
    phrase: str
    offset: int = 0
    """The period, as `Item.offset` (a formula asked as a change reads it a year before too)."""


Expr: TypeAlias = Annotated[Union[Item, Number, BinOp, Average, Call, Unknown], Field(discriminator="kind")]
BinOp.model_rebuild()
Call.model_rebuild()


class Formula(BaseModel):
    """What the question asks to compute, as it defines or composes it (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The measure's name as the question writes it ("working capital ratio", "EBITDA less capex")."""
    source: Literal["question", "catalog", "composed", "unknown"]
    """'question': the question defines it; 'composed': the question combines line items or known metrics with
    arithmetic ("EBITDA less capex", "free cash flow as a percentage of revenue"); 'catalog': the question names a
    catalog metric and the formula is finrag's; 'unknown': a metric-like name the question neither defines nor
    finrag knows (`expression` is None, `problems` says so)."""
    expression: Optional[Expr] = None
    """The expression computed (None when there is nothing to compute)."""
    definition: str = ""
    """The definition as the question wrote it (its words after "defined as", "=", ...), '' when none."""
    unit: Literal["ratio", "percent", "currency", "days"] = "ratio"
    """How the result is stated: a ratio, a percentage (x100 unless the expression already multiplies by 100), an
    amount of money, or days."""
    times_100: bool = False
    """The expression itself multiplies by 100 (the result is already a percentage)."""
    basis_points: bool = False
    """The question asks the percentage in basis points: the answer states it so (1% = 100 bps), the percentage beside."""
    magnitudes: bool = False
    """The question asks each operand's magnitude ("each taken as a positive cost"): signs as printed are dropped."""
    problems: list[str] = Field(default_factory=list)
    """Why the formula cannot be computed as written, each said in the answer (an empty or circular definition,
    an operand that is no line item, too many terms, a metric the question does not define)."""


def expr_items(expr: Optional[Expr]) -> list[tuple[str, int]]:
    """The (line item, offset) pairs an expression reads, in order, without repeats (an average reads both ends)."""
    out: list[tuple[str, int]] = []

    def walk(e: Optional[Expr]) -> None:
        if isinstance(e, Item):
            out.append((e.item, e.offset))
        elif isinstance(e, Average):
            out.extend([(e.of.item, e.of.offset), (e.of.item, e.of.offset - 1)])
        elif isinstance(e, BinOp):
            walk(e.left)
            walk(e.right)
        elif isinstance(e, Call):
            for a in e.args:
                walk(a)

    walk(expr)
    return list(dict.fromkeys(out))


def expr_unknowns(expr: Optional[Expr]) -> list[str]:
    """The phrases of an expression's `Unknown` operands."""
    if isinstance(expr, Unknown):
        return [expr.phrase]
    if isinstance(expr, BinOp):
        return expr_unknowns(expr.left) + expr_unknowns(expr.right)
    if isinstance(expr, Call):
        return [u for a in expr.args for u in expr_unknowns(a)]
    return []


def expr_size(expr: Optional[Expr]) -> int:
    """The number of operands (leaves) of an expression."""
    if isinstance(expr, BinOp):
        return expr_size(expr.left) + expr_size(expr.right)
    if isinstance(expr, Call):
        return sum(expr_size(a) for a in expr.args)
    return 0 if expr is None else 1


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def expr_text(expr: Optional[Expr], name=lambda item, offset: item.replace("_", " ") + (" (a year before)" if offset
                                                                                        else "")) -> str:
    """The expression written out for an answer, operands named by `name(item, offset)`, parentheses only where
    the order of operations needs them."""
    def go(e: Optional[Expr], parent: int = 0, right: bool = False) -> str:
        if isinstance(e, Item):
            return name(e.item, e.offset)
        if isinstance(e, Number):
            return f"{e.value:g}"
        if isinstance(e, Average):
            return f"average {name(e.of.item, 0)} (this and the prior period end)"
        if isinstance(e, Unknown):
            return f"'{e.phrase}'"
        if isinstance(e, Call):
            return go(e.args[0], parent) if e.fn in ("abs", "opt", "expense") else " or else ".join(go(a) for a in e.args)
        if isinstance(e, BinOp):
            p = _PRECEDENCE[e.op]
            text = f"{go(e.left, p)} {e.op} {go(e.right, p, True)}"
            return f"({text})" if p < parent or (right and p == parent) else text
        return ""

    return go(expr)
