"""Kind `ranking`: which part of a breakdown ranks first, from the routed filing's one-member facts, else its tables."""
from __future__ import annotations

from typing import Optional

from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.member_ranking import answer_member_ranking
from finrag.tools.answering.ranking_tables import answer_ranking_from_tables
from finrag.tools.answering.reader import ReaderResult

__all__ = ["answer"]


def answer(ev: Evidence) -> Optional[ReaderResult]:
    """The ranking, or None (no single routed filing, no breakdown of the measure: the `measure` kind answers)."""
    if not ev.doc_id:
        return None
    return (answer_member_ranking(ev.facts, ev.tagged, ev.doc_id, ev.info)
            or answer_ranking_from_tables(ev.facts, ev.contexts, ev.source, doc_id=ev.doc_id, info=ev.info))
