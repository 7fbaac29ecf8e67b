"""The grammar of a definition (issue 47, round f55d): however a definition is introduced, laid out or joined, the
question model reads the same formula. Each case is a paraphrase family of `bench/defined_perturb.py` that read
differently from its original at the round's start; companies and wordings are not the blind sets'."""
from __future__ import annotations

import pytest

from finrag.state.formula import expr_text
from finrag.tools.question.formula import formula_of
from finrag.tools.question.periods import ytd_months_named
from finrag.tools.question.read import read_question, unbulleted
from finrag.tools.question.role_operators import fraction_roles


def _read(q: str) -> str:
    f = formula_of(q)
    assert f is not None and f.expression is not None, (q, f)
    return expr_text(f.expression)


@pytest.mark.parametrize("q", [
    "Define Nike's cash cover as cash and equivalents divided by total current liabilities. What is it for FY2024?",
    "Let Nike's cash cover be cash and equivalents divided by total current liabilities. What is it for FY2024?",
    "Nike FY2024 cash cover, where Nike's cash cover is defined as cash and equivalents divided by total current "
    "liabilities.",
    "Define Nike's cash cover as a ratio with numerator cash and equivalents and denominator total current "
    "liabilities. What is it for FY2024?",
])
def test_every_introducer_takes_the_company_and_the_same_definition(q):
    assert _read(q) == "cash / total current liabilities"


def test_where_x_is_defined_as_is_where_x_equals():
    eq = "Pepsi's capex-to-depreciation ratio for 2024, where capex = purchases of property and equipment and " \
         "depreciation = depreciation and amortization. Two decimals."
    words = eq.replace(" = ", " is defined as ")
    assert _read(words) == _read(eq) == "capex / depreciation amortization"


@pytest.mark.parametrize("q", [
    "Nike FY2024 liquidity: (cash and cash equivalents together with short-term investments) over total liabilities.",
    "Nike FY2024 liquidity: (cash and cash equivalents plus short-term investments) over total liabilities.",
])
def test_together_with_adds(q):
    assert _read(q) == "(cash + short term investments) / total liabilities"


def test_per_dollar_of_divides():
    assert _read("Nike FY2024: cost of sales per dollar of revenue, defined as cost of sales per dollar of total "
                 "revenues.") == "cogs / revenue"


def test_the_roles_copula_may_be_left_out_or_be_a_definition():
    base = "Pepsi SBC share for Q2 2025 (3 months to June 14, 2025). Numerator = stock-based compensation, " \
           "denominator = net cash provided by operating activities. Percent."
    assert _read(base.replace(" = ", " is defined as ")) == _read(base)
    # "numerator and denominator" names no operand
    assert fraction_roles("What is Nike's current ratio for FY2024? The numerator and denominator are as usual.")[:2] \
        == (None, None)


def test_list_markers_opening_sentences_are_layout_not_minus():
    q = "- Define Nike's cash cover as cash and equivalents divided by total current liabilities.\n- What is it for FY2024?"
    assert unbulleted(q).startswith("Define") and "\n- " not in unbulleted(q)
    assert expr_text(read_question(q).formula.expression) == "cash / total current liabilities"
    # a dash inside a sentence, or the list after "Parts:", is left to the arithmetic
    assert unbulleted("Net debt = debt\n- cash") == "Net debt = debt\n- cash"
    assert unbulleted("Parts:\n- R&D\n- SG&A") == "Parts:\n- R&D\n- SG&A"


@pytest.mark.parametrize("text, months", [("for the 6 months ended June 30, 2025", 6), ("9-month period", 9),
                                           ("six months ended", 6), ("16 months", None)])
def test_months_in_digits_name_the_year_to_date(text, months):
    assert ytd_months_named(text) == months


@pytest.mark.parametrize("text, ytd, quarter", [("Nike free cash flow for the 6 months ended Nov 30, 2024", True, False),
                                                ("Nike revenue, 3-month period ended Nov 30, 2024", False, True),
                                                ("Nike revenue, six months ended Nov 30, 2024", True, False)])
def test_a_period_length_in_digits_is_the_same_period(text, ytd, quarter):
    facts = read_question(text)
    assert (facts.asks_ytd, facts.asks_quarter) == (ytd, quarter)
