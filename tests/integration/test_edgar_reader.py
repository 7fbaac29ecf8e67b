"""Issue 20: the statement-table reader on real EDGAR HTML without usable inline XBRL, and the fact answerer
saying when the statement table disagrees with the tagged fact (skipped when ../shared/data/edgar is absent).

The reader tests read copies of the shared filings with the inline-XBRL markup stripped (`strip_ixbrl` of
bench/edgar_real.py: what a tool that drops the `ix:` tags saves); the gold values are the filings' own facts.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.edgar_real import strip_ixbrl
from finrag.tools.answering.reader import read
from finrag.tools.answering.sources import StorePages
from finrag.tools.documents.html import html_document

REPO = Path(__file__).resolve().parents[2]
EDGAR = REPO.parent / "shared" / "data" / "edgar"

pytestmark = pytest.mark.skipif(not EDGAR.is_dir(), reason=f"shared EDGAR filings not found at {EDGAR}")


class _StrippedFilings:
    """The store side of the reader's page source: the shared filings' pages with the iXBRL stripped."""

    def pages_of(self, doc_id: str) -> list[str]:
        markup = (EDGAR / f"{doc_id}.html").read_text(encoding="utf-8", errors="replace")
        return html_document(strip_ixbrl(markup))[0]


@pytest.fixture(scope="module")
def source() -> StorePages:
    return StorePages(_StrippedFilings())


# identity as the stripped filing's cover gives it (form, period end) plus the fiscal year and quarter
INFO = {
    "ba-10-q-2025-07-29": {"company": "Boeing", "form": "10Q", "fiscal_year": 2025, "quarter": 2, "period_end": "2025-06-30"},
    "aapl-10-k-2024-11-01": {"company": "Apple", "form": "10K", "fiscal_year": 2024, "period_end": "2024-09-28"},
    "Oracle.10-Q": {"company": "Oracle", "form": "10Q", "fiscal_year": 2025, "quarter": 1, "period_end": "2024-08-31"},
    "ibm-10-q-2025-07-24": {"company": "IBM", "registrant": "INTERNATIONAL BUSINESS MACHINES CORPORATION", "form": "10Q",
                            "fiscal_year": 2025, "quarter": 2, "period_end": "2025-06-30"},
    "hubs-10-q-2025-08-06": {"company": "HubSpot", "form": "10Q", "fiscal_year": 2025, "quarter": 2, "period_end": "2025-06-30"},
}


@pytest.mark.parametrize("doc_id, question, expected", [
    # a quarter takes the three-month column of the current year, not the six-month one (42,245) or 2024's
    ("ba-10-q-2025-07-29", "What was Boeing's total revenue in Q2 of fiscal 2025?", "$22,749 million"),
    ("ba-10-q-2025-07-29", "Boeing total revenues for the quarter ended June 30, 2025", "$22,749 million"),
    ("ba-10-q-2025-07-29", "Boeing revenue for the six months ended June 30, 2025", "$42,245 million"),
    # EPS rows: 'Diluted loss per share'; 'Earnings per share:' then 'Diluted' (not the shares used); per-share
    # amounts never take the table's "in millions"
    ("ba-10-q-2025-07-29", "Boeing diluted EPS in Q2 of fiscal 2025", "-$0.92 per share"),
    ("aapl-10-k-2024-11-01", "What was Apple's diluted EPS in fiscal 2024?", "$6.08 per share"),
    ("aapl-10-k-2024-11-01", "Apple basic earnings per share for FY2023", "$6.16 per share"),
    ("ibm-10-q-2025-07-24", "INTERNATIONAL BUSINESS MACHINES diluted EPS in Q2 of fiscal 2025", "$2.31 per share"),
    # cash-flow statements: 'Net cash used by operating activities', 'Payments to acquire property, plant ...'
    ("ba-10-q-2025-07-29", "Boeing operating cash flow for the six months ended June 30, 2025", "-$1,389 million"),
    ("ba-10-q-2025-07-29", "Boeing capex in the first half of fiscal 2025", "$1,101 million"),
    # units from the caption: HubSpot's statements are in thousands
    ("hubs-10-q-2025-08-06", "HubSpot cash from operations for the six months ended June 30, 2025", "$325,932 thousand"),
    # the fiscal calendar: Oracle's quarter ended August 31, 2024 is Q1 of fiscal 2025 (columns headed 2024)
    ("Oracle.10-Q", "ORCL revenue for the quarter ended August 31, 2024", "$13,307 million"),
    ("Oracle.10-Q", "Oracle total revenues in Q1 of fiscal 2025", "$13,307 million"),
    # a balance: the column of the asked date, not the prior year-end's
    ("ibm-10-q-2025-07-24", "IBM total assets as of June 30, 2025", "$148,585 million"),
    ("aapl-10-k-2024-11-01", "Apple total assets at the end of fiscal 2023", "$352,583 million"),
])
def test_table_reader_on_edgar_html_without_xbrl(source, doc_id, question, expected):
    res = read(question, [], source, routed_docs=[doc_id], doc_info=INFO[doc_id])
    assert res.confident, res.answer
    assert expected in res.answer, res.answer
    assert f"[{doc_id}, p. " in res.answer


def test_parent_only_and_segment_tables_rank_below_the_consolidated_one():
    from finrag.tools.answering.tables import table_scope

    parent = ("Schedule I\nCondensed Financial Information of Registrant (Parent Company Only)\nBalance Sheets\n"
              "(in millions) | December 31, 2024 | December 31, 2023\nTotal assets | 186,836 | 170,011\n")
    consolidated = ("Consolidated Balance Sheets\n(in millions) | December 31, 2024 | December 31, 2023\n"
                    "Total assets | 298,278 | 273,720\n")
    segment = ("Segment Information\nThree Months Ended June 30, | 2025 | 2024\nTotal revenues | 21,000 | 20,000\n")
    assert table_scope(parent) == "parent" and table_scope(segment) == "segment" and table_scope(consolidated) == ""

    class Two:
        pages = [parent, consolidated]

        def page_text(self, d, p):
            return self.pages[p] if 0 <= p < 2 else ""

        def page_count(self, d):
            return 2

        def pdf_path(self, d):
            return ""

    ctx = [{"doc_id": "UNH_2024_10K", "page_start": 0, "page_end": 1}]
    res = read("What were UnitedHealth's total assets in FY2024?", ctx, Two(), routed_docs=["UNH_2024_10K"],
               doc_info={"company": "UnitedHealth", "form": "10K", "fiscal_year": 2024, "period_end": "2024-12-31"})
    assert "$298,278 million" in res.answer and "p. 1]" in res.answer


@pytest.fixture(scope="module")
def apple_indexes(tmp_path_factory):
    """The Apple 10-K as downloaded, and a copy whose revenue facts are mis-tagged (scale 3, thousands, while
    the statement shows millions): text-only indexes (no embedding needed for these questions)."""
    from finrag.cli import main

    tmp = tmp_path_factory.mktemp("xbrl-check")
    markup = (EDGAR / "aapl-10-k-2024-11-01.html").read_text(encoding="utf-8")
    edited = re.sub(r'(<ix:nonFraction[^>]*name="us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"[^>]*?)'
                    r'scale="6"', r'\1scale="3"', markup)
    assert edited != markup
    out = {}
    for name, text in (("orig", markup), ("edited", edited)):
        (tmp / name).mkdir()
        (tmp / name / "aapl-10-k-2024-11-01.html").write_text(text, encoding="utf-8")
        assert main(["index", str(tmp / name), "--index", str(tmp / f"{name}-idx"), "--no-embed", "-q"]) == 0
        out[name] = str(tmp / f"{name}-idx")
    return out


def test_table_reader_disagreeing_with_the_fact_is_said_and_recorded(apple_indexes):
    from finrag.api import run_query

    q = "What was Apple's total revenue in fiscal 2024?"
    res = run_query(q, system="hdrr", index_dir=apple_indexes["edited"])
    answer = res["answer"]
    assert "inline XBRL fact us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" in answer
    assert "$391.035000 million" in answer or "$391.035 million" in answer
    check = res["reader"]["table_check"]
    # cited as a person opens it: the viewer's page (1-based) of the zero-based page the reader recorded
    m = re.search(r"The statement table \[[^\]]+, p\. (\d+)[^\]]*\] reads 391,035 \(millions\)", answer)
    assert m and int(m.group(1)) == check["page"] + 1, answer
    assert "the tagged XBRL fact is" in answer
    assert check["agrees"] is False and check["table_value"] == 391_035e6 and check["fact_value"] == 391_035e3
    # the filing as downloaded: the table agrees with the fact, nothing is added
    res = run_query(q, system="hdrr", index_dir=apple_indexes["orig"])
    assert "$391,035 million" in res["answer"] and "statement table [" not in res["answer"]
    assert res["reader"]["table_check"]["agrees"] is True
