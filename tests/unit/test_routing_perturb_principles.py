"""Issue 48, round f55r: routing principles found by `bench/routing_perturb.py` (cases of their own, none of the
blind sets' phrases):

* where a ticker sits is counted among the question's words, calendar words, numbers and finance abbreviations at
  its edges set aside: "1H24 GM EV revenue" opens with GM as "GM EV revenue" does;
* 'at' before a ticker that closes the question is a company cue, as a possessive after it is ("warranty costs at
  F in 2023");
* an analysts' metric abbreviation right after a ticker asks for that company's metric as a line item does
  ("CRM NRR trend"); the abbreviation is the metric, not a second company;
* two tickers side by side name both when neither registrant is far larger than the other ("LMT NOC backlog"),
  and the far larger one when one is (its product or segment shares a small registrant's ticker);
* a legal form ends a company's name: a comparison or list after it joins the next company ("Lockheed Martin
  Corporation vs NOC");
* a lower-case ticker that is no English word at all and opens the question names its registrant, whatever its
  size ("gsbd non-accrual loans"), unless it is one letter from a common word ("prdo": 'pro'); elsewhere in the question only the largest registrants' do.

And the perturbation bench's own parts: finding a company's mention and rewriting it.
"""
from __future__ import annotations

import random

import pytest
from support.scale_routing import expect, registry_fixtures

from bench.routing_perturb import FAMILIES, Forms, find_mention, perturb, reglue
from finrag.tools.routing.ticker_score import closes, metric_next, opens

NEEDED = ["GM", "F", "CRM", "T", "PRDO", "TGLS", "XPEL", "DD", "AAPL", "MSFT", "LMT", "NOC", "HBM", "MU", "DUK",
          "NVDA", "PTC", "PEG", "ETR", "GSBD"]


reg, key = registry_fixtures(NEEDED)


def test_opens_and_closes_set_calendar_words_and_abbreviations_aside():
    q = "1H24 GM auto revenue"
    assert opens(q, q.index("GM")) and not opens(q, q.index("revenue"))
    q = "warranty costs at F in 2023"
    assert not closes(q, q.index(" in")) and closes("warranty costs at F FY2023", len("warranty costs at F"))
    q = "TTM YoY CRM billings"
    assert opens(q, q.index("CRM"))
    assert metric_next("CRM NRR trend", 3) and not metric_next("GM expansion", 2)


@pytest.mark.parametrize("question, gold", [
    ("1H24 GM EV revenue", ["GM"]),                         # a period before the ticker: it still opens the query
    ("Q3 FY23 GM EV revenue", ["GM"]),
    ("warranty costs at F FY2023", ["F"]),                  # 'at' a ticker closing the question
    ("severance costs at CRM Q2", ["CRM"]),
    ("CRM NRR trend FY24", ["CRM"]),                        # a metric abbreviation right after the ticker
    ("GM ROIC 2023", ["GM"]),
    ("GM expansion drivers in retail", []),                 # gross margin: no metric asked of it, no cue
    ("what drove the GM decline at most retailers", []),
])
def test_position_cues_and_metric_abbreviations(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("gsbd non-accrual loans 2024", ["GSBD"]),              # no English word, opening the query: any registrant
    ("tgls backlog FY2023", ["TGLS"]),
    ("xpel revenue growth", ["XPEL"]),
    ("how did the opex of fn change", []),                  # an abbreviation-like word, not opening
    ("prdo enrollment 2024", []),                           # one letter from 'pro': perhaps a typo, no ticker
    ("capex guidance 2024", []),
    ("ebitda bridge for FY24", []),
])
def test_a_lower_case_ticker_opening_the_question(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("LMT NOC backlog 2024", ["LMT", "NOC"]),               # two defence primes of a size: a pair
    ("DUK NVDA capex growth", ["DUK", "NVDA"]),             # both among the largest registrants: a pair
    ("MU HBM revenue FY2024", ["MU"]),                      # Hudbay far smaller than Micron: Micron's memory
    ("ETR NVDA data center revenue", ["NVDA"]),             # whichever comes first
    ("PSEG (PEG) nuclear PTC 2024", ["PEG"]),               # a ticker before a year is not the last word
])
def test_two_tickers_side_by_side(reg, key, question, gold):
    expect(reg, key, question, gold)


@pytest.mark.parametrize("question, gold", [
    ("Lockheed Martin Corporation vs NOC backlog", ["LMT", "NOC"]),
    ("Duke Energy Corp. and F capex 2024", ["DUK", "F"]),
    ("Northrop Grumman Corporation versus GM pension", ["NOC", "GM"]),
    ("Lockheed Martin Corporation backlog 2024", ["LMT"]),   # a legal form alone adds nobody
])
def test_a_legal_form_ends_the_name_before_a_comparison(reg, key, question, gold):
    expect(reg, key, question, gold)


FORMS = Forms("FOXF", "Fox Factory Holding Corp", "Fox Factory", "Nasdaq",
              ["Fox Factory Holding Corp", "Fox Factory", "FOXF"])


def test_a_mention_is_found_with_its_tag_and_possessive():
    q = "Fox Factory (FOXF) OEM sales 2024"
    a, b = find_mention(q, FORMS)
    assert q[a:b] == "Fox Factory (FOXF)"
    q = "what were fox factory's OEM sales?"
    a, b = find_mention(q, FORMS)
    assert q[a:b] == "fox factory's"
    assert find_mention("OEM sales at a factory", FORMS) is None


def test_each_family_rewrites_only_the_mention():
    q = "Fox Factory (FOXF) OEM sales 2024"
    span = find_mention(q, FORMS)
    out = {f: perturb(q, span, FORMS, f, random.Random(1)) for f in FAMILIES if f != "compare_glue"}
    assert out["ticker"] == "FOXF OEM sales 2024"
    assert out["lower_ticker"] == "foxf OEM sales 2024"
    assert out["possessive"] == "Fox Factory's OEM sales 2024"
    assert out["exchange_tag"] == "Fox Factory (NASDAQ: FOXF) OEM sales 2024"
    assert out["end_ticker"] == "OEM sales 2024 FOXF"
    assert out["middle_name"].split() == ["OEM", "Fox", "Factory", "sales", "2024"]
    assert out["finance_ticker"].startswith("FOXF") or out["finance_ticker"].endswith("FOXF OEM sales 2024")
    # moving a company drops the preposition it leaves behind
    q = "store count growth at Fox Factory in 2024"
    assert perturb(q, find_mention(q, FORMS), FORMS, "start_ticker", random.Random(1)) == \
        "FOXF store count growth in 2024"


def test_session56_families_write_the_name_as_analysts_do():
    forms = Forms("FOXF", "Fox Factory Holding Corp", "Fox Factory", "Nasdaq",
                  ["Fox Factory Holding Corp", "Fox Factory", "FOXF"], "Fox Factory Holding")
    q = "Fox Factory OEM sales 2024"
    span = find_mention(q, forms)
    rng = random.Random(3)
    assert perturb(q, span, forms, "all_caps", rng) == "FOX FACTORY OEM sales 2024"
    assert perturb(q, span, forms, "dollar_ticker", rng) == "$FOXF OEM sales 2024"
    assert perturb(q, span, forms, "suffix_dropped", rng) == "Fox Factory Holding OEM sales 2024"
    assert perturb(q, span, forms, "suffix_added", rng).startswith("Fox Factory Holding")
    assert perturb(q, span, forms, "amp_and", rng) is None and perturb(q, span, forms, "punct_dropped", rng) is None
    assert perturb(q, span, forms, "ordinal_period", rng).endswith(" Fox Factory OEM sales 2024")
    assert perturb(q, span, forms, "item_lower_name", rng).endswith(" fox factory OEM sales 2024")
    hyph = Forms("KO", "The Coca-Cola Company", "Coca-Cola", "NYSE", ["Coca-Cola", "KO"], "Coca-Cola")
    assert perturb("Coca-Cola volume", (0, 9), hyph, "punct_dropped", rng) == "Coca Cola volume"
    amp = Forms("PG", "Procter & Gamble Co", "Procter & Gamble", "NYSE", ["Procter & Gamble", "PG"], "Procter & Gamble")
    assert perturb("Procter & Gamble organic growth", (0, 16), amp, "amp_and", rng) == "Procter and Gamble organic growth"


def test_compare_glue_swaps_only_the_glue_between_companies():
    q = "Fox Factory vs Acme Corp margins, 2024"
    got = reglue(q, [(0, 11), (15, 24)], random.Random(2))
    assert got is not None and got.startswith("Fox Factory") and got.endswith("Acme Corp margins, 2024")
    assert " vs " not in got
    assert reglue("Fox Factory margins and Acme Corp", [(0, 11), (24, 33)], random.Random(2)) is None
