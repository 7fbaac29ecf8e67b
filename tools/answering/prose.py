"""Prose answers that answer: the sentence that states what the question's form asks for, first (issue 50).

A question's form says what its answer is: a count of something for "how many" ("how many employees"), a date
for "when", a name for "who". Among the context's sentences (`extractive._units`, page furniture removed), the one
that covers the question and holds an answer of that form leads the answer, cited; at most one supporting
sentence that also states one follows. Where no sentence holds one, the answer says so and shows the closest passage, marked as such;
the offline strategy never makes up the count, date or name itself. Other forms (yes/no, drivers, open
questions) are answered by `evidence.py` and `extractive.py` as before.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.drivers_answer import drivers_answer
from finrag.tools.answering.extractive import context_label, covered_units
from finrag.tools.answering.list_answer import list_answer
from finrag.tools.answering.prose_units import closest, company_words, quote, repeats
from finrag.tools.answering.yesno_answer import yesno_answer
from finrag.tools.question import read_question
from finrag.tools.vocabulary.dates import MONTH_WORDS

__all__ = ["form_answer", "prose_answer"]

_NUMBER = r"(?:approximately |about |over |more than |nearly |roughly |some |a total of )?\d[\d,]*(?:\.\d+)?(?: (?:thousand|million))?"
_MONTH = MONTH_WORDS + r"\.?"
_A_DATE = re.compile(rf"\b{_MONTH} \d{{1,2}}, (?:19|20)\d\d\b|\b{_MONTH} (?:19|20)\d\d\b|\b(?:in|since|during) (?:19|20)\d\d\b")
_A_NAME = re.compile(r"\b(?:[A-Z][A-Za-z&.'-]+ ){0,3}[A-Z][A-Za-z&.'-]+,? (?:LLP|LLC|Inc\.|Corporation|Company|& Co\.|"
                     r"L\.P\.)|"
                     r"\b(?:Mr\.|Ms\.|Dr\.) [A-Z][a-z]+|\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?=,? (?:our|the Company's|who|has served|serves|is|was) )|"
                     r"\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?= \d\d (?:[A-Z][a-z]+ )*(?:President|Chief|Executive|Senior|Vice|"
                     r"Chair|Director|Treasurer|Controller|General|Secretary)\b)")  # an officers' table: name, age, title


def _holds(form: str, unit: str, nouns: tuple[str, ...], own: frozenset[str] = frozenset()) -> Optional[str]:
    """The piece of `unit` that answers a question of `form` (a count with its noun, a date, a name), or None;
    `own`: the words naming the asked company, which a name answering the question does not hold."""
    if form == "count":
        for noun in nouns:
            stem = re.escape(noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun)
            m = (re.search(rf"(?i)\b{_NUMBER}(?: [a-z-]+){{0,3}} {stem}(?:s|es)?\b", unit)  # "73,300 employees"
                 or re.search(rf"(?i)\b{stem}(?:s|es)?(?: [a-z-]+){{0,3}} (?:was|were|totaled|of)(?: approximately| about)? "
                              rf"\d[\d,]*(?:\.\d+)?\b", unit))                                # "headcount was 125,665"
            if m:
                return m.group(0)
        return None
    if form == "date":
        m = _A_DATE.search(unit)
        return m.group(0) if m else None
    for m in _A_NAME.finditer(unit):  # a name, not the asked company's own ("Pfizer Inc." in its auditor's report)
        if not own or not (set(re.findall(r"[a-z]{3,}", m.group(0).lower())) & own):
            return m.group(0)
    return None


def prose_answer(question: str, keywords: list[str], contexts: list[dict], company_words: frozenset[str] = frozenset(),
                 facts: Optional[QuestionFacts] = None) -> str:
    """The answer of the form the question asks (`QuestionFacts.form`, read once: `facts`, else `read_question`): a
    count, date or name (`form_answer`), Yes or No with the sentence that decides it (`yesno_answer`), the causes of
    a change (`drivers_answer`), the items of a list (`list_answer`); '' for other forms, or when no sentence of a
    drivers or list form answers (the evidence answer then shows the passages)."""
    facts = facts if facts is not None else read_question(question)
    if not contexts:
        return ""
    if facts.form in ("count", "date", "name"):
        return form_answer(question, facts.form, tuple(facts.form_nouns), keywords, contexts, company_words)
    if facts.form == "yesno":
        return yesno_answer(question, keywords, contexts, facts)
    if facts.form == "drivers":
        return drivers_answer(question, keywords, contexts, facts)
    if facts.form == "list":
        return list_answer(question, tuple(facts.form_nouns), keywords, contexts)
    return ""


def form_answer(question: str, form: str, nouns: tuple[str, ...], keywords: list[str], contexts: list[dict],
                company: frozenset[str] = frozenset()) -> str:
    """The sentence that answers a count, date or name question, cited, then at most one supporting sentence;
    when none holds such an answer, that is said and the closest passage shown, marked.
    `company`: the words of the asked company's name (a name question's answer is someone else)."""
    if form == "name" and not company:  # the company the question names, and the filings' own ids
        company = company_words(question, contexts)
    if form == "count" and not nouns:
        return ""
    scored, holding = [], []
    passage, before = -1, 0.0  # the coverage of the passage so far, fading by sentence: a name often follows the sentence that asks
    for cov, s, rank, unit, ctx in covered_units(question, keywords, contexts):
        if rank != passage:
            passage, before = rank, 0.0
        scored.append((s, rank, unit, ctx))
        near = max(cov, before * 0.8) if form == "name" else cov
        if _holds(form, unit, nouns, company) is not None and near >= 0.3:
            holding.append((near + s - cov, rank, unit, ctx))
        before = max(cov, before * 0.8)
    if not scored:
        return ""
    scored.sort(key=lambda t: (-t[0], t[1]))
    if not holding:
        return closest(scored, f"a number of {nouns[0]}" if form == "count" else f"a {form}")
    holding.sort(key=lambda t: (-t[0], t[1]))
    _s, _r, lead, lead_ctx = holding[0]
    answer = f"{quote(lead)} {context_label(lead_ctx)}"
    # a second sentence that also states an answer of the form (another year, another measure of it), if any
    support = next((u for u in holding[1:] if not repeats(lead, u[2])), None)
    if support is not None:
        answer += f" Also: {quote(support[2], 300)} {context_label(support[3])}"
    return answer
