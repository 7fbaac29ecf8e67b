"""How sure a name span names its company (a part of the linker, `linker.py`).

`name_confidence` scores one span the alias index matched: the kind of name (full name, distinctive head word,
initialism, abbreviated word, prefix of a longer name), how it is written (capitalised, all lower case, all caps),
how common its words are in English (`words.zipf`), whether it opens the question, and the company cues around it
(a possessive, a legal-form word, 'at' before it, a line item after it; a lower-case common word only as the
question's subject, `subject.py`).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from finrag.tools.routing.mentions import ACCEPT, sentence_initial
from finrag.tools.routing.subject import (
    LINE_ITEM_NEXT,
    SUBJECT_MARK,
    after_opening_item,
    asks_business,
    auxiliary_subject,
    business_subject,
    legal_form_after,
)
from finrag.tools.routing.text import CASED_SUFFIX_WORD
from finrag.tools.routing.ticker_score import POSSESSIVE
from finrag.tools.routing.words import is_finance_abbreviation, zipf

if TYPE_CHECKING:
    from finrag.tools.routing.linker import Linker

__all__ = ["AT_BEFORE", "name_confidence"]

AT_BEFORE = re.compile(r"(?i)\bat\s+$")
"""'at' right before a name: a company cue ("revenue at Live Nation")."""


def name_confidence(linker: "Linker", kind: str, toks: tuple[str, ...], surface: str, text: str, start: int,
                     end: int) -> tuple[float, str]:
    """How sure the span text[start:end] (tokens `toks`, a name of kind `kind`) names its company, and why."""
    words = [t for t in toks if t != "&"]
    lower = surface == surface.lower()
    upper = surface == surface.upper() and any(c.isalpha() for c in surface)
    initial = sentence_initial(text, start)
    if kind == "initialism":
        form = linker.initialism_forms.get(toks, "")
        if surface.replace(" ", "") != form:
            return 0.0, f"initialism {form} must be written in capitals"
        if is_finance_abbreviation(form):
            return 0.3, f"{form} is also a finance abbreviation"
        return 0.85, f"initialism {form}"
    if len(words) >= 2:
        if lower and all(zipf(w) >= 4.5 for w in words):
            if kind == "prefix":  # 'north america', 'all-in': a phrase, only the start of a longer name
                return 0.0, f"'{surface}': common words in lower case that only begin a name"
            return 0.6, "common words in lower case"
        if kind == "prefix" and all(zipf(w) >= 4.8 for w in words):
            if not lower and (POSSESSIVE.match(text[end:end + 3]) or AT_BEFORE.search(text[:start])
                              or LINE_ITEM_NEXT.match(text[end:end + 40])):
                return 0.75, f"prefix '{surface}' of common words, with a company cue ('at', a possessive, " \
                             "a line item after it)"
            return 0.45, f"prefix '{surface}' of common words (a place or a phrase: 'North America')"
        return 0.95 if kind == "name" else 0.9, f"{kind} '{surface}'"
    w = words[0] if words else ""
    z = zipf(w)
    if len(w) <= 3 or any(c.isdigit() for c in w):
        if w[:1].isdigit() and start > 0 and re.match(r"[$.,\d]", text[start - 1]):
            return 0.0, f"'{surface}' is an amount"
        if lower and kind == "name" and legal_form_after(text, end) and zipf(w) >= 2.5 and len(w) >= 3:
            return ACCEPT, f"'{surface}' in lower case, a legal-form word after it; {SUBJECT_MARK}"
        if lower:
            return 0.0, f"'{surface}' in lower case (short names are case-sensitive)"
        if upper and is_finance_abbreviation(surface):
            return 0.35, f"'{surface}' is also a finance abbreviation"
        return 0.9, f"short name '{surface}'"
    if kind == "head" and toks in linker._acronyms and not upper:
        return 0.0, f"'{surface}': the name's acronym must be written in capitals"
    if kind == "head":
        if toks in linker._ticker_heads and upper:
            return 0.0, f"'{surface}' is also its ticker: scored as a ticker, by context"
        if lower and z >= 2.5:
            if (why := business_subject(text, start, end, opening=False)) or (
                    z < 4.2 and asks_business(text) and (why := auxiliary_subject(text, start, end))):
                # the distinctive word of a large registrant's name as a question's subject ("TTM EBITDA for delta"),
                # not as the first word of a terse question ("analog TXN revenue"); after an auxiliary only in a
                # question about a business ("how does delta hedging work" asks of a term of art, not of an airline)
                return ACCEPT, f"head word '{surface}' in lower case: {why}; {SUBJECT_MARK}"
            return 0.0, f"head word '{surface}' in lower case"
        if upper and len(w) <= 4:
            return 0.8, f"distinctive head word '{surface}'"
        conf = 0.85 if z < 3.0 else 0.75 if z < 3.5 else 0.65 if z < 4.0 else (0.55 if initial else 0.6)
        return conf, f"distinctive head word '{surface}'"
    if lower:
        if z < 3.5:
            return 0.8, f"'{surface}' is not an English word"
        if z < 4.2:  # 'visa requirements': a common word is a company only with a company cue
            if POSSESSIVE.match(text[end:end + 3]) or re.match(rf"\s*,?\s*{CASED_SUFFIX_WORD.pattern}\b",
                                                                  text[end:end + 16]):
                return 0.55, f"'{surface}' in lower case, a rare English word, with a company cue"
        if kind == "name" and ((why := business_subject(text, start, end))
                               or (z < 4.2 and (why := auxiliary_subject(text, start, end)))):
            return ACCEPT, f"'{surface}' in lower case, an English word: {why}; {SUBJECT_MARK}"
        if z < 4.2 and kind == "name" and (why := after_opening_item(text, start)):
            return 0.55, f"'{surface}' in lower case, a rare English word: {why}; {SUBJECT_MARK}"
        if z < 4.2:
            return 0.4, f"'{surface}' in lower case, an English word without a company cue"
        return 0.0, f"'{surface}' in lower case is an English word"
    if upper and len(w) >= 4:
        return (0.9 if z < 4.5 else 0.6), f"'{surface}' in capitals"
    if z < 3.5:
        return 0.95, f"name '{surface}'"
    if z < 4.5:
        return 0.85, f"name '{surface}'"
    return (0.6 if initial else 0.75), f"capitalised '{surface}', also an English word"
