"""Kind `cover`: a cover-page fact, from the routed filing's dei facts, else its text (the auditor's signature)."""
from __future__ import annotations

from typing import Optional

from finrag.tools.answering.cover_facts import answer_cover
from finrag.tools.answering.cover_text import answer_cover_text
from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.reader import ReaderResult

__all__ = ["answer"]


def answer(ev: Evidence) -> Optional[ReaderResult]:
    """The cover fact, or None (no single routed filing, not found: the `measure` kind answers)."""
    if not ev.doc_id:
        return None
    return (answer_cover(ev.facts, ev.tagged, ev.doc_id, ev.info)
            or answer_cover_text(ev.facts, ev.source, ev.doc_id, ev.info))
