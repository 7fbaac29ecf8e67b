"""Scoring a ticker-shaped token (a part of the linker, `linker.py`): how sure a word in capitals is a ticker.

`ticker_score` weighs the evidence around one known ticker in a question: ticker context ('$X', 'NYSE: X', '(X)',
'ticker X'), where it sits (the first word of the question, calendar words, numbers and finance abbreviations
before it set aside: "Q2 2024 GM EV capex" opens with GM; or the last), a possessive or 'at' before it (a company cue), whether
it is also an English word, a finance abbreviation or a single letter, whether the question shouts, and whether
another company is named, compared or listed with it. `compared_tickers` lifts two tickers compared with each
other; `ticker_context` says whether a token is written as a ticker.
"""
from __future__ import annotations

import re
from typing import Iterable

from finrag.tools.routing.mentions import EXCHANGE_BEFORE, TICKER_WORD_BEFORE, Candidate
from finrag.tools.routing.shapes import calendar_token, only_capitals
from finrag.tools.routing.subject import AUXILIARY_OPENS, LINE_ITEM, asks_its_line_item
from finrag.tools.routing.text import SUFFIX_WORDS
from finrag.tools.routing.words import english_penalty, is_finance_abbreviation, zipf

__all__ = ["COMPARE_GLUE", "LISTED_BETWEEN", "POSSESSIVE", "after_legal_form", "TICKER_WORD_AFTER", "abbreviated_metric", "closes", "compared_tickers", "metric_next", "opens", "ticker_context",
           "ticker_score"]

_ADVERB_AFTER = re.compile(r"(?i)^\s+(?:still|now|also|really|currently|actually|again|already|ever|finally|"
                           r"even|just)\s+[a-z]")
LISTED_BETWEEN = "listed between two companies"
"""Marks a ticker read as an item of a list of companies ("Toyota, Honda, GM, Ford"), so ranking keeps it."""
LIST_GLUE = re.compile(r"^\s*(?:,|&|/|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*$", re.I)
WORD_GLUE = re.compile(r"^\s*(?:&|/|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*$", re.I)
COMPARE_GLUE = re.compile(r"^\s*(?:,\s*)?(?:vs\.?|v\.?|versus|compared\s+(?:with|to)|relative\s+to|against|than)\s*$", re.I)
_FUNCTION_NEXT = re.compile(r"^\s+(?:a|an|the|this|that|these|those|its|their|our|of|to|is|are|was|were|be|by|with|"
                            r"from|as)\b")
TICKER_WORD_AFTER = re.compile(r"^\s*(?:stock|shares|ticker|equity|'s\s+stock)\b", re.I)
POSSESSIVE = re.compile(r"^(?:['’]s\b|['’](?=\s|$))")
_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an|our|its|their|his|her|your|each|every)\s+$")
"""A word after an article is a noun of the sentence ("the CEO's pay"), not a ticker."""
_LEGAL_FORM_START = re.compile(rf"^\s*,?\s*(?:{SUFFIX_WORDS})\b\.?(?=\s)", re.I)
_AT_BEFORE = re.compile(r"(?i)\bat\s+$")
_EDGE_WORD = re.compile(r"[\w'’/&.\-]+")
_ORDINAL_PERIOD = re.compile(r"(?i)(?:(?:[1-4](?:st|nd|rd|th)|first|second|third|fourth|last)"
                             r"(?:-(?:quarter|qtr|half))?|quarter|qtr|half)")
"""An ordinal period ('3rd quarter', 'second half', 'fourth-quarter'), word by word: a calendar phrase, like 'Q3'."""


def ticker_score(tick: str, dollar: bool, text: str, start: int, end: int, shouting: bool,
                  named: set[str], keys: Iterable[str], named_spans: Iterable[tuple[int, int]] = (),
                  sole_subject: bool = False) -> tuple[float, str]:
    before, after = text[max(0, start - 24):start], text[end:end + 16]
    if dollar or EXCHANGE_BEFORE.search(before):
        return 0.97, "ticker context ($ or exchange prefix)"
    score, why = 0.55, []
    if before.rstrip().endswith("(") and after.lstrip().startswith(")"):
        score += 0.35
        why.append("in parentheses")
    if TICKER_WORD_BEFORE.search(before) or TICKER_WORD_AFTER.match(after):
        score += 0.35
        why.append("next to 'ticker'/'stock'")
    first = opens(text, start)
    if first and _FUNCTION_NEXT.match(after):
        score -= 0.15
        why.append(f"opens the question before '{after.split()[0]}'")
    elif first or end >= len(text.strip().rstrip("?.!")):  # the last word: a year after it is common ("PTC 2024")
        score += 0.15
        why.append("first or last word")
    item = LINE_ITEM.match(text, start)
    if item and item.end() > end:
        score -= 0.5
        why.append(f"begins the line item '{item.group(0)}'")
    if POSSESSIVE.match(after):
        score += 0.1
        why.append("possessive")
    core = tick.split(".")[0].split("-")[0]
    pen = english_penalty(core)
    if pen:
        score -= pen
        why.append(f"English word '{core.lower()}'")
        if not shouting and core not in ("A", "I"):
            score += min(pen, 0.15)  # an English word written in capitals on purpose
            if len(core) >= 2 and not is_finance_abbreviation(core) and only_capitals(text, start, end) \
                    and text[:start].strip():
                score, why = score + 0.15, [*why, "the only word in capitals"]  # "how much did WELL spend"
                if AUXILIARY_OPENS.search(before) and _ADVERB_AFTER.match(after):
                    # "is ON still guiding", "has ALL now raised": the place of a sentence's subject, between its
                    # auxiliary and an adverb; no English word in lower case stands there
                    score, why = score + 0.15, [*why, "the subject of the question's verb"]
    if is_finance_abbreviation(core):
        score -= 0.45
        why.append("finance abbreviation")
    if len(core) == 1:
        score -= 0.2
        why.append("single letter")
        if first and core not in ("A", "I") and not shouting:
            score += 0.1  # no English sentence opens with a lone 'T' or 'F'
            why.append("a lone letter opening the question")
    elif len(core) >= 3 and zipf(core) < 3.0:
        score += 0.1
        why.append("not an English word")
    if shouting:
        score -= 0.25
        why.append("question in capitals")
    elif sole_subject and (pen or is_finance_abbreviation(core) or len(core) == 1) \
            and not LINE_ITEM.fullmatch(core) and (asks_its_line_item(before, text[end:end + 40])
                                                    or metric_next(text, end)):
        # an analyst's terse query: the only company-like word, asking for a line item ("CRM total revenue in
        # its 2025 fiscal year", "total revenue for V in fiscal 2024"): the line item says a company is meant
        score += 0.25
        why.append("the only company-like word, with a line item")
    keys = set(keys)
    # a possessive after it ("CRM's"), or 'at' before it as the last word ("restructuring at CRM FY2024"): the
    # cues that make a name a company's (`Linker._name_cue`) make a ticker one too
    cue = (bool(POSSESSIVE.match(after)) and not _ARTICLE_BEFORE.search(before)) or (
        bool(_AT_BEFORE.search(before)) and closes(text, end))
    if cue and not (named - keys) and (pen or is_finance_abbreviation(core) or len(core) == 1) and not shouting \
            and score < 0.7:
        # "CRM's gross margin", "V's current ratio": a possessive makes a capitalised token a company's ticker,
        # even when it is also a word or an abbreviation, unless another company is named
        score = 0.7
        why.append("possessive or 'at', no other company named")
    if keys & named:
        score += 0.2
        why.append("company also named")
    elif any(COMPARE_GLUE.match(after_legal_form(text[b:start])) or COMPARE_GLUE.match(text[end:a])
             for a, b in named_spans):
        score += 0.45
        why.append("compared with another company")
    elif any(LIST_GLUE.match(after_legal_form(text[b:start])) for _a, b in named_spans) and \
            any(LIST_GLUE.match(text[end:a]) for a, _b in named_spans):
        # "Toyota, Honda, GM, Ford": a list item with a company on either side is one more company, even when it
        # is also an abbreviation (a list of companies does not stop at a metric and go on)
        score = max(score + 0.45, 0.65)
        why.append(LISTED_BETWEEN)
    elif any(glue.match(after_legal_form(text[b:start])) or glue.match(text[end:a]) for a, b in named_spans
             for glue in [WORD_GLUE if is_finance_abbreviation(core) else LIST_GLUE]):
        score += 0.3  # an abbreviation needs a word to be listed ("CF and Nutrien", not "vs FCF, AbbVie")
        why.append("listed with another company")
    elif named and (pen or is_finance_abbreviation(core)):
        score -= 0.15
        why.append("another company is named")
    return max(0.0, min(0.97, score)), ", ".join(why) or "ticker"


def after_legal_form(gap: str) -> str:
    """The gap after a company's name less the legal form that ends the name ("General Motors Company vs F",
    "Cloudflare, Inc. and ZS": the name goes on to its legal form, and the comparison or list comes after it)."""
    return _LEGAL_FORM_START.sub("", gap, count=1)


def compared_tickers(text: str, found: list[Candidate]) -> None:
    """'GM vs F': two known tickers compared with each other name two companies (unless both are finance
    abbreviations: 'CF vs NI conversion'); one of them written as a ticker ('$F versus GM', 'NYSE: F vs GM') makes
    the other one a ticker, though it is also a finance abbreviation."""
    tick = sorted((c for c in found if c.kind == "ticker" and c.key), key=lambda c: c.start)
    for a, b in zip(tick, tick[1:]):
        if a.end <= b.start and COMPARE_GLUE.match(text[a.end:b.start]) and "compared with" not in a.reason \
                and not (is_finance_abbreviation(a.ticker) and is_finance_abbreviation(b.ticker)):
            for c, other in ((a, b), (b, a)):
                c.confidence = min(0.97, c.confidence + 0.3)
                c.reason += ", compared with another ticker"
                if "ticker context" in other.reason and "ticker context" not in c.reason:
                    c.confidence = max(c.confidence, 0.6)  # '$F versus GM': a cashtag's peer is a ticker too
                    c.reason += " written as a ticker"

def ticker_context(text: str, s: int, e: int, dollar: bool) -> bool:
    """'$X', 'NYSE: X', '(X)', 'ticker X', 'X stock': written as a ticker."""
    before, after = text[max(0, s - 24):s], text[e:e + 16]
    return bool(dollar or EXCHANGE_BEFORE.search(before) or TICKER_WORD_BEFORE.search(before)
                or TICKER_WORD_AFTER.match(after)
                or (before.rstrip().endswith("(") and after.lstrip().startswith(")")))


def _edge_word(word: str) -> bool:
    """A word that dates or measures, not a word of the sentence: a calendar word ("Q2", "FY24", "Dec", "1H25",
    "Q4'24"), an ordinal period's word ("3rd", "qtr", "second", "fourth-quarter"), a number or year, or a finance
    abbreviation ("TTM", "OCF", "YoY")."""
    w = word.strip(".,;:!?()'’").rstrip("'’")
    return bool(w) and (calendar_token(w) or bool(re.fullmatch(r"[\d.,%$'’\-/]+", w))
                        or bool(_ORDINAL_PERIOD.fullmatch(w))
                        or is_finance_abbreviation(w) or bool(re.fullmatch(r"(?i)(?:[1-4]q|q[1-4]|[12]h|h[12]|fy|cy)"
                                                                          r"['’]?\d{0,4}", w)))


def metric_next(text: str, end: int) -> bool:
    """Whether the next word is a metric written as an analysts' abbreviation in capitals ("CRM ARR and NRR",
    "GM ASR completed"): it asks for a company's metric as a line item does."""
    m = _EDGE_WORD.match(text[end:].lstrip())
    word = m.group(0).rstrip(".,;:") if m else ""
    return len(word) >= 2 and word[0].isupper() and is_finance_abbreviation(word)


def abbreviated_metric(text: str) -> bool:
    """Whether the text holds a metric written as an analysts' abbreviation in capitals (two letters or more)."""
    return any(len(w) >= 2 and w[0].isupper() and is_finance_abbreviation(w.rstrip(".,;:"))
               for w in _EDGE_WORD.findall(text))


def opens(text: str, start: int) -> bool:
    """Whether the word at `start` opens the question, calendar words, numbers and finance abbreviations before it
    set aside ("Q2 2024 GM EV capex", "OCF GM Cruise losses" open with GM): terse analyst queries put the company
    first or last, and dates and measures around it do not move it."""
    return all(_edge_word(m.group(0)) for m in _EDGE_WORD.finditer(text[:start]))


def closes(text: str, end: int) -> bool:
    """Whether the word ending at `end` closes the question, calendar words, numbers and finance abbreviations after
    it set aside ("HR costs at CRM Q3 FY2024" closes with CRM)."""
    return all(_edge_word(m.group(0)) for m in _EDGE_WORD.finditer(text[end:]))
