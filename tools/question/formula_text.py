"""Arithmetic written in words, read into an expression: "total current assets divided by total current
liabilities", "(operating income + D&A) / interest expense", "the average of beginning and ending total assets".

    expression_of("net income over average total assets", defined={})  # -> (Expr, percent asked?)

Operators: + (plus, added to, and in "the sum of"), - (minus, less, net of, subtract, "the difference between
A and B"), * (times, multiplied by, x), / (divided by, over, "the ratio of A to B", "as a percentage of");
parentheses group (a parenthesis without an operator inside is a gloss and is dropped). An operand is a line item
(`operand.resolve`), a metric of the catalog or one the question defines (written out in place), a number, or the
average of a balance. An operand that is none of these is kept as `Unknown`, so the answer can say which.
"""
from __future__ import annotations

import functools
import re
from typing import Optional

from finrag.state.formula import BinOp, Expr, Number, Unknown
from finrag.tools.question.operand import resolve

__all__ = ["MAX_TERMS", "expression_of", "rewrite", "split_operators"]

MAX_TERMS = 50
"""The most operands a formula may have: a longer one is said to be too long, not computed."""

_PERCENT_OF = r"(?:as an? |in )?(?:%|percent(?:age)?|share|proportion|fraction|portion) of"
_OPS = re.compile(
    rf"(?i)(?P<div>\bdivided by\b|÷|(?<=\s)/(?=\s)|(?<=\w)/(?=\w)|\bover\b|\b{_PERCENT_OF}\b|\bdivide(?:d)? (?:it |that |this )?by\b)"
    r"|(?P<mul>\bmultiplied by\b|\btimes\b|\*|×|(?<=\s)x(?=\s))"
    r"|(?P<add>\bplus\b|\+|\badded to\b|\badd(?:ing)?\b)"
    r"|(?P<sub>\bminus\b|\bless\b(?! than)|\bnet of\b|\bsubtract(?:ing|ed)?\b|\bafter deducting\b|\bdeducting\b|"
    r"(?<=\s)[-–−](?=\s))"
    r"|(?P<open>\(|⟨)|(?P<close>\)|⟩)")
_SYMBOL = {"div": "/", "mul": "*", "add": "+", "sub": "-"}
_SUM_OF = re.compile(r"(?i)\b(?:the )?(?:sum|total) of\s+(.+)$")
_DIFFERENCE = re.compile(r"(?i)\b(?:the )?difference between\s+(.+)$")
_RATIO_OF = re.compile(r"(?i)\b(?:the )?ratio (?:of|between)\s+(.+?)\s+(?:to|and)\s+(.+)$")
_TAKE = re.compile(r"(?i)^\s*(?:take|start with|begin with)\s+(.+?)\s*,?\s+(?:and|then)\s+(divide|subtract|add|"
                   r"multiply)\b(.*)$")


def split_operators(text: str) -> list[tuple[str, str]]:
    """The text as ('op', symbol) and ('phrase', words) tokens; a parenthesis (or bracket) with no operator inside is
    a gloss and is dropped; 'as a percentage of' is the division it means."""
    text = re.sub(r"\[[^\]]*\]", " ", text)
    while True:  # glosses: "(purchases of property and equipment)", "(loss)", "[from cash flow statement]"
        glossless = re.sub(r"\(([^()]*)\)", functools.partial(_group_or_gloss, text), text)
        if glossless == text:
            break
        text = glossless
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _OPS.finditer(text):
        out.append(("phrase", text[pos:m.start()]))
        kind = m.lastgroup or ""
        out.append(("op", _SYMBOL.get(kind, "(" if kind == "open" else ")")))
        pos = m.end()
    out.append(("phrase", text[pos:]))
    return [(k, v.strip() if k == "phrase" else v) for k, v in out if k == "op" or v.strip()]


_AFTER_OPERATOR = re.compile(r"(?i)(?:^|[-+*/×÷(⟨]|\b(?:divided by|over|plus|minus|less|times|multiplied by|net of|"
                             r"as|of|is|equals|:))\s*$")


def _group_or_gloss(text: str, m: re.Match[str]) -> str:
    """A parenthesis with an operator inside groups; one without is a gloss on the operand before it ("capital
    expenditures (purchases of PP&E)", dropped) unless it stands where an operand stands ("/ (FY2019 COGS)", kept
    as a group)."""
    if _OPS.search(m.group(1)):
        return m.group(0)
    return f"⟨{m.group(1)}⟩" if _AFTER_OPERATOR.search(text[:m.start()]) else " "


def rewrite(text: str, defined: dict[str, Expr]) -> str:
    """Word forms written as operators (grouped by ⟨ ⟩, which no gloss removal touches): "the ratio of A to B" -> "A / B", "the difference between A and B" ->
    "A - B", "the sum of A, B and C" -> "A + B + C", "take A and divide by B" -> "A / B"."""
    m = _TAKE.match(text)
    if m:
        op = {"divide": "/", "subtract": "-", "add": "+", "multiply": "*"}[m.group(2).lower()]
        rest = re.sub(r"(?i)^\s*(?:it |that |the result |this )?(?:by|from|to)?\s*", "", m.group(3))
        text = f"{m.group(1)} {op} {rest}" if op != "-" else f"{rest} - {m.group(1)}"
    m = _RATIO_OF.search(text)
    if m:
        text = f"{text[:m.start()]}⟨{m.group(1)}⟩ / ⟨{m.group(2)}⟩"
    m = _DIFFERENCE.search(text)
    if m:
        parts = _split_and(m.group(1), defined)
        if len(parts) == 2:
            text = f"{text[:m.start()]}⟨{parts[0]}⟩ - ⟨{parts[1]}⟩"
    m = _SUM_OF.search(text)
    if m:
        tail = re.split(r"(?i)\s+(?=divided by\b|over\b|minus\b|less\b|times\b|multiplied by\b)|\s[/*-]\s", m.group(1), maxsplit=1)
        parts = _split_and(tail[0], defined)
        if len(parts) >= 2:
            rest = m.group(1)[len(tail[0]):]
            text = f"{text[:m.start()]}⟨{' + '.join(parts)}⟩{rest}"
    return text


def _split_and(text: str, defined: dict[str, Expr]) -> list[str]:
    """A list "A, B and C" split where every part is an operand ("research and development" stays one)."""
    pieces = [p for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text) if p.strip()]
    out: list[str] = []
    buf = ""
    for piece in pieces:
        buf = f"{buf} and {piece}" if buf else piece
        if not isinstance(resolve(buf, defined), Unknown):
            out.append(buf)
            buf = ""
    if buf:
        if out and not isinstance(resolve(f"{out[-1]} and {buf}", defined), Unknown):
            out[-1] = f"{out[-1]} and {buf}"
        else:
            out.append(buf)
    return out


def expression_of(text: str, defined: Optional[dict[str, Expr]] = None) -> tuple[Optional[Expr], bool, int]:
    """(expression, 'as a percentage of' used, operands) of words; (None, False, 0) when they hold no operand or do
    not parse (unbalanced parentheses, an operator without an operand); more than `MAX_TERMS` operands are
    counted, not built."""
    defined = defined or {}
    text = rewrite(" ".join(text.split()), defined)
    percent = bool(re.search(rf"(?i)\b{_PERCENT_OF}\b", text))
    tokens = split_operators(text)
    n = sum(1 for k, _v in tokens if k == "phrase")
    if n == 0 or n > MAX_TERMS:
        return None, percent, n
    at = [0]

    def peek() -> tuple[str, str]:
        return tokens[at[0]] if at[0] < len(tokens) else ("end", "")

    def expr() -> Optional[Expr]:
        left = term()
        while left is not None and peek() in (("op", "+"), ("op", "-")):
            op = tokens[at[0]][1]
            at[0] += 1
            right = term()
            if right is None:
                return None
            left = BinOp(op=op, left=left, right=right)  # type: ignore[arg-type]
        return left

    def term() -> Optional[Expr]:
        left = factor()
        while left is not None and peek() in (("op", "*"), ("op", "/")):
            op = tokens[at[0]][1]
            at[0] += 1
            right = factor()
            if right is None:
                return None
            left = BinOp(op=op, left=left, right=right)  # type: ignore[arg-type]
        return left

    def factor() -> Optional[Expr]:
        kind, value = peek()
        at[0] += 1
        if (kind, value) == ("op", "("):
            inner = expr()
            if peek() != ("op", ")"):
                return None
            at[0] += 1
            return inner
        if kind == "phrase":
            return resolve(value, defined)
        return None

    out = expr()
    if out is None or at[0] != len(tokens):
        return None, percent, n
    return out, percent, n


def is_number(expr: Optional[Expr], value: float) -> bool:
    return isinstance(expr, Number) and expr.value == value
