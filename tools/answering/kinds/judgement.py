"""Kind `judgement`: a verdict read from computed figures against a stated convention (`judgement_answer`): "Is 3M a
capital-intensive business?", "Does Amcor have an improving gross margin profile?". Each figure is the `measure`
kind's answer to the catalog metric for one year, over the same routed filing."""
from __future__ import annotations

import dataclasses
from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.judgement_answer import answer_judgement
from finrag.tools.answering.kinds import measure
from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.reader import ReaderResult

__all__ = ["answer"]


def answer(ev: Evidence) -> Optional[ReaderResult]:
    """The judgement, or None (several routed filings, or none routed and the figures not in the top passage's filing:
    the `measure` kind answers, and the passages after it)."""
    if len(ev.docs) > 1:
        return None

    def figure(question: str, facts: QuestionFacts) -> ReaderResult:
        asked = dataclasses.replace(ev, question=question, facts=facts)
        if "tagged" in ev.__dict__:  # the filing's tagged facts, read once
            asked.__dict__["tagged"] = ev.__dict__["tagged"]
        return measure.answer(asked)

    result = answer_judgement(ev.facts, ev.info, figure)
    if result is not None and not ev.docs and not (result.confident or result.not_applicable):
        return None  # nothing routed and the top passage's filing lacks the figures: the passages that bear on it
    return result
