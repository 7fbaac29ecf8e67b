"""Issue 48, session 57 tuned round: a company written in lower case at the head of a long question (cases of our
own, none of a benchmark set's phrases).

* what decides whether a lower-case common word that opens the question is the company is the **head of the
  rest**: the few words right after it, before the first word of a sentence, name a line item, a metric, a period,
  a finance abbreviation or a corporate event ("nike gross margin at end of fiscal 2023, computed as ..."); the rest
  of the question may go on in any words (a definition, a parenthesis, "as of", "provided by");
* a word in capitals opening that head is another company's name or ticker, the word before it an adjective;
  a head with no business word ("requirements", "price", "pie recipes") names no company;
* a name right after an auxiliary that opens the question is its bare subject whatever follows it: a verb, a model
  number, a product ("did boeing 787 deliveries resume").
"""
from __future__ import annotations

import pytest
from support.scale_routing import expect, registry_fixtures

from finrag.tools.routing.subject import auxiliary_subject, business_subject

NEEDED = ["AAPL", "TSLA", "NKE", "V", "TGT", "BA", "VZ", "ADI", "TXN", "AMD", "INTC", "SQ", "F"]

reg, key = registry_fixtures(NEEDED)


@pytest.mark.parametrize("question, gold", [
    ("nike gross margin at end of fiscal 2023, computed as gross profit over revenue", ["NKE"]),
    ("apple accounts receivable turnover for the six months ended march 2024 (revenue / average receivables)",
     ["AAPL"]),
    ("tesla operating cash flow minus capex = free cash flow, fiscal 2023", ["TSLA"]),
    ("target store count as of the latest annual report", ["TGT"]),
    ("nike FY2023 inventory days = average inventory / cost of sales * 365", ["NKE"]),
    ("apple layoffs - when were they announced", ["AAPL"]),          # a corporate event heads the rest
    ("intel EBITDA margin in the last fiscal year", ["INTC"]),       # a finance abbreviation heads the rest
    ("did boeing 787 deliveries resume in 2023", ["BA"]),            # an auxiliary's subject before a model number
    ("is tesla Cybertruck production profitable", ["TSLA"]),         # ... before a product
    ("visa requirements for employees hired from abroad in 2024", []),  # the head names no business
    ("target price for the stock set by analysts in 2024", []),
    ("apple pie recipes with cinnamon for the holidays", []),
    ("apple orchards in the state produced less in 2023", []),
    ("block the payment if it is flagged for review", []),
    ("visa", []),
    ("amd", []),
    ("analog TXN revenue in the latest fiscal year", ["TXN"]),       # a head word: the next word is the company
])
def test_the_head_of_the_rest_decides(reg, key, question, gold):
    expect(reg, key, question, gold)


def test_business_subject_reads_the_head_not_the_clause():
    assert business_subject("nike gross margin at end of fiscal 2023, as reported", 0, 4)
    assert business_subject("tesla Q3 2024 deliveries as reported in the 10-Q", 0, 5)
    assert not business_subject("nike shoes are comfortable for running in 2023", 0, 4)  # a sentence word ends the head
    assert not business_subject("target AAPL margin was higher in 2024", 0, 6)     # capitals open the head: another company
    assert not business_subject("target, the store, and its history", 0, 6)  # punctuation ends an empty head
    assert not business_subject("apple of my eye in 2024", 0, 5)


def test_auxiliary_subject_takes_whatever_follows_the_name():
    assert auxiliary_subject("was boeing 777X certification delayed", 4, 10)
    assert auxiliary_subject("is tesla Model Y the best seller", 3, 8)
    assert auxiliary_subject("did nike cut jobs", 4, 8)
    assert not auxiliary_subject("the boeing 777X certification", 4, 10)  # no auxiliary before it


@pytest.fixture(scope="module")
def banks():
    from support.scale_routing import scale_registry, ticker_key
    needed = ["CFG", "CIA", "PNC", "USB", "CZFS"]
    reg = scale_registry(needed)
    return reg, ticker_key(reg, needed)


@pytest.mark.parametrize("question, gold", [
    ("PNC vs Citizens net interest margin 2024", ["PNC", "CFG"]),   # the peer's 'Financial' continues it, far larger
    ("Citizens net interest margin 2024", ["CIA"]),                 # alone: the registrant named so
])
def test_a_compared_common_word_is_the_far_larger_peer(banks, question, gold):
    reg, key = banks
    expect(reg, key, question, gold)


@pytest.fixture(scope="module")
def typos():
    from support.scale_routing import scale_registry, ticker_key
    needed = ["LMT", "GM", "F", "PM"]
    reg = scale_registry(needed)
    return reg, ticker_key(reg, needed)


@pytest.mark.parametrize("question, gold", [
    ("Lockhed Martn backlog 2024", ["LMT"]),                 # a typo in each word of a large registrant's name
    ("Lockhed Martn Sikorsky revenue 2024", ["LMT"]),        # the name with typos, then what is asked of it
    ("Genral Motars EV losses 2024", ["GM"]),
    ("Lockheed Martin Sikorsky revenue 2024", ["LMT"]),      # written right: the name, then its unit
    ("Fork Motr recall costs", []),                          # words under five letters: no typo read
])
def test_a_typo_in_each_word_of_a_large_registrants_name(typos, question, gold):
    reg, key = typos
    expect(reg, key, question, gold)


@pytest.fixture(scope="module")
def heads():
    from support.scale_routing import scale_registry, ticker_key
    needed = ["DAL", "ADI", "CTSH"]
    reg = scale_registry(needed)
    return reg, ticker_key(reg, needed)


@pytest.mark.parametrize("question, gold", [
    ("how much did delta spend on jet fuel in 2023", ["DAL"]),          # a head word after an auxiliary, a period asked
    ("did cognizant cut its revenue guidance", ["CTSH"]),                # ... a line item asked
    ("how does delta hedging protect an options book", []),              # a term of art: no business asked of it
    ("why does analog filtering reduce noise", []),
])
def test_a_head_word_after_an_auxiliary_names_the_company_only_in_a_business_question(heads, question, gold):
    reg, key = heads
    expect(reg, key, question, gold)
