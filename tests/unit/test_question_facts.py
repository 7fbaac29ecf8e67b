"""The one reading of a question (`finrag.tools.question.read_question` -> `finrag.state.question.QuestionFacts`)."""
from __future__ import annotations

import pydantic
import pytest

from finrag.state.configuration import MAX_QUESTION_CHARS
from finrag.state.question import QuestionFacts
from finrag.tools.answering.questions import plan_question
from finrag.tools.question import read_question
from finrag.tools.question.read import _read


def test_periods_dates_forms_and_cues_of_a_question():
    f = read_question("What was Apple's revenue in Q2 FY2024 against the six months ended March 30, 2024, "
                      "per its 10-Q, in millions? Round to two decimal places.")
    assert f.years == [2024] and f.periods == ["2024Q2"] and f.dates == ["2024-03-30"]
    assert f.forms == ["10Q"] and f.quarters == [2] and f.as_of == "2024-03-30"
    assert f.asks_ytd and f.asks_quarter and f.ytd_months == 6
    assert f.scale == "millions" and f.decimals == 2 and f.line_item == "revenue" and f.metric is None
    assert f.scope == "line_item" and f.aggregate == "single" and not f.yesno


def test_what_is_asked_of_the_values():
    change = read_question("What is the FY2019 - FY2021 total revenue growth rate for Block?")
    assert change.aggregate == "change" and change.year_range == [2019, 2021] and change.head_years == [2019, 2021]
    avg = read_question("What is the 3-year average of capex as a % of revenue for Nike from FY2020 to FY2022?")
    assert avg.aggregate == "average" and avg.average_years == 3
    yesno = read_question("Does Corning have positive working capital based on FY2022 data? If working capital is "
                          "not a useful metric for this company, then state that.")
    assert yesno.yesno and yesno.direction == "positive" and yesno.metric == "working_capital"
    drivers = read_question("What drove gross margin change as of FY2022 for JnJ?")
    assert drivers.drivers and drivers.scope == "open" and drivers.metric == "gross_margin"
    either = read_question("Has Apple's gross margin improved or declined from FY2022 to FY2023?")
    assert not either.yesno and either.direction == "improve"
    defined = read_question("What is 3M's FY2018 fixed asset turnover ratio? Fixed asset turnover is defined as "
                            "FY2018 revenue over the average of FY2017 and FY2018 PP&E.")
    assert defined.head_years == [2018] and defined.years_written == [2018, 2017]
    assert "defined" not in defined.head


def test_forward_years_event_items_and_earnings_cues():
    f = read_question("What is Best Buy's FY2024 revenue guidance in its earnings release, and did the CFO resign?")
    assert 2024 in f.forward_years and "EARNINGS" in f.forms and "5.02" in f.event_items and "EARNINGS" in f.cues


@pytest.mark.parametrize("bad", [None, "", "   ", 42, b"What was revenue?", ["FY2022"]])
def test_anything_but_a_question_reads_as_nothing(bad):
    f = read_question(bad)
    assert f.years == [] and f.periods == [] and f.metric is None and f.line_item is None and f.scope == "open"


def test_hostile_and_huge_text_is_read_within_the_question_limit():
    text = "FY2023 revenue?\x00\u202e" + ("Q4 " * 10_000) + " FY2099"
    f = read_question(text)
    assert len(f.text) == MAX_QUESTION_CHARS and 2099 not in f.years and 2023 in f.years


def test_the_reading_is_frozen_and_kept_in_a_bounded_memo():
    f = read_question("What was Nike's total revenue in fiscal 2021?")
    with pytest.raises(pydantic.ValidationError):
        f.years = [1999]  # type: ignore[misc]
    assert read_question("What was Nike's total revenue in fiscal 2021?") is f
    assert _read.cache_info().maxsize is not None
    with pytest.raises(pydantic.ValidationError):
        QuestionFacts(unknown_field=1)  # type: ignore[call-arg]


def test_the_reader_plans_from_the_reading_and_the_routed_filing():
    facts = read_question("What was the quarterly revenue of Best Buy in Q2 of FY2024?")
    plan = plan_question("What was the quarterly revenue of in Q2 of FY2024?", facts=facts, fiscal_year=2024,
                         quarter=2, form="10Q")
    assert plan.kind == "item" and plan.item == "revenue" and plan.period == "quarter" and plan.months == 3
    assert plan.years == [2024] and plan.quarter == 2 and not plan.blocked
    other_quarter = plan_question("revenue in Q3 of FY2024?", facts=read_question("revenue in Q3 of FY2024?"),
                                  fiscal_year=2024, quarter=2, form="10Q")
    assert other_quarter.blocked  # the routed 10-Q holds Q2's columns, not Q3's


@pytest.mark.parametrize("question", [
    "By what percentage did Amazon's net sales rise in 2024?",
    "How much did Tesla's net income fall in 2024, in percent?",
    "IBM net income growth, quarter ended June 30, 2025 vs the year-ago quarter",
    "In dollar terms, how much did Meta's revenue increase from 2023 to 2024?",
    "How many dollars did Coca-Cola's cash from operations drop by in 2024 versus 2023?",
    "How much lower were Boeing's total revenues in 2024 than in 2023, in dollars?",
    "HubSpot top-line growth y/y in Q2 2025",
])
def test_changes_in_analysts_words(question):
    assert read_question(question).aggregate == "change"


@pytest.mark.parametrize("question", [
    "What was Apple's total net sales in 2024?",
    "How much did Apple spend on share repurchases in fiscal 2024?",
    "What was Boeing's revenue in Q2 2025 compared with analysts' estimates?",
    "How much revenue did Tesla's energy business bring in during FY2024?",
])
def test_one_value_is_not_a_change(question):
    assert read_question(question).aggregate == "single"


@pytest.mark.parametrize("question, share, metric", [
    ("What share of Apple's fiscal 2024 net sales came from Services?", True, None),
    ("AWS as a percent of Amazon's total net sales in 2024?", True, None),
    ("EMEA's contribution to Oracle's total revenues in Q1 FY25, in percent?", True, None),
    ("What was Apple's iPhone revenue in 2024?", False, None),
    ("How much did Meta spend on R&D as a percent of revenue in 2024?", False, "rnd_revenue"),
    ("What percentage of revenue did Apple spend on R&D?", False, "rnd_revenue"),
    ("Meta: research and development spend relative to revenue for fiscal 2024", False, "rnd_revenue"),
    ("SG&A as a percentage of revenue for Coca-Cola in 2024", False, "sga_revenue"),
    ("Coca-Cola's net income as a percent of net operating revenues in fiscal 2024?", False, "net_margin"),
])
def test_a_parts_share_or_a_line_item_over_revenue(question, share, metric):
    f = read_question(question)
    assert (f.share_of_total, f.metric) == (share, metric)


@pytest.mark.parametrize("question, cover", [
    ("Which firm signed the audit opinion on Boeing's 2024 financial statements?", "auditor"),
    ("Which Big Four firm signed off on Coca-Cola's 2024 financial statements?", "auditor"),
    ("Oracle's share count outstanding as reported on the cover of its 10-Q", "shares_outstanding"),
    ("Apple's fiscal 2025 year-end date?", "fiscal_year_end"),
    ("What is Apple's diluted share count?", None),
    ("How did the auditor's opinion change?", None),
])
def test_cover_facts_in_analysts_words(question, cover):
    assert read_question(question).cover == cover


def test_quarters_named_by_their_month_and_2q25():
    f = read_question("Change in Apple's net income for the June 2024 quarter versus the June 2023 quarter")
    assert f.month_quarters == ["2024-06-30", "2023-06-30"] and f.dates == [] and f.aggregate == "change"
    assert read_question("Oracle's revenue in the quarter ended August 2024").month_quarters == ["2024-08-31"]
    q = read_question("Smallest revenue type at IBM in 2Q25?")
    assert q.quarters == [2] and q.asks_quarter and q.periods == ["2025Q2"]


@pytest.mark.parametrize("question, cue", [
    ("How much financing revenue did IBM report for Q2 2025?", "product"),
    ("Coca-Cola's net operating revenues from concentrate operations for Q2 2025", "product"),
    ("What was Best Buy's domestic revenue in FY2023?", "product"),
    ("What was Apple's total net sales in 2024?", None),
    ("What were revenues from continuing operations in 2024?", None),
    ("What was the company's quarterly revenue in Q2?", None),
    ("How much revenue did Tesla make in 2024?", None),
])
def test_a_lower_case_part_of_revenue_names_a_breakdown(question, cue):
    """Never the consolidated total for "financing revenue": the question names a part (`part_qualifier`)."""
    assert read_question(question).member_cue == cue


@pytest.mark.parametrize("shorthand, read", [
    ("KO 2Q25 op mgn", "KO 2Q25 operating margin"),
    ("AAPL FQ3'25 services rev", "AAPL fiscal Q3 2025 services revenue"),
    ("ORCL 1QFY25 net mgn", "ORCL Q1 FY25 net margin"),
    ("HUBS shs outstanding per 2Q25 10-Q cover", "HUBS shares outstanding per 2Q25 10-Q cover"),
    ("KO Q2 2025 GM %", "KO Q2 2025 gross margin %"),
    ("GM revenue 2024", "GM revenue 2024"),  # General Motors' ticker stays
])
def test_shorthand_is_written_out_before_reading(shorthand, read):
    assert read_question(shorthand).text == read
