"""Issue 48, routing that generalizes (the third round, after session 53's blind set): each principle with cases of
its own, on a registry holding the development corpus and the SEC registrants the cases could name:

* a size prior breaks the tie of a distinctive word several registrants' names begin (`size.py`);
* a ticker written alone in lower case that no English text writes, of a large registrant, is that ticker;
* where a word sits makes it no company by itself: part of a hyphenated compound, a unit after a slash, a name
  after a name particle, the end of a nickname, a metric asked of a company the question names (`shapes.py`);
* a name's possessive apostrophe is optional ("Casey's" is CASEYS GENERAL STORES);
* a distinctive word inside a large registrant's name names it (`name_words.py`);
* common words in lower case that only begin a registrant's name are a phrase ("north america");
* a weak reading never leads over a name, and a derived head word right after a name qualifies it (so does a
  ticker after a name in a comparison: a product), and a derived word after an unknown brand is its product;
* both sides of a comparison (a comparative and "than" included) are routed, and a rarer lower-case name listed
  with a company; a common word left by dropping a generic tail is no name;
* "net" and "total" are words of a line item, not of an English sentence, in a terse question;
* English words that only begin a small registrant's name need a company cue ("Gulf Coast", "Rocky Mountain").
"""
from __future__ import annotations

import pytest
from support.scale_routing import expect, registry_fixtures, routed

from finrag.tools.routing.size import far_larger, size_rank

NEEDED = ["ISRG", "LUNR", "TM", "TYHOY", "VRTX", "VERX", "EPD", "NVDA", "NFLX", "MSFT", "UNTY", "CVX", "BOE", "RENT",
          "VINP", "D", "ATR", "ETR", "CASY", "NOC", "EL", "XOM", "TXRH", "NXPI", "TGT", "NALG", "AGAE", "PR", "U",
          "EFSC", "KO", "PEP", "GOOGL", "AAPL", "MU", "HBM", "RTX", "OTAI", "COST", "ORAN", "WMT", "GULTU", "RMCF"]


reg, key = registry_fixtures(NEEDED)


def test_far_larger_needs_a_large_company_and_a_wide_margin():
    assert size_rank(["NVDA"]) == 0 and size_rank(["ZZZZZQ"]) is None
    assert far_larger(100, [1400 * 5]) and far_larger(100, [None]) and far_larger(51, [350])
    assert not far_larger(100, [300])            # both large, within the ratio: a tie
    assert not far_larger(2000, [9000])          # not among the largest registrants
    assert not far_larger(None, [9000])


@pytest.mark.parametrize("question, gold", [
    ("Did Intuitive raise its procedure guidance?", ["ISRG"]),        # not Intuitive Machines
    ("Toyota hybrid unit sales 2024", ["TM"]),                        # not Toyota Tsusho
    ("Vertex cystic fibrosis revenue 2024", ["VRTX"]),                # not Vertex, Inc., whose whole name it is
    ("Vertex, Inc. tax software revenue 2024", ["VERX"]),             # a legal form names the smaller one
    ("Unity runtime fee revenue impact", ["U"]),                      # not Unity Bancorp
])
def test_a_size_prior_breaks_a_shared_words_tie(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_a_common_word_stays_shared_whatever_the_sizes(reg):
    # Enterprise Products Partners (row 209) is far larger than Enterprise Financial Services (row 2,076), but
    # "Enterprise" is a common English word: no size prior
    assert routed(reg, "Enterprise value to EBITDA for the sector") == set()


@pytest.mark.parametrize("question, gold", [
    ("nvda data center revenue fy24", ["NVDA"]),
    ("what is nflx's paid membership churn", ["NFLX"]),
    ("capex trend at msft", ["MSFT"]),
])
def test_a_lower_case_ticker_alone_names_a_large_registrant(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question", ["ttm revenue and yoy growth for the sector", "unty deposits 2024"])
def test_lower_case_abbreviations_and_small_registrants_are_no_tickers(reg, question):
    assert routed(reg, question) == set(), reg.link(question).candidates


@pytest.mark.parametrize("question, gold", [
    ("Chevron output in BOE/d for 2024", ["CVX"]),                    # a unit, not BlackRock's BOE
    ("ATR for Nvidia in 2024", ["NVDA"]),                             # a metric asked of Nvidia, not AptarGroup
    ("ETR of Microsoft in 2023", ["MSFT"]),                           # not Entergy
])
def test_a_word_beside_a_named_company_is_no_second_company(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, ticker", [
    ("Budget Rent-A-Car fleet utilization", "RENT"),                  # part of a hyphenated compound
    ("Leonardo da Vinci exhibition attendance", "VINP"),              # a name after a name particle
    ("Uncle D's cookie sales last quarter", "D"),                     # the end of a nickname, not Dominion's D
])
def test_where_a_word_sits_makes_it_no_company(reg, key, question, ticker):
    assert key(ticker) not in routed(reg, question), reg.link(question).candidates


def test_a_names_possessive_apostrophe_is_optional(reg, key):
    expect(reg, key, "Casey's General Stores fuel gallons sold 2024", ["CASY"])


@pytest.mark.parametrize("question, gold", [
    ("Grumman backlog at year end 2024", ["NOC"]),
    ("Lauder fragrance sales 2024", ["EL"]),
    ("Roadhouse restaurant margin 2024", ["TXRH"]),
])
def test_a_distinctive_word_inside_a_large_registrants_name_names_it(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_a_generic_name_word_names_no_company(reg, key):
    assert key("NXPI") not in routed(reg, "Semiconductors demand outlook in 2024")


@pytest.mark.parametrize("question, gold", [
    ("north america sales at Target in 2024", ["TGT"]),               # not North America Lithium & Gold
    ("all-in sustaining cost per ounce for miners", []),              # not All In FutureTech Alliance
])
def test_lower_case_common_words_that_begin_a_name_are_a_phrase(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("Chevron Permian output in BOE", ["CVX"]),                       # BOE is weak; Permian qualifies Chevron
    ("target q3 net sales", ["TGT"]),                                 # 'net' is a line item's word
])
def test_a_weak_reading_never_leads_and_line_item_words_keep_a_question_terse(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("ko vs pep organic growth 2024", ["KO", "PEP"]),                 # a rare word compared with a lower-case ticker
    ("msft vs googl cloud growth", ["MSFT", "GOOGL"]),                # 'vs' is the comparison's glue, no ticker
    ("Apple services gross margin vs Google Cloud margin", ["AAPL", "GOOGL"]),  # the two sides of a comparison
    ("Micron HBM revenue vs Samsung", ["MU"]),                        # a ticker right after a name: its product
])
def test_every_side_of_a_comparison_is_routed_and_a_product_is_no_company(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_a_common_word_left_by_dropping_a_generic_tail_is_no_name(reg, key):
    # 'United' is a variant of RTX's former name United Technologies ('Technologies' dropped): no name by itself
    assert key("RTX") not in routed(reg, "Delta premium revenue vs United")


@pytest.mark.parametrize("question", ["OpenAI Starlink comparison of subscriber counts", "SpaceX Starlink launches"])
def test_a_registrants_derived_word_after_an_unknown_brand_is_its_product(reg, key, question):
    # 'Starlink' begins Starlink AI Acquisition's name; after 'SpaceX' or 'OpenAI' (camel case, no company the
    # linker knows) it names that company's product, not the SPAC
    assert key("OTAI") not in routed(reg, question), reg.link(question).candidates


@pytest.mark.parametrize("question, gold", [
    ("Is Nvidia bigger than Microsoft by revenue?", ["NVDA", "MSFT"]),  # a comparative and 'than' compare
    ("costco and walmart grocery sales", ["COST", "WMT"]),            # a rarer lower-case name listed with a company
    ("apple and orange juice sales", ["AAPL"]),                        # 'orange' is too common a word to be listed
])
def test_companies_compared_by_than_or_listed_in_lower_case_are_routed(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, ticker", [
    ("Gulf Coast refining margins in 2024", "GULTU"),               # not Gulf Coast Ultra Deep Royalty Trust
    ("Rocky Mountain natural gas prices", "RMCF"),                  # not Rocky Mountain Chocolate Factory
])
def test_english_words_beginning_a_small_registrants_name_need_a_cue(reg, key, question, ticker):
    assert key(ticker) not in routed(reg, question), reg.link(question).candidates


def test_the_small_registrants_whole_name_still_names_it(reg, key):
    expect(reg, key, "Rocky Mountain Chocolate Factory revenue 2024", ["RMCF"])
