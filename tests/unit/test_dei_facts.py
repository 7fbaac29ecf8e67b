"""One reader of dei facts: `finrag fetch`'s sidecar (`edgar.identity.dei_facts`) reads what the indexer's
`XbrlCollector` keeps, nested cover facts whole."""
from __future__ import annotations

from finrag.tools.documents.html import html_document
from finrag.tools.documents.xbrl import dei_facts
from finrag.tools.edgar import identity

# a 10-K cover as Apple's and Coca-Cola's write it: the fiscal year end nested in the period end date
COVER = """<html><body><div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="c-1">2024</ix:nonNumeric>
</ix:hidden></ix:header></div>
<p>For the fiscal year ended <ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="c-1" format="ixt:date-monthname-day-year-en"><ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="c-1">September 28</ix:nonNumeric>, 2024</ix:nonNumeric></p>
<p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c-1">The Coca&#8209;Cola&nbsp;Company</ix:nonNumeric></p>
<p><ix:nonNumeric name="dei:TradingSymbol" contextRef="c-1">KO</ix:nonNumeric> <ix:nonNumeric name="dei:TradingSymbol" contextRef="c-2">KO</ix:nonNumeric>
<ix:nonNumeric name="dei:TradingSymbol" contextRef="c-3">KO26</ix:nonNumeric></p>
<ix:nonFraction name="dei:EntityCommonStockSharesOutstanding" contextRef="c-4" scale="0">4,307,702,000</ix:nonFraction>
</body></html>"""


def test_nested_cover_facts_are_whole():
    facts = dei_facts(COVER)
    assert identity.dei_facts is dei_facts
    assert facts["DocumentPeriodEndDate"] == "September 28, 2024"  # the old regex read "September 28"
    assert facts["CurrentFiscalYearEndDate"] == "September 28"  # the old regex missed the nested fact
    assert facts["DocumentFiscalYearFocus"] == "2024" and facts["TradingSymbol"] == ["KO", "KO26"]
    assert facts["EntityRegistrantName"] == "The Coca\u2011Cola Company"
    assert facts["EntityCommonStockSharesOutstanding"] == "4,307,702,000" and "_formats" not in facts


def test_same_as_the_indexer():
    indexed = dict((html_document(COVER)[1] or {})["dei"])
    assert indexed.pop("_formats") == {"DocumentPeriodEndDate": "ixt:date-monthname-day-year-en"}
    assert dei_facts(COVER) == indexed


def test_no_facts_and_bad_markup():
    assert dei_facts("") == {} and dei_facts("<html><p>no xbrl</p>") == {}
    assert dei_facts("<ix:nonNumeric name='dei:DocumentType'>10-K") == {}  # never closed: no fact, no error
