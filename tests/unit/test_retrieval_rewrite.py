"""The offline rewriter's vocabulary rules and the scoped-search keyword rule (`without_company_words`)."""
from __future__ import annotations

from finrag.tools.retrieval.query_rewrite import offline_rewrite, without_company_words


def linked(text: str, name: str, ticker: str) -> dict:
    return {"companies": [name], "tickers": [ticker], "candidates": [{"text": text, "name": name, "in_index": True}]}


def scoped(question: str, extracted: dict) -> list[str]:
    return without_company_words(offline_rewrite(question).keywords, question, extracted)


def test_the_routed_companys_name_and_ticker_are_no_keywords():
    q = "What drove gross margin change as of FY2022 for JnJ?"
    kws = scoped(q, linked("JnJ", "Johnson & Johnson", "JNJ"))
    assert "jnj" not in kws and "johnson" not in kws and {"gross", "margin", "2022"} <= set(kws)
    q = "How much has the effective tax rate of American Express changed between FY2021 and FY2022?"
    kws = scoped(q, linked("American Express", "American Express", "AXP"))
    assert not {"american", "express"} & set(kws) and {"effective", "tax", "rate"} <= set(kws)
    q = "What was AXP's revenue in 2022?"
    assert "axp" not in scoped(q, linked("AXP", "American Express", "AXP"))


def test_a_name_word_the_rest_of_the_question_needs_stays():
    q = "What were General Mills' SG&A expenses in FY2022?"
    kws = scoped(q, linked("General Mills", "General Mills", "GIS"))
    assert "mills" not in kws and "general" in kws  # selling, general and administrative
    q = "What did American Water Works say about water quality?"
    kws = scoped(q, linked("American Water Works", "American Water Works", "AWK"))
    assert "water" in kws and "american" not in kws and "works" not in kws  # "water quality" is the topic


def test_nothing_is_dropped_without_a_linked_company():
    q = "What was Acme's revenue?"
    assert without_company_words(offline_rewrite(q).keywords, q, None) == offline_rewrite(q).keywords
    unlinked = {"candidates": [{"text": "Acme", "in_index": False}], "companies": [], "tickers": []}
    assert without_company_words(["acme", "revenue"], q, unlinked) == ["acme", "revenue"]


def test_analyst_words_get_the_words_filings_use():
    assert {"litigation", "proceedings"} <= set(offline_rewrite("Any ongoing legal battles in 2022?").keywords)
    assert {"geographic", "regions"} <= set(offline_rewrite("Which geographies does it operate in?").keywords)
    assert "driven" in offline_rewrite("What drove the margin change?").keywords
    assert "major" in offline_rewrite("Who are the primary customers?").keywords
    assert "expenditures" in offline_rewrite("Is 3M a capital-intensive business?").keywords
    fcf = offline_rewrite("Does Adobe have an improving Free cashflow conversion?")
    assert "free cash flow" in fcf.query.lower() and {"cash", "flow", "operating"} <= set(fcf.keywords)
    assert offline_rewrite("What was revenue in FY2022?").query == "What was revenue in FY2022?"  # nothing to add
