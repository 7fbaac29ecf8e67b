"""EDGAR pieces without a network: HTML pages, dei facts, listing rules, the filing index, the User-Agent rule,
the rate limiter (a fake clock: nothing waits, nothing is timed) and the sidecar identity in the registry."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from finrag.tools.documents.html import html_pages
from finrag.tools.edgar.client import check_user_agent
from finrag.tools.edgar.download import exhibit_of
from finrag.tools.edgar.identity import dei_facts
from finrag.tools.edgar.limiter import RateLimiter
from finrag.tools.edgar.listing import fiscal_year_of, parse_forms, parse_years
from finrag.tools.edgar.tickers import parse_ciks

FIX = Path(__file__).resolve().parents[1] / "support" / "edgar" / "Archives" / "edgar" / "data"
TENK = FIX / "1111111" / "000111111124000010" / "nwtr-20231231.htm"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


def test_html_pages_follow_page_breaks_and_drop_the_hidden_xbrl_header():
    pages = html_pages(TENK.read_text())
    assert len(pages) == 4  # page-break-after on a div, on an <hr>, page-break-before on a div
    assert pages[0].startswith("UNITED STATES") and "NORTHWIND TRADERS, INC." in pages[0]
    assert "Item 1. Business" in pages[1] and "Item 7." in pages[2] and "Item 8." in pages[3]
    text = "\n".join(pages)
    assert "iso4217" not in text and "0001111111" not in text and "c-1" not in text  # ix:header is gone
    lines = pages[2].splitlines()
    assert "Total net revenue | $4,812.6 | $4,135.2" in lines  # one row per line, number cells rejoined
    assert "Other expense, net | (21.4) | (17.0)" in lines
    assert lines.index("Cost of sales | 3,498.8 | 3,043.5") == lines.index("Total net revenue | $4,812.6 | $4,135.2") + 1


def test_html_without_breaks_is_one_page_and_bad_markup_does_not_raise():
    assert html_pages("<p>one</p><p>two</p>") == ["one\n\ntwo"]
    assert html_pages("<table><tr><td>a<td>b</tr></table><div style='display: none'>x</div>") == ["a | b"]
    assert html_pages("<<<>>><div style=\"page-break-before:always\">") == ["<<<>>>"]


def test_dei_facts_of_inline_xbrl():
    facts = dei_facts(TENK.read_text())
    assert facts["DocumentFiscalYearFocus"] == "2023" and facts["DocumentFiscalPeriodFocus"] == "FY"
    assert facts["DocumentPeriodEndDate"] == "December 31, 2023" and facts["TradingSymbol"] == ["NWTR"]
    assert facts["EntityRegistrantName"] == "NORTHWIND TRADERS, INC."


def test_fiscal_years_forms_years_ciks():
    assert fiscal_year_of("2023-12-31", "1231") == 2023
    assert fiscal_year_of("2023-12-30", "0930") == 2024  # Contoso's Q1 FY2024
    assert fiscal_year_of("2023-09-30", "0930") == 2023
    assert fiscal_year_of("2023-10-04", "0930") == 2023  # a 52/53-week year ending a few days late
    assert fiscal_year_of("", "1231") is None
    assert parse_forms("10-K,10q, 8-K,earnings") == ["10-K", "10-Q", "8-K", "earnings"]
    assert parse_years("2021-2024") == (2021, 2024) and parse_years("2023") == (2023, 2023)
    assert [c.cik10 for c in parse_ciks(["320193", "CIK0000789019"])] == ["0000320193", "0000789019"]
    for bad in (lambda: parse_forms("10-X"), lambda: parse_years("2024-2021"), lambda: parse_years("x"),
                lambda: parse_ciks(["AAPL"])):
        with pytest.raises(ValueError):
            bad()


def test_exhibit_found_in_the_filing_index():
    index = (FIX / "1111111" / "000111111124000004" / "0001111111-24-000004-index.htm").read_text()
    assert exhibit_of(index) == "nwtr-ex991.htm"
    assert exhibit_of("<table><tr><td>1</td><td><a href='x.htm'>x.htm</a></td><td>8-K</td></tr></table>") == ""


def test_user_agent_rule():
    assert check_user_agent("Jane Doe jane@example.com") == "Jane Doe jane@example.com"
    for bad in ("", None, "jane@example.com", "Jane Doe", "python-httpx/0.28"):
        with pytest.raises(ValueError) as exc:
            check_user_agent(bad)
        assert "FINRAG_SEC_USER_AGENT" in str(exc.value) and "--user-agent" in str(exc.value)


def test_rate_limiter_never_grants_more_than_ten_per_second():
    clock = FakeClock()
    limiter = RateLimiter(10, 1.0, clock=clock, sleep=clock.sleep)
    granted = [limiter.acquire() for _ in range(35)]
    for t in granted:  # every one-second window holds at most 10 grants
        assert sum(1 for u in granted if t <= u < t + 1.0) <= 10
    assert granted[:10] == [1000.0] * 10  # a burst of 10 is free, the 11th waits for the window
    assert granted[10] == pytest.approx(1001.0) and granted[-1] == pytest.approx(1003.0)
    assert len(clock.slept) == 3 and limiter.waited == pytest.approx(3.0)


def test_rate_limiter_lets_a_slow_caller_through_without_waiting():
    clock = FakeClock()
    limiter = RateLimiter(10, 1.0, clock=clock, sleep=clock.sleep)
    for _ in range(30):
        limiter.acquire()
        clock.now += 0.1
    assert clock.slept == []


def _copy_filing(tmp_path: Path, name: str) -> Path:
    """A fetched filing and its sidecar under a name that says nothing (identity must come from the sidecar)."""
    from finrag.tools.edgar.identity import build_sidecar
    from finrag.tools.edgar.listing import Filing

    doc = tmp_path / f"{name}.htm"
    shutil.copy(FIX / "1111111" / "000111111122000007" / "nwt-20211231.htm", doc)
    f = Filing(cik=1111111, company="NORTHWIND TRADERS, INC.", tickers=["NWTR"], kind="10-K", form="10-K",
               accession="0001111111-22-000007", filing_date="2022-02-23", report_date="2021-12-31",
               primary_document="nwt-20211231.htm", fiscal_year_end="1231", fiscal_year=2021)
    side = build_sidecar(f, dei_facts(doc.read_text()), source_url="http://x/nwt-20211231.htm", document=doc.name)
    (tmp_path / f"{name}.json").write_text(json.dumps(side))
    return doc


def test_registry_takes_identity_from_the_sidecar(tmp_path):
    from finrag.tools.routing.documents import build_document_info
    from finrag.tools.routing.registry import Registry

    doc = _copy_filing(tmp_path, "download-0007")
    info = build_document_info(doc, "")
    assert (info.company, info.form, info.fiscal_year, info.period) == ("Northwind Traders", "10K", 2021, "2021")
    assert info.tickers == ["NWT", "NWTR"] and info.period_end == "2021-12-31" and info.fiscal_year_end == "December 31"
    assert info.registrant == "NORTHWIND TRADERS, INC."
    reg = Registry([info])
    res = reg.resolve(reg.link("What were NWT's capital expenditures in FY2021?"), "What were NWT's capex in FY2021?")
    assert res.doc_ids == [info.doc_id]
    (tmp_path / "download-0007.json").write_text("{not json")  # a broken sidecar: back to path + cover
    assert build_document_info(doc, "").fiscal_year is None
