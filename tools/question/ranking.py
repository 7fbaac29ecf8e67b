"""Ranking questions: which segment, region, product category or balance-sheet item ranks first, or which parts
pass a share of the total.

    ranking_of("Which region had the worst topline performance for MGM during FY2022?")
    # Ranking(group='member', by='growth', order='lowest', measure='revenue', kind_word='region')

Read from the question's head alone (`finrag.tools.question.read_question`); the answerers
(`finrag.tools.answering.rankings` for statement tables, `finrag.tools.answering.member_ranking` for inline-XBRL
member facts) take the result from `QuestionFacts.ranking`. A question that names no breakdown noun ("Which
quarter ..."), no superlative or share, or a measure the answerers do not rank (a margin, a ratio) is not a
ranking question: None.
"""
from __future__ import annotations

import re
from typing import Literal, Optional

from finrag.state.question import RankBy, RankGroup, Ranking, RankMeasure

__all__ = ["ranking_of"]

_MEMBER_NOUN = (r"(?:(?:reportable|operating|business|geographic(?:al)?|product ?(?:and |or |/ ?)?service|product|"
                r"service|sales) ){0,2}(?:segments?|regions?|geograph(?:y|ies|ic areas?)|markets?|categor(?:y|ies)|"
                r"product lines?|business(?:es| lines?| units?)?|divisions?|countr(?:y|ies)|brands?|"
                r"(?<=service )lines?|(?:revenue|sales) (?:sources?|streams?|types?|lines?)|"
                r"(?:sources?|streams?|types?|lines?) of (?:revenue|sales)|parts? of the world)")
_WHICH = re.compile(rf"(?i)\b(?:which|what|identify|name)\b(?:\s+\S+){{0,4}}?\s+(?P<noun>{_MEMBER_NOUN})\b")
_NOUN = re.compile(rf"(?i)\b(?P<noun>{_MEMBER_NOUN})\b")
_ANY_PARTS = re.compile(rf"(?i)\b(?:are there any|is there any|which|what)\b.*?(?P<noun>{_MEMBER_NOUN})\b")
_BALANCE = re.compile(r"(?i)\b(?:which|what)\b(?:\s+\S+){0,4}?\s+(?:the\s+)?(?P<sup>largest|biggest|greatest|"
                      r"highest|smallest|lowest)\s+(?P<noun>liabilit(?:y|ies)|assets?)\b")
_HIGH = re.compile(r"(?i)\b(?:highest|largest|biggest|greatest|most|best|top|strongest|fastest|leading)\b")
_LOW = re.compile(r"(?i)\b(?:lowest|smallest|least|worst|weakest|slowest)\b")
_GROWTH = re.compile(r"(?i)\b(?:perform(?:ed|ance|ing)?|grow(?:th|n)?|grew|increase[ds]?|declin(?:e|ed|es)|"
                     r"decrease[ds]?|change[ds]?)\b")
_SHARE = re.compile(r"(?i)\bcontribut(?:ion|ed|es|or)\b|\bshare of\b|(?:%|\bpercent(?:age)?) of\b|"
                    r"\brepresent(?:s|ed)?\b|\baccount(?:s|ed)? for\b|\bmake up\b|\bcompris(?:e|es|ed)\b")
_OVER = re.compile(r"(?i)\b(?:more|greater|higher) than (\d{1,2}(?:\.\d+)?)\s*(?:%|percent)|\bover (\d{1,2}(?:\.\d+)?)"
                   r"\s*(?:%|percent)")
_MEASURES: list[tuple[RankMeasure, re.Pattern]] = [
    ("ebitda", re.compile(r"(?i)\bebitda(?:r)?\b")),
    ("operating_income", re.compile(r"(?i)\boperating (?:income|profit|earnings)\b|\bsegment (?:profit|earnings)\b|"
                                    r"\bearnings from operations\b")),
    ("net_income", re.compile(r"(?i)\bnet income\b|\bnet earnings\b")),
    ("revenue", re.compile(r"(?i)\brevenues?\b|\bsales\b|\btop[- ]?line\b")),
]
_NOT_RANKED = re.compile(r"(?i)\bmargins?\b|\bratio\b|\breturn on\b|\bper share\b|\bheadcount\b|\bemployees\b|"
                         r"\bstores?\b|\bcustomers?\b(?!\s+(?:regions?|segments?|markets?|countr(?:y|ies)|geograph))")


def _singular(noun: str) -> str:
    """'product categories' -> 'product category', 'regions' -> 'region', 'liabilities' -> 'liability'."""
    words = noun.lower().split()
    last = words[-1]
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("sses", "shes", "ches")) or last == "businesses":
        last = last[:-2]
    elif last.endswith("s") and not last.endswith("ss"):
        last = last[:-1]
    return " ".join(words[:-1] + [last])


def _measure(text: str) -> Optional[RankMeasure]:
    for name, pat in _MEASURES:
        if pat.search(text):
            return name
    return None


_SUPERLATIVE = (r"(?:highest|largest|biggest|greatest|top|strongest|fastest|leading|lowest|smallest|weakest|slowest|"
                r"least|most|worst|best)")
_OF_THE = re.compile(rf"(?i)\b(?:of|among|across)\s+(?:[\w.&'’-]+\s+){{0,4}}?(?P<noun>{_MEMBER_NOUN})\b[^?]*?,?\s*"
                     rf"\b(?:which|what)\b")
_WHOSE_SUP = re.compile(rf"(?i)\b(?P<sup>{_SUPERLATIVE})[\s-]+(?:[\w-]+\s+){{0,1}}?"
                        rf"(?P<noun>{_MEMBER_NOUN})\b")
_WHERE = re.compile(rf"(?i)\bwhere\b[^?]*?\b{_SUPERLATIVE}\b[^?]*?\b(?P<noun>revenues?|sales)\b")
"""'Where did Tesla generate the least revenue?': a ranking of places (the noun is replaced by 'region')."""
_BY_NOUN = re.compile(rf"(?i)\bby\s+(?:the\s+)?(?P<noun>{_MEMBER_NOUN})\b")
_WHICH_SUP_OF = re.compile(rf"(?i)\b(?P<sup>{_SUPERLATIVE})\s+(?:one\s+)?(?:of|among)\s+"
                           rf"(?:the\s+|its\s+|[\w.&-]+(?:'s|’s|s')\s+)?(?:[\w-]+\s+){{0,2}}?(?P<noun>{_MEMBER_NOUN})\b")


def _breakdown_noun(text: str) -> Optional[re.Match]:
    """The breakdown noun the question ranks: of a "which ..." question, the last one before the next superlative
    ("Which of International Business Machines' regions had the lowest ..." ranks regions, not businesses); of
    "Of the countries Amazon breaks out, which had ..." the noun before "which"; of "Meta's largest geographic
    region by revenue" the noun after the superlative."""
    first = _WHICH.search(text)
    if first is None:
        return _OF_THE.search(text) or _WHICH_SUP_OF.search(text) or _WHOSE_SUP.search(text)
    sup = _HIGH.search(text, first.end()) or _LOW.search(text, first.end())
    later = list(_NOUN.finditer(text, first.end(), sup.start() if sup else len(text)))
    return later[-1] if later else first


def _superlative_span(text: str, noun_m: re.Match) -> str:
    """Where the superlative is looked for: after the breakdown noun, and before it when it qualifies the noun
    ("What was Apple's smallest product category by net sales", "Meta's largest geographic region")."""
    before = text[:noun_m.start("noun")]
    m = re.search(rf"(?i)\b{_SUPERLATIVE}\b[^,;]{{0,80}}$", before)
    return (m.group(0) if m else "") + text[noun_m.end():]


def ranking_of(head: str) -> Optional[Ranking]:
    """The ranking the question asks (see the module docstring), or None."""
    text = " ".join(head.split())
    m = _BALANCE.search(text)
    if m and re.search(r"(?i)\bbalance sheets?\b|\bliabilit|\bassets?\b", text):
        noun = _singular(m.group("noun"))
        group: RankGroup = "liability" if noun.startswith("liabilit") else "asset"
        order: Literal["highest", "lowest"] = "lowest" if _LOW.fullmatch(m.group("sup")) else "highest"
        return Ranking(group=group, by="value", order=order, measure="balance", kind_word=noun)
    if _NOT_RANKED.search(text):
        return None
    over = _OVER.search(text)
    if over:
        noun_m = _ANY_PARTS.search(text)
        if noun_m is None or not _SHARE.search(text):
            return None
        threshold = float(over.group(1) or over.group(2))
        return Ranking(group="member", by="share", measure=_measure(text) or "revenue", over=threshold,
                       kind_word=_singular(noun_m.group("noun")))
    noun_m = _breakdown_noun(text) or _WHERE.search(text)
    if noun_m is None:
        return None
    rest = _superlative_span(text, noun_m)
    high, low = _HIGH.search(rest), _LOW.search(rest)
    if not high and not low:
        return None
    end: Literal["highest", "lowest"] = "lowest" if low and (not high or low.start() < high.start()) else "highest"
    by: RankBy = "share" if _SHARE.search(rest) else "growth" if _GROWTH.search(rest) else "value"
    measure = _measure(text)
    if measure is None:
        if by != "growth":  # "the largest region" names no measure to rank by
            return None
        measure = "revenue"  # "performed the best": the top line
    by_noun = _BY_NOUN.search(text)  # "biggest revenue source by product/service line": the breakdown is after "by"
    kind = by_noun.group("noun") if by_noun else "region" if noun_m.re is _WHERE else ""
    return Ranking(group="member", by=by, order=end, measure=measure,
                   kind_word=_singular(kind or noun_m.group("noun")))
