"""General causes behind the misses of the blind set of session 54 (issue 47, round g54d), each tested with other
companies and other wordings than the set's: units and formats are no operands or tickers, the operand's words end
where its label ends (not at a comma of its own list), a name the question defines is an operand wherever it is
written, and a metric finrag does not know is said however tersely it is asked."""
from __future__ import annotations

import pytest

from finrag.state.formula import Average, Item, Unknown, expr_text
from finrag.tools.question.asks import decimals_asked
from finrag.tools.question.formula import formula_of
from finrag.tools.question.operand import resolve
from finrag.tools.question.periods import years_written, ytd_months_named
from finrag.tools.routing.find_tickers import DOLLAR_TICKER, SCALE_AFTER_DOLLAR


def _read(q: str) -> str:
    f = formula_of(q)
    assert f is not None and f.expression is not None, (q, f)
    return expr_text(f.expression)


@pytest.mark.parametrize("text, tickers", [
    ("Nike FY25 free cash flow, $bn to 1 dp", []),
    ("Pepsi capex in $mm, no decimals", []),
    ("Intel cash burn ($Bn, 2 dp)", []),
    ("compare $nke with $dis", ["NKE", "DIS"]),  # a lower-case cashtag stays one
])
def test_a_scale_after_the_dollar_sign_is_the_answers_unit_not_a_cashtag(text, tickers):
    found = [m.group(1).upper() for m in DOLLAR_TICKER.finditer(text) if not SCALE_AFTER_DOLLAR.fullmatch(m.group(1))]
    assert found == tickers


@pytest.mark.parametrize("question, expected", [
    # "relative to" divides; the percent asked as "pct"
    # "PP&E" is no "pp" (percentage points): not a change
    ("Nike PP&E turnover for fiscal 2024 = revenues / average property, plant and equipment, net.",
     "revenue / average ppe net (this and the prior period end)"),
    ("Nike FY2024 buybacks (share repurchases) relative to net income. pct, 1 dp", "share repurchases / net income"),
    # a list inside one row's label is no clause: the comma does not end the operand
    ("Pepsi net cash at Dec 28, 2024 = cash, cash equivalents and short-term investments - long-term debt.",
     "'cash, cash equivalents and short-term investments' - long term debt"),
    # the average of a label with its own "and"
    ("Nike PP&E turnover for fiscal 2024 = revenues / average property, plant and equipment, net. 2 decimals",
     "revenue / average ppe net (this and the prior period end)"),
    # an operand's month and day without a year is its period ("for the three months ended Nov 30")
    ("Nike Q2 FY2025 operating margin minus Q2 FY2024 operating margin, where operating margin is operating income / "
     "revenues for the three months ended Nov 30. Percentage points.",
     "operating income / revenue - operating income (a year before) / revenue (a year before)"),
])
def test_ratio_words_units_and_label_commas(question, expected):
    assert _read(question) == expected


def test_several_definitions_and_the_asked_names_noun():
    """"PepsiCo EBITDA margin: EBITDA := ...; margin over revenue": the noun of the asked name ("margin") stands for
    the part the question defines before it; a defined name written after the company's name is still that name."""
    assert _read("PepsiCo FY2024 EBITDA margin: EBITDA := operating profit + depreciation and amortization; margin over "
                 "net revenue. 1dp %") == "(operating income + depreciation amortization) / revenue"
    text = _read("Ford debt/equity at Dec 31, 2024. Debt := short-term debt + long-term debt, net of current portion; "
                 "equity := total stockholders' equity. 2 dp")
    assert text.endswith("/ total equity") and "'current portion'" not in text, text  # "net of" a contra account is
    # the row's label, not a subtraction


def test_a_bulleted_list_summed_then_divided_is_the_sum_asked():
    f = formula_of("Nike 2024 cost intensity. Components:\n- cost of sales\n- selling and administrative expense\n"
                   "Sum them up, then divide by revenues. Percent.")
    assert f is not None and f.expression is not None and f.name == "cost intensity"
    assert expr_text(f.expression).endswith("/ revenue") and "+" in expr_text(f.expression)
    # a list no sentence sums is left as written (its dashes could be minus signs)
    assert formula_of("Nike 2024 costs. Components: - cost of sales - selling expense") is None or \
        "Define" not in (formula_of("Nike 2024 costs. Components: - cost of sales - selling expense").definition or "")


def test_a_dash_before_a_request_is_no_subtraction():
    f = formula_of("Nike, nine months ended Feb 28, 2025: cash from operations net of capital expenditures - what's "
                   "that in USD millions?")
    assert f is not None and expr_text(f.expression) == "cfo - capex"


@pytest.mark.parametrize("question, name", [
    ("Pepsi Q3 2024 brand warmth index?", "brand warmth index"),
    ("Nike fan devotion quotient for fiscal 2024?", "fan devotion quotient"),
])
def test_an_unknown_metric_asked_tersely_is_said(question, name):
    f = formula_of(question)
    assert f is not None and f.expression is None and f.name == name and "not a metric finrag knows" in f.problems[0]


def test_an_undefined_operand_of_a_named_definition_is_kept_so_it_is_said():
    """"sales per store for Q3 2024: net revenues ... divided by the number of stores at quarter end (as reported)":
    the definition is read, its unknown operand stays unknown (said), never dropped for the other operand alone."""
    f = formula_of("Starbucks sales per store for Q3 2024: net revenues for the quarter divided by the number of stores "
                   "at quarter end (as reported in this 10-Q). USD, 0 dp.")
    assert f is not None and f.expression is not None
    assert any(isinstance(u, str) and "number of stores" in u for u in [expr_text(f.expression)])
    assert "'" in expr_text(f.expression)  # the number of stores is an unknown operand, said by the answer


def test_a_year_that_names_the_filing_is_no_asked_period():
    assert years_written("In Nike's FY2025 10-K, what was the gross margin for the prior year (2024)?") == [2024]
    assert years_written("From the 10-K for fiscal 2024: revenue in 2023") == [2023]
    assert years_written("In the FY2024 10-K, what was revenue?") == [2024]  # the only year stays the asked one


@pytest.mark.parametrize("text, months", [("Pepsi 1H 2024 capex", 6), ("Nike 9M FY25 revenue", 9), ("H1 2025", 6),
                                          ("revenue for 6m 2024", 6), ("Q2 2025 revenue", None)])
def test_half_and_nine_month_shorthands_name_a_year_to_date_period(text, months):
    assert ytd_months_named(text) == months


@pytest.mark.parametrize("text, decimals", [("2dp %", 2), ("3 d.p.", 3), ("two decimals", 2), ("1 dp", 1)])
def test_decimals_written_tightly(text, decimals):
    assert decimals_asked(text) == decimals


def test_operand_readings():
    assert isinstance(resolve("average property, plant and equipment, net", {}), Average)
    assert isinstance(resolve("revenues for the three months ended Aug 31", {}), Item)
    # a list of the filing's items is their sum; never the first item alone
    assert expr_text(resolve("cash, cash equivalents and marketable securities", {})) == "cash + short term investments"
    assert isinstance(resolve("cash, cash equivalents and short-term investments", {}), Unknown)  # the filing's row
    assert isinstance(resolve("total current liabilities, as of September 28, 2024", {}), Item)


def test_a_row_of_the_items_words_in_a_table_of_the_other_kind_is_not_read():
    """A deferred tax asset labelled "Depreciation and amortization" (an instant) is never the year's depreciation and
    amortization (a flow); the cash flow statement's row is."""
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import ROW

    tagged = {"contexts": {"i": {"instant": "2024-12-31"}, "d": {"start": "2024-01-01", "end": "2024-12-31"}},
              "facts": [{"concept": "us-gaap:DeferredTaxAssetsPropertyPlantAndEquipment", "context": "i",
                         "row": "Depreciation and amortization", "value": 1133.0},
                        {"concept": "us-gaap:DepreciationDepletionAndAmortization", "context": "d",
                         "row": "Depreciation and amortization", "value": 52795.0}]}
    bound = bind_row(tagged, ROW + "depreciation and amortization", "depreciation_amortization")
    assert bound is not None and bound.concepts == ["us-gaap:DepreciationDepletionAndAmortization"]
    balance = bind_row(tagged, ROW + "depreciation and amortization", "")  # no line item: both rows are candidates
    assert balance is not None and len(balance.concepts) == 2


@pytest.mark.parametrize("question, expected", [
    # an amount plus a ratio of amounts measures nothing: the sum is over the divisor
    ("Nike FY2024 cost ratio (cost of sales + SG&A over revenues). Percent.", "(cogs + sga) / revenue"),
    ("EBIT + D&A divided by interest expense for Pepsi 2024", "(operating income + depreciation amortization) / "
                                                               "interest expense"),
    # a ratio less a number stays as written (growth), and so does a sum over an explicit group
    ("Pepsi growth := revenue 2024 / revenue 2023 - 1", "revenue / revenue (a year before) - 1"),
])
def test_an_amount_plus_a_ratio_is_the_sum_over_its_divisor(question, expected):
    assert _read(question) == expected


def test_balances_named_by_role_and_a_subject_qualified_away():
    """"end balance / year-end balance - 1" of a balance is the ending balance over the prior one; a line item
    qualified by a word that makes it another measure ("deferred revenue") is no subject of bare roles."""
    assert _read("Nike inventories growth := end balance / year-end balance - 1, in %") == \
        "inventory / inventory (a year before) - 1"
    f = formula_of("How much did Nike's current deferred revenue grow? growth = end balance / year-end balance - 1")
    assert f is not None and f.expression is not None and "revenue" not in expr_text(f.expression)


def test_relative_to_a_period_is_a_comparison_and_a_name_carries_only_a_period():
    assert formula_of("Please provide the percentage change in Nike's net income for the fiscal year ended May 31, "
                      "2024 relative to the fiscal year ended May 31, 2023") is None  # no division by a period
    assert expr_text(resolve("research and development spend", {})) == "rnd"  # "spend" is expense
    f = formula_of("Implied cost of debt for Pepsi in 2024: interest expense divided by average long-term debt.")
    assert f is not None and f.name != "debt" and expr_text(f.expression).startswith("interest expense / average")
