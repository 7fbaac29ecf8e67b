"""Cover facts answered from a filing's dei facts (`tools/answering/cover_facts.py`), and only those asked."""
from __future__ import annotations

import pytest

from finrag.tools.answering.cover_facts import answer_cover
from finrag.tools.question import read_question

FACTS = {
    "contexts": {"c1": {"instant": "2024-10-18"}, "c2": {"instant": "2024-03-29"}},
    "facts": [
        {"concept": "dei:EntityCommonStockSharesOutstanding", "context": "c1", "value": 15115823000.0,
         "text": "15,115,823,000", "page": 0},
        {"concept": "dei:EntityPublicFloat", "context": "c2", "value": 2628553000000.0, "text": "2,628,553,000,000",
         "page": 0},
    ],
    "dei": {"AuditorName": "Ernst & Young LLP", "AuditorLocation": "San Jose, California",
            "EntityCentralIndexKey": "0000320193", "CurrentFiscalYearEndDate": "--09-28"},
}
INFO = {"company": "Apple", "fiscal_year": 2024, "form": "10K"}


@pytest.mark.parametrize("question, kind, stated", [
    ("Who audited Apple's fiscal 2024 financial statements?", "auditor", "Ernst & Young LLP (San Jose, California)"),
    ("What is AAPL's CIK number?", "cik", "0000320193"),
    ("On what date does Apple's fiscal year 2024 end?", "fiscal_year_end", "September 28"),
    ("How many shares of AAPL common stock were outstanding as of October 18, 2024?", "shares_outstanding",
     "15,115,823,000"),
    ("What was Apple's public float reported in its FY2024 10-K?", "public_float", "$2,628,553,000,000"),
])
def test_each_cover_fact_from_the_dei_facts(question, kind, stated):
    asked = read_question(question)
    assert asked.cover == kind
    r = answer_cover(asked, FACTS, "aapl-10-k", INFO)
    assert r is not None and r.confident and stated in r.answer and "[aapl-10-k, " in r.answer


def test_another_dates_count_is_not_stated_as_the_asked_one():
    asked = read_question("How many shares of Apple were outstanding as of July 19, 2024?")
    r = answer_cover(asked, FACTS, "aapl-10-k", INFO)
    assert r is not None and not r.confident and "15,115,823,000" not in r.answer and "2024-10-18" in r.answer


def test_an_untagged_cover_fact_or_a_plain_question_gets_no_cover_answer():
    assert answer_cover(read_question("Who audited Apple's FY2024 statements?"), {"dei": {}, "facts": []}, "d",
                        INFO) is None
    for q in ["What was Apple's revenue for the fiscal year ended September 28, 2024?",
              "What was the weighted average number of diluted shares outstanding in FY2024?",
              "What is the auditor's opinion on internal control?"]:
        assert read_question(q).cover is None, q


_ENTITY = {**FACTS["dei"], "EntityAddressAddressLine1": "One Apple Park Way", "EntityAddressCityOrTown": "Cupertino,",
           "EntityAddressStateOrProvince": "CA", "EntityAddressPostalZipCode": "95014", "CityAreaCode": "(408)",
           "LocalPhoneNumber": "996-1010", "EntityIncorporationStateCountryCode": "CA",
           "EntityTaxIdentificationNumber": "94-2404110", "SecurityExchangeName": ["NASDAQ"],
           "TradingSymbol": ["AAPL", "AAPL29"]}


@pytest.mark.parametrize("question, kind, stated", [
    ("Where is Apple headquartered?", "address", "One Apple Park Way, Cupertino, CA 95014"),
    ("What is the address of Apple's principal executive offices?", "address", "One Apple Park Way"),
    ("What is Apple's telephone number?", "phone", "(408) 996-1010"),
    ("In which state is Apple incorporated?", "incorporation", "is California"),
    ("What is Apple's IRS employer identification number?", "tax_id", "94-2404110"),
    ("On which exchange does Apple's common stock trade?", "exchange",
     "the Nasdaq Stock Market under the trading symbol AAPL (1 other"),
])
def test_the_entitys_own_cover_facts(question, kind, stated):
    asked = read_question(question)
    assert asked.cover == kind
    r = answer_cover(asked, {**FACTS, "dei": _ENTITY}, "aapl-10-k", INFO)
    assert r is not None and r.confident and stated in r.answer and "[aapl-10-k, inline XBRL]" in r.answer, r


def test_an_entity_fact_not_tagged_is_left_to_the_text():
    for q in ["Where is Apple headquartered?", "What is Apple's telephone number?", "Which exchange lists Apple?"]:
        asked = read_question(q)
        assert asked.cover is not None and answer_cover(asked, FACTS, "aapl-10-k", INFO) is None, q


@pytest.mark.parametrize("question", ["How did Apple address supply chain risks?",
                                      "What are the risks of Apple's operations located in China?",
                                      "What was Apple's revenue growth based on FY2024 data?"])
def test_the_verb_address_and_located_operations_ask_no_cover_fact(question):
    assert read_question(question).cover is None
