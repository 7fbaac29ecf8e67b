"""An LLM's figures against the reader's inputs and results (`tools/answering/number_check.py`, issue 33)."""
from __future__ import annotations

from finrag.tools.answering.number_check import unmatched_numbers
from finrag.tools.answering.reader import Found, ReaderResult


def _found(value: float) -> Found:
    return Found(item="revenue", year=2024, value=value, label="us-gaap:Revenues", raw="", header="", doc_id="d",
                 page=1, scale=None, statement=None, score=1.0)


CHANGE = ReaderResult(answer="", confident=True, kind="metric", found=[_found(383285e6), _found(391035e6)], value=2.02)


def test_inputs_results_and_their_difference_in_any_scale_pass():
    answer = ("Revenue grew 2.0% from $383.3 billion in FY2023 to 391,035 (millions) in fiscal 2024 "
              "[d, p. 30], up $7.75 billion, per the 10-K filed November 1, 2024.")
    assert unmatched_numbers(answer, CHANGE) == []


def test_a_figure_of_nothing_computed_is_named():
    assert unmatched_numbers("Revenue rose 5.1% to $400 billion in 2024 [d, p. 3].", CHANGE) == ["5.1%", "$400 billion"]


def test_nothing_is_checked_without_a_confident_computation():
    none = ReaderResult(answer="", confident=False, kind="none")
    assert unmatched_numbers("Revenue was $400 billion.", none) == []
    assert unmatched_numbers("Revenue was $400 billion.", None) == []
