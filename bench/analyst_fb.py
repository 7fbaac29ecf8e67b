"""FinanceBench dev questions in the classes of `bench/analyst_questions.py` (issue 33), with HDRR's judge per class.

* `fb_class(question)`: the class by keyword rules on the first sentence (the first rule that matches, in the
  order cover, open, segment, change, margin, line item);
* `financebench(path, run, classes)`: per-class counts (`classes`: the benchmark's, then "open"), with the offline judge's P(s>=8) per class from a `finrag eval
  run` output (`run`), when given.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

__all__ = ["fb_class", "financebench"]


_FB_RULES = (
    ("cover", r"\bauditor|shares outstanding|public float|\bCIK\b|fiscal year end|registered to trade|securities "
              r"exchange|ticker"),
    ("open", r"^\s*(?:what drove|why|how did|is .* business subject|does .* (?:ceo|board))|\bwhat (?:is|are) the "
             r"(?:nature|geographies|major)|\bwhich (?:debt|business segment)|legal|guidance"),
    ("segment", r"\bsegment|\bregion|geograph|product categor|service categor|\bdomestic\b|international sales|"
                r"\bUS sales"),
    ("change", r"\bchange|\bgrow|growth|\bincrease|\bdecrease|\bdrop\b|\bCAGR\b|year-over-year|improv|\bbetween\b"),
    ("margin", r"margin|ratio|\bas a % of|% of (?:revenue|net sales)|percent of|return on|turnover|\bDPO\b|\bDSO\b|"
               r"\bDIO\b|working capital|free cash ?flow|conversion|coverage|\bROA\b|\bEBITDA|\baverage\b"),
    ("line_item", r"\bwhat (?:is|was)\b.*\b(?:amount|total|net income|revenue|COGS|capital expenditure|inventor|"
                  r"accounts payable|current (?:assets|liabilities)|cash)|\bhow much\b"),
)


def fb_class(question: str) -> str:
    """A FinanceBench question's class: "ranking" when finrag reads it as one (`ranking_of`), else the first rule
    that matches (cover, open, segment, change, margin, line item), else "open": the question text up to its first
    sentence's end."""
    head = re.split(r"(?<=\?)\s", question.strip(), maxsplit=1)[0]
    from finrag.tools.question.ranking import ranking_of

    if ranking_of(head) is not None:  # which part of a breakdown ranks first (the system's own reading)
        return "ranking"
    for cls, rule in _FB_RULES:
        if re.search(rule, head, re.I):
            return cls
    return "open"


def financebench(path: Path, run: Path | None, classes: tuple[str, ...]) -> dict:
    """Per-class counts of the FinanceBench dev questions, with the offline judge's P(s>=8) of HDRR per class when
    `run` (a `finrag eval run` output folder) holds its judgements."""
    from finrag.eval.runfiles import judgement_path, read_json

    qs = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    groups: dict[str, list[dict]] = defaultdict(list)
    for q in qs:
        groups[fb_class(q["question"])].append(q)
    out: dict = {}
    for cls in [*classes, "open"]:
        rs = groups.get(cls, [])
        entry: dict = {"n": len(rs), "types": dict(Counter(q.get("question_type", "") for q in rs))}
        if run is not None and rs:
            scores = [rec.get("score") for q in rs
                      if (rec := read_json(judgement_path(run, "offline", "hdrr", q["financebench_id"])))]
            scores = [s for s in scores if isinstance(s, (int, float))]
            if scores:
                entry["judged"] = len(scores)
                entry["p_ge_8"] = round(sum(s >= 8 for s in scores) / len(scores), 3)
        out[cls] = entry
    return out
