"""`finrag.tools.fiscal`: the one fiscal-year-of-date rule, used by the filing lists and the statement reader."""
from __future__ import annotations

from datetime import date

from finrag.tools.answering import reader
from finrag.tools.edgar import listing
from finrag.tools.fiscal import SLACK_DAYS, fiscal_year_of, fiscal_year_of_period, safe_date


def test_one_rule_for_listing_and_reader():
    assert listing.fiscal_year_of is fiscal_year_of_period and reader.fiscal_year_of is fiscal_year_of


def test_dated_column_in_the_filings_calendar():
    oracle_end = date(2025, 5, 31)  # Oracle's fiscal 2025 ends May 31, 2025
    assert fiscal_year_of(date(2024, 8, 31), 2025, oracle_end) == 2025  # Q1 FY2025
    assert fiscal_year_of(date(2024, 5, 31), 2025, oracle_end) == 2024
    assert fiscal_year_of(date(2023, 5, 31), 2025, oracle_end) == 2023
    apple_end = date(2023, 9, 30)
    assert fiscal_year_of(date(2022, 9, 24), 2023, apple_end) == 2022  # a 52-week year ended 6 days early
    assert fiscal_year_of(apple_end + _days(SLACK_DAYS), 2023, apple_end) == 2023
    assert fiscal_year_of(apple_end + _days(SLACK_DAYS + 1), 2023, apple_end) == 2024


def test_period_of_report_and_fiscal_year_end():
    assert fiscal_year_of_period("2023-12-31", "1231") == 2023
    assert fiscal_year_of_period("2023-12-30", "0930") == 2024  # Q1 of a September year
    assert fiscal_year_of_period("2023-09-30", "0930") == 2023
    assert fiscal_year_of_period("2023-10-04", "0930") == 2023  # a 53-week year ending a few days late
    assert fiscal_year_of_period("2023-10-15", "0930") == 2023  # within SLACK_DAYS
    assert fiscal_year_of_period("2023-10-25", "0930") == 2024
    assert fiscal_year_of_period("2021-01-02", "1231") == 2020  # a 52/53-week fiscal 2020 ending January 2, 2021
    assert fiscal_year_of_period("2023-01-31", "0131") == 2023 and fiscal_year_of_period("2023-04-29", "0131") == 2024
    assert fiscal_year_of_period("2024-02-29", "0229") == 2024  # clamped to February 28
    assert fiscal_year_of_period("2023-06-30", "") == 2023 and fiscal_year_of_period("2023-06-30", "13xx") == 2023
    assert fiscal_year_of_period("", "1231") is None and fiscal_year_of_period("June 2023", "1231") is None


def test_safe_date_clamps_the_day():
    assert safe_date(2023, 2, 31) == date(2023, 2, 28) and safe_date(2023, 4, 31) == date(2023, 4, 30)
    assert safe_date(2023, 8, 31) == date(2023, 8, 31)


def _days(n: int):
    from datetime import timedelta
    return timedelta(days=n)
