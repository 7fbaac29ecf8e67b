"""The fiscal year a date belongs to: one rule for the filing lists (`finrag.tools.edgar.listing`) and the
statement reader's dated columns and questions (`finrag.tools.answering.reader`).

A fiscal year is the year that ends on the company's fiscal year end; a date up to `SLACK_DAYS` after an end
still belongs to the year that ended (a 52/53-week year ends on a weekday near the nominal date: Apple's
"0930" year ended 2022-09-24 and 2023-09-30, a "1231" retailer's fiscal 2020 ended 2021-01-02):

    fiscal_year_of(date(2024, 8, 31), fiscal_year=2025, year_end=date(2025, 5, 31))  -> 2025 (Oracle's Q1 FY2025)
    fiscal_year_of_period("2023-12-30", "0930")                                       -> 2024
    fiscal_year_of_period("2021-01-02", "1231")                                       -> 2020
"""
from __future__ import annotations

import datetime as _dt
from typing import Optional

__all__ = ["SLACK_DAYS", "fiscal_year_of", "fiscal_year_of_period", "safe_date"]

SLACK_DAYS = 20
"""Days after a fiscal year's end that still belong to that year."""


def safe_date(year: int, month: int, day: int) -> _dt.date:
    """The date, its day clamped to the month's last day (February: 28)."""
    return _dt.date(year, month, min(day, 28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31))


def fiscal_year_of(d: _dt.date, fiscal_year: int, year_end: _dt.date, slack_days: int = SLACK_DAYS) -> int:
    """The fiscal year `d` falls in, given one fiscal year (`fiscal_year`) and the day it ends (`year_end`):
    each year ends 365.25 days after the one before, `slack_days` after an end still count to the year ended."""
    return fiscal_year - int(((year_end - d).days + slack_days) // 365.25)


def fiscal_year_of_period(period: str, fiscal_year_end: str = "1231") -> Optional[int]:
    """The fiscal year a period ending on `period` (ISO date) belongs to, given the company's fiscal year end
    'MMDD' (SEC submissions' `fiscalYearEnd`; a year is named by the calendar year its nominal end falls in).
    None when `period` is no date; an unreadable `fiscal_year_end` is taken as '1231'."""
    try:
        d = _dt.date.fromisoformat(str(period)[:10])
    except ValueError:
        return None
    fye = str(fiscal_year_end or "")
    fye = fye if len(fye) == 4 and fye.isdigit() else "1231"
    month, day = int(fye[:2]), int(fye[2:])
    if not 1 <= month <= 12:
        return d.year
    return fiscal_year_of(d, d.year, safe_date(d.year, month, day))
