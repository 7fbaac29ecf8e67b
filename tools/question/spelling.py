"""A typo inside an operand, corrected against the words of the catalog's line items: "opertaing income",
"net cash provided by operatng activities" are read as the operating line they misspell.

    corrected("operatng income")   # "operating income"
    corrected("widget income")     # "widget income" (no word one edit from "widget": unchanged)

A word is corrected only when it is no word of the vocabulary itself, has at least `MIN_LENGTH` letters, and exactly
one vocabulary word lies one edit away (a letter dropped, added, changed, or two neighbours swapped); a word with
two such neighbours, or none, is left as written, so an unknown measure stays unknown.
"""
from __future__ import annotations

import functools
import re

from finrag.tools.vocabulary.line_items import LINE_ITEMS

__all__ = ["MIN_LENGTH", "corrected"]

MIN_LENGTH = 6
"""Shorter words have too many neighbours one edit away ("cost"/"cash") to correct safely."""


@functools.lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    words: set[str] = set()
    for spec in LINE_ITEMS.values():
        for text in (*spec.labels, spec.display):
            words.update(re.findall(r"[a-z]+", text.lower()))
    return frozenset(words)


def one_edit(a: str, b: str) -> bool:
    """Are `a` and `b` (different words) one deletion, insertion, substitution or adjacent swap apart?"""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1:]


def _fix(word: str) -> str:
    low = word.lower()
    vocab = _vocabulary()
    if len(low) < MIN_LENGTH or low in vocab or not low.isalpha():
        return word
    near = [v for v in vocab if one_edit(low, v)]
    return near[0] if len(near) == 1 else word


def corrected(phrase: str) -> str:
    """`phrase` with each misspelt word replaced by the one vocabulary word one edit from it (see the module
    docstring); unchanged when no word is corrected."""
    return re.sub(r"[A-Za-z]+", lambda m: _fix(m.group(0)), phrase)
