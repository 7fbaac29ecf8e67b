"""One home for company-name cleaning and legal suffixes (`finrag.tools.routing.text`), with real registrant names."""
from __future__ import annotations

from finrag.eval import routing_scale_corpus
from finrag.tools.conversation.phrasing import replace_company
from finrag.tools.routing.text import LEGAL_TAIL, TRAILING_SUFFIX, clean_company_name, strip_legal_suffix


def test_clean_company_name():
    assert clean_company_name("JPMorgan Chase & Co.") == "JPMorgan Chase"
    assert clean_company_name("The Coca-Cola Company") == "Coca-Cola"
    assert clean_company_name("THE COCA-COLA COMPANY") == "Coca-Cola"
    assert clean_company_name("Merck & Co., Inc.") == "Merck"
    assert clean_company_name("CVS HEALTH CORP") == "CVS Health" and clean_company_name("3M CO") == "3M"
    assert clean_company_name("Fresenius SE & Co. KGaA") == "Fresenius"
    assert clean_company_name("América Movil, S.A.B. de C.V.") == "América Movil"
    assert clean_company_name("Alphabet Inc. Class A") == "Alphabet Inc. Class A"  # a class is no legal tail
    assert clean_company_name("") == "" and LEGAL_TAIL.search("Procter & Gamble") is None


def test_strip_legal_suffix_takes_one_short_suffix():
    # the statement reader and the fast path remove these forms of a filing's names from a question
    assert strip_legal_suffix("Apple Inc.") == "Apple" and strip_legal_suffix("Best Buy Co., Inc.") == "Best Buy Co."
    assert strip_legal_suffix("JPMorgan Chase & Co.") == "JPMorgan Chase &"
    assert strip_legal_suffix("The Coca-Cola Company") == "The Coca-Cola"
    assert TRAILING_SUFFIX.pattern == r"(?i)[,.]?\s+(?:inc|corp|corporation|co|company|ltd|plc|llc)\.?$"


def test_scale_corpus_name_key():
    key = routing_scale_corpus._name_key
    assert key("MARSH & MCLENNAN COMPANIES, INC.") == key("Marsh & McLennan Companies, Inc.") == "marshmclennancompanies"
    assert key("KEYCORP /NEW/") == "keycorp" and key("The Coca-Cola Company") == key("COCA COLA CO") == "cocacola"


def test_phrasing_takes_the_short_suffixes():
    assert replace_company("What was Apple Inc.'s revenue?", ["Apple"], "Microsoft") == "What was Microsoft's revenue?"
    assert replace_company("Coca-Cola Company's revenue in 2023", ["Coca-Cola"], "PepsiCo") == "PepsiCo's revenue in 2023"
    assert replace_company("Unilever plc margins", ["Unilever"], "Nestle") == "Nestle margins"
    assert replace_company("Tesla margins", ["Apple"], "Nestle") is None
