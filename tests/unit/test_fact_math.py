"""Changes, margins and ratios computed from the tagged facts, with inputs, citations and the arithmetic (issue 33).

Widgetco's hand-made FY2024 10-K (`support.ixbrl.widgetco_tenk`: revenue 10,000 against 8,000, gross profit
4,000, net income 1,200 against 900, current assets 3,000 / liabilities 2,000) and the real Apple and Boeing
filings where `../shared` has them.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from support.ixbrl import widgetco_facts

from finrag.tools.answering.fact_math import answer_computed
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question

EDGAR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "edgar"
INFO = {"company": "Widgetco", "fiscal_year": 2024, "form": "10K", "period_end": "2024-12-31"}


@pytest.fixture(scope="module")
def facts() -> dict:
    return widgetco_facts()


def test_a_change_states_both_inputs_cited_and_the_arithmetic(facts):
    r = answer_computed(read_question("By what percentage did Widgetco's total revenue change from fiscal 2023 to "
                                      "fiscal 2024?"), facts, "wid", INFO)
    assert r is not None and r.confident and r.kind == "metric" and r.value == pytest.approx(25.0)
    assert r.answer.startswith("Widgetco's total revenue changed by +25.0% (+$2,000 million) from $8,000 million")
    assert "(10,000 - 8,000) / 8,000 = +25.0%" in r.answer and r.answer.count("[wid, p. 1]") == 2
    assert [f.value for f in r.found] == [8e9, 1e10]
    assert r.asked == "change" and r.formula.endswith("(10,000 - 8,000) / 8,000 = +25.0%")


def test_a_margin_and_a_ratio_from_the_facts(facts):
    r = answer_computed(read_question("What was Widgetco's gross margin for FY2024?"), facts, "wid", INFO)
    assert r is not None and "gross margin for the fiscal year ended 2024-12-31 was 40.0%" in r.answer
    assert "us-gaap:GrossProfit" in r.answer and "Formula: gross margin = gross profit / total revenue" in r.answer
    r = answer_computed(read_question("What was Widgetco's current ratio as of December 31, 2024?"), facts, "wid", INFO)
    assert r is not None and r.value == pytest.approx(1.5) and "[wid, p. 2]" in r.answer


def test_an_input_not_tagged_leaves_the_question_to_the_table_reader(facts):
    for q in ["What was Widgetco's debt-to-equity ratio as of December 31, 2024?",  # no debt, no equity tagged
              "By what percentage did Widgetco's operating income change from fiscal 2023 to fiscal 2024?",
              "What was Widgetco's total revenue in fiscal 2024?",  # one line item: xbrl_facts answers it
              "Did Widgetco's revenue increase in fiscal 2024?"]:  # yes/no: the reader's direction
        assert answer_computed(read_question(q), facts, "wid", INFO) is None, q


@pytest.mark.skipif(not EDGAR.exists(), reason="needs ../shared/data/edgar")
def test_real_year_to_date_change_and_a_negative_base():
    aapl = html_document((EDGAR / "aapl-10-q-2025-08-01.html").read_text(encoding="utf-8"))[1]
    info = {"company": "Apple", "fiscal_year": 2025, "form": "10Q", "period_end": "2025-06-28"}
    r = answer_computed(read_question("How much did AAPL's net earnings grow year over year through Q3 of fiscal "
                                      "2025?"), aapl, "aapl-10-q", info)
    assert r is not None and "+7.0% (+$5,544 million)" in r.answer and "9 months ended 2024-06-29" in r.answer
    ba = html_document((EDGAR / "ba-10-q-2025-07-29.html").read_text(encoding="utf-8"))[1]
    info = {"company": "Boeing", "fiscal_year": 2025, "form": "10Q", "period_end": "2025-06-30"}
    r = answer_computed(read_question("How much did Boeing's diluted EPS change year over year in Q2 of fiscal "
                                      "2025?"), ba, "ba-10-q", info)
    assert r is not None and "absolute value" in r.answer and "per share" in r.answer
    r = answer_computed(read_question("What was Boeing's gross margin in Q2 of fiscal 2025?"), ba, "ba-10-q", info)
    assert r is not None and "10.7%" in r.answer  # the total cost of revenue, not "Cost of products"


def test_a_series_of_fiscal_years_and_the_years_the_filing_does_not_tag(facts):
    r = answer_computed(read_question("Widgetco revenue for fiscal 2023 and 2024, year by year"), facts, "wid", INFO)
    assert r is not None and r.confident and r.asked == "series"
    assert "FY2023 (ended 2023-12-31): $8,000 million" in r.answer and "FY2024 (ended 2024-12-31): $10,000 million" \
        in r.answer and "| FY2024 (ended 2024-12-31) | $10,000 million | us-gaap:Revenues | [wid, p. 1] |" in r.answer
    r = answer_computed(read_question("What was Widgetco's total revenue for each of the last three fiscal years?"),
                        facts, "wid", INFO)
    assert r is not None and not r.confident and "No tagged total revenue for FY2022 is in wid" in r.answer
    assert r.missing == ["total revenue FY2022"] and [f.value for f in r.found] == [8e9, 1e10]


# --------------------------------------------------------------------------- a change between two named dates
def test_a_date_no_filing_tags_is_said_never_another_dates_value(facts):
    q = read_question("How did Widgetco's total current assets change from December 31, 2023 to December 31, 2024?")
    r = answer_computed(q, facts, "wid-10-k", INFO, related=lambda: [])
    assert r is not None and not r.confident and r.asked == "change"
    assert r.answer.startswith("No tagged total current assets for 2023-12-31 was found in wid-10-k or the company's "
                               "other filings in the index, so the change from 2023-12-31 to 2024-12-31 is not computed")
    assert "3,000" not in r.answer


@pytest.mark.skipif(not (EDGAR / "ba-10-q-2025-07-29.html").exists(), reason="needs ../shared/data/edgar")
def test_the_year_end_balance_of_a_10q_not_the_year_ago_quarters():
    data = html_document((EDGAR / "ba-10-q-2025-07-29.html").read_text(encoding="utf-8", errors="replace"))[1]
    info = {"company": "Boeing", "fiscal_year": 2025, "quarter": 2, "form": "10Q", "period_end": "2025-06-30"}
    q = read_question("How did Boeing's cash and cash equivalents change from December 31, 2024 to June 30, 2025?")
    r = answer_computed(q, data, "ba-10-q", info)
    assert r is not None and r.confident, r and r.answer
    assert "from $13,801 million as of 2024-12-31" in r.answer and "to $7,087 million as of 2025-06-30" in r.answer
    assert "(7,087 - 13,801) / 13,801 = -48.6%" in r.answer  # not the cash flow statement's June 30, 2024 balance


@pytest.mark.skipif(not (EDGAR / "Apple.10-Q.html").exists(), reason="needs ../shared/data/edgar")
def test_two_filings_each_cited_when_the_routed_one_lacks_the_earlier_date():
    def load(name: str) -> dict:
        data = html_document((EDGAR / name).read_text(encoding="utf-8", errors="replace"))[1]
        assert data is not None
        return data

    new = load("aapl-10-q-2025-08-01.html")
    info = {"company": "Apple", "fiscal_year": 2025, "quarter": 3, "form": "10Q", "period_end": "2025-06-28"}
    old_info = {"company": "Apple", "fiscal_year": 2024, "quarter": 3, "form": "10Q", "period_end": "2024-06-29"}
    q = read_question("By what percentage did Apple's total assets change from June 29, 2024 to June 28, 2025?")
    alone = answer_computed(q, new, "aapl-10-q-2025", info)
    assert alone is not None and not alone.confident and "2024-06-29" in alone.answer  # September's is not June's
    r = answer_computed(q, new, "aapl-10-q-2025", info, related=lambda: [("aapl-10-q-2024", load("Apple.10-Q.html"),
                                                                          old_info)])
    assert r is not None and r.confident, r and r.answer
    assert "from $331,612 million as of 2024-06-29 [aapl-10-q-2024, p. " in r.answer
    assert "to $331,495 million as of 2025-06-28 [aapl-10-q-2025, p. " in r.answer
    assert "of two filings (aapl-10-q-2024 and aapl-10-q-2025)" in r.answer
    assert {f.doc_id for f in r.found} == {"aapl-10-q-2024", "aapl-10-q-2025"}
