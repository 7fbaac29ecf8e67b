"""Issue 33 routing: a shares-outstanding count as of a cover date goes to the filing whose cover that is (a date
after its period), a year to date ("the first nine months of fiscal 2024") to the 10-Q of that quarter, whole
fiscal years asked without a year ("each of the last three fiscal years") to the annual report."""
from __future__ import annotations

from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.question import read_question
from finrag.tools.routing.resolver import best_document, ytd_quarter

DOCS = [DocumentInfo(doc_id="ba-10-k", company="Boeing", form="10K", fiscal_year=2024, period_end="2024-12-31"),
        DocumentInfo(doc_id="ba-10-q", company="Boeing", form="10Q", fiscal_year=2025, quarter=2,
                     period_end="2025-06-30"),
        DocumentInfo(doc_id="ba-10-q3", company="Boeing", form="10Q", fiscal_year=2024, quarter=3,
                     period_end="2024-09-30")]


def _pick(question: str):
    facts = read_question(question)
    ex = ExtractedMetadata(years=facts.years, periods=facts.periods, dates=facts.dates, forms=facts.forms)
    return best_document(DOCS, "Boeing", ex, set(), 2024, cover_date=facts.cover == "shares_outstanding",
                         ytd_quarter=ytd_quarter(facts),
                         whole_years=bool(facts.series_years) and not facts.years_written)


def test_a_cover_date_routes_to_the_filing_whose_cover_it_is():
    assert _pick("How many shares of BA common stock were outstanding as of January 27, 2025?").doc_id == "ba-10-k"
    assert _pick("How many shares of Boeing were outstanding as of July 22, 2025?").doc_id == "ba-10-q"
    # a date far from any period end: no cover rule, the usual reading of the date
    assert "cover" not in _pick("How many shares of Boeing were outstanding as of June 1, 2025?").reason


def test_the_cover_rule_is_only_for_cover_counts():
    assert "cover" not in _pick("What was Boeing's revenue as of January 27, 2025?").reason


def test_a_year_to_date_routes_to_the_quarter_that_ends_it():
    assert ytd_quarter(read_question("Boeing's revenue in the first nine months of fiscal 2024")) == 3
    assert ytd_quarter(read_question("Boeing's revenue in Q3 of fiscal 2024")) is None
    assert _pick("By how much did Boeing's revenue change in the first nine months of fiscal 2024 versus the "
                 "prior-year period?").doc_id == "ba-10-q3"
    assert _pick("What was Boeing's revenue in fiscal 2024?").doc_id == "ba-10-k"


def test_whole_fiscal_years_without_a_year_route_to_the_annual_report():
    assert _pick("What was Boeing's net income for each of the last three fiscal years?").doc_id == "ba-10-k"
