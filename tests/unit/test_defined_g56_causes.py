"""Causes of the misses of session 56's blind defined-metric set (issue 47, tuned round g56d), each tested on made-up
companies and wordings of its own: a question that contradicts itself (its answer's form asked and forbidden, its
measure defined twice differently) is said; a definition attributed to someone ("the way they define it:") is a
definition; a parenthesis restating the arithmetic before it is dropped; a format sentence ("$bn, 2 decimals") is no
operand; "X 2024 = ..." defines X; a defined amount's "; divide by C" is the asked measure's step; an operand the
question writes is never the catalog's optional one."""
from __future__ import annotations

import pytest

from finrag.state.formula import BinOp, expr_text
from finrag.tools.question.contradiction import clash, forbidden_form
from finrag.tools.question.format_tail import strip_format
from finrag.tools.question.formula import formula_of
from finrag.tools.question.operand import resolve
from finrag.tools.question.restated import restated
from finrag.tools.vocabulary.metrics import metric_for


@pytest.mark.parametrize("q, form", [
    ("Globex operating margin 2023 - state it as a ratio, not as a ratio.", "a ratio"),
    ("Initech DSO for 2024, in days and not in days", "days"),
    ("Hooli's 2023 EBIT margin: give it in $ millions as a percent, not as a %.", "a percentage"),
])
def test_a_form_asked_and_forbidden_is_found(q: str, form: str) -> None:
    assert forbidden_form(q) == form


@pytest.mark.parametrize("q", [
    "Globex operating margin 2023 as a percentage, not as a ratio.",
    "Initech's 2024 SG&A as a percentage of revenue, not as a percentage of gross profit.",
    "Hooli's 2023 current ratio. Give it as a ratio. Not in percent.",
])
def test_different_forms_or_arithmetic_are_no_contradiction(q: str) -> None:
    assert forbidden_form(q) is None


def test_a_contradictory_form_is_said_not_computed() -> None:
    f = formula_of("Globex EBIT margin FY2023 (EBIT / revenue) - answer as a ratio, not as a ratio")
    assert f is not None and f.expression is None and f.problems and "forbids" in f.problems[0]


def test_the_asked_measure_defined_twice_differently_is_said() -> None:
    f = formula_of("Initech quick ratio at March 31, 2024 - calculate it as total current liabilities divided by cash, "
                   "where quick ratio is defined as cash divided by total current liabilities.")
    assert f is not None and f.expression is None and any("twice" in p for p in f.problems), f


def test_two_writings_of_one_definition_are_no_clash() -> None:
    a = BinOp(op="/", left=resolve("operating income", {}), right=resolve("revenue", {}))
    b = BinOp(op="*", left=a, right=resolve("100", {}))
    assert not clash(a, a) and not clash(a, b)
    f = formula_of("Hooli EBIT yield 2023 - compute it as operating income / revenue, where EBIT yield is defined as "
                   "operating income divided by revenue.")
    assert f is not None and f.expression is not None and not f.problems, f


def test_a_nameless_definition_that_uses_the_named_one_builds_on_it() -> None:
    f = formula_of("Define Globex's core cash as cash plus short-term investments. Compute it as core cash divided by "
                   "total assets. What is the core cash for 2023?")
    assert f is not None and not any("twice" in p for p in f.problems), f


@pytest.mark.parametrize("q", [
    "Globex 2023 cash margin the way they define it: operating income plus depreciation and amortization",
    "Globex 2023 cash margin as management defines it: operating income plus depreciation and amortization",
    "Globex 2023 cash margin, by their own definition: operating income plus depreciation and amortization",
])
def test_an_attributed_definition_is_a_definition(q: str) -> None:
    f = formula_of(q)
    assert f is not None and f.source == "question" and f.name == "cash margin" and f.expression is not None, f
    assert "+" in expr_text(f.expression)


@pytest.mark.parametrize("q, kept", [
    ("Initech 2024: R&D expense as a share of revenue (R&D / revenue x 100). 1dp",
     "Initech 2024: R&D expense as a share of revenue. 1dp"),
    ("Hooli cash profit: operating income less taxes paid, plus D&A (i.e. OI - taxes + D&A). $M",
     "Hooli cash profit: operating income less taxes paid, plus D&A. $M"),
])
def test_a_parenthesis_restating_the_arithmetic_is_dropped(q: str, kept: str) -> None:
    assert restated(q) == kept


@pytest.mark.parametrize("q", [
    "Define Globex's cash burn as revenue less free cash flow (free cash flow = CFO - capex).",
    "Define Globex's cover as free cash flow (CFO minus capex) over interest expense.",
    "Initech 2024 gross profit as a share of revenue (net sales).",
    "Define Globex's payable days as 365 * (average accounts payable in FY2022 and FY2023) / (FY2023 COGS + change in "
    "inventory between FY2022 and FY2023).",
])
def test_a_parenthesis_defining_the_last_operand_or_a_gloss_stays(q: str) -> None:
    assert restated(q) == q


def test_a_restated_share_is_composed_from_its_operands() -> None:
    f = formula_of("Initech FY2024: marketing expense as a percentage of total net sales (marketing / total net sales "
                   "x 100). 2dp")
    assert f is not None and f.expression is not None and f.unit == "percent", f
    assert expr_text(f.expression).endswith("/ revenue")


def test_a_format_sentence_with_a_currency_sign_is_no_operand() -> None:
    assert strip_format("cash - marketable securities. $bn, 2 decimals") == "cash - marketable securities"
    assert strip_format("cash - $5") == "cash - $5"


def test_a_name_written_with_its_year_before_equals_is_defined() -> None:
    f = formula_of("Globex asset churn 2023 = revenue / total assets, rounded to 2 decimals")
    assert f is not None and f.source == "question" and f.name.endswith("asset churn"), f
    assert expr_text(f.expression) == "revenue / total assets"


def test_a_defined_amounts_division_step_is_the_asked_measures() -> None:
    f = formula_of("Hooli leverage multiple FY2024: total debt = short-term debt + long-term debt; divide by total "
                   "equity. 2 decimals")
    assert f is not None and f.expression is not None and not f.problems, f
    assert isinstance(f.expression, BinOp) and f.expression.op == "/", expr_text(f.expression)
    assert f.unit == "ratio"


def test_a_defined_ratios_step_stays_its_own() -> None:
    f = formula_of("Define Globex's operating margin as operating income / revenue; multiply by 100. What is it for "
                   "2023?")
    assert f is not None and f.expression is not None and f.unit == "percent", f  # x 100: the ratio as a percentage
    assert expr_text(f.expression) == "operating income / revenue"


def test_an_operand_the_question_writes_is_not_optional() -> None:
    f = formula_of("What is Initech's debt-to-equity ratio for 2024, computed as (short-term debt + long-term debt) / "
                   "total equity?")
    assert f is not None and f.expression is not None
    metric = metric_for(f)
    assert not any(i.optional for i in metric.inputs), metric.inputs


def _flows(*rows: tuple[str, str]) -> dict:
    facts = [{"concept": c, "row": r, "context": "d", "value": 1.0} for c, r in rows]
    return {"facts": facts, "contexts": {"d": {"start": "2023-01-01", "end": "2023-12-31"}}}


def test_an_operand_written_short_reads_the_one_row_holding_its_words() -> None:
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import row_item_name
    row = row_item_name("proceeds from disposals and rebates")
    tagged = _flows(("glx:ProceedsFromEquipmentDisposalsAndRebates", "Proceeds from equipment disposals and rebates"),
                    ("us-gaap:PaymentsToAcquireProductiveAssets", "Purchases of equipment"))
    binding = bind_row(tagged, row)
    assert binding is not None and binding.concepts == ["glx:ProceedsFromEquipmentDisposalsAndRebates"]


def test_an_operand_written_short_that_several_rows_hold_is_not_read() -> None:
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import row_item_name
    tagged = _flows(("glx:A", "Proceeds from equipment disposals and rebates"),
                    ("glx:B", "Proceeds from vehicle disposals and rebates"))
    assert bind_row(tagged, row_item_name("proceeds from disposals and rebates")) is None
    assert bind_row(tagged, row_item_name("rebates")) is None  # one word is never a row written short


def test_a_short_row_needs_more_of_its_label_to_be_the_operands_and_no_line_item() -> None:
    from finrag.tools.answering.row_facts import bind_row
    from finrag.tools.vocabulary.line_items import row_item_name
    tagged = _flows(("glx:PreferredStockParValue", "Preferred shares, par value"),
                    ("glx:DistributionsToMinority", "Distributions paid to minority holders"))
    assert bind_row(tagged, row_item_name("preferred shares")) is None  # as many other words as the operand's
    assert bind_row(tagged, row_item_name("distributions paid to minority holders", like="dividends_paid"),
                    "dividends_paid") is not None  # word for word still reads
    assert bind_row(tagged, row_item_name("distributions paid", like="dividends_paid"), "dividends_paid") is None


def test_a_hyphenated_word_in_a_parenthesis_is_no_arithmetic() -> None:
    q = "Globex net cash = cash - term debt (current) - term debt (non-current). USD billions."
    assert restated(q) == q


def test_a_comparison_of_two_years_before_equals_names_no_vs() -> None:
    f = formula_of("Globex R&D growth 2024 vs 2023 = R&D 2024 / R&D 2023 - 1. %, 1 decimal")
    assert f is None or f.name != "vs", f
