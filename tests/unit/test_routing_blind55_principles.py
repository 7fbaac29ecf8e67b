"""Issue 48, round g55r: routing principles found by the blind set of session 55 (cases of their own, none of the
blind set's phrases):

* 'v' between two companies compares them as 'vs' does ("LMT v NOC");
* three or more short words joined by slashes are a list of tickers, not a rate ("msft/aapl/nvda"; "usd/bbl" keeps
  its one slash as a unit);
* a small registrant's whole distinctive name (its name less legal and holding words), each word capitalised, names
  it though its words are English ("Graphic Packaging" of Graphic Packaging Holding Co);
* large, mid or small caps are a group of companies: a metric abbreviation asked of them is no ticker;
* two letters side by side swapped are one typo of a one-word name, as one letter added, dropped or changed is;
* a large registrant's name in lower case that is a clause of its own after a line item names it ("services
  revenue growth, apple, FY2023"); "of" inside a line item keeps an opening clause terse ("apple cost of sales");
* a brand in the alias book: Instacart is Maplebear's (CART).
"""
from __future__ import annotations

import pytest
from support.scale_routing import expect, registry_fixtures

from finrag.tools.routing.shapes import not_a_company_alone

NEEDED = ["LMT", "NOC", "GM", "F", "MSFT", "AAPL", "NVDA", "GPK", "ETR", "CART"]


reg, key = registry_fixtures(NEEDED)


def test_a_slash_list_is_no_rate():
    q = "msft/aapl/nvda capex"
    assert not_a_company_alone(q, 0, 4) == ""
    q = "lifting cost usd/bbl"
    assert "unit" in not_a_company_alone(q, q.index("usd"), q.index("/"))


@pytest.mark.parametrize("question, gold", [
    ("LMT v NOC backlog 2024", ["LMT", "NOC"]),             # 'v' compares
    ("GM v. F EV losses 2023", ["GM", "F"]),
    ("msft/aapl/nvda capex 2024", ["MSFT", "AAPL", "NVDA"]),  # a slash list of lower-case tickers
    ("paperboard price commentary from Graphic Packaging", ["GPK"]),  # the whole distinctive name, capitalised
    ("typical ETR of US mid caps in 2023", []),             # a group of companies
    ("ETR rate base growth 2023", ["ETR"]),
    ("Nivdia data center revenue FY2024", ["NVDA"]),        # two letters swapped
    ("services revenue growth, apple, FY2023", ["AAPL"]),   # a clause of its own after a line item
    ("gross margin on fruit, apple and pear sales", []),
    ("apple cost of sales FY2023", ["AAPL"]),               # 'of' inside the line item
    ("apple of my eye", []),
    ("Instacart order volume 2024", ["CART"]),              # a brand
])
def test_blind55_principles(reg, key, question, gold):
    expect(reg, key, question, gold)
