"""A judgement's lead shows what it was judged from: a ratio's inputs, a margin's change in basis points too."""
from __future__ import annotations

from finrag.tools.answering.judgement_answer import _inputs_brief, answer_judgement
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.question import read_question


def test_a_ratios_inputs_are_read_from_its_computation():
    r = ReaderResult(answer="Formula: x = a / b. Inputs: total revenue FY2021 = $5,000 million ('Revenue') [ACME_2021_10K, "
                            "p. 3]; capital expenditure FY2021 = $900 million ('Purchases of equipment') [ACME_2021_10K, "
                            "p. 9]. Result: 18.0%.", confident=True, kind="metric", value=18.0)
    assert _inputs_brief(r) == "total revenue $5,000 million ($5.0 billion), capital expenditure $900 million"
    assert _inputs_brief(r, billions=False) == "total revenue $5,000 million, capital expenditure $900 million"
    assert _inputs_brief(ReaderResult(answer="Result: 18.0%.", confident=True, kind="metric")) == ""
    growth = ReaderResult(answer="Inputs: total revenue FY2020 = $800 million ('Revenue') [ACME_2021_10K, p. 3]; total "
                                 "revenue FY2021 = $860 million ('Revenue') [ACME_2021_10K, p. 3]. Result: 7.5%.",
                          confident=True, kind="metric", value=7.5)
    assert _inputs_brief(growth) == "total revenue FY2020 $800 million, total revenue FY2021 $860 million"


def _margins(values: dict[int, float]):
    def measure(text, facts):
        year = max(facts.years_written)
        return ReaderResult(answer=f"Formula: m. Inputs: operating income FY{year} = $1 million ('x') [ACME_{year}_10K, "
                                   f"p. 4]. Result: {values[year]}%.", confident=True, kind="metric", value=values[year])
    return measure


def test_a_margins_change_is_stated_in_basis_points_too():
    facts = read_question("Did Acme improve its operating margin in fiscal 2021?")
    assert facts.judgement is not None
    result = answer_judgement(facts, {"company": "Acme", "fiscal_year": 2021, "form": "10K"},
                              _margins({2019: 11.0, 2020: 12.3, 2021: 12.7}))
    assert result is not None
    assert "(+0.4 percentage points, +40 basis points)" in result.answer, result.answer
