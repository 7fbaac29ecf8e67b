"""A margin the question allows to call not useful (issue 33): a lender's or insurer's income statement has no
operating income or gross profit; the answer says so, cites what the statement reports instead, and never computes
the margin from another line. Other companies' missing inputs stay "not found"."""
from __future__ import annotations

from pathlib import Path

import pytest

from finrag.tools.answering.reader import read
from finrag.tools.answering.sources import PdfPages
from finrag.tools.question import read_question
from finrag.tools.question.asks import asks_applicability

PDFS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench" / "pdfs"


@pytest.mark.parametrize("question, asks", [
    ("Does AMEX have an improving operating margin profile as of 2022? If operating margin is not a useful metric for "
     "a company like this, then state that and explain why.", True),
    ("Has AMCOR's quick ratio improved? If the quick ratio is not something that a financial analyst would ask about "
     "a company like this, then state that and explain why.", True),
    ("Does Corning have positive working capital? If working capital is not a useful or relevant metric for this "
     "company, then please state that.", True),
    ("What was Apple's operating margin in FY2024?", False),
    ("Is operating margin a useful metric?", False),
])
def test_the_applicability_clause_is_read(question, asks):
    assert asks_applicability(question) is asks
    assert read_question(question).applicability is asks


@pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")
def test_a_lenders_operating_margin_is_said_not_useful_with_what_it_reports():
    doc = "AMERICANEXPRESS_2022_10K"
    info = {"company": "American Express", "fiscal_year": 2022, "form": "10K"}
    q = ("Does American Express have an improving operating margin profile as of 2022? If operating margin is not a "
         "useful metric for a company like this, then state that and explain why.")
    r = read(q, [], PdfPages.from_dir(PDFS, [doc]), routed_docs=[doc], doc_info=info)
    assert r.answer.startswith("Operating margin is not a useful metric for American Express: its income statement "
                               "is a financial company's, with no operating income line"), r.answer
    assert "'Total revenues net of interest expense' 52,862" in r.answer and not r.confident
    # without the clause the same question stays a plain "not found"
    plain = read(q.split(" If ")[0], [], PdfPages.from_dir(PDFS, [doc]), routed_docs=[doc], doc_info=info)
    assert plain.answer.startswith("The reader could not compute") and "not a useful" not in plain.answer


@pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")
def test_an_industrial_companys_margin_is_never_called_not_useful():
    doc = "3M_2018_10K"
    q = ("What is 3M's FY2018 operating margin? If operating margin is not a useful metric for a company like this, "
         "then state that and explain why.")
    r = read(q, [], PdfPages.from_dir(PDFS, [doc]), routed_docs=[doc], doc_info={"company": "3M", "fiscal_year": 2018,
                                                                                   "form": "10K"})
    assert "not a useful" not in r.answer, r.answer
