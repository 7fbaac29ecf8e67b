"""General causes behind the misses of the blind set of session 55 (issue 47, round g55d), each tested with other
companies and other wordings than the set's: a definition written as steps or as a list after "defined as:" reads
every step, an operand's typo one edit from a line item's word is that line item, a step after the numerator and
denominator applies to the fraction, a measure asked to decimals that finrag cannot name is said to be unknown, and
an upper-case scale after the dollar sign is no ticker."""
from __future__ import annotations

import pytest

from finrag.eval.routing_corpus import corpus_documents, load_companies
from finrag.state.formula import Unknown, expr_text
from finrag.tools.question import read_question
from finrag.tools.question.formula import formula_of
from finrag.tools.question.operand import resolve
from finrag.tools.question.spelling import corrected, one_edit
from finrag.tools.question.unnamed_measure import asked_measure
from finrag.tools.routing.registry import Registry


def _read(q: str) -> str:
    f = formula_of(q)
    assert f is not None and f.expression is not None, (q, f)
    return expr_text(f.expression)


@pytest.mark.parametrize("phrase, item", [
    ("opreating income", "operating_income"),   # two letters swapped
    ("operting income", "operating_income"),    # a letter dropped
    ("net incomme", "net_income"),              # a letter added
    ("total asests", "total_assets"),
])
def test_an_operand_one_edit_from_a_line_items_word_is_that_line_item(phrase, item):
    got = resolve(phrase, {})
    assert not isinstance(got, Unknown) and getattr(got, "item", None) == item, got


def test_a_word_far_from_every_line_item_word_stays_unknown():
    assert isinstance(resolve("widgetized throughput", {}), Unknown)
    assert corrected("widgetized throughput") == "widgetized throughput"
    assert one_edit("operating", "opreating") and one_edit("operating", "operatig") and not one_edit("operating", "oprtaing")


def test_a_definition_listed_after_a_colon_and_semicolons_reads_every_step():
    q = ("Microsoft net liquidity at June 30, 2024, defined as: cash and cash equivalents; plus short-term "
         "investments; minus short-term debt; minus long-term debt. USD millions.")
    assert _read(q) == "cash + short term investments - current debt - long term debt"


def test_a_sentence_of_steps_is_the_asked_measure():
    q = ("What was Nike's free cash flow after buybacks in fiscal 2024? Take net cash provided by operating "
         "activities, subtract additions to property, plant and equipment, then subtract repurchases of common stock.")
    assert _read(q) == "cfo - capex - share repurchases"


def test_a_step_after_the_numerator_and_denominator_applies_to_the_fraction():
    q = ("Pepsi days payable outstanding for 2024 - numerator: accounts payable; denominator: cost of "
         "sales for 2024; then multiply by 365. Days, 1 decimal.")
    assert _read(q) == "accounts payable / cogs * 365"


@pytest.mark.parametrize("question, name", [
    ("What was Nike's swoosh-weighted demand velocity in fiscal 2024? round to 2 decimals",
     "swoosh-weighted demand velocity"),
    ("Salesforce net expansion engine 3.0 for Q1 FY2025? one decimal", "net expansion engine"),
])
def test_a_measure_asked_to_decimals_that_finrag_cannot_name_is_said_unknown(question, name):
    assert asked_measure(question) == name
    f = formula_of(question)
    assert f is not None and f.source == "unknown" and f.problems, f


@pytest.mark.parametrize("question", [
    "What was Nike's total revenue in fiscal 2024? 1 decimal",
    "What was Pepsi's current ratio at the end of 2024? 2 decimals",
    "What was Boeing's backlog at the end of 2024? one decimal",  # one word: may be stated in words, left to reading
    "What was Nike's free cash flow in fiscal 2024?",              # no decimals asked
])
def test_a_measure_finrag_names_or_asked_without_decimals_is_not_said_unknown(question):
    assert asked_measure(question) is None


@pytest.fixture(scope="module")
def reg() -> Registry:
    return Registry(corpus_documents(load_companies()))


@pytest.mark.parametrize("question", [
    "Nike revenue FY2024 in $M, no decimals",
    "Pepsi capital expenditures 2024 (5,318 $M?) confirm, USD",
    "Intel operating loss for 2024 in $B, 1 dp",
])
def test_an_upper_case_scale_after_the_dollar_sign_is_no_ticker(reg, question):
    ex = reg.link(question)
    assert len(ex.companies) == 1 and "macy" not in " ".join(ex.companies).lower(), ex.companies
    assert not any(c["text"] in ("M", "B") for c in ex.candidates), ex.candidates


def test_arithmetic_after_the_question_mark_defines_the_asked_measure():
    f = read_question("Nike revenue growth for fiscal 2024? = revenue / prior-year revenue - 1, percent, 1 decimal").formula
    assert f is not None and f.expression is not None and f.unit == "percent", f
    assert expr_text(f.expression) == "revenue / revenue (a year before) - 1"
