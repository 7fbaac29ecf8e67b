"""The evidence sources as `FactSource`s (issue 47), on real filings: an EDGAR 10-K's inline XBRL and cover, a
FinanceBench PDF's statement tables, and the inline XBRL and the statement tables of one filing agreeing on the line
items both report."""
from __future__ import annotations

from pathlib import Path

import pytest

from finrag.state.facts import FactSource
from finrag.tools.answering.fact_sources.cover import CoverFacts
from finrag.tools.answering.fact_sources.tables import TableFacts
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts
from finrag.tools.answering.sources import PdfPages
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
APPLE = SHARED / "edgar" / "aapl-10-k-2024-11-01.html"
PDFS = SHARED / "financebench" / "pdfs"
APPLE_INFO = {"company": "Apple", "fiscal_year": 2024, "form": "10K", "period_end": "2024-09-28"}
needs_apple = pytest.mark.skipif(not APPLE.exists(), reason="needs ../shared/data/edgar")


class HtmlPages:
    """The pages of one EDGAR HTML filing as the statement reader reads them (no PDF)."""

    def __init__(self, doc_id: str, pages: list[str]):
        self.doc_id, self.pages = doc_id, pages

    def page_text(self, doc_id: str, page: int) -> str:
        return self.pages[page] if doc_id == self.doc_id and 0 <= page < len(self.pages) else ""

    def page_count(self, doc_id: str) -> int:
        return len(self.pages) if doc_id == self.doc_id else 0

    def pdf_path(self, doc_id: str) -> str:
        return ""


@pytest.fixture(scope="module")
def apple() -> tuple[list[str], dict]:
    pages, tagged = html_document(APPLE.read_text(encoding="utf-8", errors="replace"))
    assert tagged is not None
    return pages, tagged


@needs_apple
def test_the_xbrl_source_yields_typed_facts_of_the_asked_period(apple):
    pages, tagged = apple
    source = XbrlFacts(tagged, "aapl-10-k", APPLE_INFO)
    assert isinstance(source, FactSource)
    asked = read_question("What was Apple's total revenue in fiscal 2024?")
    fact = source.fact("revenue", asked)
    assert fact is not None and fact.source == "xbrl" and fact.dimensions == ()
    assert fact.concept.startswith("us-gaap:") and fact.unit.lower() == "usd"
    assert (fact.period.start, fact.period.end) == ("2023-10-01", "2024-09-28") and not fact.period.is_instant
    assert fact.citation.shown and fact.text.replace(",", "") in pages[fact.citation.page].replace(",", "")
    assert fact.value == float(fact.text.replace(",", "")) * 10 ** int(fact.scale)  # the displayed value, scaled
    before = source.fact("revenue", asked, years_back=1)
    assert before is not None and before.period.end == "2023-09-30" and before.value != fact.value
    assets = source.fact("total_assets", asked)
    assert assets is not None and assets.period.instant == "2024-09-28"
    assert not source.reads("row:no such row") and source.fact("row:no such row", asked) is None


@needs_apple
def test_the_cover_source_yields_the_tagged_count_with_its_date(apple):
    pages, tagged = apple
    source = CoverFacts(tagged, "aapl-10-k")
    assert isinstance(source, FactSource) and source.reads("shares_outstanding") and not source.reads("revenue")
    fact = source.fact("shares_outstanding", read_question("How many shares did Apple have outstanding?"))
    assert fact is not None and fact.source == "cover" and fact.concept == "dei:EntityCommonStockSharesOutstanding"
    assert fact.period.is_instant and fact.period.instant > APPLE_INFO["period_end"]  # counted after the year's end
    assert fact.citation.shown and fact.text in pages[fact.citation.page]
    assert source.text("AuditorName") == "Ernst & Young LLP"


@pytest.mark.skipif(not (PDFS / "3M_2018_10K.pdf").exists(), reason="needs ../shared/data/financebench")
def test_the_table_source_reads_a_financebench_pdf():
    pages = PdfPages.from_dir(PDFS, ["3M_2018_10K"])
    page = next(p for p in range(pages.page_count("3M_2018_10K"))  # the income statement, as retrieval would give it
                if "Consolidated Statement of Incom" in pages.page_text("3M_2018_10K", p)  # its PDF text splits "Incom e"
                and "Net sales" in pages.page_text("3M_2018_10K", p))
    context = {"doc_id": "3M_2018_10K", "page_start": page, "page_end": page}
    source = TableFacts(pages, "3M_2018_10K", {"company": "3M", "fiscal_year": 2018, "form": "10K"}, contexts=[context])
    assert isinstance(source, FactSource)
    asked = read_question("What was 3M's total revenue in FY2018?")
    fact = source.fact("revenue", asked)
    assert fact is not None and fact.source == "table" and fact.period.fiscal_year == 2018
    assert fact.value == pytest.approx(32_765e6) and fact.scale == "millions"  # the income statement's net sales
    assert fact.label == "Net sales" and fact.text == "32,765" and fact.citation.page == page
    assert fact.text in pages.page_text("3M_2018_10K", fact.citation.page)
    before = source.fact("revenue", asked, years_back=1)
    assert before is not None and before.period.fiscal_year == 2017 and before.value == pytest.approx(31_657e6)


@needs_apple
@pytest.mark.parametrize("item", ["revenue", "net_income", "total_assets", "total_current_liabilities", "cfo"])
def test_the_xbrl_and_table_sources_agree_where_both_report_a_line_item(apple, item):
    pages, tagged = apple
    asked = read_question("What was Apple's total revenue in fiscal 2024?")
    tags = XbrlFacts(tagged, "aapl-10-k", APPLE_INFO)
    table = TableFacts(HtmlPages("aapl-10-k", pages), "aapl-10-k", APPLE_INFO)
    for back in (0, 1):
        a, b = tags.fact(item, asked, back), table.fact(item, asked, back)
        assert a is not None and b is not None, (item, back, a, b)
        assert b.value == pytest.approx(a.value, rel=1e-6), (item, back, a, b)
        assert b.citation.page == a.citation.page  # the same statement page cited
