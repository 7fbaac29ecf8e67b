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
from finrag.tools.answering.prose_units import (
    closest,
    company_words,
    form_topic,
    period_fit,
    quote,
    repeats,
    topic_words,
)
from finrag.tools.answering.yesno_answer import yesno_answer
from finrag.tools.question import read_question
from finrag.tools.retrieval.form_evidence import MIN_COVER, TopicCover, topic_of
from finrag.tools.vocabulary.answer_shapes import answer_piece, asks_since, period_date, since_date, whole_count

__all__ = ["cut_short", "form_answer", "prose_answer"]


_CHANGE_WORDS = frozenset(("change", "changes", "changed", "difference", "increase", "increased", "decrease",
                           "decreased", "between"))


def cut_short(unit: str) -> float:
    """0.1 when `unit` opens in the middle of a sentence (its first word lower case, a conjunction, or a number
    before a capitalised word, "5 Outlet Centers in fiscal 2024.": the chunk began there, so its subject and what it enumerates "respectively" are lost); 0.0 otherwise."""
    head = unit.lstrip(" \t\n•●-–—")
    return 0.1 if re.match(r"(?:[a-z]|(?:and|or|but|respectively)\b|\d[\d,.]* [A-Z])", head) else 0.0


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
        return form_answer(question, facts.form, tuple(facts.form_nouns), keywords, contexts, company_words, facts)
    if facts.form == "yesno":
        return yesno_answer(question, keywords, contexts, facts, company_words)
    if facts.form == "drivers":
        return drivers_answer(question, keywords, contexts, facts, company_words)
    if facts.form == "list":
        return list_answer(question, tuple(facts.form_nouns), keywords, contexts)
    return ""


def form_answer(question: str, form: str, nouns: tuple[str, ...], keywords: list[str], contexts: list[dict],
                company: frozenset[str] = frozenset(), facts: Optional[QuestionFacts] = None) -> str:
    """The sentence that answers a count, date or name question, cited, then at most one supporting sentence;
    when none holds such an answer, that is said and the closest passage shown, marked.
    `company`: the words of the asked company's name (a name question's answer is someone else).

    A sentence answers when it holds an answer of the form (`answer_piece`) and speaks of at least half of the
    question's topic (`form_evidence.topic_of` over `prose_units.topic_words`: its content words without the
    company's, the years, the words that ask the form and the asked noun: "how many people work for J&J
    worldwide" speaks of 'worldwide'); a question whose topic is only its form ("Meta's headcount at the end of
    2024") takes any such sentence, and a date question whose topic is its frame ("When does Adobe's fiscal year
    end?") speaks of that (`form_topic`). The one covering most of the topic leads, a sentence naming an asked
    year first (`period_fit`), a date that is a period's end ("the year ended December 31, 2018") last
    (`period_date`: a date question asks an event's or a calendar's date, not a report's period; a tenure asked,
    "since what year" or "how long has", is answered by the sentence that says since when: "auditor since 2002"; but a question
    whose topic is its frame and that names a year, "Acme FY2021 end date?", asks that period's end), a sentence cut
    short by its chunk's start after a whole one (`cut_short`: "and 782 warehouses ... respectively" lost the
    subject and the order of its counts), and for a count whose topic is only its noun, the company's whole count
    before a part of it (`whole_count`)."""
    facts = facts if facts is not None else read_question(question)
    if form == "name":  # the company the question names, and the filings' own ids
        company = company | company_words(question, contexts)
    if form == "count" and not nouns:
        return ""
    # a count's change is asked by its counts ("any change in the number of stores"): no sentence writes "change"
    drop = company | (_CHANGE_WORDS if form == "count" else frozenset())
    topic = topic_of(topic_words(question, contexts, also_drop=drop), nouns)
    # a date question whose topic is its frame asks the fiscal year's end: of a year it names ("FY2017 end date"),
    # that year's end date answers, a period's end; of none, or in the present ("When does its fiscal year end?
    # (FY2019 10-K)": the year names the filing), the sentence that says when its years end
    ends_year = (not topic and form == "date" and bool(facts.years_written)
                 and not re.search(r"(?i)\b(?:does|do)\b", question))
    topic = topic or (form_topic(question, contexts, company) if form == "date" else [])
    ends_year = ends_year and "end" in topic
    cover = TopicCover(topic)
    asked = frozenset(re.findall(r"[a-z]{3,}", question.lower())) if form == "name" else frozenset()  # no echo of it
    tenure = form == "date" and asks_since(question)
    scored, holding = [], []
    passage, before = -1, 0.0  # the topic coverage of the passage so far, fading by sentence: a name often follows the sentence that asks
    for cov, s, rank, unit, ctx in covered_units(question, keywords, contexts):
        if rank != passage:
            passage, before = rank, 0.0
        scored.append((s, rank, unit, ctx))
        on_topic = cover(unit)
        near = max(on_topic, before * 0.8) if form == "name" else on_topic
        if near >= MIN_COVER and answer_piece(form, unit, nouns, company, asked) is not None:
            whole = 0.1 if form == "count" and not topic and whole_count(unit, nouns) else 0.0
            whole += 0.3 if tenure and since_date(unit) else 0.0  # "since what year ...": "... since 2002"
            holding.append((near + period_fit(unit, facts) - (0.0 if ends_year else period_date(form, unit)) + whole
                            - cut_short(unit) + s - cov,
                            rank, unit, ctx))
        before = max(on_topic, before * 0.8)
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
