"""The judgement a question asks (issue 50), a key of the judgement catalog (`finrag.tools.vocabulary.judgements`).

* a **level** judgement is a yes/no question that says it ("Is 3M a capital-intensive business?", "Does Verizon have
  a healthy liquidity profile based on its quick ratio?"), asking the state of the figures, not a change of them
  ("Did Apple's liquidity improve?") or a comparison ("Was Apple more profitable than in 2022?"): the direction read
  from the question without the judgement's own words ("high growth" is no "increase") is none, 'healthy' or
  'positive';
* a **trend** judgement asks whether a named metric that has a better direction improves ("Does Amcor have an
  improving gross margin profile?", "Has the quick ratio improved or declined?") or gets worse ("is its operating
  margin deteriorating?": the catalog entry's `asks`, its verdict read the other way).

A judgement's measure may be named by the judgement's own words rather than a metric's name (`implied_metric`):
"profitability" is a margin ("operating profitability": the operating margin, "gross profitability": the gross
margin, else the net margin), and "margins" with no other qualifier than its owner ("Acme's margins", "its
margins") are the gross margin, the first margin an income statement shows. A margin qualified by another word
("the International margins": a segment's) is not the company's, and implies none.

Read from the question's first sentence ("If X is not a useful metric, say so" instructs).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.question.asks import direction_of
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.judgements import JUDGEMENTS

__all__ = ["implied_metric", "judgement_of"]

# "relative to revenue", "compared to its sales" name a ratio's denominator ("capex heavy relative to revenue"), not a comparison
_COMPARATIVE = re.compile(r"(?i)\bthan\b|\bversus\b|\bvs\.?(?!\w)|"
                          r"\b(?:relative to|compared (?:to|with))\b(?!\s+(?:its\s+|their\s+|the\s+)?(?:total\s+)?"
                          r"(?:revenues?|sales|assets|equity)\b)")
_OWNER = r"(?:^|\b(?:its|their|the)\s+|[\w.&-]+(?:'s|’s|s'|s’)\s+)"
_PROFITABILITY = re.compile(r"(?i)\b(?:(operating|gross)\s+)?profitability\b")
_MARGINS = re.compile(rf"(?i){_OWNER}margins?\b(?!\s+(?:of|on|for)\b)")


def implied_metric(text: str) -> Optional[str]:
    """The catalog metric a judgement's own words name when no metric's name is written (see the module docstring):
    'operating_margin' for "operating profitability", 'gross_margin' for "Acme's margins", None otherwise."""
    first = re.split(r"\?\s+(?=\S)", text.strip())[0]
    if m := _PROFITABILITY.search(first):
        return {"operating": "operating_margin", "gross": "gross_margin"}.get((m.group(1) or "").lower(), "net_margin")
    return "gross_margin" if _MARGINS.search(first) else None


def judgement_of(text: str, metric: Optional[str], yesno: bool) -> Optional[str]:
    """The judgement `text` asks, or None (see the module docstring). `metric`: the catalog metric the question names;
    `yesno`: a yes/no question, its auxiliary first or after an opening phrase ("Based on FY2022 data, is ...": the
    answer form's reading)."""
    first = re.split(r"\?\s+(?=\S)", text.strip())[0]
    direction = direction_of(first, yesno)
    for j in JUDGEMENTS.values():  # a trend first: "an improving liquidity profile" asks a trend
        if (j.mode == "trend" and metric in CATALOG and CATALOG[metric].good
                and (direction == j.direction if j.direction else yesno and any(rx.search(first) for rx in j.asks))):
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
