"""Analysts' shorthand written out before a question is read: "KO 2Q25 op mgn", "AAPL FQ3'25 services rev",
"HUBS shs outstanding", "ORCL FYE date", "AMZN '24 capex chg".

`expand_shorthand(text)` returns the question with each abbreviation replaced by the words the readers know
("rev" -> "revenue", "mgn" -> "margin", "op income" -> "operating income", "FQ3'25" -> "fiscal Q3 2025", "1QFY25" ->
"Q1 FY25"); everything else is kept as written (tickers, names, numbers). Only abbreviations that name nothing else
in a filing question are expanded: "GM" only before "%" (General Motors' ticker otherwise).
"""
from __future__ import annotations

import re

__all__ = ["expand_shorthand"]

_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    # periods: "FQ3'25" / "FQ3 25" -> fiscal Q3 2025; "1QFY25" -> Q1 FY25; "Q2'25" / "2Q'25" are read as written
    (r"(?i)\bFQ([1-4])\s*['’]?\s*(\d{2})\b", r"fiscal Q\1 20\2"),
    (r"(?i)\b([1-4])Q\s*(FY\s*['’]?\d{2,4})\b", r"Q\1 \2"),
    (r"(?i)\bqtrs?\b", "quarter"),
    (r"(?i)\byrs?\b", "year"),
    (r"(?i)\bFYE\b", "fiscal year end"),
    # measures
    (r"(?i)\brevs\b", "revenues"),
    (r"(?i)\brev\b\.?", "revenue"),
    (r"(?i)\bm(?:ar)?gns?\b|\bmrgns?\b", "margin"),
    (r"\bGM\s*%", "gross margin %"),
    (r"\bOM\s*%", "operating margin %"),
    (r"(?i)\bop(?:\.|erating)?\s+(inc(?:ome)?|profit|earnings|margin|loss|expenses?)\b", r"operating \1"),
    (r"(?i)\boperating inc\b", "operating income"),
    (r"(?i)\bOCF\b", "operating cash flow"),
    (r"(?i)\bchg\b|\bchng\b", "change"),
    (r"(?i)\bshs\b", "shares"),
    (r"(?i)\bo/s\b", "outstanding"),
    (r"(?<![A-Z])[Aa]ds\b", "advertising"),
    (r"(?i)\bsvcs\b", "services"),
    (r"(?i)\bintl\b", "international"),
))


def expand_shorthand(text: str) -> str:
    """`text` with analysts' abbreviations written out (see the module docstring)."""
    for rx, repl in _RULES:
        text = rx.sub(repl, text)
    return text
