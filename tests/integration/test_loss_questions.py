"""A loss asked for by its name is answered with the tagged fact, never with a sentence cut at a chunk boundary
(issue 34 case 11).

On Boeing's FY2024 10-K (real EDGAR inline XBRL in ../shared/data/edgar; skipped without it) "What was Boeing's
loss from operations in FY2024?" opened "Loss from operations were benefits of $811 million": a piece of a
sentence about a pension item, cut where a chunk's window began, while `us-gaap:OperatingIncomeLoss` is
-10,707 (millions). The question named no line item the reader knows ("loss from operations", "operating
loss"), and the extractive answer offered the pieces of sentences at a chunk's ends as sentences.
"""
from __future__ import annotations

import pytest

from finrag import run_query
from finrag.tools.answering.extractive import extractive_answer


@pytest.mark.parametrize("question", ["What was Boeing's loss from operations in FY2024?",
                                      "What was Boeing's operating loss for fiscal 2024?"])
def test_a_loss_from_operations_is_the_tagged_operating_income(boeing_index, question):
    """Issue 34 case 11: the tagged OperatingIncomeLoss (-10,707), said as the question asks it."""
    res = run_query(question, system="hdrr", index_dir=str(boeing_index))
    answer = res["answer"]
    assert answer.startswith("Boeing's "), answer
    assert "$10,707 million" in answer and "us-gaap:OperatingIncomeLoss" in answer, answer
    assert "benefits of $811" not in answer
    assert "loss" in answer.split(" was ")[0].lower()  # "Boeing's loss from operations ... was $10,707 million"


def test_an_extractive_answer_never_quotes_a_piece_of_a_sentence():
    """Issue 34 case 11, the extractive side: a chunk is a window of characters; the text before its first
    sentence end and after its last are pieces of sentences and are not quoted, whatever they match."""
    chunk = (" Loss from operations were benefits of $811 million in 2024 and $799 million in 2023. "
             "Operating margins fell because of the 777X reach-forward losses. Loss from operations in 2024 incl")
    answer = extractive_answer("What was the loss from operations in 2024?", ["loss", "operations", "2024"],
                               [{"chunk_id": 7, "doc_id": "BA_2024_10K", "page_start": 3, "page_end": 3, "text": chunk}])
    assert "Operating margins fell" in answer and "benefits of $811" not in answer and "incl [" not in answer
    page = {"chunk_id": None, "doc_id": "BA_2024_10K", "page_start": 3, "page_end": 3, "text": chunk.strip()}
    assert "benefits of $811" in extractive_answer("loss from operations 2024", ["loss", "operations"], [page])
