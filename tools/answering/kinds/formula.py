"""Kind `formula`: the question's own arithmetic, computed as it says or said why not (`formula_answer`)."""
from __future__ import annotations

from finrag.tools.answering.formula_answer import answer_formula
from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.reader import ReaderResult

__all__ = ["answer"]


def answer(ev: Evidence) -> ReaderResult:
    """The formula from the routed filing's tagged facts, else its statement tables."""
    return answer_formula(ev.facts, ev.tagged, ev.doc_id, ev.info, ev.tables)
