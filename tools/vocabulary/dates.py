"""The month and date vocabulary, in one place: month names and abbreviations, ISO dates, two-digit years,
and a date as dei facts and cover pages write it (`dei_date`: 'June 28, 2025', '28 June 2025', '2025-06-28').
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Optional

__all__ = ["MONTH_NAMES", "MONTH_PREFIXES", "MONTH_RE", "MONTH_TOKENS", "MONTH_WORDS", "dei_date", "iso_date", "month_num", "two_digit_year"]

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
"""The months' names, January first (`MONTH_NAMES[month - 1]`)."""
_MONTHS = {m.lower(): i for i, m in enumerate(MONTH_NAMES, 1)}
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
               "sept": 9, "oct": 10, "nov": 11, "dec": 12}
MONTH_TOKENS = frozenset(_MONTHS) | frozenset(_MONTH_ABBR)
"""A month as one lower-case word: its name or its abbreviation ('january', 'jan', 'sept', 'may')."""
MONTH_WORDS = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
               r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)")
"""A month's name or abbreviation, as a non-capturing group (compile with (?i) for any case)."""
MONTH_RE = f"({MONTH_WORDS})"
MONTH_PREFIXES = "|".join(m[:3].lower() for m in MONTH_NAMES)
"""The months' first three letters, lower case, as an alternation ('jan|feb|...|dec'): a month written any way."""


def month_num(name: str) -> int:
    """'March' / 'Mar' / 'mar.' -> 3; 0 if not a month."""
    n = name.lower().rstrip(".")
    return _MONTHS.get(n) or _MONTH_ABBR.get(n, 0)


def iso_date(year: int, month: int, day: int) -> Optional[str]:
    """'YYYY-MM-DD', or None for an impossible date."""
    try:
        return _dt.date(int(year), int(month), int(day)).isoformat()
    except (ValueError, TypeError):
        return None


def two_digit_year(text: str) -> int:
    """'22' -> 2022, '98' -> 1998, '2021' -> 2021."""
    y = int(text)
    if len(text) == 2:
        y += 2000 if y < 70 else 1900
    return y


def dei_date(text: str) -> Optional[str]:
    """'June 28, 2025', 'Jun. 28, 2025', '28 June 2025' or '2025-06-28' as an ISO date, else None."""
    t = re.sub(r"\s+", " ", str(text or "")).strip()
    m = re.search(r"((?:19|20)\d{2})-(\d{2})-(\d{2})", t)
    if m:
        return iso_date(*map(int, m.groups()))
    m = re.search(MONTH_RE + r"\.?\s*(\d{1,2})\s*,?\s*((?:19|20)\d{2})", t, re.I)
    if m:
        return iso_date(int(m.group(3)), month_num(m.group(1)), int(m.group(2)))
    m = re.search(r"(\d{1,2})\s+" + MONTH_RE + r"\.?\s*,?\s*((?:19|20)\d{2})", t, re.I)
    if m:
        return iso_date(int(m.group(3)), month_num(m.group(2)), int(m.group(1)))
    return None
