"""The judge interface: `JudgeResult` (a 1-10 rubric score and a justification), the abstract `Judge`
every judge implements, `CORRECT_THRESHOLD`, and the coercions of judge inputs (`as_item`, `to_text`).

The rubric itself (`RUBRIC`) and the LLM judge's prompts live in `finrag.state.prompts`.
"""
from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from typing import Any, Iterable, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

__all__ = ["CORRECT_THRESHOLD", "JudgeResult", "Judge", "as_item", "to_text"]

CORRECT_THRESHOLD = 8
"""Scores at or above this value count as a correct answer (rubric: substantively correct)."""


class JudgeResult(BaseModel):
    """Grade of a candidate answer against the gold answer: an integer score on the 1-10 rubric
    and a short justification."""

    # `parse_error` (the LLM reply could not be parsed; score forced to 1) and `usage` (token
    # usage of the judge call) are bookkeeping set by the judge; SkipJsonSchema keeps them out of
    # the schema an LLM sees through with_structured_output.

    model_config = ConfigDict(extra="ignore")

    score: int = Field(
        description="Integer grade from 1 (completely incorrect or refusal) to 10 (fully correct)",
        json_schema_extra={"minimum": 1, "maximum": 10},
    )
    justification: str = Field("", description="One or two sentences explaining the grade",
                               json_schema_extra={"maxLength": 400})  # a grammar-bound reply ends (issue 38)
    parse_error: SkipJsonSchema[bool] = False
    usage: SkipJsonSchema[Optional[dict]] = None

    @field_validator("score", mode="before")
    @classmethod
    def _clamp_score(cls, v: Any) -> int:
        if isinstance(v, str):
            m = re.search(r"-?\d+(?:\.\d+)?", v)
            if not m:
                raise ValueError(f"score is not a number: {v!r}")
            v = float(m.group(0))
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)):
            raise ValueError(f"score is not a number: {v!r}")
        return int(min(10, max(1, round(float(v)))))

    @field_validator("justification", mode="before")
    @classmethod
    def _coerce_justification(cls, v: Any) -> str:
        return "" if v is None else str(v)[:400]

    @property
    def correct(self) -> bool:
        return self.score >= CORRECT_THRESHOLD


def as_item(item: Any) -> tuple[str, str, str, str]:
    """(question, gold, answer, justification) from a tuple/list or a mapping."""
    if isinstance(item, Mapping):
        gold = item.get("gold", item.get("gold_answer", item.get("answer_gold", "")))
        answer = item.get("answer", item.get("model_answer", ""))
        if "gold" not in item and "gold_answer" not in item and "answer_gold" not in item:
            raise KeyError("item needs a 'gold' (or 'gold_answer') key")
        return (str(item.get("question", "")), to_text(gold), to_text(answer),
                to_text(item.get("justification", "")))
    seq = list(item)
    if len(seq) == 3:
        seq.append("")
    if len(seq) != 4:
        raise ValueError("items are (question, gold, answer[, justification])")
    return tuple(to_text(x) for x in seq)  # type: ignore[return-value]


def to_text(x: Any) -> str:
    """A judge input as text; whole floats from JSON gold answers lose their ".0" (1577.0 -> "1577")."""
    if x is None:
        return ""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return str(x)


class Judge(ABC):
    """Interface of every judge: a `name` and `score(question, gold, answer) -> JudgeResult`.

    `justification` (the gold justification / reasoning, when the dataset has one) is an
    optional extra input that judges may use."""

    name: str = "judge"

    @abstractmethod
    def score(self, question: str, gold: str, answer: str, justification: str = "") -> JudgeResult:
        ...

    def score_many(self, items: Iterable[Any]) -> list[JudgeResult]:
        """Grade many items: tuples `(question, gold, answer[, justification])` or mappings with
        keys `question`, `gold` (or `gold_answer`), `answer` (or `model_answer`)[, `justification`]."""
        return [self.score(*as_item(it)) for it in items]
