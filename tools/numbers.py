"""Numbers and scales as filings print them: one home for the scale words and the two number readers.

* Scales: `SCALES` (a statement's stated scale, 'in millions' -> 1e6), `SCALE_WORDS` (every word or
  abbreviation prose uses: 'bn', 'mm', 'trillion'), `SCALE_OF_POWER` (an iXBRL fact's `scale` attribute, '6' ->
  'millions') and `SINGULAR` ('millions' -> 'million', as an answer writes it).
* `parse_number`: one table cell ('(1,577)' -> -1577.0, '$ 5,363' -> 5363.0, '12.5%' -> 12.5); a dash or 'n/a'
  is no number (`is_dash` says when it stands for zero).
* `fact_value`: one ``ix:nonFraction``'s displayed text read with its format, scale and sign attributes (the
  text never carries the sign: '(1,234.5)' is 1234.5 until `sign="-"`; a dash with a zero format is 0.0).

Prose figures with their units ("$3.2 billion", "USD 8.7bn") are found by `finrag.eval.judges.numbers`, with
`SCALE_WORDS`.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Optional

__all__ = ["DASHES", "MAX_DIGITS", "MAX_SCALE", "SCALES", "SCALE_OF_POWER", "SCALE_WORDS", "SINGULAR",
           "bounded_decimals", "bounded_scale", "fact_value", "is_dash", "parse_number"]

SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
"""A statement's scale word ('(In millions, except per share data)') -> its multiplier."""
SINGULAR = {"thousands": "thousand", "millions": "million", "billions": "billion"}
"""A scale as an amount is written with it ('$1,577 million')."""
SCALE_OF_POWER = {"3": "thousands", "6": "millions", "9": "billions"}
"""An iXBRL fact's `scale` attribute (a power of ten) -> the statement's scale word."""
SCALE_WORDS = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mm": 1e6, "mil": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
    "trillion": 1e12, "trillions": 1e12, "tn": 1e12,
}
"""Every scale word or abbreviation of prose, lower case -> its multiplier (`SCALES` are among them)."""

DASHES = frozenset({"—", "–", "-", "−", "——", "— ", "--", "n/a", "N/A", "nm", "NM", "n/m"})
"""Table cells that stand for no amount (zero, not meaningful)."""
_CELL = re.compile(r"^\(?-?\$?\(?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\)?%?\)?[,;]?$")


@functools.lru_cache(maxsize=65_536)  # pure; a page's cells are tested several times, and cells repeat across pages
def parse_number(tok: str) -> Optional[float]:
    """A table cell's number: '(1,577)' -> -1577.0, '5,363' -> 5363.0, '16,865.2' -> 16865.2, '12.5%' -> 12.5;
    None when the token is not a number."""
    t = tok.strip().replace("$", "").replace("\u2212", "-")
    if not t or not _CELL.match(tok.strip().replace("\u2212", "-")):
        return None
    neg = t.startswith("(") or t.startswith("-") or (t.endswith(")") and "(" in t)
    digits = re.sub(r"[^\d.]", "", t)
    if not digits or digits == ".":
        return None
    try:
        v = float(digits)
    except ValueError:
        return None
    return -v if neg else v


def is_dash(tok: str) -> bool:
    """A cell that is a dash or 'n/a' (`DASHES`)."""
    return tok.strip() in DASHES


MAX_SCALE = 30
"""The largest |scale| of a fact (10**30: beyond any amount a filing reports); a fact with a larger one, or with
a scale that is not an integer, is skipped (issue 34: `scale="400"` overflowed, `"10000000"` hung)."""
MAX_DIGITS = 30
"""The most digits a fact's displayed number may have; a longer digit string is no fact."""
_SMALL_INT = re.compile(r"[+-]?\d{1,4}")


def bounded_scale(scale: str | int | None) -> Optional[int]:
    """`scale` as an int when it is a whole number within +-`MAX_SCALE` (missing or empty: 0), else None."""
    if scale is None or scale == "":
        return 0
    text = str(scale).strip()
    if not _SMALL_INT.fullmatch(text):
        return None
    value = int(text)
    return value if abs(value) <= MAX_SCALE else None


def bounded_decimals(decimals: str) -> str:
    """`decimals` as stored: "INF" or a whole number within +-`MAX_SCALE`, else "" (unknown precision)."""
    text = (decimals or "").strip()
    if text.upper() == "INF":
        return "INF"
    return text if _SMALL_INT.fullmatch(text) and abs(int(text)) <= MAX_SCALE else ""


def fact_value(text: str, fmt: str = "", scale: str | int | None = 0, sign: str = "") -> Optional[float]:
    """The number an ``ix:nonFraction`` stands for: displayed `text` read with its `fmt`, times 10**`scale`,
    negated when `sign` is '-'; None when the text is not a number (or has over `MAX_DIGITS` digits) or the
    scale is not a whole number within +-`MAX_SCALE`."""
    power = bounded_scale(scale)
    if power is None:
        return None
    t = (text or "").strip().replace("\xa0", "").replace(" ", "")
    fmt = (fmt or "").lower()
    if "fixed-zero" in fmt or "zerodash" in fmt or t in ("-", "—", "–", ""):
        num = 0.0 if ("zero" in fmt or "dash" in fmt or t in ("-", "—", "–")) else None
    else:
        if "comma-decimal" in fmt or "numcommadecimal" in fmt:
            t = t.replace(".", "").replace(",", ".")
        else:
            t = t.replace(",", "")
        m = re.search(r"\d+(?:\.\d+)?|\.\d+", t)
        if m is None or sum(c.isdigit() for c in m.group()) > MAX_DIGITS:
            return None
        num = float(m.group())
    if num is None:
        return None
    num *= 10.0 ** power
    if not math.isfinite(num):
        return None
    return -num if sign == "-" else num
