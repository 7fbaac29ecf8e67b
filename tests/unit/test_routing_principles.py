"""Issue 48 (and issue 49's routing cases): linking by principles, at EDGAR scale. On a registry holding the
development corpus and the SEC registrants a token of the question could also name, each principle's cases
(each failed before the principle was in the linker):

* months, quarters and fiscal-period words are never tickers or names by themselves (a month in capitals
  away from a number still may be: "DEC vs EQT");
* an exact ticker written in capitals beats a registrant whose name only starts with it (SWK, not SWK Holdings);
* a possessive makes a capitalised token a ticker even when it is also a finance abbreviation or a word;
* a short name a company writes in capitals is not that company written otherwise ("Op margin", "Health Sci");
  compass points abbreviate name words ("SW Airlines" is Southwest Airlines, not Smurfit Westrock's SW);
* a company's distinctive name words link to it with a company cue ("at Live Nation");
* every company a comparison names is routed or said to be missing;
* a common word in lower case is a company only with a company cue ("visa requirements" is not Visa Inc.);
* a question listing more companies than routing takes names those it left out.
"""
from __future__ import annotations

import pytest
from support.scale_routing import expect, registry_fixtures, routed

from finrag.tools.routing.fallback import left_out

NEEDED = ["NOV", "QTWO", "EL", "DEC", "EQT", "SWK", "SWKH", "OPBK", "SCIA", "SW", "LUV", "CRM", "V", "T", "COO",
          "LYV", "BSX", "ABT", "MDT", "GRMN", "AAPL", "HON", "DHR", "MSFT", "WDC", "WD", "COMP", "IT", "DOW"]


reg, key = registry_fixtures(NEEDED)


@pytest.mark.parametrize("question, gold", [
    ("Dec vs Nov '23 share repurchase at Apple", ["AAPL"]),   # not NOV Inc.
    ("Q2 2024 EL share price", ["EL"]),                        # not Q2 Holdings
    ("Apple revenue in Q2", ["AAPL"]),
    ("DEC vs EQT gas production 2024", ["DEC", "EQT"]),        # capitals, no number next to it: a ticker still
])
def test_calendar_words_are_never_tickers(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("Liquidity risk for SWK", ["SWK"]),                       # not SWK Holdings (SWKH)
    ("WD HDD revenue FY2024", ["WDC"]),                        # an alias the company writes so is no prefix
])
def test_an_exact_ticker_beats_a_name_that_only_starts_with_it(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("What was CRM's gross margin for FY2025?", ["CRM"]),
    ("V's current ratio", ["V"]),
    ("T's rev rec", ["T"]),
    ("ticker COO revenue 2024", ["COO"]),
])
def test_a_possessive_or_ticker_word_makes_an_abbreviation_a_ticker(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_a_possessive_after_an_article_or_beside_a_named_company_is_no_ticker(reg, key):
    assert routed(reg, "What was the CEO's pay at Microsoft in 2024?") == {key("MSFT")}
    assert routed(reg, "Apple's and the IT's budget") == {key("AAPL")}


def test_a_possessive_finance_abbreviation_of_a_company_the_index_lacks_is_said_to_be_missing(reg):
    ex = reg.link("MRO's legal/regulatory impact")
    assert [c["name"] for c in ex.candidates if c["confidence"] >= 0.5] == ["Marathon Oil"]


@pytest.mark.parametrize("question, gold", [
    ("Op margin for Apple 2024", ["AAPL"]),                    # not OP Bancorp
    ("Health Sci segment revenue for Danaher", ["DHR"]),       # not SCI Engineered Materials
    ("SW Airlines fuel hedging 2024", ["LUV"]),                # not Smurfit Westrock (SW)
    ("Dow FY19 DSO", ["DOW"]),                                 # a name the company writes in mixed case stays
])
def test_abbreviations_and_words_are_no_names_without_a_cue(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_distinctive_name_words_with_a_company_cue_link(reg, key):
    expect(reg, key, "Reserves at Live Nation", ["LYV"])
    assert routed(reg, "Revenue in North America for Apple 2024") == {key("AAPL")}


@pytest.mark.parametrize("question, gold", [
    ("Margins impact of BSX vs competition from ABT & MDT", ["BSX", "ABT", "MDT"]),
    ("GRMN revenue growth vs AAPL, SSNLF, HON", ["GRMN", "AAPL", "HON"]),
])
def test_every_company_a_comparison_names_is_routed_or_said_missing(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_an_unknown_ticker_in_a_comparison_is_said_to_be_missing(reg):
    assert "SSNLF" in reg.link("GRMN revenue growth vs AAPL, SSNLF, HON").not_indexed


@pytest.mark.parametrize("question", ["What were the visa requirements for employees in 2023?", "visa",
                                      "visa processing times for H-1B hires"])
def test_a_common_word_in_lower_case_is_no_company_without_a_cue(reg, question):
    assert routed(reg, question) == set()


@pytest.mark.parametrize("question", ["What was Visa's revenue in 2024?", "Visa Inc. revenue 2024", "$V revenue 2024"])
def test_a_company_cue_still_names_it(reg, key, question):
    expect(reg, key, question, ["V"])


def test_listed_companies_routing_did_not_take_are_named(reg, key):
    q = "Compare revenue of AAPL, MSFT and IT"
    ex = reg.link(q)
    res = reg.resolve(ex, q, default_year=2024)
    got = {reg.company_of(d) for d in res.doc_ids}
    assert key("IT") not in got
    assert left_out(ex.candidates, q, got, lambda k: True) == ["Gartner (IT)"]
    assert left_out(ex.candidates, "IT spending at Apple", got, lambda k: True) == []  # not in a list
