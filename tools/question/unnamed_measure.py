"""A measure asked to a number of decimals whose name no line item, catalog metric or cover fact reads: "HubSpot net
magic number 2.0 for Q2 2025? one decimal", "Coca-Cola's fizz-adjusted brand velocity in 2024? round to 2
decimals". Asking for decimals asks for a computed number; a name finrag cannot compute and the question does not
define is said to be unknown, never answered with a passage. A one-word name ("backlog") may be a figure the filing
states in words, and is left to the reader.

    asked_measure("What was Coca-Cola's fizz-adjusted brand velocity in 2024? round to 2 decimals")
    # "fizz-adjusted brand velocity"
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import expr_unknowns
from finrag.tools.question.asks import decimals_asked
from finrag.tools.question.measure import cover_fact
from finrag.tools.question.operand import resolve
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.line_items import item_in_question

__all__ = ["asked_measure"]

_ASKED = re.compile(r"(?i)^\s*(?:(?:what|how much)\s+(?:is|was|were|are)\s+)?(?:(?:the\s+)?(?:[\w&.-]+\s+){0,3}?[\w&.-]+(?:'s|s')\s+|"
                    r"(?-i:(?:[A-Z][\w&.-]*\s+){1,3}(?=[a-z])))(?P<name>(?-i:[a-z])[\w&'-]*(?:\s+(?!(?:for|in|during|at|of|as|over|"
                    r"on)\b)[\w&.'-]+){0,5}?)\s*(?:\b(?:for|in|during|at|as of|over|on)\b[^?]{1,60})?\?")
"""The head "<Company's | Company> <name> [for <period>]?": the name in lower case after the company."""


def asked_measure(question: str) -> Optional[str]:
    """The name of the measure asked to decimals that finrag has no way to compute (see the module docstring)."""
    if decimals_asked(question) is None:
        return None
    m = _ASKED.match(question)
    if not m:
        return None
    name = re.sub(r"\s+\d+(?:\.\d+)?$", "", m.group("name")).strip()  # "net magic number 2.0": a version, not a part
    if len(name.split()) < 2 or item_in_question(name) or cover_fact(name) or not expr_unknowns(resolve(name, {})) or any(
            re.search(p, name, re.I) for e in CATALOG.values() for p in e.names):
        return None
    return name
