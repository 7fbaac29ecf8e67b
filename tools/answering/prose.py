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

from finrag.tools.answering.extractive import context_label, covered_units
from finrag.tools.vocabulary.dates import MONTH_WORDS

__all__ = ["asked_noun", "prose_answer", "question_form"]

_COUNT = re.compile(r"(?i)\bhow many\b|\bnumber of\b|\b[a-z]+ count\b|\bheadcount\b")
_DATE = re.compile(r"(?i)^\s*(?:when\b|on what date\b|what (?:date|day|year)\b|in (?:what|which) (?:month|year)\b|"
                   r"as of what date\b)")
# one name asked for: "who is/was/signed ...", "which firm ..." ("who are the customers" asks for a description)
_WHO = re.compile(r"(?i)^\s*(?:who (?:is|was|signed|audits|audited|serves|served|leads|led|heads|headed)\b|"
                  r"which (?:firm|accounting firm|audit(?:or|ing firm)|person|executive)\b|"
                  r"what (?:is|was) the name of\b|name the (?:auditor|ceo|cfo|chief)\b)")
_NOUN_AFTER = re.compile(r"(?i)\b(?:how many|number of)\s+(?:(?:full|part)-time\s+|total\s+|retail\s+|active\s+)?([a-z][a-z-]+)")
_NOUN_BEFORE = re.compile(r"(?i)\b([a-z]+)\s+count\b")
_SYNONYMS = {"employees": ("employees", "employee", "people", "associates", "team members", "workers", "staff"),
             "headcount": ("employees", "employee", "people", "associates", "team members", "workers")}
_NUMBER = r"(?:approximately |about |over |more than |nearly |roughly |some |a total of )?\d[\d,]*(?:\.\d+)?(?: (?:thousand|million))?"
_MONTH = MONTH_WORDS + r"\.?"
_A_DATE = re.compile(rf"\b{_MONTH} \d{{1,2}}, (?:19|20)\d\d\b|\b{_MONTH} (?:19|20)\d\d\b|\b(?:in|since|during) (?:19|20)\d\d\b")
_A_NAME = re.compile(r"\b(?:[A-Z][A-Za-z&.'-]+ ){1,4}(?:LLP|LLC|Inc\.|Corporation|Company|& Co\.|L\.P\.)|"
                     r"\b(?:Mr\.|Ms\.|Dr\.) [A-Z][a-z]+|\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?=,? (?:our|the Company's|who|has served|serves|is|was) )")


_HEADING = re.compile(r"^(?:[A-Z][A-Z&'-]+ ){1,6}(?=[A-Z][a-z])")  # a heading line joined to the sentence after it


def question_form(question: str) -> str:
    """'count', 'date', 'name' or '' (another form: yes/no, drivers, a figure, an open question)."""
    if _COUNT.search(question):
        return "count"
    if _DATE.search(question):
        return "date"
    if _WHO.search(question):
        return "name"
    return ""


def asked_noun(question: str) -> tuple[str, ...]:
    """The words a count's noun may be written with ("how many employees" -> employees, people, associates...)."""
    m = _NOUN_AFTER.search(question) or _NOUN_BEFORE.search(question)
    noun = (m.group(1).lower() if m else "headcount" if re.search(r"(?i)headcount", question) else "")
    if noun in ("employee",):
        noun = "employees"
    if not noun:
        return ()
    return _SYNONYMS.get(noun, (noun, noun.rstrip("s")))


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


def prose_answer(question: str, keywords: list[str], contexts: list[dict], company_words: frozenset[str] = frozenset()) -> str:
    """The sentence that answers a count, date or name question, cited, then at most one supporting sentence;
    when none holds such an answer, that is said and the closest passage shown, marked; '' for other forms.
    `company_words`: the words of the asked company's name (a name question's answer is someone else)."""
    form = question_form(question)
    if not form or not contexts:
        return ""
    if form == "name" and not company_words:  # the company the question names, and the filings' own ids
        company_words = frozenset(w.lower() for w in re.findall(r"(?<!^)\b[A-Z][A-Za-z]{2,}", question.strip())) | \
            frozenset(w for c in contexts for w in re.findall(r"[a-z]{3,}", str(c.get("doc_id") or "").split("_")[0].lower()))
    nouns = asked_noun(question) if form == "count" else ()
    if form == "count" and not nouns:
        return ""
    scored, holding = [], []
    passage, before = -1, 0.0  # the coverage of the passage so far, fading by sentence: a name often follows the sentence that asks
    for cov, s, rank, unit, ctx in covered_units(question, keywords, contexts):
        if rank != passage:
            passage, before = rank, 0.0
        scored.append((s, rank, unit, ctx))
        near = max(cov, before * 0.8) if form == "name" else cov
        if _holds(form, unit, nouns, company_words) is not None and near >= 0.3:
            holding.append((near + s - cov, rank, unit, ctx))
        before = max(cov, before * 0.8)
    if not scored:
        return ""
    scored.sort(key=lambda t: (-t[0], t[1]))
    if not holding:
        _s, _r, unit, ctx = scored[0]
        what = f"a number of {nouns[0]}" if form == "count" else f"a {form}"
        return (f"No sentence of the retrieved passages states {what} for this question. The closest passage "
                f"(not an answer): {' '.join(unit.split())[:400]} {context_label(ctx)}")
    holding.sort(key=lambda t: (-t[0], t[1]))
    _s, _r, lead, lead_ctx = holding[0]
    answer = f"{_HEADING.sub('', ' '.join(lead.split()))[:500]} {context_label(lead_ctx)}"
    # a second sentence that also states an answer of the form (another year, another measure of it), if any
    support = next((u for u in holding[1:] if u[2][:80] != lead[:80]), None)
    if support is not None:
        answer += f" Also: {_HEADING.sub('', ' '.join(support[2].split()))[:300]} {context_label(support[3])}"
    return answer
