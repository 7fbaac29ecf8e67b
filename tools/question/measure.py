"""The measure a question asks for: a metric of the reader's registry (a ratio, a margin, a turnover: computed
from line items) or, without one, the line item it names first."""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.answering.line_items import item_in_question
from finrag.tools.answering.metrics import metric_in_question

__all__ = ["measure"]


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
