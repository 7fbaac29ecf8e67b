"""The table reader's parity with the tagged facts (issue 33): one segment's, region's or product line's value or
change from statement tables, a not-found answer instead of the total, and a multi-year series from the
statement columns (pages as EDGAR HTML without inline XBRL reads them: one row a line, cells between " | ")."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.pages import TextPages

from finrag.tools.answering.member_tables import answer_member_from_tables
from finrag.tools.answering.reader import read
from finrag.tools.answering.sources import PdfPages
from finrag.tools.question import read_question

INCOME = """Acme Cloud, Inc.
Consolidated Statements of Operations
(in millions)
Year Ended December 31,
2024 | 2023 | 2022
Revenues:
Subscription | $6,000 | $5,000 | $4,000
Services and other | 1,000 | 900 | 800
Total revenue | 7,000 | 5,900 | 4,800
Operating income | 1,400 | 1,100 | 900
Net income | 1,050 | 820 | 700
"""

SEGMENTS = """Note 12 - Segment Information
The following table shows information by reportable segment (in millions):
2024 | 2023 | 2022
Americas:
Net sales | $4,200 | $3,500 | $3,000
Operating income | $900 | $700 | $600
Europe:
Net sales | $2,000 | $1,700 | $1,300
Operating income | $400 | $300 | $250
Asia Pacific:
Net sales | $800 | $700 | $500
Operating income | $100 | $100 | $50
"""

BALANCE_TWO_YEARS = """Acme Cloud, Inc.
Consolidated Statements of Operations
(in millions)
2024 | 2023
Total revenue | 7,000 | 5,900
Net income | 1,050 | 820
"""


INFO = {"company": "Acme Cloud", "fiscal_year": 2024, "form": "10K", "period_end": "2024-12-31"}
SOURCE = TextPages(["Acme Cloud, Inc. Annual Report on Form 10-K", INCOME, SEGMENTS])


def _ask(question: str):
    return answer_member_from_tables(read_question(question), [], SOURCE, doc_id="acme-10k", info=INFO)


@pytest.mark.parametrize("question, stated, page", [
    ("What was Acme Cloud's Subscription revenue in FY2024?", "$6,000 million", 1),
    ("What was the revenue of Acme Cloud's Americas segment for FY2024?", "$4,200 million", 2),
    ("How much revenue did Acme Cloud generate from Europe in fiscal 2023?", "$1,700 million", 2),
])
def test_a_members_value_from_its_row(question, stated, page):
    r = _ask(question)
    assert r is not None and r.confident and r.asked == "member" and stated in r.answer, r and r.answer
    assert f"[acme-10k, p. {page}]" in r.answer and "7,000" not in r.answer  # never the total
    assert r.found and r.found[0].page == page


def test_a_members_change_shows_the_arithmetic():
    r = _ask("How much did Acme Cloud's Americas segment revenue grow from FY2023 to FY2024?")
    assert r is not None and r.confident, r and r.answer
    assert "(4,200 - 3,500) / 3,500 = +20.0%" in r.answer and r.formula == "(4,200 - 3,500) / 3,500 = +20.0%"


def test_a_breakdown_the_tables_lack_is_said_not_found_never_the_total():
    r = _ask("How much revenue did Acme Cloud generate from Germany in FY2024?")
    assert r is not None and not r.confident and r.answer.startswith("No revenue row for the region asked was found")
    assert "7,000" not in r.answer and "The consolidated total is not the asked measure." in r.answer


def test_questions_that_name_no_member_are_left_to_the_line_item_reader():
    for q in ["What was Acme Cloud's total revenue in FY2024?", "What was Acme Cloud's net income in FY2024?",
              "Which segment had the highest revenue for Acme Cloud in FY2024?"]:
        assert _ask(q) is None, q


def test_a_series_from_the_statement_columns_and_the_missing_year_said():
    q = "What was Acme Cloud's net income for each of the last three fiscal years?"
    r = read(q, [], SOURCE, routed_docs=["acme-10k"], doc_info=INFO)
    assert r.asked == "series" and r.confident, r.answer
    assert r.answer.startswith("Acme Cloud's net income by fiscal year: FY2022: $700 million [acme-10k, p. 1]; "
                               "FY2023: $820 million [acme-10k, p. 1]; FY2024: $1,050 million [acme-10k, p. 1].")
    # (another doc id: a page's tables are kept per filing and page for the process)
    two = read(q, [], TextPages(["cover", BALANCE_TWO_YEARS]), routed_docs=["acme2-10k"], doc_info=INFO)
    assert two.asked == "series" and not two.confident
    assert "FY2023: $820 million" in two.answer and "No net income for FY2022 was found" in two.answer


PDFS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench" / "pdfs"


@pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")
def test_a_real_pdfs_segment_row():
    from finrag.tools.routing.documents import build_document_info

    doc = "BOEING_2022_10K"
    r = answer_member_from_tables(read_question("What was the revenue of Boeing's Commercial Airplanes segment in "
                                                "FY2022?"), [], PdfPages.from_dir(PDFS, [doc]), doc_id=doc,
                                  info=build_document_info(doc).model_dump())
    assert r is not None and "$25,867 million" in r.answer and "66,608" not in r.answer, r and r.answer
