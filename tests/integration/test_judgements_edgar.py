"""Judgement questions over a real inline-XBRL filing (issue 50): Boeing's FY2024 10-K (../shared/data/edgar; skipped
without it), asked through the graph offline. Its figures come from the filing's tagged facts (the `measure` kind),
every input cited to the routed filing; a shareholders' deficit reads as highly leveraged whatever the ratio."""
from __future__ import annotations

import re

from finrag import run_query
from finrag.tools.question import read_question


def _ask(index, question: str) -> str:
    answer = run_query(question, system="hdrr", index_dir=str(index))["answer"]
    assert not re.search(r"\[(?!ba-10-k-2025-02-03)[\w-]+, p\.", answer), answer  # no other filing's figure
    return answer


def test_working_capital_judged_from_tagged_facts(boeing_index):
    question = "Does Boeing have positive working capital based on FY2024 data?"
    assert read_question(question).judgement == "positive"
    answer = _ask(boeing_index, question)
    assert answer.startswith("Yes: Boeing's working capital is positive, judged by its FY2024 figures"), answer
    assert "This is a judgement" in answer and "us-gaap:AssetsCurrent" in answer
    assert "[ba-10-k-2025-02-03, p" in answer


def test_a_shareholders_deficit_is_highly_leveraged(boeing_index):
    answer = _ask(boeing_index, "Is Boeing highly leveraged as of FY2024?")
    assert answer.startswith("Yes: Boeing is highly leveraged, judged by its FY2024 figures: its debt-to-equity ratio "
                             "was -"), answer
    assert "shareholders' deficit" in answer


def test_a_year_the_index_lacks_is_not_judged_from_another_years_figures(boeing_index):
    # HDRR routes to the nearest filing and says so; the FY2019 figures are not in it: no verdict from FY2024's
    answer = _ask(boeing_index, "Is Boeing capital-intensive based on FY2019 data?")
    assert "Not judged: whether Boeing is capital-intensive needs the FY2019 capital expenditure" in answer, answer
    assert not re.search(r"\b(?:Yes|No):", answer)
    # unrouted (CBR), the top passage's filing lacks them too: the passages that bear on it, marked, no verdict
    cbr = run_query("Is Boeing capital-intensive based on FY2019 data?", system="cbr",
                    index_dir=str(boeing_index))["answer"]
    assert not re.search(r"\b(?:Yes|No):|Not judged", cbr), cbr
