"""Pages as people find them (issue 51): the viewer's page (1-based) and the filing's printed number in what
people read; the contexts' `page_start` / `page_end` stay zero-based."""
from __future__ import annotations

from pathlib import Path

import pytest

from finrag.api import to_contract
from finrag.tools.answering.citations import parse_citation
from finrag.tools.answering.page_labels import display_citations, display_pages, printed_label, with_printed_labels
from finrag.tools.conversation.turns import turn_record

FB = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench" / "pdfs"


def _pages(footers: list[str], body: str = "Revenue grew 9% to $1,234 million.\n2,398\n") -> list[str]:
    return [f"Table of Contents\n{body}{f}\n" for f in footers]


def test_a_footer_number_continued_by_a_neighbour_is_the_printed_number():
    pages = _pages(["", "1", "2", "3", "F-1", "F-2"])
    assert [printed_label(pages, i) for i in range(len(pages))] == [None, "1", "2", "3", "F-1", "F-2"]
    pages = _pages(["A - 1", "A - 2", "- 7 -", "- 8 -", "Page 9", "Page 10"])  # as PepsiCo's, and others print them
    assert [printed_label(pages, i) for i in range(len(pages))] == ["A-1", "A-2", "7", "8", "9", "10"]


def test_a_lone_number_or_a_table_figure_is_not_a_page_number():
    # a number no neighbour continues (a table's last cell, a year, a page count) gives no printed number
    pages = _pages(["133", "2019", "7"])
    assert [printed_label(pages, i) for i in range(3)] == [None, None, None]
    assert printed_label(["Page 12\nText"], 0) is None  # one page alone
    assert printed_label(["Text\nPage 12", "Text\nPage 13"], 1) == "13"
    assert printed_label(["x"], 5) is None


def test_display_pages_count_from_one_and_add_the_printed_number_when_it_differs():
    assert display_pages(56, 56) == "p. 57"
    assert display_pages(56, 56, "57") == "p. 57"  # printed as the viewer counts: said once
    assert display_pages(44, 44, "43") == "p. 45 (printed 43)"
    assert display_pages(60, 61, "F-3", "F-4") == "pp. 61-62 (printed F-3 to F-4)"
    assert display_pages(60, 61, "61", "62") == "pp. 61-62"


def test_the_answer_people_read_cites_viewer_pages_and_stays_a_citation():
    contexts = with_printed_labels([{"doc_id": "ACME_2023_10K", "page_start": 2, "page_end": 3},
                                    {"doc_id": "ACME_2023_10K", "page_start": 0, "page_end": 0}],
                                   lambda doc: _pages(["", "5", "6", "7"]))
    assert [(c["printed_start"], c["printed_end"]) for c in contexts] == [("6", "7"), (None, None)]
    text = "Revenue was $5 [ACME_2023_10K, p. 2], costs $3 [ACME_2023_10K, pp. 2-3; ACME_2023_10K, p. 0] [1]."
    shown = display_citations(text, contexts)
    assert shown == ("Revenue was $5 [ACME_2023_10K, p. 3 (printed 6)], costs $3 [ACME_2023_10K, pp. 3-4 (printed 6 "
                     "to 7); ACME_2023_10K, p. 1] [1].")
    # what people read is still a citation the answer page and chat parse (pages as written)
    assert parse_citation("ACME_2023_10K, p. 3 (printed 6)") == [("ACME_2023_10K", 3, 3)]


def test_the_contract_keeps_zero_based_contexts_and_adds_the_display_fields():
    state = {"answer": "Capex was $1,577 million [3M_2018_10K, p. 59].",
             "contexts": [{"chunk_id": 7, "doc_id": "3M_2018_10K", "page_start": 59, "page_end": 59, "score": 0.5,
                           "text": "...", "printed_start": "58", "printed_end": "58"}]}
    res = to_contract(state, system="hdrr", qid="q", question="q?", total_ms=1.0)
    assert res["answer"] == "Capex was $1,577 million [3M_2018_10K, p. 60 (printed 58)]."
    c = res["contexts"][0]
    assert (c["page_start"], c["page_end"], c["viewer_page_start"], c["viewer_page_end"]) == (59, 59, 60, 60)
    assert (c["printed_page_start"], c["pages"]) == ("58", "p. 60 (printed 58)")


def test_a_turn_read_back_shows_the_answer_people_read_with_zero_based_citations():
    state = {"answer": "Revenue [ACME_2023_10K, p. 4].", "conversation": {"turn": 1},
             "contexts": [{"doc_id": "ACME_2023_10K", "page_start": 4, "page_end": 4}]}
    rec = turn_record(state)
    assert rec["answer"] == "Revenue [ACME_2023_10K, p. 5]."
    assert rec["citations"] == [{"doc_id": "ACME_2023_10K", "page_start": 4, "page_end": 4,
                                 "shown": "ACME_2023_10K, p. 5"}]


@pytest.mark.skipif(not (FB / "MICROSOFT_2022_10K.pdf").exists(), reason="the FinanceBench PDFs are not here")
def test_a_real_filing_prints_the_viewer_page_number():
    """The issue's example: zero-based page 56 of Microsoft's FY2022 10-K is the viewer's page 57 and prints 57."""
    import pymupdf

    with pymupdf.open(FB / "MICROSOFT_2022_10K.pdf") as doc:
        pages = [p.get_text() for p in doc]
    assert printed_label(pages, 56) == "57"
    assert display_pages(56, 56, printed_label(pages, 56)) == "p. 57"


def test_streamed_pieces_cite_as_the_final_answer_does():
    """The generator's tokens reach the answer page and `stream_answer` as pieces that add up to the final answer:
    a citation split across tokens is held until it closes and then sent as people read it."""
    from langchain_core.messages import AIMessageChunk

    from finrag.api import AnswerTokens

    pages = _pages(["", "5", "6", "7"])
    tokens = AnswerTokens("q")
    tokens._pages["ACME_2023_10K"] = pages  # what the run's index holds for the filing
    meta = {"langgraph_node": "generate"}
    sent = [tokens.feed((AIMessageChunk(content=t), meta), {}) for t in
            ["Revenue was $5 [ACME", "_2023_10K, p.", " 2] and costs $3 [ACME_2023_10K, pp. 2-3]", " [1]."]]
    assert sent[:2] == ["Revenue was $5", ""]  # the open bracket waits for its end
    internal = "Revenue was $5 [ACME_2023_10K, p. 2] and costs $3 [ACME_2023_10K, pp. 2-3] [1]."
    contexts = with_printed_labels([{"doc_id": "ACME_2023_10K", "page_start": 2, "page_end": 3}], lambda d: pages)
    final = display_citations(internal, contexts)
    assert "".join(sent) + tokens.rest(final) == final
    assert final == "Revenue was $5 [ACME_2023_10K, p. 3 (printed 6)] and costs $3 [ACME_2023_10K, pp. 3-4 (printed 6 to 7)] [1]."
