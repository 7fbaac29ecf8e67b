"""A member's change, share of the total and margin (`member_math`), and members named in part or by initials.

Widgetco's hand-made FY2024 10-K (`support.ixbrl.widgetco_tenk`: revenue 10,000, Subscription 6,000, Services
4,000, no member fact for FY2023) and the real Apple and Amazon 10-Ks where `../shared` has them. Every answer is
checked for the member's figures and against the consolidated figures that used to stand in.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from support.ixbrl import WIDGETCO_INFO, widgetco_facts

from finrag.tools.answering.member_answer import answer_member
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question

EDGAR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "edgar"
INFO = WIDGETCO_INFO


@pytest.fixture(scope="module")
def widgetco() -> dict:
    return widgetco_facts()


def _ask(question: str, facts: dict, doc_id: str, info: dict):
    return answer_member(read_question(question), facts, doc_id, info)


@pytest.mark.parametrize("question", [
    "What share of Widgetco's fiscal 2024 revenue came from Subscription?",
    "Subscription as a percent of Widgetco's total revenue in FY2024?",
    "What percentage of Widgetco's 2024 revenue was Subscription?",
])
def test_a_members_share_of_the_total(widgetco, question):
    r = _ask(question, widgetco, "wid-10-k", INFO)
    assert r is not None and r.confident and r.asked == "share" and r.value == pytest.approx(60.0), r and r.answer
    first = r.answer.split(". ")[0]
    assert "60.0%" in first and "6,000" not in first and "10,000" not in first  # the share alone is the answer
    assert "$6,000 million" in r.answer and "$10,000 million" in r.answer and r.formula == \
        "$6,000 million / $10,000 million = 60.0%"


def test_a_members_change_without_its_prior_fact_is_not_the_totals_change(widgetco):
    """Widgetco tags revenue for FY2023 (8,000) but no member fact for it: the total's +25.0% is not Subscription's."""
    r = _ask("How much did Widgetco's Subscription revenue grow in fiscal 2024?", widgetco, "wid-10-k", INFO)
    assert r is not None and not r.confident and "needs its fact for both periods" in r.answer
    assert "25.0%" not in r.answer and "8,000" not in r.answer and "not the asked measure" in r.answer


def test_a_share_of_a_part_not_tagged_is_said_and_the_total_never_given(widgetco):
    r = _ask("What share of Widgetco's 2024 revenue came from Japan?", widgetco, "wid-10-k", INFO)
    assert r is not None and not r.confident and r.answer.startswith("No tagged revenue fact for the part asked")
    assert "10,000" not in r.answer


def test_no_member_named_leaves_the_consolidated_answerers(widgetco):
    for q in ["What was Widgetco's revenue growth in fiscal 2024?", "What was Widgetco's operating margin in FY2024?",
              "By what percentage did Widgetco's revenue rise in 2024?"]:
        assert _ask(q, widgetco, "wid-10-k", INFO) is None, q


def _real(name: str) -> dict:
    path = EDGAR / name
    if not path.exists():
        pytest.skip("needs ../shared/data/edgar")
    data = html_document(path.read_text(encoding="utf-8", errors="replace"))[1]
    assert data is not None
    return data


APPLE = {"company": "Apple", "registrant": "Apple Inc.", "tickers": ["AAPL"], "fiscal_year": 2024, "form": "10K",
         "period_end": "2024-09-28"}
AMAZON = {"company": "Amazon", "registrant": "Amazon.com, Inc.", "tickers": ["AMZN"], "fiscal_year": 2024,
          "form": "10K", "period_end": "2024-12-31"}
TESLA = {"company": "Tesla", "registrant": "Tesla, Inc.", "tickers": ["TSLA"], "fiscal_year": 2024, "form": "10K",
         "period_end": "2024-12-31"}


@pytest.mark.parametrize("question, stated, not_stated", [
    # the member's change: Amazon's AWS 90,757 -> 107,556 (consolidated +11.0%)
    ("How much did AWS revenue grow in 2024 at Amazon?", "+18.5% (+$16,799 million)", "11.0%"),
    # its margin: AWS operating income 39,834 over its revenue, tagged on the segment axis (consolidated 10.8%)
    ("What was Amazon's AWS operating margin in 2024?", "37.0%", "10.8%"),
    # its share: Amazon Web Services over net sales 637,959
    ("AWS as a percent of Amazon's total net sales in 2024?", "16.9%", "637,959 million)"),
])
def test_the_real_amazon_10k(question, stated, not_stated):
    r = _ask(question, _real("amzn-10-k-2025-02-07.html"), "amzn-10-k", AMAZON)
    assert r is not None and r.confident and stated in r.answer and not_stated not in r.answer, r and r.answer
    assert "AWS" in r.answer and r.member


def test_the_real_apple_10k_member_margin():
    """Apple's Services gross margin: (96,169 - 25,119) / 96,169 (consolidated 46.2%)."""
    r = _ask("What was Apple's Services gross margin in fiscal 2024?", _real("aapl-10-k-2024-11-01.html"),
             "aapl-10-k", APPLE)
    assert r is not None and r.confident and "73.9%" in r.answer and "46.2%" not in r.answer, r and r.answer
    assert "$96,169 million" in r.answer and "$25,119 million" in r.answer and r.asked == "metric"


@pytest.mark.parametrize("question, stated", [
    ("TSLA regulatory credit revenue for 2024", "$2,763 million"),  # 'Automotive regulatory credits', named in part
    ("Tesla's energy revenue in 2024?", "$10,086 million"),  # the parent of '... storage sales' and '... leasing'
])
def test_a_member_named_in_part(question, stated):
    r = _ask(question, _real("tsla-10-k-2025-01-30.html"), "tsla-10-k", TESLA)
    assert r is not None and r.confident and stated in r.answer and "97,690" not in r.answer, r and r.answer


def test_a_word_several_members_hold_names_none_of_them():
    """'leasing' is in Automotive leasing and Energy generation and storage leasing, neither the other's parent:
    the answer names both and states no value (before: the consolidated total)."""
    r = _ask("Tesla's leasing revenue in 2024?", _real("tsla-10-k-2025-01-30.html"), "tsla-10-k", TESLA)
    assert r is not None and not r.confident and "Automotive leasing" in r.answer, r and r.answer
    assert "Energy generation and storage leasing" in r.answer and "97,690" not in r.answer and "$" not in r.answer


def test_a_qualified_measure_word_is_another_part():
    """Amazon's "Net service sales" is not the "advertising services" asked: a one-word name ('service') against a
    question that qualifies it."""
    from finrag.tools.answering.member_facts import qualified_away

    own = frozenset({"amazon", "amzn", "com", "inc"})
    assert qualified_away(frozenset({"service"}), read_question("Amazon's advertising services sales in 2024").words, own)
    assert qualified_away(frozenset({"service"}), read_question("What did Oracle make from cloud services?").words, own)
    assert not qualified_away(frozenset({"service"}), read_question("Amazon's net service sales in 2024").words, own)
    assert not qualified_away(frozenset({"service", "other"}), read_question("advertising services").words, own)


def test_an_llms_figures_are_checked_against_the_members_share():
    """With an LLM generator the member's value, the total and the share are its structured context: an answer
    that restates them passes the figure check, a share computed from nothing is named."""
    from finrag.tools.answering.number_check import unmatched_numbers

    r = _ask("AWS as a percent of Amazon's total net sales in 2024?", _real("amzn-10-k-2025-02-07.html"), "amzn-10-k",
             AMAZON)
    assert r is not None and r.confident
    assert unmatched_numbers("AWS made up 16.9% of Amazon's 2024 net sales: $107.6 billion of $638.0 billion "
                             "[amzn-10-k, p. 65].", r) == []
    assert unmatched_numbers("AWS made up 18.2% of Amazon's 2024 net sales [amzn-10-k, p. 65].", r) == ["18.2%"]
