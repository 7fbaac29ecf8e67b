"""A metric-like name the question asks for that it neither defines nor finrag knows ("hyper-growth efficiency score",
"autonomy-adjusted EBITDA margin"): said unknown, never computed as something else (a part of `formula.py`).

`unknown_metric(head)` reads the question's head; `asked_name` / `catalog_named` / `bare_name` give the name the head
asks for, the catalog metric it names, and a name without the company's possessive, period or ticker before it.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import Formula, expr_unknowns
from finrag.tools.question.asks import decimals_asked
from finrag.tools.question.format_tail import strip_format
from finrag.tools.question.measure import cover_fact
from finrag.tools.question.operand import resolve
from finrag.tools.question.unnamed_measure import asked_measure
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.line_items import item_in_question

__all__ = ["asked_name", "bare_name", "catalog_named", "unknown_metric"]

_METRIC_NOUN = re.compile(r"(?i)\b(?P<name>(?:(?!(?:what|is|was|the|a|an|its|their|of|for|in|and|s)\b)[\w&'’/-]+\s+){0,4}"
                          r"[\w-]*?(?:ratio|score|index|multiple|coefficient|quotient|yield|premium|efficiency|"
                          r"productivity|value added|retention))\b")
_OWN_MEASURE = re.compile(r"(?i)\b(?:efficiency|productivity|value added|retention)$")
"""Metric nouns that make a measure of their own whatever line item stands before them ("net revenue retention")."""

_WRITES_ARITHMETIC = re.compile(r"(?i)[=/÷]|\b(?:defined|computed|calculated|divided|minus|plus|over)\b")
"""A question that writes arithmetic defines (or tries to define) its measure: never "a metric it does not define"."""


_QUALIFIED = re.compile(r"(?i)\b([a-z]+-(?:adjusted|weighted|normalized|based))\s+(?:[\w&%-]+\s+){0,3}?(?:margin|ratio|"
                        r"ebitda|income|earnings|cash flow|return|yield|score)\b")
"""A measure under a hyphenated qualifier ("autonomy-adjusted EBITDA margin", "demand-weighted brand yield")."""

def unknown_metric(head: str) -> Optional[Formula]:
    """A ratio, score, index or multiple the head asks for that the catalog does not know and no line item is."""
    asked = _METRIC_NOUN.search(head)
    worded = bool(re.search(r"(?i)^(?:\W*\w+\W+){0,4}?(?:what|how|calculate|compute|give|report|estimate|find|determine|"
                            r"tell)\b", head) or (decimals_asked(head) is not None
                                                                      and not _WRITES_ARITHMETIC.search(head)))
    if not worded and not (asked and re.match(r"\s*(?:(?:for|in|of|during|at)\s+[^?.;:]{1,40})?\?", head[asked.end():])):
        return None  # asked without a question word: a terse query that ends with the measure ("X's Q2 2025 Y quotient?")
    qualified = _QUALIFIED.search(head)
    if qualified:  # "autonomy-adjusted EBITDA margin": a known metric under a qualifier finrag does not model
        name = qualified.group(0)
        return Formula(name=name, source="unknown", expression=None,
                       problems=[f"'{name}' is not a metric finrag knows ('{qualified.group(1)}' changes what is "
                                 "measured), and the question does not define it"])
    m = _METRIC_NOUN.search(head)
    if not m and asked_measure(head):  # a measure asked to decimals that nothing finrag reads names
        return Formula(name=asked_measure(head) or "", source="unknown", expression=None,
                       problems=[f"'{asked_measure(head)}' is not a metric finrag knows, and the question does not define it"])
    if not m or cover_fact(head) or any(re.search(p, head, re.I) for e in CATALOG.values() for p in e.names):
        return None  # a cover fact ("Central Index Key") or a metric the catalog knows
    name = bare_name(m.group("name"))
    if not worded:  # a terse query begins with the company's name: no part of the metric's
        name = re.sub(r"^(?:[A-Z][\w&.-]*\s+)+(?=[a-z])", "", name)
    if name.lower() in ("ratio", "score", "index", "multiple", "yield", "premium") or (
            item_in_question(name) and not _OWN_MEASURE.search(name)):
        return None  # a line item's ratio or score may be the item's; a line item's retention or efficiency is not
    return Formula(name=name, source="unknown", expression=None,
                   problems=[f"'{name}' is not a metric finrag knows, and the question does not define it"])


def asked_name(head: str) -> str:
    """The measure the head names by a metric noun, never the answer's form ("answer as a multiple")."""
    m = _METRIC_NOUN.search(strip_format(head))
    return bare_name(m.group("name")) if m else ""


def catalog_named(head: str) -> str:
    """The catalog metric the head names, as finrag displays it ("" when none)."""
    return next((e.display for e in CATALOG.values() for p in e.names if re.search(p, head, re.I)), "")


def bare_name(name: str) -> str:
    """A metric's name without the company's possessive or a period before it ("Meta's 2024 efficiency score")."""
    words = name.split()
    cut = max((i + 1 for i, w in enumerate(words) if re.search(r"(?i)'s?$|s'$|^(?:fy)?\d{2,4}$|^q[1-4]$", w)), default=0)
    words = words[cut:]
    while len(words) > 1 and re.fullmatch(r"[A-Z]{2,5}", words[0]) and _is_company_word(words[0]):
        words = words[1:]  # "HUBS current ratio": the ticker is no part of the name
    return " ".join(words) or name.strip()


_MEASURE_WORDS = {"net", "free", "total", "gross", "operating", "current", "quick", "cash", "return", "days", "debt",
                  "working", "adjusted", "unadjusted", "core", "tangible", "interest", "effective", "capital",
                  "inventory", "asset", "assets", "equity", "dividend", "fixed", "long-term", "short-term"}


def _is_company_word(word: str) -> bool:
    """A capitalized word that names no measure (not "EBITDA", "ROA", "Net", "Free")."""
    return bool(expr_unknowns(resolve(word, {}))) and word.lower() not in _MEASURE_WORDS
