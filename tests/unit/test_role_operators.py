"""Issue 47: arithmetic a question writes by where it puts its operands ("A to B", "A after B", "the numerator is
A and the denominator is B"), and definitions written in more ways, read into the same expressions as their
operator-word forms."""
from __future__ import annotations

import pytest

from finrag.state.formula import expr_text
from finrag.tools.question.formula import formula_of
from finrag.tools.question.role_operators import after, bare_to, fraction_roles


def _text(q: str) -> str:
    f = formula_of(q)
    assert f is not None and f.expression is not None and not f.problems, (q, f)
    return expr_text(f.expression)


@pytest.mark.parametrize("question, expected", [
    ("Coca-Cola's long-term debt to total assets at year-end 2024. 3 decimals.", "long term debt / total assets"),
    ("What is Apple's total liabilities to total equity for FY2024?", "total liabilities / total equity"),
    ("Apple's current assets to current liabilities for FY2024, rounded to 2 decimals.",
     "total current assets / total current liabilities"),
    ("Apple FY2024 operating cash flow to capital expenditures ratio, rounded to 2 decimal places.", "cfo / capex"),
    ("Define leverage as long-term debt to total assets. What is Coca-Cola's leverage in 2024?",
     "long term debt / total assets"),
])
def test_two_known_operands_joined_by_to_are_a_ratio(question, expected):
    assert _text(question) == expected
    f = formula_of(question)
    assert f is not None and f.unit == "ratio"


@pytest.mark.parametrize("question", [
    "How much did Apple's revenue grow from 2023 to 2024?",
    "What were Apple's payments to acquire property, plant and equipment in FY2024?",
    "What was Apple's net income attributable to shareholders in FY2024?",
    "How much cash did Coca-Cola return to shareholders in 2024?",
])
def test_to_between_words_that_are_not_two_operands_is_no_ratio(question):
    f = formula_of(question)
    assert f is None or "/" not in expr_text(f.expression) if f and f.expression else f is None, (question, f)
    assert bare_to(question, {}) == question


def test_a_span_the_catalog_names_stays_the_catalogs_metric():
    text = "What is Apple's debt to equity ratio for FY2024?"
    assert bare_to(text, {}) == text
    assert formula_of(text) is None  # answered as the catalog's debt-to-equity, as before


@pytest.mark.parametrize("question, expected", [
    ("Coca-Cola's free cash flow after dividends for 2024 in millions.", "cfo - capex - dividends paid"),
    ("Coca-Cola 2024 operating cash flow after capital expenditures and dividends, in USD millions.",
     "cfo - (capex + dividends paid)"),
    ("Boeing, six months ended June 30, 2025: free cash flow (operating cash flow minus payments for property, plant "
     "and equipment additions) after dividends paid. USD millions.", "cfo - capex - dividends paid"),
    ("Coca-Cola's operating income after interest expense for 2024?", "operating income - interest expense"),
])
def test_after_subtracts_what_follows_it(question, expected):
    assert _text(question) == expected


def test_after_a_line_the_statement_already_deducts_only_describes_it():
    assert after("What was Apple's net income after income taxes in FY2024?", {}) == "What was Apple's net income in FY2024?"
    assert formula_of("What was Apple's net income after income taxes in FY2024?") is None
    assert after("What was Apple's revenue after the acquisition in FY2024?", {}).endswith("after the acquisition in "
                                                                                          "FY2024?")


def test_a_defined_name_holding_after_is_one_operand():
    f = formula_of("Define free cash flow after dividends as net cash provided by operating activities, less capital "
                   "expenditures, less dividends paid. What is Verizon's free cash flow after dividends for FY2022?")
    assert f is not None and f.name == "free cash flow after dividends"
    assert f.expression is not None and expr_text(f.expression) == "cfo - capex - dividends paid"


@pytest.mark.parametrize("question, name, expected", [
    ("Interest coverage for Coca-Cola FY2024, where the numerator is operating income and the denominator is interest "
     "expense.", "interest coverage", "operating income / interest expense"),
    ("Define leverage ratio where the numerator is total liabilities and the denominator is total assets. What is "
     "Apple's leverage ratio for FY2024?", "leverage ratio", "total liabilities / total assets"),
    ("What is Apple's cash ratio for FY2024, with cash and cash equivalents as the numerator and total current "
     "liabilities as the denominator?", "cash ratio", "cash / total current liabilities"),
    ("What is Apple's asset coverage for FY2024, with total assets in the numerator and total liabilities in the "
     "denominator?", "asset coverage", "total assets / total liabilities"),
    ("Apple FY2024 liquidity ratio: numerator = total current assets; denominator = total current liabilities.",
     "liquidity ratio", "total current assets / total current liabilities"),
    # the numerator left unnamed is the operand the asked name begins with, here the question's own EBITDA
    ("EBITDA interest coverage for The Coca-Cola Company FY2024, where EBITDA is operating income plus depreciation "
     "and amortization and the denominator is interest expense. Round to 2 decimals.", "ebitda interest coverage",
     "(operating income + depreciation amortization) / interest expense"),
])
def test_numerator_and_denominator_named_by_role_are_the_definition(question, name, expected):
    f = formula_of(question)
    assert f is not None and f.name.lower() == name and f.source == "question", f
    assert _text(question) == expected


def test_a_role_left_to_nothing_is_said():
    f = formula_of("What is Apple's FY2024 funding ratio, where the numerator is operating cash flow?")
    assert f is not None and f.expression is None
    assert f.problems == ["the question names the numerator of funding ratio but not its denominator"]
    assert fraction_roles("What is Apple's revenue for FY2024?") == (None, None, "What is Apple's revenue for FY2024?", -1)


@pytest.mark.parametrize("question, expected, unit", [
    ("Define operating leverage as total liabilities over total equity. What is Apple's operating leverage for "
     "FY2024?", "total liabilities / total equity", "ratio"),
    ("Define net cash as cash and cash equivalents net of total debt. What was Coca-Cola's net cash at year-end "
     "2024, in millions?", "cash - (long term debt + current debt)", "currency"),
    ("Define SG&A intensity as selling, general and administrative expense as a percent of net operating revenues. "
     "What was Coca-Cola's SG&A intensity in 2024, to 1 decimal place?", "sga / revenue", "percent"),
    ("Define operating cash margin as operating cash flow as a proportion of revenue. What is Apple's operating cash "
     "margin for FY2024?", "cfo / revenue", "percent"),
    ("Define the capex ratio as the ratio of capital expenditures to operating cash flow. What was Apple's capex "
     "ratio in FY2024?", "capex / cfo", "ratio"),
    ("Define retained cash as operating cash flow less dividends paid less share repurchases. What was Apple's "
     "retained cash for FY2024 in millions?", "cfo - dividends paid - share repurchases", "currency"),
    ("Define adjusted EBIT as operating income plus depreciation and amortization minus capital expenditures. What "
     "is Apple's adjusted EBIT for FY2024 in millions?", "operating income + depreciation amortization - capex",
     "currency"),
    ("Define average total assets as the average of the opening and closing balances. What was Apple's average "
     "total assets for FY2024?", "average total assets (this and the prior period end)", "currency"),
    ("Define asset yield as net income divided by the average of opening and closing total assets. What was Apple's "
     "asset yield for FY2024 as a percentage?", "net income / average total assets (this and the prior period end)",
     "percent"),
    ("Define the quick cash ratio as cash and cash equivalents plus short-term investments, all over total current "
     "liabilities. What was Apple's quick cash ratio for FY2024?", "(cash + short term investments) / total current "
     "liabilities", "ratio"),
    ("Coca-Cola FY2024 interest coverage: operating income divided by interest expense as disclosed in the notes.",
     "operating income / interest expense", "ratio"),
])
def test_definitions_written_in_more_ways(question, expected, unit):
    f = formula_of(question)
    assert _text(question) == expected
    assert f is not None and f.unit == unit


@pytest.mark.parametrize("question, said", [
    ("Define Boeing's margin as itself divided by revenue. What was it in 2024?", "in terms of itself"),
    ("What was Meta's user monetization efficiency in 2024?", "'user monetization efficiency' is not a metric"),
    ("What was Coca-Cola's economic value added in 2024?", "'economic value added' is not a metric"),
])
def test_a_circular_or_unknown_measure_is_said(question, said):
    f = formula_of(question)
    assert f is not None and f.expression is None and any(said in p for p in f.problems), f


@pytest.mark.parametrize("text, decimals", [
    ("Round to two decimal places.", 2), ("to 1 decimal place", 1), ("3 decimals", 3), ("Two decimals.", 2),
    ("in percent to 2 decimals?", 2), ("no decimals", 0), ("Give it in USD billions.", None),
])
def test_the_decimals_asked_are_read_however_written(text, decimals):
    from finrag.tools.question.asks import decimals_asked

    assert decimals_asked(text) == decimals


def test_an_average_asked_in_words_is_computed_unless_it_is_a_catalog_metrics_part():
    f = formula_of("Coca-Cola's 2024 average total assets (opening and closing balance average), in millions.")
    assert f is not None and f.expression is not None
    assert expr_text(f.expression) == "average total assets (this and the prior period end)"
    # the average equity of "return on equity ... average shareholders' equity" is ROE's, never the answer
    assert formula_of("What was Apple's return on equity for fiscal 2024? Use average shareholders' equity (beginning "
                      "and end of year) and state the formula you used. Percent, 2 decimals.") is None


def test_compute_a_divided_by_b_is_arithmetic_not_a_name_defined_by_b():
    f = formula_of("For Meta in 2024, compute net income divided by total revenue, expressed as a percentage to two "
                   "decimal places.")
    assert f is None or (f.expression is not None and expr_text(f.expression) == "net income / revenue")


def test_the_ratio_between_a_filings_row_and_a_known_operand():
    f = formula_of("Define cash burn multiple as the ratio between net cash used in investing activities and operating "
                   "cash flow. What was Amazon's cash burn multiple for 2024?")
    assert f is not None and f.expression is not None and not f.problems
    assert expr_text(f.expression) == "'net cash used in investing activities' / cfo"


@pytest.mark.parametrize("label, reads", [
    ("Net cash provided by (used in) investing activities", True), ("Net cash used in investing activities", True),
    ("Net cash from investing activities", True), ("Net cash provided by investing activities", True),
    ("Net cash used in financing activities", False),
])
def test_a_rows_cash_direction_is_any_the_filing_prints(label, reads):
    from finrag.tools.vocabulary.line_items import match_score, row_item_name

    assert (match_score(row_item_name("net cash used in investing activities"), label) > 0) is reads


@pytest.mark.parametrize("question, expected", [
    ("How many times did Apple's FY2024 operating income cover its interest expense?",
     "operating income / interest expense"),
    ("What multiple of Apple's FY2024 net income was its operating cash flow?", "cfo / net income"),
    ("Apple FY2024: operating cash flow per dollar of net income.", "cfo / net income"),
    ("Using Apple's FY2024 10-K, divide total liabilities by total shareholders' equity.",
     "total liabilities / total equity"),
    ("Define Apple's FY2024 cash cushion as cash and cash equivalents in excess of total current liabilities.",
     "cash - total current liabilities"),
    ("Apple FY2024: the gap between total current liabilities and total current assets, in millions.",
     "total current liabilities - total current assets"),
    ("Apple FY2024: take operating cash flow, deduct capital expenditures and dividends paid. USD millions.",
     "cfo - (capex + dividends paid)"),
    ("Apple FY2024: how much revenue did it generate for every dollar of total assets?", "revenue / total assets"),
    ("Apple FY2024: research and development expense vs. total revenue ratio.", "rnd / revenue"),
])
def test_arithmetic_framed_by_words_around_its_operands(question, expected):
    assert _text(question) == expected


@pytest.mark.parametrize("question", ["Apple FY2024: revenue vs. 2023?", "How much did Apple earn in FY2024 versus FY2023?",
                                      "Divide it by two, what is Apple's FY2024 revenue?"])
def test_frames_without_two_known_operands_are_no_arithmetic(question):
    assert formula_of(question) is None


@pytest.mark.parametrize("question, said", [
    ("Define Apple's omega as revenue divided by nothing. What is it for FY2024?", "divides by 0"),
    ("Apple FY2024: operating income divided by (revenue - revenue)?", "divides by revenue - revenue"),
])
def test_a_divisor_zero_whatever_the_filing_says_is_said_defined_or_composed(question, said):
    f = formula_of(question)
    assert f is not None and any(said in p for p in f.problems), f


def test_the_ratio_of_a_known_operand_to_a_row_finrag_has_no_name_for():
    f = formula_of("Apple FY2024 ratio of net income to the number of employees.")
    assert f is not None and f.expression is not None
    assert expr_text(f.expression) == "net income / 'number of employees'"  # read from the filing's row, or said


@pytest.mark.parametrize("question", ["What was HubSpot's net revenue retention in Q2 2025?",
                                      "What was Meta's revenue efficiency in 2024?"])
def test_a_measure_of_its_own_over_a_line_item_is_said_unknown(question):
    f = formula_of(question)
    assert f is not None and f.source == "unknown" and "is not a metric finrag knows" in f.problems[0]
    assert formula_of("What is Coca-Cola's retention ratio in 2024?") is None  # the catalog's
