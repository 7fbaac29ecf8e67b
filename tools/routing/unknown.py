"""Company-like mentions the index does not hold (a part of the linker, `linker.py`): a capitalised run before a
legal-form word ("Zorblax Corporation"), a possessive ("Zorblax's"), a run of capitalised words or a word that is not
English at all, and an unknown ticker in ticker context ("$ZBLX")."""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.routing.mentions import EXCHANGE_BEFORE, TICKER_WORD_BEFORE, Candidate, sentence_initial
from finrag.tools.routing.text import CASED_SUFFIX_WORD
from finrag.tools.routing.words import QUESTION_WORDS, is_finance_abbreviation, zipf
from finrag.tools.vocabulary.dates import MONTH_RE

__all__ = ["unknown_names", "unknown_ticker"]

_CAP_WORD = r"(?:[A-Z][\w'’\-]*|&|of|and|de)"
_UNKNOWN_WITH_SUFFIX = re.compile(rf"\b((?:[A-Z][\w\-]*)(?:\s+{_CAP_WORD}){{0,3}}),?\s+({CASED_SUFFIX_WORD.pattern})(?![\w])")
_UNKNOWN_POSSESSIVE = re.compile(r"\b([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2})['’]s\b")
_NOT_NAME_WORDS = re.compile(rf"^(?:{MONTH_RE}|FY\w*|Q[1-4]\w*|H[12]|CY\w*|YE\w*|Form|Item|Part|Note|Section|Schedule)$",
                             re.I)


def unknown_ticker(tick: str, dollar: bool, text: str, s: int, e: int, shouting: bool) -> Optional[Candidate]:
    """A ticker-shaped token no registrant has: a candidate in ticker context ('$ZBLX'), or a weak one when it is
    no English word; None otherwise."""
    core = tick.split(".")[0]
    if len(core) < 2 or is_finance_abbreviation(core) or shouting:
        return None
    before, after = text[max(0, s - 24):s], text[e:e + 16]
    strong = dollar or EXCHANGE_BEFORE.search(before) or TICKER_WORD_BEFORE.search(before) \
        or (before.rstrip().endswith("(") and after.lstrip().startswith(")") and zipf(core) < 3.0)
    if strong:
        return Candidate(tick, "", False, 0.85, f"unknown ticker {tick} in ticker context", "unknown", tick, s, e,
                         ticker=tick)
    if len(core) >= 3 and zipf(core) < 2.5:
        return Candidate(tick, "", False, 0.45, f"unknown ticker-shaped {tick}", "unknown", tick, s, e, ticker=tick)
    return None


def unknown_names(text: str, taken: list[tuple[int, int]]) -> list[Candidate]:
    """Company-like names outside the `taken` spans: before a legal-form word, a possessive, capitalised runs and
    words that are no English word."""
    out: list[Candidate] = []

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in taken)

    def clean_run(run: str) -> str:
        words = run.split()
        while words and (words[0].lower() in QUESTION_WORDS or _NOT_NAME_WORDS.match(words[0])):
            words.pop(0)
        return " ".join(words)

    for m in _UNKNOWN_WITH_SUFFIX.finditer(text):
        run = clean_run(m.group(1))
        if run and free(m.start(1), m.end(2)) and not re.search(r"\d", run):
            name = f"{run} {m.group(2)}".strip()
            out.append(Candidate(name, "", False, 0.9, f"'{name}' ends with a legal-form word", "unknown", name,
                                 m.start(1), m.end(2)))
    for m in _UNKNOWN_POSSESSIVE.finditer(text):
        run = clean_run(m.group(1))
        if not run or not free(m.start(1), m.end(1)) or re.search(r"\d", run) or run.isupper():
            continue
        rare = min(zipf(w) for w in run.split())
        if rare < 3.5:
            out.append(Candidate(run, "", False, 0.75, f"possessive '{run}'s', not an English word", "unknown",
                                 run, m.start(1), m.end(1)))
    for m in re.finditer(r"\b[A-Z][a-z][\w\-]*(?:\s+[A-Z][a-z][\w\-]*){1,3}\b", text):
        words = m.group(0).split()
        if sentence_initial(text, m.start()) and words[0].lower() in QUESTION_WORDS:
            continue
        if free(m.start(), m.end()) and min(zipf(w) for w in words) < 4.0 \
                and not any(_NOT_NAME_WORDS.match(w) or w.lower() in QUESTION_WORDS for w in words) \
                and not any(c.start < m.end() and m.start() < c.end for c in out):
            out.append(Candidate(m.group(0), "", False, 0.55, f"'{m.group(0)}' is a run of capitalised words",
                                 "unknown", m.group(0), m.start(), m.end()))
    for m in re.finditer(r"\b[A-Z][a-z][\w\-]{2,}\b", text):
        w = m.group(0)
        rare = 2.0 if sentence_initial(text, m.start()) else 3.0
        if free(m.start(), m.end()) and zipf(w) < rare and not _NOT_NAME_WORDS.match(w) \
                and not is_finance_abbreviation(w) \
                and not any(c.start <= m.start() < c.end for c in out):
            out.append(Candidate(w, "", False, 0.6, f"'{w}' is capitalised and not an English word", "unknown",
                                 w, m.start(), m.end()))
    return out
