"""General causes of defined-metric misses found in session 56 (issue 47) by writing new analysts' phrasings, each
tested with other companies and wordings than any benchmark set's: a defined name may carry its period before "as", "in
times" is a unit and no multiplication, "net of the current portion of X" subtracts X, a label written twice across
"and" is two rows, the owners' word filers vary is one, a measure's own noun over revenue is no part's share, and a
head's first operand is the label after a name or a period."""
from __future__ import annotations

import pytest

from finrag.state.formula import BinOp, Item, Unknown, expr_text
from finrag.tools.question import read_question
from finrag.tools.question.format_tail import strip_format
from finrag.tools.question.formula import formula_of
from finrag.tools.question.operand import resolve


def _formula(q: str):
    f = formula_of(q)
    assert f is not None and f.expression is not None, (q, f)
    return f


@pytest.mark.parametrize("q", [
    "Define Globex's freight coverage for 2023 as operating income divided by interest expense.",
    "Define Initech's liquidity buffer at the end of fiscal 2023 as cash and cash equivalents over total current liabilities.",
    "Define Hooli's fiscal 2023 liquidity buffer as cash and cash equivalents over total current liabilities.",
    "Define Umbrella's Q3 FY24 liquidity buffer as cash and cash equivalents over total current liabilities.",
    "Define the asset yield for the six months ended March 31, 2024 as net income / total assets.",
])
def test_a_defined_name_may_carry_its_period(q: str) -> None:
    f = _formula(q)
    assert f.source == "question" and "/" in expr_text(f.expression) and not f.problems, f
    assert not any(ch.isdigit() for ch in f.name), f.name  # the period dates the question; it is no part of the name


def test_a_name_followed_by_other_words_before_as_is_still_no_definition_of_those_words() -> None:
    f = _formula("Define Globex's freight coverage as operating income divided by interest expense for 2023.")
    assert f.name == "freight coverage"


@pytest.mark.parametrize("rhs, kept", [
    ("operating income divided by interest expense, in times", "operating income divided by interest expense"),
    ("total assets / total equity, as a multiple", "total assets / total equity"),
    ("operating income / interest expense, in times, two decimals", "operating income / interest expense"),
    ("net income, times 100", "net income, times 100"),  # arithmetic, not a unit
])
def test_times_and_multiple_are_the_answer_s_unit(rhs: str, kept: str) -> None:
    assert strip_format(rhs) == kept


def test_in_times_after_a_ratio_of_is_no_multiplication() -> None:
    f = _formula("What is Globex's ratio of total liabilities to total equity at June 30, 2024, in times?")
    assert isinstance(f.expression, BinOp) and f.expression.op == "/"
    assert "*" not in expr_text(f.expression)


def test_net_of_the_current_portion_of_something_subtracts_it() -> None:
    f = _formula("Define Initech's cash cushion as cash and cash equivalents, net of the current portion of long-term "
                 "debt, at June 30, 2024.")
    text = expr_text(f.expression)
    assert "-" in text and "current" in text, text
    # a contra account that says nothing of what it is of stays the row's own label
    g = _formula("Define Initech's leverage as long-term debt, net of current portion, divided by total assets.")
    assert "-" not in expr_text(g.expression), expr_text(g.expression)


@pytest.mark.parametrize("phrase, items", [
    ("current portion of long-term debt and long-term debt", {"current_debt", "long_term_debt"}),
    ("current maturities of long-term debt and capital leases and long-term debt and capital leases",
     {"current_debt", "long_term_debt"}),
])
def test_a_label_written_twice_is_two_rows(phrase: str, items: set[str]) -> None:
    got = resolve(phrase, {})
    assert isinstance(got, BinOp) and got.op == "+", got
    assert {e.item for e in (got.left, got.right) if isinstance(e, Item)} == items


@pytest.mark.parametrize("phrase", ["short-term debt and current portion of long-term debt", "cash and cash equivalents",
                                    "accounts payable and accrued liabilities"])
def test_one_label_with_and_stays_one_row(phrase: str) -> None:
    assert isinstance(resolve(phrase, {}), Item)


@pytest.mark.parametrize("phrase", ["shareowners' equity", "total stockholders' equity", "shareholders equity",
                                    "total shareowners equity"])
def test_the_owners_word_is_one_word(phrase: str) -> None:
    got = resolve(phrase, {})
    assert isinstance(got, Item) and got.item == "total_equity", got


def test_a_measure_noun_over_revenue_is_no_part_share() -> None:
    f = _formula("Globex 2023 freight expense as a share of total net sales, percent.")
    assert isinstance(f.expression, BinOp) and isinstance(f.expression.left, Unknown)
    assert f.unit == "percent"
    # a part's name over revenue stays the member answerer's
    assert read_question("What was Globex's Cloud as a share of net sales in 2023?").formula is None


def test_the_first_operand_is_the_label_after_a_name_and_a_period() -> None:
    f = _formula("Hooli 2023 warehouse expense as a percentage of total revenue.")
    assert isinstance(f.expression, BinOp) and isinstance(f.expression.left, Unknown)
    assert f.expression.left.phrase == "warehouse expense"


def test_how_much_x_per_dollar_of_y_composes_the_ratio() -> None:
    f = _formula("How much SG&A did Globex spend per dollar of net sales in 2023?")
    assert expr_text(f.expression) == "sga / revenue", expr_text(f.expression)
    assert f.unit == "ratio"


def test_a_catalog_percentage_asked_per_dollar_is_a_ratio() -> None:
    from finrag.tools.vocabulary.metrics import METRICS, as_asked
    name = next(n for n, m in METRICS.items() if m.unit == "percent" and m.expression is not None)
    metric = METRICS[name]
    assert as_asked(metric, "how many cents per dollar of revenue", False, None).unit == "ratio"
    assert as_asked(metric, "per dollar of revenue, as a percent", True, None).unit == "percent"


@pytest.mark.parametrize("rhs, kept", [
    ("capex/revenue in percent", "capex/revenue"),
    ("(operating cash flow / total revenues) expressed in percent", "(operating cash flow / total revenues)"),
    ("cash held in banks", "cash held in banks"),
    ("net income in 2024", "net income in 2024"),
])
def test_a_format_tail_needs_no_comma(rhs: str, kept: str) -> None:
    assert strip_format(rhs) == kept


def test_a_catalog_name_inside_one_operand_of_a_to_b_still_divides() -> None:
    f = _formula("Globex: what was the 2023 free cash flow to total debt ratio, with total debt = long-term debt plus "
                 "current portion of long-term debt? 2 decimals.")
    assert isinstance(f.expression, BinOp) and f.expression.op == "/", expr_text(f.expression)
    assert read_question("What is Globex's debt to equity for 2023?").formula is None  # the catalog's own name


def test_an_ampersand_between_words_is_and() -> None:
    got = resolve("depreciation & amortization (cash flow statement)", {})
    assert isinstance(got, Item) and got.item == "depreciation_amortization"


def test_a_group_s_opening_is_no_part_of_a_to_operand() -> None:
    from finrag.tools.question.role_operators import bare_to
    out = bare_to("net income per dollar of ((total equity at the start + at the end) / 2)", {})
    assert "⟨((" not in out, out


def _tagged(concept: str, member: bool) -> dict:
    fact = {"concept": concept, "row": "Total liabilities", "context": "c1", "value": 1.0}
    contexts = {"c1": {"instant": "2024-12-31", **({"member": "us-gaap:InvesteeMember"} if member else {})}}
    return {"member_facts": [fact], "member_contexts": contexts, "facts": [], "contexts": {}} if member else \
        {"facts": [fact], "contexts": contexts}


def test_a_note_s_disclosure_concept_is_no_line_of_the_statements() -> None:
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import row_item_name
    row = row_item_name("total liabilities", like="total_liabilities")
    assert bind_row(_tagged("us-gaap:LiabilitiesFairValueDisclosure", False), row, "total_liabilities") is None
    assert bind_row(_tagged("us-gaap:Liabilities", False), row, "total_liabilities") is not None


def test_a_balance_sheet_line_is_never_read_from_one_member_s_facts() -> None:
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import row_item_name
    row = row_item_name("total liabilities", like="total_liabilities")
    assert bind_row(_tagged("us-gaap:Liabilities", True), row, "total_liabilities") is None


@pytest.mark.parametrize("phrase", ["the prior year's net sales", "previous fiscal year's total assets",
                                    "prior-year inventory"])
def test_a_prior_year_s_operand_is_the_year_before(phrase: str) -> None:
    got = resolve(phrase, {})
    assert isinstance(got, Item) and got.offset == -1, got


def test_a_percentage_of_inside_a_parenthesis_groups_only_there() -> None:
    f = _formula("Globex's pre-tax margin (income before income taxes as a share of total revenue) for 2023, as a "
                 "percentage with one decimal.")
    assert expr_text(f.expression) == "pretax income / revenue", expr_text(f.expression)
    assert f.unit == "percent"
