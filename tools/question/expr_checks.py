"""What a read expression (`finrag.state.formula.Expr`) says of itself, for `formula.formula_of`: whether it already
reads an earlier period, divides by what is always zero, is a part's share of revenue or holds a catalog metric written
out, and the unit its answer takes.

* `dated`: it reads a period before the asked one (a change itself), averages aside.
* `zero_divisors`: the reasons it cannot be computed whatever the filing says (a divisor that is always zero, or
  one figure set against itself).
* `part_share`: an unknown name over revenue (a segment's, product's or region's share), not a statement row.
* `has_metric`: it holds a catalog metric's expression as a subtree.
* `unit_of(name, expr, percent, times_100)`: percent, days, ratio or an amount.
* `divides`, `times_100`, `has_number`: the shapes `unit_of` reads.
"""
from __future__ import annotations

import re
from typing import Literal

from finrag.state.formula import BinOp, Expr, Item, Number, Unknown, expr_items, expr_text
from finrag.tools.question.operand import clean_phrase
from finrag.tools.vocabulary.arithmetic import always_zero
from finrag.tools.vocabulary.catalog import CATALOG

__all__ = ["dated", "divides", "has_metric", "has_number", "only_averages", "part_share", "times_100", "unit_of",
           "zero_divisors"]


def dated(expr: Expr) -> bool:
    """Does the expression already read a period before the asked one (it is a change itself)?"""
    return any(offset < 0 for _item, offset in expr_items(expr)) and not only_averages(expr)


def only_averages(expr: Expr) -> bool:
    if isinstance(expr, Item):
        return expr.offset == 0
    if isinstance(expr, BinOp):
        return only_averages(expr.left) and only_averages(expr.right)
    return True


def zero_divisors(expr: Expr) -> list[str]:
    """Divisions by a divisor that is zero whatever the filing says: the number 0, or A - A; and a difference or a
    ratio of one figure with itself ("gross profit Q2 2025 less gross profit Q2 2024" read as one period), whose
    value (0 or 1) says nothing of the filing: the operands' periods were not told apart."""
    out: list[str] = []
    if isinstance(expr, BinOp):
        right = expr.right
        if expr.op == "/" and always_zero(right):
            out.append(f"the definition divides by {expr_text(right)}, which is zero whatever the filing reports")
        elif expr.op in "-/" and isinstance(expr.left, Item) and isinstance(right, Item) and \
                (expr.left.item, expr.left.offset) == (right.item, right.offset):
            out.append(f"its operands {expr.left.phrase or expr_text(expr.left)!r} and {right.phrase or expr_text(right)!r} "
                       "read as the same figure for the same period; finrag could not tell which period each one is")
        if out:
            return out
        out += zero_divisors(expr.left) + zero_divisors(expr.right)
    return out


def part_share(expr: Expr) -> bool:
    """Is the expression a name finrag does not know over revenue (a segment's, product's or region's share)? A name
    that ends in a measure's own noun ("fulfillment expense", "income from continuing operations before income taxes",
    "stock-based compensation") is a row of the statement, no part of revenue's breakdown."""
    return isinstance(expr, BinOp) and expr.op == "/" and isinstance(expr.left, Unknown) and \
        isinstance(expr.right, Item) and expr.right.item == "revenue" and not _MEASURE_NOUN.search(clean_phrase(expr.left.phrase))


_MEASURE_NOUN = re.compile(r"(?i)\b(?:expenses?|costs?|income|taxes|profits?|loss(?:es)?|earnings|provision|charges?|"
                           r"compensation|amortization|depreciation|payments?|purchases?|proceeds|outflows?|inflows?|"
                           r"liabilit(?:y|ies)|assets?|debt|equity|cash flows?)$")
"""The last word of a measure of the statements, never of a segment, product or region ("Services", "AWS")."""


def has_metric(expr: Expr) -> bool:
    """Does the expression hold a catalog metric written out (a subtree equal to a catalog expression)?"""
    targets = [e.expression for e in CATALOG.values() if not isinstance(e.expression, Item)]

    def walk(e: Expr) -> bool:
        if any(e == t for t in targets):
            return True
        return isinstance(e, BinOp) and (walk(e.left) or walk(e.right))

    return walk(expr)


def times_100(expr: Expr) -> bool:
    return isinstance(expr, BinOp) and expr.op == "*" and any(
        isinstance(x, Number) and x.value == 100 for x in (expr.left, expr.right))


def unit_of(name: str, expr: Expr, percent: bool, times_100: bool) -> Literal["ratio", "percent", "currency", "days"]:
    """percent when asked (or the expression multiplies by 100, or the name is a margin, rate or yield) and the
    expression divides; days for a days measure; a ratio for a division; else an amount (never an amount x 100)."""
    low = name.lower()
    divided = times_100 or divides(expr)
    if has_number(expr, (365.0, 360.0)) or re.search(r"\bdays\b", low):
        return "days"
    if divided and (percent or times_100 or re.search(r"\b(?:margin|rate|yield|percentage|%)\b", low)):
        return "percent"
    return "ratio" if divided else "currency"


def divides(expr: Expr) -> bool:
    """Does the expression divide by something other than a constant ("A / B", "A / B - 1"; not "(A + B) / 2")?"""
    if not isinstance(expr, BinOp):
        return False
    if expr.op == "/" and not isinstance(expr.right, Number):
        return True
    return divides(expr.left) or (expr.op in "+-" and divides(expr.right))


def has_number(expr: Expr, values: tuple[float, ...]) -> bool:
    if isinstance(expr, Number):
        return expr.value in values
    return isinstance(expr, BinOp) and (has_number(expr.left, values) or has_number(expr.right, values))
