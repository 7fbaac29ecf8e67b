"""Which slots a question sets itself: company, period, measure, form, and its references to an earlier turn.

Nothing here parses periods or names: the registry's linker (`Registry.link`) reads companies, years, fiscal
periods and forms, and the reader's line items (`item_in_question`) read the measure. What this module adds is
only the conversational part: pronouns ("its", "their", "that"), ellipsis ("and in FY2023?", "what about
Cobalt?") and periods relative to the previous turn ("the year before", "the prior year").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from finrag.tools.routing.mentions import ACCEPT
from finrag.tools.vocabulary.line_items import item_in_question

RELATIVE_PERIODS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"\b(?:the\s+)?(?:prior|previous|preceding)\s+(?:fiscal\s+)?year\b|\bthe\s+year\s+before\b|"
                r"\b(?:a|one)\s+year\s+(?:earlier|before)\b|\bthe\s+year\s+prior\b", re.I), -1),
    (re.compile(r"\b(?:the\s+)?(?:following|next|subsequent)\s+(?:fiscal\s+)?year\b|\bthe\s+year\s+after\b|"
                r"\b(?:a|one)\s+year\s+later\b", re.I), +1),
]
"""Periods named relative to the previous turn's, with the shift in years."""

COMPANY_PRONOUNS = re.compile(r"\b(?:its|their|it|they|them|the\s+company(?:'s|’s)?|the\s+firm(?:'s|’s)?|"
                              r"this\s+company(?:'s|’s)?|that\s+company(?:'s|’s)?|the\s+same\s+company(?:'s|’s)?)\b",
                              re.I)
"""Words that point back at the previous turn's company."""

MEASURE_PRONOUN = re.compile(r"\b(?:that|this|it)\b(?=\s+(?:compare|compared|change|changed|grow|grew|move|moved|"
                             r"look|figure|number|amount|evolve|evolved|go|went)\b|\s*(?:\?|$))", re.I)
"""'that' / 'this' / 'it' standing for the previous turn's figure ("How does that compare ...?")."""

FILLER = frozenset("""a an and also about as at be by did do does for from how in is of on or same so the then
to too was were what whats what's when which who whose again please now tell me us give show same for versus vs
fiscal fy year years quarter q1 q2 q3 q4 its it their they them that this company firm prior previous preceding
before earlier following next subsequent after later one period there end beginning start close""".split())
"""Words that carry no content of their own in a follow-up ("And what about ... in ...?")."""

WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")


@dataclass
class QuestionSlots:
    """What one question says for itself."""

    company: Optional[str] = None
    """The company it names (the registry's display name, or a name the index does not hold)."""
    company_key: Optional[str] = None
    """The registry key of `company` ('' for a company the index does not hold)."""
    mentions: list[str] = field(default_factory=list)
    """The text of each company mention, as written (e.g. "CBLT", "Acme Widgets")."""
    years: list[int] = field(default_factory=list)
    periods: list[str] = field(default_factory=list)
    """What the linker read: years and fiscal periods ('FY2022', '2023Q2')."""
    forms: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)
    """Line items it names (`finrag.tools.vocabulary.line_items`), e.g. ['revenue']."""
    shift: int = 0
    """A period relative to the previous turn's: -1 for "the year before", +1 for "the following year"."""
    shift_text: str = ""
    """The words of that relative period, as written."""
    company_pronoun: bool = False
    """It points at an earlier company ("its", "their", "the company")."""
    measure_pronoun: bool = False
    """It points at an earlier figure ("How does that compare ...?")."""
    content: list[str] = field(default_factory=list)
    """Its words that are neither a company, a period nor filler: empty for pure ellipsis ("And in FY2023?")."""

    @property
    def has_period(self) -> bool:
        """Does it name a period itself (absolutely)?"""
        return bool(self.years or self.periods)

    @property
    def elliptical(self) -> bool:
        """Is it only a change of company or period of the previous question ("What about Cobalt?")?"""
        return not self.content and not self.measures


def linked_company(extracted: Any) -> tuple[Optional[str], Optional[str], list[str]]:
    """(name, registry key, mention texts) of the company a linked question names: the best accepted candidate
    the index holds, else the first name it does not hold; (None, None, []) when it names none."""
    cands = [c for c in (extracted.candidates or []) if float(c.get("confidence") or 0) >= ACCEPT]
    indexed = sorted((c for c in cands if c.get("in_index")), key=lambda c: -float(c.get("confidence") or 0))
    mentions = [str(c.get("text") or "") for c in cands if c.get("text")]
    if indexed:
        best = indexed[0]
        return str(best.get("name") or ""), str(best.get("key") or ""), mentions
    if extracted.not_indexed:
        return str(extracted.not_indexed[0]), "", mentions
    return None, None, mentions


def content_words(question: str, mentions: list[str]) -> list[str]:
    """The question's words that are not a company mention, a number or filler."""
    text = question
    for m in sorted(mentions, key=len, reverse=True):
        text = re.sub(re.escape(m) + r"(?:'s|’s|')?", " ", text, flags=re.I)
    text = re.sub(r"\b[\w'’]*\d[\w'’]*\b", " ", text)
    return [w for w in (x.lower().strip("'’-") for x in WORD.findall(text))
            if w and w not in FILLER and not w.endswith(("'s", "’s"))]


def read_slots(question: str, registry: Any) -> QuestionSlots:
    """The slots `question` sets itself, read with the registry's linker and the reader's line items."""
    ex = registry.link(question)
    name, key, mentions = linked_company(ex)
    slots = QuestionSlots(company=name, company_key=key, mentions=mentions, years=list(ex.years or []),
                          periods=list(ex.periods or []), forms=list(ex.forms or []),
                          measures=[item for _, item in item_in_question(question)])
    for rx, shift in RELATIVE_PERIODS:
        m = rx.search(question)
        if m:
            slots.shift, slots.shift_text = shift, m.group(0)
            break
    masked = question
    for mention in mentions:
        masked = re.sub(re.escape(mention), " ", masked, flags=re.I)
    slots.company_pronoun = bool(COMPANY_PRONOUNS.search(masked))
    slots.measure_pronoun = bool(MEASURE_PRONOUN.search(masked)) and not slots.measures
    slots.content = content_words(question, mentions)
    return slots
