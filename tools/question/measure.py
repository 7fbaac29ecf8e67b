"""The measure a question asks for: a metric of the reader's registry (a ratio, a margin, a turnover: computed
from line items) or, without one, the line item it names first."""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.question import CoverFact
from finrag.tools.answering.line_items import item_in_question
from finrag.tools.answering.metrics import metric_in_question

_COVER: tuple[tuple[CoverFact, re.Pattern[str]], ...] = (
    ("auditor", re.compile(r"(?i)\bwho\s+(?:audited|audits)\b|\bwho\s+(?:is|was)\b[^?]*\b(?:auditor|audit\s+firm|accounting\s+firm)\b|"
                           r"\b(?:name\s+of|which|what\s+is|what\s+was)\s+(?:the\s+)?[\w'’\s]{0,40}?(?:independent\s+)?"
                           r"(?:auditor|audit\s+firm|(?:registered\s+public\s+)?accounting\s+firm)\b(?!'s|’s)")),
    ("public_float", re.compile(r"(?i)\bpublic\s+float\b|\baggregate\s+market\s+value\b[^?]*\bnon-?affiliates\b")),
    ("shares_outstanding", re.compile(r"(?i)^(?!.*\b(?:weighted|average|diluted|basic|repurchas\w*|buybacks?)\b)"
                                      r".*\b(?:shares\b[^?]{0,60}\boutstanding|outstanding\s+shares)\b")),
    ("cik", re.compile(r"\bCIK\b|(?i:\bcentral\s+index\s+key\b)")),
    ("fiscal_year_end", re.compile(r"(?i)\b(?:when|what\s+date|which\s+date|on\s+what\s+date|what\s+day)\b[^?]*"
                                   r"\bfiscal\s+year\b[^?]*\bend(?:s|ed)?\b|\bfiscal[\s-]+year[\s-]+end\s+date\b")),
)


def cover_fact(text: str) -> Optional[CoverFact]:
    """The cover-page fact a question asks for ('auditor', 'shares_outstanding', 'public_float', 'cik',
    'fiscal_year_end'), or None."""
    return next((name for name, rx in _COVER if rx.search(text)), None)

__all__ = ["cover_fact", "measure"]


def measure(text: str, head: str) -> tuple[Optional[str], Optional[str]]:
    """(metric name, line item) of a question (`text` whitespace-collapsed, `head` its part before a definition
    clause): the metric is read from `head` without parentheses, else `head`, else `text`; the line item from
    `head`, only when there is no metric."""
    bare = re.sub(r"\s*\([^)]*\)", "", head)
    metric = metric_in_question(bare) or metric_in_question(head) or metric_in_question(text)
    if metric is not None:
        return metric.name, None
    items = item_in_question(head)
    return None, (items[0][1] if items else None)
