"""finrag.tools.answering.kinds = `tools/answering/kinds/`: which answerer reads a question, decided by the question's
kind, one module per kind.

    result = answer(evidence)        # a ReaderResult; `evidence` (`evidence.Evidence`) is what the answerers may read

`ask_kind(facts)` reads the kind from the question alone (`finrag.state.question.QuestionFacts`), in this order:

| kind | the question | module | when it has no answer |
|---|---|---|---|
| `formula` | defines, composes or names a metric of its own (`QuestionFacts.formula`) | `formula.py` | (always answers: computed, or said why not) |
| `judgement` | asks a verdict on figures (`QuestionFacts.judgement`: capital-intensive, an improving margin, healthy liquidity) | `judgement.py` | `measure` |
| `ranking` | asks which part of a breakdown ranks first (`QuestionFacts.ranking`) | `ranking.py` | `measure` |
| `cover` | asks a cover-page fact (`QuestionFacts.cover`) | `cover.py` | `measure` |
| `measure` | asks a line item, a member of a breakdown, a catalog metric, a change or a series | `measure.py` | (always answers: the table reader) |

Adding a kind is one module with an `answer(evidence) -> Optional[ReaderResult]`, its entry in `ANSWERERS` (and
`FALLBACK` when another kind answers what it cannot), and the test in `ask_kind` that recognises it.
"""
from __future__ import annotations

from typing import Callable, Literal, Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.kinds import cover, formula, judgement, measure, ranking
from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.reader import ReaderResult

__all__ = ["ANSWERERS", "AskKind", "Evidence", "FALLBACK", "answer", "ask_kind"]

AskKind = Literal["formula", "judgement", "ranking", "cover", "measure"]
"""The kind of question (see the module docstring)."""

ANSWERERS: dict[AskKind, Callable[[Evidence], Optional[ReaderResult]]] = {
    "formula": formula.answer, "judgement": judgement.answer, "ranking": ranking.answer, "cover": cover.answer, "measure": measure.answer}
FALLBACK: dict[AskKind, AskKind] = {"judgement": "measure", "ranking": "measure", "cover": "measure"}


def ask_kind(facts: QuestionFacts) -> AskKind:
    """The question's kind, from its one reading."""
    if facts.formula is not None:
        return "formula"
    if facts.judgement is not None:
        return "judgement"
    if facts.ranking is not None:
        return "ranking"
    if facts.cover is not None:
        return "cover"
    return "measure"


def answer(evidence: Evidence) -> ReaderResult:
    """The answer of the question's kind, else of the kind it falls back to (`FALLBACK`)."""
    kind: Optional[AskKind] = ask_kind(evidence.facts)
    while kind is not None:
        result = ANSWERERS[kind](evidence)
        if result is not None:
            return result
        kind = FALLBACK.get(kind)
    return ReaderResult(answer="", confident=False, kind="none")
