"""Session 57's principles of the definition reader (issue 47), each tested on made-up companies and wordings of its
own: a definition is found whatever verb introduces it (a pronoun given arithmetic, "is given by", "i.e.", "which we
take to be", a gloss only when arithmetic); a date written "at (the) end of FY23" dates its operand and a bare one
repeats the operand before it; a defined name may carry a bare period before its colon; a request's opening before a
row label composes "What was X as a percentage of Y?"; operator words "after subtracting" and "added to" are minus and
plus; one answer asked in two forms that measure different things is said; basis points are stated."""
from __future__ import annotations

import pytest

from finrag.state.formula import BinOp, Item, Unknown, expr_items, expr_text
from finrag.tools.answering.formula_answer import in_basis_points
from finrag.tools.question.contradiction import mixed_forms
from finrag.tools.question.formula import formula_of


def _items(q: str) -> list[tuple[str, int]]:
    f = formula_of(q)
    assert f is not None and f.expression is not None and not f.problems, (q, f)
    return expr_items(f.expression)


@pytest.mark.parametrize("q", [
    "How much did Globex hand back to owners in 2024? Take it as dividends paid + repurchases of common stock.",
    "Initech's shareholder payout for FY2023 - count this as dividends paid plus repurchases of common stock.",
    "What did Hooli return to shareholders in 2024? Treat the total as dividends paid + repurchases of common stock.",
])
def test_a_pronoun_given_arithmetic_defines_the_asked_measure(q: str) -> None:
    f = formula_of(q)
    assert f is not None and f.source == "question" and isinstance(f.expression, BinOp) and f.expression.op == "+"
    assert [i for i, _o in expr_items(f.expression)] == ["dividends_paid", "share_repurchases"]


def test_a_unit_after_a_pronoun_is_no_definition() -> None:
    assert formula_of("What was Globex's net income in 2024? Express it as a percentage.") is None


@pytest.mark.parametrize("q", [
    "Globex's leverage multiple is given by total liabilities divided by total stockholders' equity. What is it for 2024?",
    "Globex's leverage multiple, which we take to be total liabilities divided by total stockholders' equity, for 2024?",
    "Globex's leverage multiple, worked out as total liabilities divided by total stockholders' equity, for 2024?",
    "Globex's leverage multiple here means total liabilities divided by total stockholders' equity. What is it for 2024?",
    "Globex's 2024 leverage multiple, i.e. total liabilities divided by total stockholders' equity?",
    "Read Globex's leverage multiple as total liabilities divided by total stockholders' equity. What is it for 2024?",
])
def test_a_definition_is_found_whatever_verb_introduces_it(q: str) -> None:
    f = formula_of(q)
    assert f is not None and f.source == "question" and f.name == "leverage multiple", (q, f)
    assert [i for i, _o in expr_items(f.expression)] == ["total_liabilities", "total_equity"]


def test_a_gloss_or_a_verb_over_no_line_item_is_no_definition() -> None:
    assert formula_of("Globex's guidance is given by management each quarter. What was its revenue in 2024?") is None
    assert formula_of("Initech's moat here means its brand. What was its revenue in 2024?") is None


def test_an_introduced_definition_over_a_line_item_that_is_no_arithmetic_is_said() -> None:
    f = formula_of("Hooli's equity root is given by the cube root of total stockholders' equity. What is it for 2024?")
    assert f is not None and f.expression is None and "not arithmetic" in f.problems[0]


def test_an_empty_gloss_is_said_empty() -> None:
    f = formula_of("Initech's core score here means . What is Initech's core score for FY2023?")
    assert f is not None and f.expression is None and "empty" in f.problems[0]


@pytest.mark.parametrize("end", ["at end of FY22", "at the end of FY22", "at the close of fiscal 2022", "by end of 2022"])
def test_a_date_written_at_the_end_of_a_year_dates_its_operand(end: str) -> None:
    q = f"Define Globex's inventory turns as cost of sales / ((inventories {end} + inventories at Dec 31, 2023) / 2)."
    assert _items(q) == [("cogs", 0), ("inventory", -1), ("inventory", 0)]


def test_a_bare_period_repeats_the_operand_before_it() -> None:
    q = "Define Globex's ROA as net income / ((total assets at end of FY22 + at end of FY23) / 2)."
    assert _items(q) == [("net_income", 0), ("total_assets", -1), ("total_assets", 0)]


def test_a_defined_name_may_carry_a_bare_period_before_its_colon() -> None:
    f = formula_of("initech asset turnover FY23: revenue / ((total assets at end of FY22 + at end of FY23) / 2)")
    assert f is not None and f.source == "question" and "asset turnover" in f.name
    assert expr_items(f.expression) == [("revenue", 0), ("total_assets", -1), ("total_assets", 0)]


@pytest.mark.parametrize("q", [
    "What was Globex's widget freight expense as a percentage of net sales in 2024?",
    "What's Globex's 2024 widget freight expense as a % of net sales?",
    "How much was the widget freight expense as a percentage of net sales for Globex in 2024?",
])
def test_a_request_opening_before_a_row_label_composes_its_share(q: str) -> None:
    f = formula_of(q)
    assert f is not None and f.source == "composed" and f.unit == "percent", (q, f)
    assert isinstance(f.expression, BinOp) and f.expression.op == "/"
    assert isinstance(f.expression.left, Unknown) and "widget freight expense" in f.expression.left.phrase
    assert isinstance(f.expression.right, Item) and f.expression.right.item == "revenue"


def test_a_count_question_opens_no_operand() -> None:
    assert formula_of("How many widget freight workers as a percentage of staff did Globex have?") is None


@pytest.mark.parametrize("words, op", [("after subtracting", "-"), ("after deducting", "-"), ("added to", "+")])
def test_operator_verbs(words: str, op: str) -> None:
    f = formula_of(f"Define Hooli's core cash as operating cash flow {words} capital expenditures. What is it for 2024?")
    assert f is not None and isinstance(f.expression, BinOp) and f.expression.op == op
    assert {i for i, _o in expr_items(f.expression)} == {"cfo", "capex"}


def test_added_to_is_no_ratio_of_its_operands() -> None:
    f = formula_of("Define Hooli's gross debt as long-term debt added to current maturities of long-term debt added to "
                   "commercial paper. What is it for 2024?")
    assert f is not None and "/" not in expr_text(f.expression)


@pytest.mark.parametrize("q", [
    "What was Globex's 2024 operating income in USD millions as a percentage?",
    "Define Initech's margin as EBIT / revenue. Give it in $ billions as a ratio.",
    "Hooli's DSO for 2024 as a ratio in days?",
])
def test_one_answer_in_two_forms_of_different_measures_is_said(q: str) -> None:
    assert mixed_forms(q) is not None
    f = formula_of(q)
    assert f is not None and f.expression is None and "does not pick one" in f.problems[0]


@pytest.mark.parametrize("q", [
    "What was the change in Globex's revenue in 2024, in USD millions and as a percentage?",
    "Globex 2024 operating income in USD millions, as a percentage of revenue?",
    "Initech's 2024 gross margin as a percentage, in percent.",
])
def test_two_answers_or_one_form_are_no_mix(q: str) -> None:
    assert mixed_forms(q) is None


def test_basis_points_are_asked_and_stated() -> None:
    f = formula_of("Define Globex's gross margin as gross profit / revenue. What was it for 2024 in basis points?")
    assert f is not None and f.basis_points and f.unit == "percent"
    assert in_basis_points("Globex's gross margin for 2024 was 46.21%. Formula: ...") == \
        "Globex's gross margin for 2024 was 4,621 basis points (46.21%). Formula: ..."


def test_no_basis_points_unless_asked() -> None:
    f = formula_of("Define Globex's gross margin as gross profit / revenue. What was it for 2024?")
    assert f is not None and not f.basis_points



@pytest.mark.parametrize("rhs", ["the quotient of total liabilities and total stockholders' equity",
                                 "total liabilities as a multiple of total stockholders' equity"])
def test_a_quotient_or_a_multiple_of_is_a_division(rhs: str) -> None:
    f = formula_of(f"Define Globex's leverage as {rhs}. What is it for 2024?")
    assert f is not None and isinstance(f.expression, BinOp) and f.expression.op == "/" and f.unit == "ratio"
    assert [i for i, _o in expr_items(f.expression)] == ["total_liabilities", "total_equity"]


def test_a_listed_label_keeps_its_own_commas() -> None:
    f = formula_of("Define Initech's opex as the sum of research and development expense and selling, general and "
                   "administrative expense. What was it in 2024?")
    assert f is not None and [i for i, _o in expr_items(f.expression)] == ["rnd", "sga"]
