"""Issue 9: time reasoning in routing - ranges, two-digit and apostrophe years, dates against fiscal years
that do not end in December, forward-looking and historical questions, explicit forms, 8-K items."""
from __future__ import annotations

import pytest

from finrag.state.schema import DocumentInfo
from finrag.tools.question.cues import event_items, forward_years
from finrag.tools.question.periods import extract_periods
from finrag.tools.routing.documents import build_document_info
from finrag.tools.routing.registry import Registry


def cover(name: str, ticker: str, fye: str) -> str:
    return ("FORM 10-K\nFor the fiscal year ended " + fye + "\nCommission File Number 1-1234\n" + name +
            "\n(Exact name of registrant as specified in its charter)\nSecurities registered pursuant to Section "
            "12(b) of the Act:\nTitle of each class\nTrading Symbol(s)\nName of each exchange on which registered\n"
            f"Common Stock\n{ticker}\nNew York Stock Exchange\nIndicate by check mark\n")


@pytest.fixture(scope="module")
def reg() -> Registry:
    docs = [build_document_info(f"/c/{y}/WMT.pdf", cover("Walmart Inc.", "WMT", f"January 31, {y}"))
            for y in (2021, 2022, 2023, 2024)]
    docs += [build_document_info(f"/c/{y}/AAPL.pdf", cover("Apple Inc.", "AAPL", f"September 30, {y}"))
             for y in (2021, 2022, 2023, 2024)]
    docs += [build_document_info("/f/ACME_2023_10K.pdf", cover("Acme Corp", "ACMX", "December 31, 2023")),
             build_document_info("/f/ACME_2024Q2_10Q.pdf", ""),
             DocumentInfo(doc_id="ACME_2022_8K_dated-2022-08-19", company="Acme", company_key="ACME", fiscal_year=2022,
                          form="8K", filed_date="2022-08-19", items=["5.02", "9.01"], tickers=["ACMX"]),
             DocumentInfo(doc_id="ACME_2022_8K_dated-2022-05-20", company="Acme", company_key="ACME", fiscal_year=2022,
                          form="8K", filed_date="2022-05-20", items=["5.07"], tickers=["ACMX"])]
    return Registry(docs)


def route(reg: Registry, q: str):
    return reg.resolve(reg.link(q), q, default_year=2024)


@pytest.mark.parametrize("text, years, periods", [
    ("FY19-21 capex", [2019, 2021], ["FY2019", "FY2021"]),
    ("2019-21 revenue", [2019, 2021], []),
    ("Q3 '22 margin", [2022], ["2022Q3"]),
    ("'22 revenue", [2022], []),
    ("CY2022", [2022], []),
    ("H1 2023", [2023], ["2023Q2"]),
    ("FY24E capex", [2024], ["FY2024"]),
    ("fiscal 22", [2022], ["FY2022"]),
])
def test_more_ways_to_write_a_period(text, years, periods):
    got_years, got_periods, _ = extract_periods(text)
    assert (got_years, got_periods) == (years, periods)


def test_forward_looking_years():
    assert forward_years("guidance for FY2023") == [2023] and forward_years("FY2025 capex guidance") == [2025]
    assert forward_years("2025 outlook AAPL") == [2025] and forward_years("expected capex in 2024") == [2024]
    assert forward_years("What was revenue in 2024?") == []


@pytest.mark.parametrize("question, doc, status", [
    ("AAPL FY2025 capex guidance", "AAPL_2024", "forward_looking"),
    ("Walmart 2024 outlook", "WMT_2023", "forward_looking"),
    ("AAPL 2020 revenue", "AAPL_2021", "comparative_period"),      # the FY2021 10-K still reports FY2020
    ("AAPL FY19 net income", "AAPL_2021", "comparative_period"),   # three years of income statements
    ("AAPL 2012 revenue", "AAPL_2021", "period_not_in_index"),     # nearest filing, never another company
    ("AAPL revenue FY21-23", "AAPL_2023", "exact_path"),          # a range reads its latest year
    ("Walmart inventories as of January 31, 2023", "WMT_2023", "exact_path"),   # a January year end
    ("AAPL cash as of June 30, 2023", "AAPL_2023", "exact_path"),  # inside fiscal 2023 (ends September)
    ("Acme in its 10-Q", "ACME_2024Q2_10Q", "default_year"),        # the form named wins over the default year
    ("Acme's new CEO background", "ACME_2022_8K_dated-2022-08-19", "default_year"),  # 8-K Item 5.02
    ("votes against Acme's board nominees", "ACME_2022_8K_dated-2022-05-20", "default_year"),  # Item 5.07
])
def test_time_reasoning(reg, question, doc, status):
    res = route(reg, question)
    assert res.doc_ids == [doc] and res.status == status, (question, res)
    assert 0 < res.confidence <= 1


@pytest.mark.parametrize("question, doc", [
    ("How many employees does Acme have?", "ACME_2023_10K"),         # a count: the business as the 10-K states it
    ("Has Acme ever paid a cash dividend?", "ACME_2023_10K"),         # yes/no
    ("What are Acme's reportable segments?", "ACME_2023_10K"),        # a list
    ("What is Acme's cash and cash equivalents?", "ACME_2024Q2_10Q"),  # a figure: the latest filing, as before
    ("How many employees did Acme have in its 10-Q?", "ACME_2024Q2_10Q"),  # the form named wins
])
def test_prose_without_a_period_reads_the_annual_report(reg, question, doc):
    """A prose question that names no period reads the latest annual report, not a later quarterly report; a
    figure question, or one that names the form, is routed as before."""
    res = route(reg, question)
    assert res.doc_ids == [doc], (question, res)
    assert res.status == "default_year"


def test_an_undated_date_question_reads_the_companys_periodic_reports(reg):
    """A date asked without a period is an event's, whose year the question does not say: the latest annual report,
    then the reports filed after it, then the earlier annual reports; a date question naming its year reads that
    year's filing only."""
    res = route(reg, "When did Acme first ship its product?")
    assert res.doc_ids == ["ACME_2023_10K", "ACME_2024Q2_10Q"] and res.status == "company_scope", res
    res = route(reg, "When did Apple announce the acquisition of Beats?")
    assert res.doc_ids == ["AAPL_2024", "AAPL_2023", "AAPL_2022", "AAPL_2021"], res
    assert route(reg, "When did Apple announce the acquisition in fiscal 2022?").doc_ids == ["AAPL_2022"]
    assert reg.resolve(reg.link("When did Acme first ship its product?"), "When did Acme first ship its product?",
                       default_year=2024, scope="filing").doc_ids == ["ACME_2023_10K"]  # one filing when asked


def test_event_items():
    assert event_items("Does the new CEO have experience?") == {"5.02"}
    assert "5.07" in event_items("nominees with more votes against")
    assert {"1.01", "2.03"} <= event_items("the revolving credit agreement")
