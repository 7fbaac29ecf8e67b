"""An LLM's numbers checked against the operands and results finrag computed (issue 33).

    unmatched = unmatched_numbers(answer, result)   # the figures of `answer` that match nothing computed

When the reader (a tagged fact, a member, a change or a metric from the facts, or the statement-table reader)
found inputs and a result, an LLM generator gets them as structured context. Its answer's figures are then
read (`$3.2 billion`, `1,577`, `12.5%`, `$1.57 per share`; citations `[doc, p. N]`, years and dates are no
figures) and each is compared with every input and the result, in any of the scales a filing prints
(units, thousands, millions, billions) within 0.5% (a percent within 0.05 points, or a per-share figure to
the cent). A figure that matches none is "unmatched": the generate node records them
(`reader.unmatched_numbers` in the contract) and adds one sentence to the answer that names them. The absolute
difference of two inputs (a change) and their ratio as a percent count as computed too.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.answering.reader import ReaderResult
from finrag.tools.numbers import SCALE_WORDS
from finrag.tools.vocabulary.dates import MONTH_PREFIXES

__all__ = ["figures_outside", "unmatched_numbers", "unmatched_note"]

_CITATION = re.compile(r"\[[^\]]*\bp\.?\s*\d+[^\]]*\]")
_DATE = re.compile(r"(?i)\b(?:" + MONTH_PREFIXES + r")[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d{2}\b|"
                   r"\b(?:19|20)\d{2}-\d{2}-\d{2}\b|\b(?:fy|q[1-4]|cy)\s*'?\d{2,4}\b|\b[1-4]q\s*\d{2,4}\b")
_FIGURE = re.compile(r"(?P<neg>[-\u2212(])?\s*(?P<cur>\$|usd\s*)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![-\u2011]?[A-Za-z])"
                     r"\s*(?P<pct>%|percent\b)?(?:\s*(?P<scale>trillion|billions?|millions?|thousands?|bn|mm|mn|tn)\b)?",
                     re.I)
_SCALES = (1.0, 1e3, 1e6, 1e9)


def _figures(text: str) -> list[tuple[str, float, bool, bool]]:
    """(as written, value with its scale word applied, a percent, money or scaled) of each figure in `text`."""
    text = _DATE.sub(" ", _CITATION.sub(" ", text))
    out = []
    for m in _FIGURE.finditer(text):
        raw = m.group("num")
        value = float(raw.replace(",", ""))
        pct, scale, cur = bool(m.group("pct")), m.group("scale"), bool(m.group("cur"))
        if not pct and not scale and not cur and "," not in raw and "." not in raw:
            if 1900 <= value <= 2100 or value < 10:  # a year, a count of years or quarters, a footnote
                continue
        if scale:
            value *= SCALE_WORDS.get(scale.lower(), 1.0)
        if m.group("neg"):
            value = -value if m.group("neg") != "(" or text[m.end():m.end() + 1] == ")" else value
        out.append((m.group(0).strip(), value, pct, cur or bool(scale)))
    return out


def _allowed(result: ReaderResult) -> tuple[list[float], list[float]]:
    """(amounts, percents) the answer may state: the inputs, the result, a change's difference and ratio."""
    inputs = [float(f.value) for f in result.found]
    amounts = list(inputs)
    percents: list[float] = []
    if result.value is not None:
        (percents if result.kind == "metric" else amounts).append(float(result.value))
        amounts.append(float(result.value))
    for i, a in enumerate(inputs):
        for b in inputs[i + 1:]:
            amounts.append(a - b)
            amounts.append(b - a)
            if b:
                percents.append(100.0 * (a - b) / abs(b))
                percents.append(100.0 * a / b)
            if a:
                percents.append(100.0 * (b - a) / abs(a))
                percents.append(100.0 * b / a)
    return amounts, percents


def _matches(value: float, pct: bool, amounts: list[float], percents: list[float]) -> bool:
    if pct:
        return any(abs(abs(value) - abs(p)) <= 0.05 + 0.005 * abs(p) for p in percents)
    for a in amounts:
        for scale in _SCALES:
            v = value * scale
            if abs(abs(v) - abs(a)) <= max(0.005 * abs(a), 0.005 if abs(a) < 100 else 0.0):
                return True
    return False


def unmatched_numbers(answer: str, result: Optional[ReaderResult]) -> list[str]:
    """The figures of `answer` that match none of `result`'s inputs or results (see the module docstring); []
    when the reader computed nothing to check against."""
    if result is None or result.kind not in ("item", "metric") or not result.confident or not result.found:
        return []
    amounts, percents = _allowed(result)
    out: list[str] = []
    for written, value, pct, _money in _figures(answer):
        if not _matches(value, pct, amounts, percents) and written not in out:
            out.append(written)
    return out


def figures_outside(answer: str, texts: list[str]) -> list[str]:
    """The figures of `answer` that none of `texts` states (in any of a filing's scales, within 0.5%; a percent
    within 0.05 points): in a fallback answer (issue 48) the figures that do not come from the filings of a
    company the question may name."""
    amounts: list[float] = []
    percents: list[float] = []
    for text in texts:
        for _written, value, pct, _money in _figures(text):
            (percents if pct else amounts).append(value)
    out: list[str] = []
    for written, value, pct, _money in _figures(answer):
        if not _matches(value, pct, amounts, percents) and written not in out:
            out.append(written)
    return out


def unmatched_note(unmatched: list[str]) -> str:
    """The sentence the answer gets when its figures include some that finrag did not compute."""
    shown = ", ".join(f"'{u}'" for u in unmatched[:5]) + (f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else "")
    return (f"Check: {shown} {'is' if len(unmatched) == 1 else 'are'} not among the inputs or results finrag read "
            f"from the filing.")
