"""Segment, product and region questions answered from one-member facts (issue 33), never with the total.

The hand-made Widgetco FY2024 10-K (`support.ixbrl.widgetco_tenk`): revenue 10,000 (FY2023 8,000), a product
member "Subscription (1)" 6,000 and "Services" 4,000, regions United States 8,500 and Germany 1,500 under a
generic "Total" row (so Germany is named by its QName, `country:DE`); the real Apple 10-K where `../shared` has it.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from support.ixbrl import WIDGETCO_INFO, tenq_markup, widgetco_facts

from finrag.tools.answering.member_answer import answer_member
from finrag.tools.answering.member_facts import member_name
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question

REPO = Path(__file__).resolve().parents[2]
APPLE = REPO.parent / "shared" / "data" / "edgar" / "aapl-10-k-2024-11-01.html"
INFO = WIDGETCO_INFO


@pytest.fixture(scope="module")
def facts() -> dict:
    return widgetco_facts()


def test_the_collector_keeps_one_member_contexts_their_facts_and_row_labels(facts):
    assert facts["schema"] == "finrag.xbrl/2"
    assert facts["member_contexts"]["sub"] == {"axis": "srt:ProductOrServiceAxis", "member": "wid:SubscriptionMember",
                                               "start": "2024-01-01", "end": "2024-12-31"}
    sub = next(f for f in facts["member_facts"] if f["context"] == "sub")
    assert sub["value"] == 6e9 and sub["row"] == "Subscription (1)" and sub["page"] == 1
    assert all(f["context"] not in facts["member_contexts"] for f in facts["facts"])  # the totals stay apart
    assert next(f for f in facts["facts"] if f["concept"] == "us-gaap:Revenues" and f["context"] == "fy")["row"] == \
        "Total revenue"


@pytest.mark.parametrize("question, stated, member", [
    ("What was Widgetco's Subscription revenue in fiscal 2024?", "$6,000 million", "wid:SubscriptionMember"),
    ("How much revenue did Widgetco generate from Germany in FY2024?", "$1,500 million", "country:DE"),
    ("WID revenue from services for fiscal 2024", "$4,000 million", "us-gaap:ServiceMember"),
    ("What was Widgetco's revenue in the United States in 2024?", "$8,500 million", "country:US"),
])
def test_a_member_named_by_its_row_label_or_its_qname(facts, question, stated, member):
    r = answer_member(read_question(question), facts, "wid-10-k", INFO)
    assert r is not None and r.confident and stated in r.answer and member in r.answer, r and r.answer
    assert "[wid-10-k, p. " in r.answer and "10,000" not in r.answer
    assert r.found and r.found[0].page in (1, 2)


def test_the_total_asked_is_left_to_the_line_item_answerer(facts):
    for q in ["What was Widgetco's total revenue in fiscal 2024?", "What was Widgetco's net income for FY2024?"]:
        assert answer_member(read_question(q), facts, "wid-10-k", INFO) is None, q


def test_a_breakdown_not_tagged_is_said_not_found_and_never_the_total(facts):
    r = answer_member(read_question("How much revenue did Widgetco generate from Japan in FY2024?"), facts,
                      "wid-10-k", INFO)
    assert r is not None and not r.confident and r.answer.startswith("No tagged revenue fact for the region")
    assert "Subscription" in r.answer and "Germany" in r.answer and "10,000" not in r.answer
    r = answer_member(read_question("What was Widgetco's Subscription revenue in fiscal 2023?"), facts, "wid-10-k",
                      INFO)
    assert r is not None and not r.confident and "No tagged revenue fact for Subscription" in r.answer
    assert "8,000" not in r.answer and "6,000" not in r.answer


def test_the_companys_own_words_never_name_a_member():
    """Acme Widgets' 10-Q tags a "Widgets" segment member: "Acme Widgets' revenue" is the total's question."""
    data = html_document(tenq_markup())[1]
    info = {"company": "Acme Widgets", "registrant": "Acme Widgets, Inc.", "tickers": ["ACMW"], "fiscal_year": 2025,
            "form": "10Q", "period_end": "2025-06-28"}
    assert answer_member(read_question("What was Acme Widgets' total revenue in Q3 of fiscal 2025?"), data,
                         "acmw-10-q", info) is None


def test_an_index_without_member_facts_says_so():
    asked = read_question("What was the revenue of Widgetco's Cloud segment in FY2024?")
    r = answer_member(asked, {"facts": [{"concept": "us-gaap:Revenues"}], "contexts": {}}, "wid-10-k", INFO)
    assert r is not None and not r.confident and "index the filing again" in r.answer


def test_member_names():
    assert member_name("aapl:GreaterChinaSegmentMember") == "Greater China"
    assert member_name("country:DE") == "Germany"
    assert member_name("aapl:WearablesHomeandAccessoriesMember") == "Wearables Homeand Accessories"


@pytest.mark.skipif(not APPLE.exists(), reason="needs ../shared/data/edgar")
@pytest.mark.parametrize("question, stated", [
    ("What was Apple's iPhone revenue in fiscal 2024?", "$201,183 million"),
    ("How much revenue did Apple generate from Greater China in FY2024?", "$66,952 million"),
    ("What was Apple's Services revenue for FY2023?", "$85,200 million"),
])
def test_the_real_apple_10k(question, stated):
    data = html_document(APPLE.read_text(encoding="utf-8", errors="replace"))[1]
    info = {"company": "Apple", "registrant": "Apple Inc.", "tickers": ["AAPL"], "fiscal_year": 2024, "form": "10K",
            "period_end": "2024-09-28"}
    r = answer_member(read_question(question), data, "aapl-10-k", info)
    assert r is not None and r.confident and stated in r.answer, r and r.answer
    assert "391,035" not in r.answer  # the consolidated total
