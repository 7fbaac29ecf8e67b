"""How the demo filings write amounts, percentages, dates and fixed-width statement tables.

Money is integer tenths of $ million throughout (`money(12345)` -> "$1,234.5 million").
"""
from __future__ import annotations

from typing import Sequence

from .companies import MONTHS, DemoCompany

__all__ = ["num", "money", "cell", "pct", "dps", "fiscal_year_end", "calendar_date", "filing_month",
           "filing_date", "mid_year", "table"]


def num(tenths: int) -> str:
    """1234 -> '123.4' with thousands separators."""
    return f"{tenths / 10:,.1f}"


def money(tenths: int) -> str:
    """Narrative amount: '$1,234.5 million'."""
    return f"${num(tenths)} million"


def cell(tenths: int) -> str:
    """Table amount: '1,234.5', '(1,234.5)' when negative, '-' when zero."""
    if tenths == 0:
        return "-"
    return f"({num(-tenths)})" if tenths < 0 else num(tenths)


def pct(x: float) -> str:
    """0.1234 -> '12.3%'."""
    return f"{100.0 * x:.1f}%"


def dps(f: dict) -> str:
    """Dividends per share of a year's financials: '$0.88 per share'."""
    return f"${f['dps_cents'] / 100:.2f} per share"


def fiscal_year_end(c: DemoCompany, year: int) -> str:
    """'December 31, 2023'."""
    return f"{c.fiscal_year_end}, {year}"


def calendar_date(c: DemoCompany, fiscal_year: int, month: int, day: int) -> str:
    """A date inside fiscal year `fiscal_year` (fiscal years end in c.fye_month)."""
    year = fiscal_year - 1 if month > c.fye_month else fiscal_year
    return f"{MONTHS[month - 1]} {day}, {year}"


def filing_month(c: DemoCompany, year: int) -> tuple[int, int]:
    """(month, calendar year) in which the filing for fiscal `year` is filed: two months after year end."""
    month = c.fye_month % 12 + 2
    return month, year + 1 if month <= c.fye_month else year


def filing_date(c: DemoCompany, year: int, f: dict) -> str:
    """The filing's date, e.g. 'February 21, 2024' (the day is seeded in `f`)."""
    month, cal = filing_month(c, year)
    return f"{MONTHS[month - 1]} {f['filing_day']}, {cal}"


def mid_year(c: DemoCompany, year: int) -> str:
    """The last day of the fiscal year's second quarter."""
    month = (c.fye_month + 6 - 1) % 12 + 1
    return calendar_date(c, year, month, 30 if month in (4, 6, 9, 11) else 31)


def table(header: Sequence[str], rows: Sequence[tuple], width: int = 54) -> list[str]:
    """Fixed-width lines; rows: (label, v1, v2) with ints (tenths), strings, or None / (label,) for a
    label-only row."""
    out = [" " * width + "".join(f"{h:>13}" for h in header)]
    for row in rows:
        label, vals = row[0], row[1:]
        if not vals or vals[0] is None:
            out.append(label)
            continue
        cells = [v if isinstance(v, str) else cell(v) for v in vals]
        out.append(f"{label:<{width}}" + "".join(f"{v:>13}" for v in cells))
    return out
