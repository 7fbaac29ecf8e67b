"""A definition's trailing clauses that only say how to write the answer ("..., 2 dp)", ". % to 2 decimals", ", in
percent to one decimal place", ", in times", ", as a multiple"; also with no comma: "A / B in percent", "(A / B)
expressed in percent"), cut off before its words are read as arithmetic; and the unit the question asks its answer in
(`unit_asked`: a ratio in days, a percentage in basis points).

    strip_format("operating income / revenue, in percent to one decimal place")  # "operating income / revenue"
"""
from __future__ import annotations

import re

from finrag.state.formula import Formula
from finrag.tools.question.expr_checks import divides

__all__ = ["strip_format", "unit_asked"]

_FORMAT_WORDS = r"(?:\$|in\s+times|(?:as\s+)?(?:a\s+)?multiples?|turns|x(?![\w-])|%|percent(?:age)?s?|pct|per ?cent|in|as|a|an|to|with|w/|round(?:ed)?|decimals?|places?|dp|d\.p\.|" \
                r"digits?|one|two|three|four|zero|no|\d{1,2}(?!\d)|usd|dollars?|millions?|billions?|mn|bn|days?|answer|give|express" \
                r"(?:ed)?|it|the|result|of|and|figure|number|value|format|negative|if|fell|may|be|" \
                r"nearest|tenth|hundredth|whole)"
_FORMAT_TAIL = re.compile(rf"(?i)(?:[,.;(]|\s—\s|^|(?<=\))|\s(?=(?:in|as|expressed)\s))\s*(?:{_FORMAT_WORDS}[\s,]*)+[.)]*\s*$")
"""A definition's last clause that only says how to write the answer ("..., 2 dp)", ". % to 2 decimals", ", in
percent to one decimal place"): the answer's format, no operand."""


def strip_format(rhs: str) -> str:
    """The definition without its trailing clauses of format (`_FORMAT_TAIL`) and an unmatched closing parenthesis."""
    out = rhs.strip().rstrip(" .,;:")
    while True:
        m = _FORMAT_TAIL.search(out)
        if not m or m.start() == 0 or not re.search(r"(?i)\d|one|two|three|four|%|percent|pct|decimal|dp|usd|million|"
                                                    r"billion|days|in\s+times|multiple|turns|\bx\b", m.group(0)):
            break
        out = out[:m.start()].strip()
    while out.endswith(")") and out.count(")") > out.count("("):
        out = out[:-1].strip()
    return out


_BPS = re.compile(r"(?i)\b(?:in|as|into|to)\s+(?:basis[- ]points?|bps|bp)\b")
"""The answer asked in basis points: a percentage stated in hundredths of a point (1% = 100 bps)."""
_DAYS = re.compile(r"(?i)\b(?:in|as|answer in|expressed in) days\b")
"""The question asks its ratio in days ("accounts receivable / quarterly sales x 91. Answer in days")."""


def unit_asked(question: str, found: Formula) -> Formula:
    """The formula stated in the unit the question asks its answer in: a ratio in days, a ratio or percentage in basis
    points (a percentage, stated in basis points too)."""
    if found.unit == "ratio" and _DAYS.search(question) and found.expression is not None and divides(found.expression):
        found = found.model_copy(update={"unit": "days"})
    if found.expression is not None and found.unit in ("ratio", "percent") and _BPS.search(question):
        found = found.model_copy(update={"unit": "percent", "basis_points": True})
    return found
