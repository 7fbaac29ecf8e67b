"""The judgement a question asks (issue 50), a key of the judgement catalog (`finrag.tools.vocabulary.judgements`).

* a **level** judgement is a yes/no question that says it ("Is 3M a capital-intensive business?", "Does Verizon have
  a healthy liquidity profile based on its quick ratio?"), asking the state of the figures, not a change of them
  ("Did Apple's liquidity improve?") or a comparison ("Was Apple more profitable than in 2022?"): the direction read
  from the question without the judgement's own words ("high growth" is no "increase") is none, 'healthy' or
  'positive';
* a **trend** judgement asks whether a named metric that has a better direction improves ("Does Amcor have an
  improving gross margin profile?", "Has the quick ratio improved or declined?").

Read from the question's first sentence ("If X is not a useful metric, say so" instructs).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.question.asks import direction_of
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.judgements import JUDGEMENTS

__all__ = ["judgement_of"]

_COMPARATIVE = re.compile(r"(?i)\bthan\b|\bcompared (?:to|with)\b|\bversus\b|\bvs\.?(?!\w)|\brelative to\b")


def judgement_of(text: str, metric: Optional[str], yesno: bool) -> Optional[str]:
    """The judgement `text` asks, or None (see the module docstring). `metric`: the catalog metric the question names;
    `yesno`: a yes/no question, its auxiliary first or after an opening phrase ("Based on FY2022 data, is ...": the
    answer form's reading)."""
    first = re.split(r"\?\s+(?=\S)", text.strip())[0]
    direction = direction_of(first, yesno)
    for j in JUDGEMENTS.values():  # a trend first: "an improving liquidity profile" asks a trend
        if j.mode == "trend" and direction == j.direction and metric in CATALOG and CATALOG[metric].good:
            return j.name
    if not yesno or _COMPARATIVE.search(first):
        return None
    for j in JUDGEMENTS.values():
        if j.mode != "level" or (j.needs_named and metric not in CATALOG):
            continue
        hit = next((m for rx in j.asks if (m := rx.search(first))), None)
        if hit is not None and direction_of(first[:hit.start()] + first[hit.end():], True) in ("", "healthy", "positive"):
            return j.name
    return None
