"""Issue 47: the question's own arithmetic, answered from real EDGAR filings' inline-XBRL facts (skipped when
../shared/data/edgar is absent).

Each filing is read as the indexer reads it (`html_document`: pages and tagged facts); the question goes through
`read_question` and the `formula` kind's answerer (`kinds.formula`, via `answer_formula`). Expected values are the
filing's own facts, looked up here by concept and period, combined as the question defines them.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from finrag.tools.answering.formula_answer import answer_formula
from finrag.tools.answering.kinds import ask_kind
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question

REPO = Path(__file__).resolve().parents[2]
EDGAR = REPO.parent / "shared" / "data" / "edgar"
pytestmark = pytest.mark.skipif(not EDGAR.is_dir(), reason=f"shared EDGAR filings not found at {EDGAR}")

INFO = {
    "ba-10-k-2025-02-03": {"company": "Boeing", "form": "10K", "fiscal_year": 2024, "period_end": "2024-12-31"},
    "tsla-10-k-2025-01-30": {"company": "Tesla", "form": "10K", "fiscal_year": 2024, "period_end": "2024-12-31"},
    "Oracle.10-Q": {"company": "Oracle", "form": "10Q", "fiscal_year": 2025, "quarter": 1, "period_end": "2024-08-31"},
}


@functools.lru_cache(maxsize=None)
def tagged(doc_id: str) -> dict:
    markup = (EDGAR / f"{doc_id}.html").read_text(encoding="utf-8", errors="replace")
    facts = html_document(markup)[1]
    assert facts is not None
    return facts


def fact(doc_id: str, concept: str, *, instant: str = "", start: str = "", end: str = "", member: str = "") -> float:
    """The value of `concept` at `instant` (or over `start`..`end`), in a context without dimensions, or with only
    `member` when given."""
    facts = tagged(doc_id)
    found, contexts = ((facts["member_facts"], facts["member_contexts"]) if member else
                       (facts["facts"], facts["contexts"]))
    for f in found:
        ctx = contexts.get(f["context"]) or {}
        if f["concept"] == concept and ctx.get("member", "") == member and (
                ctx.get("instant") == instant if instant else (ctx.get("start"), ctx.get("end")) == (start, end)):
            return float(f["value"])
    raise AssertionError(f"{concept} {member} not tagged in {doc_id}")


def ask(doc_id: str, question: str) -> ReaderResult:
    facts = read_question(question)
    assert ask_kind(facts) == "formula", facts.formula
    declined = ReaderResult(answer="", confident=False, kind="none")
    return answer_formula(facts, tagged(doc_id), doc_id, INFO[doc_id], lambda metric, facts: declined)


def test_a_defined_ratio_is_the_questions_not_finrags_formula_for_the_name():
    doc = "ba-10-k-2025-02-03"
    result = ask(doc, "Define working capital ratio as total current assets divided by total current liabilities. "
                      "What is Boeing's working capital ratio for FY2024? Round to two decimals.")
    expected = fact(doc, "us-gaap:AssetsCurrent", instant="2024-12-31") / fact(
        doc, "us-gaap:LiabilitiesCurrent", instant="2024-12-31")
    assert result.confident and result.value == pytest.approx(expected)
    assert f"{expected:.2f}" in result.answer.split(". Formula")[0]
    assert "the question's definition" in result.answer  # never finrag's working capital (an amount)
    assert result.question_formula is not None and result.question_formula.source == "question"


def test_every_part_of_a_compound_metric_is_computed():
    doc = "tsla-10-k-2025-01-30"
    result = ask(doc, "What is Tesla's EBITDA less capex for 2024, where EBITDA = operating income + depreciation, "
                      "amortization and impairment from the cash flow statement? USD millions.")
    year = ("2024-01-01", "2024-12-31")
    expected = (fact(doc, "us-gaap:OperatingIncomeLoss", start=year[0], end=year[1])
                + fact(doc, "tsla:DepreciationAmortizationAndImpairment", start=year[0], end=year[1])
                - fact(doc, "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", start=year[0], end=year[1]))
    assert result.confident and result.value == pytest.approx(expected)


def test_an_operand_finrag_has_no_line_item_for_is_read_from_the_filings_own_row():
    doc = "Oracle.10-Q"
    result = ask(doc, "Oracle Q1 FY2025 (quarter ended Aug 31, 2024): cloud & license contribution = cloud services "
                      "and license support revenues - cloud services and license support expenses. USD millions.")
    quarter = ("2024-06-01", "2024-08-31")
    expected = (fact(doc, "orcl:CloudServicesAndLicenseSupportRevenue", start=quarter[0], end=quarter[1])
                - fact(doc, "orcl:CloudServicesAndLicenseSupportExpenses", start=quarter[0], end=quarter[1]))
    assert result.confident and result.value == pytest.approx(expected)
    assert "orcl:CloudServicesAndLicenseSupportExpenses" in result.answer  # each operand cited by its fact


@pytest.mark.parametrize("question, said", [
    ("Define Boeing's stress ratio as operating income divided by zero. What is the stress ratio for FY2024?",
     "zero whatever the filing reports"),
    ("What is Boeing's gross margin for 2024, defined as gross profit divided by (total revenue minus total "
     "revenue)?", "zero whatever the filing reports"),
    ("Define Boeing's unicorn margin as operating income divided by the number of unicorns delivered in 2024. "
     "What is it?", "no row of the filing reads 'number of unicorns delivered'"),
    ("What is Boeing's hyper-growth efficiency score for 2024?", "not a metric finrag knows"),
])
def test_what_cannot_be_computed_is_said_with_no_number_as_the_answer(question, said):
    result = ask("ba-10-k-2025-02-03", question)
    assert not result.confident and result.value is None
    assert "was not computed" in result.answer and said in result.answer


def test_other_revenues_are_the_one_member_named_other_never_a_place_or_the_total():
    """Issue 47, members named in part: "other revenues" is the breakdown's one generic "other" member (Tesla's
    "Services and other"), not a place whose name ends in "and other" (Boeing's "Latin America, Caribbean and other")."""
    from finrag.tools.answering.member_answer import answer_member
    from finrag.tools.answering.member_facts import _generic_other

    assert _generic_other("Services and other") and _generic_other("Product and Service Other")
    assert _generic_other("All other") and not _generic_other("Latin America, Caribbean and other")
    doc = "tsla-10-k-2025-01-30"
    result = answer_member(read_question("What were Tesla's other revenues in 2024?"), tagged(doc), doc, INFO[doc])
    assert result is not None and "tsla:ServicesAndOtherMember" in result.answer
    assert result.value == pytest.approx(fact(doc, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
                                              start="2024-01-01", end="2024-12-31", member="tsla:ServicesAndOtherMember"))



def _tables_reading(doc_id: str, question: str):
    """What the statement-table reader is given for a formula the tagged facts do not answer: the question's reading
    it reads the asked period from."""
    seen = []

    def tables(metric, facts):
        seen.append(facts)
        return ReaderResult(answer="", confident=False, kind="none")

    facts = read_question(question)
    answer_formula(facts, None, doc_id, INFO[doc_id], tables)  # no tagged facts: the tables are asked
    assert seen
    return facts, seen[-1]


def test_the_tables_take_the_asked_period_not_the_dates_a_definition_gives_its_operands():
    asked, given = _tables_reading("ba-10-k-2025-02-03", "Boeing Co. average inventories for 2024 = (inventories at "
                                   "12/31/2023 + inventories at 12/31/2024) / 2. Give it in USD billions, 2 decimals.")
    assert asked.dates == ["2023-12-31", "2024-12-31"]  # the operands' dates
    assert given.dates == [] and given.as_of is None and given.years_written == [2024]
    asked, given = _tables_reading("Oracle.10-Q", "Oracle Corporation's equity multiplier, defined as total assets "
                                   "divided by total Oracle stockholders' equity, at August 31, 2024? Two decimals.")
    assert given is asked  # one date for every operand is the asked period's (Oracle's fiscal 2025 Q1)


def test_a_definitions_format_tail_is_no_operand_and_its_answer_is_the_ratio():
    """"(cover = A over B, 2 dp)": the rounding clause inside the definition's parenthesis is the answer's format."""
    doc = "ba-10-k-2025-02-03"
    result = ask(doc, "How many times did Boeing's total current assets cover its total current liabilities at the end "
                      "of 2024? (cover = total current assets over total current liabilities, 2 dp)")
    expected = fact(doc, "us-gaap:AssetsCurrent", instant="2024-12-31") / fact(
        doc, "us-gaap:LiabilitiesCurrent", instant="2024-12-31")
    assert result.confident and result.value == pytest.approx(expected)
    assert f"{expected:.2f}" in result.answer.split(". Formula")[0]


def test_an_average_of_two_dated_balances_is_asked_at_the_later_date():
    """The two dates of "the mean of the December 31, 2023 and December 31, 2024 balances" are the average's ends:
    the asked period is FY2024, not FY2023 (whose opening balance a 10-K for 2024 does not hold)."""
    doc = "ba-10-k-2025-02-03"
    result = ask(doc, "Average total assets for Boeing in 2024 (mean of the December 31, 2023 and December 31, 2024 "
                      "balances), in USD millions.")
    expected = (fact(doc, "us-gaap:Assets", instant="2023-12-31") + fact(doc, "us-gaap:Assets", instant="2024-12-31")) / 2
    assert result.confident and result.value == pytest.approx(expected)


def test_a_quarter_against_the_same_quarter_a_year_before_is_growth_from_each_operands_own_period():
    """"revenues Q1 FY2025 vs Q1 FY2024, % change": each operand its own quarter (the 10-Q's quarter and the same
    quarter a year before), never one figure over itself."""
    doc = "Oracle.10-Q"
    result = ask(doc, "Oracle total revenues Q1 FY2025 vs Q1 FY2024, % change, one decimal.")
    now = fact(doc, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", start="2024-06-01", end="2024-08-31")
    before = fact(doc, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", start="2023-06-01", end="2023-08-31")
    assert result.confident, result.answer
    assert f"{(now / before - 1) * 100:.1f}%" in result.answer.split(". Formula")[0]



def test_a_company_name_heading_the_definition_names_no_measure():
    doc = "tsla-10-k-2025-01-30"
    result = ask(doc, "Tesla: research and development relative to total revenues for fiscal 2024")
    year = {"start": "2024-01-01", "end": "2024-12-31"}
    expected = fact(doc, "us-gaap:ResearchAndDevelopmentExpense", **year) / fact(doc, "us-gaap:Revenues", **year)
    head = result.answer.split(". Formula")[0]
    assert result.confident and result.value == pytest.approx(expected)
    assert "research and development / total revenue" in head  # named by its formula, not "Tesla's tesla"
