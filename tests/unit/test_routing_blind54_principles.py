"""Issue 48, routing principles after session 54's blind set (each with cases of its own, none of the set's phrases):

* a month written in capitals before a period noun is a calendar word ("the NOV quarter");
* a ticker-shaped word before "for"/"of"/"across" and a word for many companies is what the question asks of them;
* English words that begin a small registrant's name need a company cue, a one-word head included, and common
  words in lower case that make a small registrant's derived name are a phrase ("medical care");
* a blank-check company (a SPAC) is named by its whole name, never by a word it begins with (nor a near miss of it);
* a lower-case name opening a terse first clause, or compared, or before a finance abbreviation, is the subject;
* an English word that is the only word in capitals of a lower-case question is written as a ticker;
* a list of tickers in capitals names each member (a letter included);
* a lower-case name particle, or a legal-form word after ordinary words, continues a name into another company's.
"""
from __future__ import annotations

import pytest
from support.scale_routing import expect, registry_fixtures, routed

NEEDED = ["NOV", "COST", "ADBE", "MAR", "HD", "ETR", "GOOGL", "VGES", "OTAI", "META", "NKE", "LULU", "SNAP", "NFLX",
          "DIS", "WELL", "JPM", "WFC", "USB", "C", "GS", "UNP", "CSX", "NSC", "V", "ISRG", "BBWI", "ON", "PEP", "CVS", "MDCE", "AAPL", "DEC"]


reg, key = registry_fixtures(NEEDED)


@pytest.mark.parametrize("question, gold", [
    ("Costco traffic in the NOV quarter", ["COST"]),
    ("Adobe RPO at the end of the MAR qtr", ["ADBE"]),
    ("Home Depot comps, DEC quarter-end", ["HD"]),
    ("which retailers report a NOV year-end", []),
    ("NOV backlog in 2024", ["NOV"]),                       # a month before no period noun stays a ticker
])
def test_a_month_in_capitals_before_a_period_noun_is_a_calendar_word(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("median ETR of large banks in 2023", []),
    ("average ETR for S&P 500 companies last year", []),
    ("AAPL among S&P 500 companies by market cap", ["AAPL"]),   # a company placed in a group stays
    ("ETR's dividend in 2024", ["ETR"]),                    # a possessive: the company
])
def test_a_ticker_shaped_word_asked_of_a_group_is_no_company(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("Vanguard index fund fee levels", []),
    ("Vanguard Green Investment revenue", ["VGES"]),        # the whole name still names it
    ("Starlink launch cadence this year", []),
    ("Starlink AI Acquisition trust account balance", ["OTAI"]),
    ("CVS medical care costs in 2024", ["CVS"]),
])
def test_small_registrants_english_heads_and_blank_check_names_need_more(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("meta q3 capex, how much higher than last year?", ["META"]),
    ("nike compared to lululemon gross margin", ["NKE", "LULU"]),
    ("netflix and snap DAU", ["NFLX", "SNAP"]),
    ("nike shoes for running, which are best?", []),         # no line item, no period: a word
])
def test_a_lower_case_name_opening_a_terse_clause_is_the_subject(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("how much did WELL pay in dividends in 2023", ["WELL"]),
    ("how well did Apple do in 2023", ["AAPL"]),
])
def test_the_only_word_in_capitals_of_a_lower_case_question(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("JPM, WFC, USB, C and GS deposit costs", ["JPM", "WFC", "USB", "C", "GS"]),
    ("UNP, CSX and NSC carloads", ["UNP", "CSX", "NSC"]),
])
def test_lists_of_tickers_in_capitals_name_each(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question", ["Visa do Brasil interchange fees", "Pepsi Bottling Ventures LLC revenue"])
def test_a_particle_or_a_legal_form_continues_a_name_into_another(reg, question):
    assert routed(reg, question) == set(), (question, reg.link(question).candidates)


@pytest.mark.parametrize("question, gold", [
    ("Intuitive da Vinci system installs", ["ISRG"]),        # a person's name after 'da': a product
    ("bath & body works gross margin", ["BBWI"]),             # a registrant's whole name in lower case
    ("ON balance sheet commitments vs off", []),              # a first word in capitals: emphasis
])
def test_the_new_principles_leave_these_alone(reg, key, question, gold):
    expect(reg, key, question, gold)
