"""Session 57's tuned round (issue 47), each principle on made-up companies and wordings of its own: an operand is
matched to the filing's rows by a score over stemmed words with the shorthand written out (the concept's name adding
words), and missing below the cover, never another row."""
from __future__ import annotations

import re

import pytest

from finrag.tools.answering.row_facts import bind_row, label_cover, stem
from finrag.tools.vocabulary.line_items import row_item_name


def _flows(*rows: tuple[str, str]) -> dict:
    facts = [{"concept": c, "row": r, "context": "d", "value": 1.0} for c, r in rows]
    return {"facts": facts, "contexts": {"d": {"start": "2023-01-01", "end": "2023-12-31"}}}


@pytest.mark.parametrize("a, b", [("acquisition", "acquire"), ("repurchases", "repurchase"), ("paid", "payments"),
                                  ("issuance", "issuances"), ("proceeds", "proceed")])
def test_one_word_in_two_forms_has_one_stem(a: str, b: str) -> None:
    assert label_cover(a, b) == 1.0, (stem(a), stem(b))


@pytest.mark.parametrize("a, b", [("interest", "internal"), ("income", "incentive"), ("deposits", "depreciation")])
def test_words_sharing_a_beginning_are_not_one_word(a: str, b: str) -> None:
    assert label_cover(a, b) == 0.0


def test_shorthand_is_written_out_and_the_concept_name_adds_words() -> None:
    assert label_cover("cash spent buying PP&E", "Cash spent buying property, plant and equipment") == 1.0
    assert label_cover("SBC expense", "Stock-based compensation expense") == 1.0
    # "vessels" is no word of the label, but of the concept's name
    assert label_cover("outlays on vessels", "Outlays", "glx:OutlaysOnVessels") == 1.0
    assert label_cover("outlays on vessels", "Outlays", "glx:OutlaysOther") == 0.0


def test_a_row_is_read_by_its_stemmed_words() -> None:
    tagged = _flows(("glx:PaymentsToAcquireVessels", "Payments for acquisition of vessels"),
                    ("glx:ProceedsFromSaleOfVessels", "Proceeds from sale of vessels"))
    binding = bind_row(tagged, row_item_name("vessel acquisitions paid"))
    assert binding is not None and binding.concepts == ["glx:PaymentsToAcquireVessels"]
    binding = bind_row(tagged, row_item_name("proceeds of vessel sales"))
    assert binding is not None and binding.concepts == ["glx:ProceedsFromSaleOfVessels"]


def test_an_operand_the_rows_do_not_cover_is_missing_never_another_row() -> None:
    tagged = _flows(("glx:PaymentsOfDividends", "Payments for dividends and dividend equivalents"),
                    ("glx:DividendsDeclared", "Dividends and dividend equivalents declared"))
    binding = bind_row(tagged, row_item_name("dividend equivalents remitted to holders"))
    assert binding is None
    binding = bind_row(tagged, row_item_name("dividends and dividend equivalents paid"))
    assert binding is not None and binding.concepts == ["glx:PaymentsOfDividends"]


@pytest.mark.parametrize("q, first, second", [
    ("Globex, FY2024: add back depreciation and amortization to operating income. What total?",
     "operating_income", "depreciation_amortization"),
    ("For Initech's 2023, adding stock-based compensation to net income, what do you get in $ millions?",
     "net_income", "stock_based_compensation"),
])
def test_add_back_b_to_a_is_a_plus_b(q: str, first: str, second: str) -> None:
    from finrag.state.formula import BinOp, expr_items
    from finrag.tools.question.formula import formula_of
    f = formula_of(q)
    assert f is not None and isinstance(f.expression, BinOp) and f.expression.op == "+", f
    assert [i for i, _o in expr_items(f.expression)] == [first, second]


def test_add_with_no_known_operands_is_no_arithmetic() -> None:
    from finrag.tools.question.formula import formula_of
    assert formula_of("Did Globex add a new plant to its network in 2024?") is None


def test_a_list_item_the_row_lacks_is_read_but_never_a_qualifier_or_modifier() -> None:
    assert label_cover("design, testing and tooling", "Design and testing", "glx:DesignAndTestingExpense") >= 0.8
    assert label_cover("harbor segment revenue", "Segment revenue") == 0.0  # a modifier: another measure
    assert label_cover("lease liabilities, noncurrent", "Lease liabilities") == 0.0  # a qualifier


@pytest.mark.parametrize("q", [
    "Hooli tooling growth: (tooling outlays fiscal 2024 / tooling outlays fiscal 2023) - 1, as a percent",
    "Hooli tooling growth, first nine months of 2025 over 2024: (9M'25 tooling outlays / 9M'24) - 1",
    "Hooli tooling growth = (tooling outlays FY2024 / FY2023) - 1",
])
def test_a_growth_of_a_row_named_once_is_this_period_over_the_last(q: str) -> None:
    from finrag.state.formula import BinOp, Unknown
    from finrag.tools.question.formula import formula_of
    f = formula_of(q)
    assert f is not None and f.source == "question" and not f.problems, f
    ratio = f.expression.left if isinstance(f.expression, BinOp) else None
    assert isinstance(ratio, BinOp) and ratio.op == "/", f
    assert isinstance(ratio.left, Unknown) and isinstance(ratio.right, Unknown)
    assert ratio.left.phrase == ratio.right.phrase == "tooling outlays"
    assert (ratio.left.offset, ratio.right.offset) == (0, -1)


def test_the_registrants_own_name_in_a_label_is_no_extra_word() -> None:
    own = frozenset({"globex"})
    label = "Total equity attributable to holders of Globex Corporation"
    assert label_cover("equity attributable to holders", label, own=own) > label_cover(
        "equity attributable to holders", "Equity attributable to holders of affiliates", own=own)
    assert label_cover("equity attributable to holders", label, own=own) == 1.0


def test_a_defined_name_may_say_what_it_uses_before_its_colon() -> None:
    from finrag.tools.question.formula import formula_of
    f = formula_of("initech return on assets 2024 using average assets: net income / ((total assets at end of 2023 + "
                   "at end of 2024) / 2)")
    assert f is not None and f.expression is not None and "return on assets" in f.name, f


@pytest.mark.parametrize("q", [
    "Initech FY2024: compute core profit = operating income x (core profit / operating income).",
    "Define Hooli's clean earnings as net income times (clean earnings / net income). What is it for 2023?",
])
def test_a_definition_through_itself_after_an_operator_is_circular(q: str) -> None:
    from finrag.tools.question.formula import formula_of
    f = formula_of(q)
    assert f is not None and f.expression is None and any("in terms of itself" in p for p in f.problems), f


def test_a_parenthesis_restating_the_arithmetic_is_still_dropped() -> None:
    from finrag.tools.question.restated import restated
    assert restated("Globex 2024: R&D as a share of revenue (R&D / revenue). 1 dp") == \
        "Globex 2024: R&D as a share of revenue. 1 dp"
    assert "(core profit / operating income)" in restated("core profit = operating income x (core profit / operating income).")


@pytest.mark.parametrize("text, form, fy, said", [
    ("Globex full-year 2025 operating margin from its March 2025 10-Q", "10Q", 2025, True),
    ("Globex operating margin for the twelve months ended December 2025", "10Q", 2025, True),
    ("Globex full-year 2024 operating margin", "10Q", 2025, False),   # an earlier year: its comparative columns
    ("Globex operating margin for the three months ended March 2025", "10Q", 2025, False),
    ("Globex full-year 2025 operating margin", "10K", 2025, False),
])
def test_a_full_fiscal_year_a_10q_does_not_cover_is_said(text: str, form: str, fy: int, said: bool) -> None:
    from finrag.state.question import QuestionFacts
    from finrag.tools.answering.formula_answer import year_not_covered
    facts = QuestionFacts(text=text, years_written=[int(y) for y in re.findall(r"20\d\d", text)])
    why = year_not_covered(facts, {"form": form, "fiscal_year": fy, "period_end": "2025-03-31"})
    assert bool(why) is said, why


def test_a_restating_parenthesis_may_spell_its_operand_otherwise() -> None:
    from finrag.tools.question.restated import restated
    q = "hooli modelling expense as a share of total revenue for FY2024 (modeling / revenue), percent, 1 dp"
    assert restated(q) == "hooli modelling expense as a share of total revenue for FY2024, percent, 1 dp"


def test_the_filers_ticker_in_an_operand_is_no_word_of_the_row() -> None:
    own = frozenset({"hooli", "hool"})
    assert label_cover("hool tooling outlays", "Tooling outlays", own=own) == 1.0
    assert label_cover("hool tooling outlays", "Tooling outlays") == 0.0
