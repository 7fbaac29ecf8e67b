"""Pure arithmetic over an expression (`finrag.state.formula.Expr`): the one evaluator of every formula finrag
computes, the catalog's metrics and the question's own definitions alike.

    value = evaluate(expr, values)      # values: {(line item, offset): amount}; raises Undefined

`Undefined` says why there is no result, in words an answer can use: a division by zero (naming the divisor), an
operand the filing lacks, an operand that is no line item.
"""
from __future__ import annotations

from typing import Callable, Optional

from finrag.state.formula import Average, BinOp, Call, Expr, Item, Number, Unknown, expr_items, expr_text

__all__ = ["Undefined", "always_zero", "equivalent", "evaluate", "try_evaluate"]


class Undefined(ValueError):
    """The expression has no value for these inputs; `str(err)` says why (one clause)."""


Values = dict[tuple[str, int], float]


def evaluate(expr: Expr, values: Values, name: Optional[Callable[[str, int], str]] = None) -> float:
    """The value of `expr` with its operands from `values`; `name(item, offset)` names an operand in a reason."""
    named = name or (lambda item, offset: item.replace("_", " ") + (" (a year before)" if offset else ""))

    def go(e: Expr) -> float:
        if isinstance(e, Number):
            return e.value
        if isinstance(e, Item):
            v = values.get((e.item, e.offset))
            if v is None:
                raise Undefined(f"{named(e.item, e.offset)} was not found")
            return v
        if isinstance(e, Average):
            return (go(e.of) + go(e.of.model_copy(update={"offset": e.of.offset - 1}))) / 2
        if isinstance(e, Unknown):
            raise Undefined(f"'{e.phrase}' is not a line item finrag can read from a filing")
        if isinstance(e, Call):
            if e.fn == "abs":
                return abs(go(e.args[0]))
            if e.fn == "opt":
                try:
                    return go(e.args[0])
                except Undefined:
                    return 0.0
            if e.fn == "first":
                try:
                    return go(e.args[0])
                except Undefined:
                    return go(e.args[1])
            x, base = go(e.args[0]), go(e.args[1])  # expense(x, base)
            return -x if base > 0 and x < 0 else x
        if isinstance(e, BinOp):
            a, b = go(e.left), go(e.right)
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            if b == 0:
                raise Undefined(f"the divisor {expr_text(e.right, named)} is zero")
            return a / b
        raise Undefined("the formula is empty")

    return go(expr)


def try_evaluate(expr: Expr, values: Values) -> Optional[float]:
    """`evaluate`, or None when the expression has no value."""
    try:
        return evaluate(expr, values)
    except Undefined:
        return None


def equivalent(a: Expr, b: Expr) -> bool:
    """Do two expressions compute the same thing: the same operands, and equal values on random operand values
    (so "COGS + change in inventory" is the catalog's "cogs + inventory - prior(inventory)")?"""
    import random

    if set(expr_items(a)) != set(expr_items(b)):
        return False
    rng = random.Random(47)
    for _ in range(3):
        values = {k: rng.uniform(1.0, 1000.0) for k in expr_items(a)}
        x, y = try_evaluate(a, values), try_evaluate(b, values)
        if x is None or y is None or abs(x - y) > 1e-9 * max(1.0, abs(x)):
            return False
    return True


def always_zero(expr: Expr) -> bool:
    """Is the expression zero whatever its operands' values ("revenue - revenue", "0")?"""
    import random

    rng = random.Random(47)
    for _ in range(3):
        value = try_evaluate(expr, {k: rng.uniform(1.0, 1000.0) for k in expr_items(expr)})
        if value is None or abs(value) > 1e-9:
            return False
    return True
