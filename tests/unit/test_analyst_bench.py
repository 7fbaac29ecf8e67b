"""bench/analyst_questions.py (issue 33): gold values from inline-XBRL facts (dimensional members with their displayed
row labels, changes, margins, cover facts) and the judge (value stated, wrong measure).

A small hand-written iXBRL 10-K (`tests.support.ixbrl.widgetco_tenk`) holds the contexts and facts; the real Amazon 10-K of
``../shared/data/edgar`` is read where present (skipped otherwise)."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.ixbrl import widgetco_tenk

REPO = Path(__file__).resolve().parents[2]
EDGAR = REPO.parent / "shared" / "data" / "edgar"


@pytest.fixture(scope="module")
def aq():
    from bench import analyst_questions

    return analyst_questions


@pytest.fixture(scope="module")
def generated(aq, tmp_path_factory):
    folder = tmp_path_factory.mktemp("edgar")
    (folder / "wid-10-k-2025-02-10.html").write_text(widgetco_tenk(), encoding="utf-8")
    return aq.generate(folder)


def _by(questions: list[dict], sub: str) -> list[dict]:
    return [q for q in questions if q["sub"] == sub]


def test_dimensional_facts_keep_member_row_label_and_page(aq):
    filing = aq.read_filing(widgetco_tenk())
    sub = next(f for f in filing["all"] if f["members"] == [("srt:ProductOrServiceAxis", "wid:SubscriptionMember")])
    assert sub["value"] == 6000e6 and sub["row"] == "Subscription (1)" and sub["page"] == 1
    assert "sub" not in filing["xbrl"]["contexts"]  # the system's shape: dimensionless contexts only
    assert filing["dei_pages"]["AuditorName"] == 3 and filing["dei_pages"]["EntityCentralIndexKey"] == -1
    assert aq.clean_label("Subscription services (5)") == "Subscription services"
    assert aq.clean_label("Total automotive revenues") == "automotive revenues"
    assert aq.member_name("aapl:GreaterChinaSegmentMember") == "Greater China"
    assert aq.member_name("country:DE") == "Germany" and aq.member_name("country:ZZ") == ""


def test_segment_gold_is_the_member_fact_named_by_its_row(generated):
    questions, _facts = generated
    segs = {q["member"]: q for q in questions if q["cls"] == "segment"}
    assert segs["wid:SubscriptionMember"]["gold_value"] == 6000e6
    assert segs["wid:SubscriptionMember"]["label"] == "Subscription"
    assert "Subscription" in segs["wid:SubscriptionMember"]["question"]
    assert segs["wid:SubscriptionMember"]["gold_pages"] == [1]
    # the row says "Total" for both regions: the member's own name is used
    assert segs["country:US"]["label"] == "United States" and segs["country:US"]["gold_value"] == 8500e6


def test_change_margin_and_cover_gold(generated):
    questions, facts = generated
    change = [q for q in questions if q["cls"] == "change" and q["measure"] == "revenue"]
    assert change and abs(change[0]["gold_pct"] - 25.0) < 1e-9 and change[0]["gold_abs"] == 2000e6
    net = next(q for q in questions if q["cls"] == "change" and q["measure"] == "net_income")
    assert abs(net["gold_pct"] - 100 / 3) < 1e-9 and net["gold_pages"] == [1]
    margins = {q["sub"]: q for q in questions if q["cls"] == "margin"}
    assert abs(margins["gross_margin"]["gold_value"] - 40.0) < 1e-9
    assert abs(margins["current_ratio"]["gold_value"] - 1.5) < 1e-9 and margins["current_ratio"]["gold_pages"] == [2]
    auditor = _by(questions, "auditor")[0]
    assert auditor["gold_value"] == "Ernst & Young LLP" and auditor["gold_pages"] == [3]
    shares = _by(questions, "shares_outstanding")[0]
    assert shares["gold_value"] == 123456789 and shares["as_of"] == "2025-02-01"
    assert "February 1, 2025" in shares["question"]
    assert {f["value"] for f in facts["wid-10-k-2025-02-10"]} >= {10000e6, 6000e6, 1500e6}


def test_numbers_skip_dates_citations_and_years(aq):
    got = aq.numbers("Apple's total revenue for the fiscal year ended 2024-09-28 (FY2024, fiscal 2024, "
                     "September 28, 2024) was $391,035 million ($391.04 billion) [aapl-10-k-2024-11-01, p. 30]; "
                     "us-gaap:Revenues; margin 46.2%; loss -$3.258 million")
    assert got == [(391035e6, "amount"), (391.04e9, "amount"), (46.2, "pct"), (-3.258e6, "amount")]


def test_value_stated_by_kind(aq):
    pct = {"gold_kind": "pct", "gold_value": 10.84}
    assert aq.states_gold(pct, "Revenue grew 10.8% year over year.")
    assert not aq.states_gold(pct, "Revenue grew 10.6% year over year.")
    assert aq.states_gold({**pct, "gold_value": -5.21}, "Net income decreased 5.2 percent.")
    money = {"gold_kind": "money", "gold_value": 40856e6}
    assert aq.states_gold(money, "Germany: $40.9 billion") and aq.states_gold(money, "$40,856 million")
    assert not aq.states_gold(money, "$40,856 thousand")
    assert aq.states_gold({"gold_kind": "name", "gold_value": "Ernst & Young LLP"}, "audited by ERNST AND YOUNG LLP")
    assert aq.states_gold({"gold_kind": "cik", "gold_value": "0000320193"}, "Apple's CIK is 320193.")
    assert aq.states_gold({"gold_kind": "date", "gold_value": "September 28"}, "The year ended on September 28, 2024")
    assert not aq.states_gold({"gold_kind": "date", "gold_value": "September 28"}, "It ends in September.")
    shares = {"gold_kind": "shares", "gold_value": 927264332}
    assert aq.states_gold(shares, "927,264,332 shares") and aq.states_gold(shares, "927.3 million shares")
    assert not aq.states_gold(shares, "931,519,242 shares") and not aq.states_gold(shares, "927.0 million shares")
    ratio = {"gold_kind": "ratio", "gold_value": 0.8673}
    assert aq.states_gold(ratio, "The current ratio was 0.87.") and not aq.states_gold(ratio, "ratio of 0.84")
    either = {"gold_kind": "either", "gold_value": 25.0, "gold_pct": 25.0, "gold_abs": 2000e6}
    assert aq.states_gold(either, "up $2.0 billion") and aq.states_gold(either, "up 25.0%")


def test_wrong_measure_is_another_fact_stated_as_the_answer(aq, generated):
    questions, facts = generated
    seg = next(q for q in questions if q.get("member") == "wid:SubscriptionMember")
    res = {"routing": {"routed_docs": [seg["doc_id"]], "status": "ok"},
           "contexts": [{"doc_id": seg["doc_id"], "page_start": 1, "page_end": 1}],
           "answer": f"Widgetco's total revenue for FY2024 was $10,000 million [{seg['doc_id']}, p. 1]."}
    out = aq.judge(seg, res, facts[seg["doc_id"]])
    assert out["exact"] and out["evidence"] and not out["value"] and out["wrong_measure"]
    assert out["other_measure"]["concept"] == "us-gaap:Revenues"
    right = aq.judge(seg, {**res, "answer": "Subscription revenue was $6.0 billion; total revenue $10,000 million."},
                     facts[seg["doc_id"]])
    assert right["value"] and not right["wrong_measure"]
    said = aq.judge(seg, {**res, "answer": "No fact for 'Subscription' revenue in FY2024; total revenue was $10,000 "
                                           "million (not the asked measure)."}, facts[seg["doc_id"]])
    assert not said["value"] and not said["wrong_measure"]
    quoted = aq.judge(seg, {**res, "answer": "From the filings: Total revenue | 10,000 | 8,000 [wid, p. 1]"},
                      facts[seg["doc_id"]])
    assert quoted["extractive"] and not quoted["wrong_measure"]
    change = next(q for q in questions if q["cls"] == "change" and q["measure"] == "revenue")
    this_year = aq.judge(change, {**res, "answer": "Widgetco's total revenue for FY2024 was $10,000 million. "
                                                  "Formula: none."}, facts[seg["doc_id"]])
    assert this_year["wrong_measure"]  # this year's value alone answers another question
    unseen = aq.judge(seg, {**res, "contexts": [{"doc_id": seg["doc_id"], "page_start": 2, "page_end": 3}],
                            "routing": {"routed_docs": [seg["doc_id"], "other"], "status": "ok"},
                            "answer": "Subscription revenue was $7,777 million."}, facts[seg["doc_id"]])
    assert not unseen["exact"] and not unseen["evidence"] and not unseen["wrong_measure"]


def test_financebench_classes(aq):
    assert aq.fb_class("Who is the auditor of Apple?") == "cover"
    assert aq.fb_class("What is the FY2019 - FY2020 total revenue growth rate for Block?") == "change"
    assert aq.fb_class("What is the FY2017 operating cash flow ratio for Adobe? Operating cash flow ratio is ...") \
        == "margin"
    assert aq.fb_class("Which region had the worst topline performance for MGM during FY2022?") == "ranking"
    assert aq.fb_class("What is the FY2018 capital expenditure amount (in USD millions) for 3M?") == "line_item"
    assert aq.fb_class("What drove gross margin change as of FY2022 for JnJ?") == "open"


@pytest.mark.skipif(not (EDGAR / "amzn-10-k-2025-02-07.html").is_file(), reason="../shared/data/edgar not present")
def test_real_filing_region_member(aq):
    filing = aq.read_filing((EDGAR / "amzn-10-k-2025-02-07.html").read_text(encoding="utf-8", errors="replace"))
    germany = [f for f in filing["all"] if f["members"] == [("srt:StatementGeographicalAxis", "country:DE")]
               and f["concept"] == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
               and f.get("end") == "2024-12-31"]
    assert germany and germany[0]["value"] == 40856e6 and germany[0]["row"] == "Germany" and germany[0]["page"] == 66


def test_company_level_facts_are_right_from_any_filing_of_the_company(aq, tmp_path):
    for name in ("wid-10-k-2025-02-10.html", "wid-10-k-copy.html"):
        (tmp_path / name).write_text(widgetco_tenk(), encoding="utf-8")
    questions, facts = aq.generate(tmp_path)
    cik = _by(questions, "cik")[0]
    assert cik["gold_docs"] == ["wid-10-k-2025-02-10", "wid-10-k-copy"] and cik["gold_value"] == "0000012345"
    res = {"routing": {"routed_docs": ["wid-10-k-copy"], "status": "ok"}, "contexts": [],
           "answer": "Widgetco's CIK is 0000012345."}
    out = aq.judge(cik, res, facts[cik["doc_id"]])
    assert out["exact"] and out["value"] and out["evidence"] is None  # the CIK is only in the hidden header
    assert not aq.judge(cik, {**res, "routing": {"routed_docs": [], "status": "none"}}, [])["exact"]
    fye = _by(questions, "fiscal_year_end")[0]
    assert fye["gold_value"] == "December 31" and "fiscal year 2024" in fye["question"]
