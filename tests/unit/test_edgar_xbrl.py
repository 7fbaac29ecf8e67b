"""Issue 20: inline-XBRL facts of EDGAR HTML (dei identity, exact values by period) and the downloader layouts.

A small hand-made inline-XBRL 10-Q (`support.ixbrl`) holds a hidden `ix:header` with dei facts and contexts
for the quarter, the year to date, the prior year's quarter, a balance-sheet instant and a segment (dimension);
the shared `../shared/data/edgar/` filings are used where present (skipped otherwise)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.ixbrl import tenq_markup

from finrag.tools.answering.xbrl_facts import answer_from_facts, asked_item
from finrag.tools.documents.doc_ids import doc_id_for
from finrag.tools.documents.html import html_document
from finrag.tools.documents.parsing import parse_file
from finrag.tools.documents.xbrl import fact_value
from finrag.tools.routing.documents import build_document_info
from finrag.tools.routing.filenames import parse_path

EDGAR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "edgar"


def test_facts_keep_scale_sign_page_and_drop_dimensions():
    pages, facts = html_document(tenq_markup())
    assert len(pages) == 3
    rev = [f for f in facts["facts"] if f["concept"] == "us-gaap:Revenues"]
    assert {f["value"] for f in rev} == {94036e6, 313695e6, 85777e6, 296105e6}  # the segment's 50,000 is not there
    assert {f["page"] for f in rev} == {1} and rev[0]["text"] == "94,036"
    capex = next(f for f in facts["facts"] if f["concept"].endswith("PropertyPlantAndEquipment"))
    assert capex["value"] == -9473e6 and capex["page"] == 2
    assert facts["dei"]["DocumentFiscalYearFocus"] == "2025" and facts["dei"]["TradingSymbol"] == ["ACMW"]
    assert "seg" not in facts["contexts"]
    assert fact_value("1.234,5", "ixt:num-comma-decimal", 3) == 1234500.0 and fact_value("—", "ixt:fixed-zero") == 0.0


def test_identity_from_dei_facts_not_the_filing_date(tmp_path):
    f = tmp_path / "acmw-10-q-2025-08-01.html"
    f.write_text(tenq_markup())
    doc = parse_file(f)
    info = build_document_info(f, "\n".join(doc.pages[:3]), dei=doc.xbrl["dei"])
    assert (info.form, info.fiscal_year, info.quarter, info.period, info.period_end) == \
        ("10Q", 2025, 3, "2025Q3", "2025-06-28")
    assert (info.tickers, info.registrant, info.cik, info.fiscal_year_end) == \
        (["ACMW"], "Acme Widgets, Inc.", "9999999", "September 27")
    assert info.sources["fiscal_year"] == "dei" and info.sources["quarter"] == "dei"
    # a dated name without dei facts: the cover's fiscal year, not the filing date's year
    cover = "ANNUAL REPORT PURSUANT TO SECTION 13\nFor the fiscal year ended December 31, 2024\nFORM 10-K"
    plain = build_document_info(tmp_path / "abbv-10-k-2025-02-14.html", cover)
    assert (plain.form, plain.fiscal_year, plain.sources["fiscal_year"]) == ("10K", 2024, "cover")


@pytest.mark.parametrize("question, value, period", [
    ("What was Acme's total revenue in Q3 of fiscal 2025?", "$94,036 million ($94.04 billion)", "three months ended 2025-06-28"),
    ("Acme revenue for the nine months ended June 28, 2025", "$313,695 million", "9 months ended 2025-06-28"),
    ("Acme net income in the third quarter of fiscal 2024", "$21,448 million", "three months ended 2024-06-29"),
    ("ACMW diluted EPS for the quarter ended June 28, 2025", "$1.57 per share", "three months ended 2025-06-28"),
    ("Acme total assets as of June 28, 2025", "$331,495 million", "total assets as of 2025-06-28 was"),
    ("Acme capex year to date", "$9,473 million", "9 months ended 2025-06-28"),
])
def test_exact_value_for_the_period_asked(question, value, period):
    _pages, facts = html_document(tenq_markup())
    info = {"company": "Acme Widgets", "form": "10Q", "fiscal_year": 2025, "quarter": 3, "period_end": "2025-06-28"}
    r = answer_from_facts(question, facts, "acmw-10-q", info)
    assert r is not None and r.confident
    assert value in r.answer and period in r.answer
    assert "[acmw-10-q, p. " in r.answer and r.pages_added and r.pages_added[0][0] == "acmw-10-q"


@pytest.mark.parametrize("question", [
    "By how much did Acme's revenue change from fiscal 2024 to fiscal 2025?",
    "What was Acme's year-over-year revenue growth rate in Q3 of fiscal 2025?",
    "What was Acme's gross margin in Q3 of fiscal 2025?",
    "What was Acme's net profit margin for the quarter ended June 28, 2025?",
])
def test_a_change_or_a_ratio_is_not_answered_with_one_fact(question):
    # the line item the question names is one operand, not the answer: the statement reader computes it
    _pages, facts = html_document(tenq_markup())
    info = {"company": "Acme Widgets", "form": "10Q", "fiscal_year": 2025, "quarter": 3, "period_end": "2025-06-28"}
    assert answer_from_facts(question, facts, "acmw-10-q", info) is None


def test_items_named_by_analysts():
    assert asked_item("What was basic EPS in FY2024?") == "eps_basic"
    assert asked_item("diluted earnings per share for Q2") == "eps_diluted"
    assert asked_item("Tesla operating cash flow in fiscal 2024") == "cfo"
    assert asked_item("KO capital expenditures for FY2024") == "capex"
    assert asked_item("What was Boeing's loss per share in 2024?") == "eps_diluted"  # analysts' default: diluted
    assert asked_item("Coca-Cola total debt at the end of 2024") == "total_debt"
    assert asked_item("current portion of long-term debt as of June 28, 2025") == "current_debt"
    assert asked_item("Amazon long-term debt at the end of fiscal 2024") == "long_term_debt"
    assert asked_item("Who is the CEO?") is None


def test_a_loss_per_share_keeps_its_sign():
    _pages, facts = html_document(tenq_markup())
    for f in facts["facts"]:
        if f["concept"].endswith("EarningsPerShareDiluted"):
            f["value"] = -f["value"]
    info = {"company": "Acme", "form": "10Q", "fiscal_year": 2025, "period_end": "2025-06-28"}
    r = answer_from_facts("Acme loss per share in Q3 of fiscal 2025", facts, "d", info)
    assert "-$1.57 per share" in r.answer


def test_sec_edgar_downloader_layouts(tmp_path):
    src = EDGAR / "aapl-10-k-2024-11-01.html"
    if not src.is_file():
        pytest.skip("shared EDGAR filings not found")
    from finrag.tools.indexing.indexer import IndexReport, discover

    acc = tmp_path / "sec-edgar-filings" / "AAPL" / "10-K" / "0000320193-24-000123"
    acc.mkdir(parents=True)
    shutil.copy(src, acc / "primary-document.html")
    sub = tmp_path / "sec-edgar-filings" / "AAPL" / "10-K" / "0000320193-24-000999"
    sub.mkdir(parents=True)
    markup = src.read_text(encoding="utf-8")
    (sub / "full-submission.txt").write_text(
        "<SEC-DOCUMENT>0000320193-24-000999.txt : 20241101\n<SEC-HEADER>CONFORMED SUBMISSION TYPE: 10-K\n"
        "</SEC-HEADER>\n<DOCUMENT>\n<TYPE>10-K\n<SEQUENCE>1\n<FILENAME>aapl-20240928.htm\n<TEXT>\n<XBRL>\n"
        f"{markup}\n</XBRL>\n</TEXT>\n</DOCUMENT>\n<DOCUMENT>\n<TYPE>EX-21.1\n<SEQUENCE>2\n<TEXT>\n<html><body>"
        "Subsidiaries of Apple Inc.</body></html>\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n")
    (acc / "full-submission.txt").write_text("<SEC-DOCUMENT>\n</SEC-DOCUMENT>\n")  # beside a primary document
    report = IndexReport()
    files = discover([tmp_path], report)
    assert [f.name for f in files] == ["primary-document.html", "full-submission.txt"]
    assert report.skipped and "same filing" in report.skipped[0][1]
    assert doc_id_for(files[0]) == "AAPL_10-K_0000320193-24-000123"
    assert parse_path(files[1])["layout"] == "sec-edgar-downloader"
    for f in files:
        doc = parse_file(f)
        info = build_document_info(f, "\n".join(doc.pages[:3]), dei=(doc.xbrl or {}).get("dei"))
        assert (info.company, info.tickers[:1], info.form, info.fiscal_year, info.period_end) == \
            ("Apple", ["AAPL"], "10K", 2024, "2024-09-28"), f
        assert "Subsidiaries of Apple" not in "\n".join(doc.pages)
    assert parse_path(EDGAR / "aapl-20240928.htm")["ticker"] == "AAPL"


def test_shared_filings_identity_from_themselves():
    if not EDGAR.is_dir():
        pytest.skip("shared EDGAR filings not found")
    want = {"aapl-10-k-2024-11-01": ("10K", 2024, None, "2024-09-28"), "Apple.10-Q": ("10Q", 2024, 3, "2024-06-29"),
            "Oracle.10-Q": ("10Q", 2025, 1, "2024-08-31"), "ko-10-q-2025-07-24": ("10Q", 2025, 2, "2025-06-27")}
    for stem, expected in want.items():
        f = EDGAR / f"{stem}.html"
        doc = parse_file(f)
        info = build_document_info(f, "\n".join(doc.pages[:3]), dei=doc.xbrl["dei"])
        assert (info.form, info.fiscal_year, info.quarter, info.period_end) == expected, stem
    from finrag.tools.routing.registry import Registry

    reg = Registry.from_paths([EDGAR / "Apple.10-Q.html"])  # files on disk: the same identity as the indexer's
    assert (reg.get("Apple.10-Q").fiscal_year, reg.get("Apple.10-Q").quarter) == (2024, 3)
