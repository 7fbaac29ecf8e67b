"""A bulleted list of operands that the question then sums, written as the definition it is:

    summed_list("Meta 2024 opex intensity. Parts: - research and development - marketing and sales - general and "
                "administrative Add those three up and divide by revenue.")
    # "Meta 2024 opex intensity. Define opex intensity as (research and development + marketing and sales + general
    #  and administrative) divided by revenue."

A list no sentence after it sums stays as written: its dashes may be minus signs.
"""
from __future__ import annotations

import re

__all__ = ["summed_list"]

_LISTED = re.compile(r"(?i)\b(?:parts|components|items|inputs|lines|made up of|consisting of)\s*:\s*(?P<list>(?:[-•*–]\s+"
                     r"[^•*–]+?\s*){2,}?)(?:[.;]\s*)?(?P<those>\b(?:then\s+|now\s+)?(?:add|sum|total)\s+(?:up\s+)?(?:those|"
                     r"these|them|the\s+\w+)(?:\s+\w+)?(?:\s+up)?)(?P<rest>\s*,?\s*(?:and|then)\s+(?:divide|multiply)\b"
                     r"[^.?]*)?")


def summed_list(q: str) -> str:
    """A bulleted list of operands ("Parts: - A - B - C Add those three up and divide by revenue", its lines joined)
    written as the sum it asks: "Calculate it as (A + B + C) / revenue." A list not summed after it stays as written
    (its dashes may be minus signs)."""
    m = _LISTED.search(q)
    if not m:
        return q
    items = [i.strip(" ;,.") for i in re.split(r"(?:^|\s)[-•*–]\s+", " " + m.group("list")) if i.strip(" ;,.")]
    if len(items) < 2:
        return q
    how = re.sub(r"(?i)^\s*,?\s*(?:and|then)\s+(divide|multiply)\b\s*(?:it|that|them|the (?:sum|total))?\s*(?:by\b)?",
                 lambda d: " divided by " if d.group(1).lower() == "divide" else " multiplied by ", m.group("rest") or "")
    before = q[:m.start()].rstrip(" :.")
    name = re.sub(r"(?i)\b(?:fy\s*)?(?:19|20)\d\d\b|\bq[1-4]\b", " ", re.split(r"[.?!:;]\s+", before)[-1])
    name = " ".join(re.sub(r"^(?:[A-Z][\w&.'-]*\s+)+(?=[a-z])", "", name.strip()).split())  # not the company's name
    verb = f"Define {name} as" if re.fullmatch(r"[a-z][\w&' -]{2,40}", name) else "Calculate it as"
    return f"{before}. {verb} ({' + '.join(items)}){how}{q[m.end():]}"
