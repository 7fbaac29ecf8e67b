"""Words a filing writes for what a question asks with other words (issue 50): one home for "the same thing".

A question is written in a reader's words, a filing in its own: "workforce", "headcount", "people" are written
"employees"; "buy back" is written "repurchase"; debt "coming due" is written "maturing"; a dividend paid "without a
break" is the "333rd consecutive" one; a deal's "closing" is the day it was "consummated" or "completed"; "store count" is counted in "stores", "locations", "restaurants"; a "global" workforce is the one "around the
globe" or "worldwide"; a business "bought" or "bought out" is an "acquisition", a "stake" in it an "ownership
interest". Each class
below is one thing and the words (or short phrases) that name it in filings and in questions; its first word is the
one filings write most.

* `same_as(word)`: the other words of `word`'s class (a plural or an inflection of a class word counts as it:
  "repurchased", "buybacks"); () for a word in no class.
* `filing_words(text)`: `text` with each phrase of a class that is more than one word ("buy back", "coming due",
  "team members", "without a break") written as its class's first word, so a question's topic words are the filing's
  ("Did Amazon buy back stock" reads "Did Amazon repurchase stock").
* `WORKFORCE`: the class of a company's people (a count of any of them is a count of the others: "how many people
  work for" / "152,700 employees").

A class is a thing a filing names, never a benchmark question's phrase; a word that means other things in a filing
("due" alone, "due to") is in no class.
"""
from __future__ import annotations

import re

__all__ = ["WORKFORCE", "filing_words", "same_as"]

WORKFORCE = ("employees", "employee", "people", "associates", "team members", "workers", "staff", "workforce",
             "headcount", "personnel", "ftes", "ppl")
_CLASSES: tuple[tuple[str, ...], ...] = (
    WORKFORCE,
    ("repurchase", "buy back", "buyback", "buy-back", "bought back", "share buyback"),
    ("maturing", "maturities", "coming due", "come due", "comes due", "falling due", "fall due", "becoming due"),
    ("consecutive", "uninterrupted", "without a break", "without interruption", "unbroken"),
    ("stores", "locations", "restaurants", "warehouses", "outlets", "shops"),
    ("acquisition", "acquire", "buy", "bought", "buy out", "bought out", "buyout"),  # a business bought ("purchases" of PP&E: no)
    ("ownership interest", "stake", "equity interest", "equity stake"),  # a share of a business owned
    ("worldwide", "global", "globally", "around the world", "around the globe", "world-wide"),  # the whole, every country
    ("completed", "consummated", "closing", "closed"),  # a transaction's closing: "we consummated the merger"
)
_INFLECTIONS = ("", "s", "es", "d", "ed", "ing")


def _key(word: str) -> str:
    return " ".join(word.lower().replace("’", "'").split())


_CLASS_OF: dict[str, tuple[str, ...]] = {_key(w): c for c in _CLASSES for w in c}
_PHRASES = sorted((w for c in _CLASSES for w in c if " " in w or "-" in w), key=len, reverse=True)
_PHRASE = re.compile(r"(?i)(?<![\w-])(" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _PHRASES) + r")(?![\w-])")


def same_as(word: str) -> tuple[str, ...]:
    """The other words of `word`'s class (see the module docstring), or ()."""
    key = _key(word)
    cls = _CLASS_OF.get(key)
    if cls is None:  # an inflection of a class word ("repurchased", "buybacks", "store")
        cls = next((c for k, c in _CLASS_OF.items() if _inflects(key, k) or _inflects(k, key)), None)
    return tuple(w for w in cls if _key(w) != key) if cls else ()


def _inflects(word: str, base: str) -> bool:
    """Is `word` `base` with an inflection ("stores" of "store", "repurchased" of "repurchase", "paying" of "pay")?"""
    stem = base[:-1] if base.endswith("e") else base
    return len(stem) >= 3 and word.startswith(stem) and word[len(stem):] in {*_INFLECTIONS, "e"} and word != base


def filing_words(text: str) -> str:
    """`text` with each multi-word phrase of a class written as its class's first word (see the module docstring)."""
    return _PHRASE.sub(lambda m: _CLASS_OF[_key(m.group(1))][0], text)
