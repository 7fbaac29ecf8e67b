"""Issue 47: answering dispatched by the question's kind (tools/answering/kinds/), not by the order of a cascade."""
from __future__ import annotations

import typing

from finrag.tools.answering import kinds
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.question import read_question


def test_the_kind_is_read_from_the_question_alone():
    assert kinds.ask_kind(read_question("Define working capital ratio as total current assets divided by total "
                                        "current liabilities. What is Boeing's for FY2024?")) == "formula"
    assert kinds.ask_kind(read_question("Which region had the highest revenue for Apple in FY2024?")) == "ranking"
    assert kinds.ask_kind(read_question("Who is Apple's auditor?")) == "cover"
    assert kinds.ask_kind(read_question("What was Apple's total revenue in fiscal 2024?")) == "measure"


def test_every_kind_has_one_answerer_and_falls_back_to_a_kind_that_exists():
    declared = set(typing.get_args(kinds.AskKind))
    assert set(kinds.ANSWERERS) == declared
    assert set(kinds.FALLBACK) <= declared and set(kinds.FALLBACK.values()) <= declared


def test_a_kind_without_an_answer_hands_the_question_to_its_fallback(monkeypatch):
    asked: list[str] = []
    measured = ReaderResult(answer="measured", confident=True, kind="item")

    def ranking(ev):
        asked.append("ranking")
        return None

    def measure(ev):
        asked.append("measure")
        return measured

    monkeypatch.setitem(kinds.ANSWERERS, "ranking", ranking)
    monkeypatch.setitem(kinds.ANSWERERS, "measure", measure)
    evidence = kinds.Evidence(question="q", facts=read_question("Which segment had the highest revenue for Apple in "
                                                                 "2024?"), contexts=[], source=None, store=None,
                              registry=None, docs=[], info=None)
    assert kinds.answer(evidence) is measured and asked == ["ranking", "measure"]


def test_an_llm_is_given_the_questions_plan_as_finrag_read_and_computed_it():
    from finrag.tools.answering.fast_path import reader_context

    facts = read_question("What is Tesla's EBITDA less capex for 2024?")
    result = ReaderResult(answer="Tesla's EBITDA - capex ... was $1,105 million.", confident=True, kind="metric",
                          value=1.105e9, question_formula=facts.formula, extraction="Revenue | 2024\\nTotal | 97,690")
    context = reader_context(result)
    assert context.startswith("The question's formula as finrag read it (composed): EBITDA - capex = ")
    assert "finrag's result: 1.105e+09" in context and "Statement tables recovered" in context
