"""Editing a question's text: a company or period put in place of another, pronouns replaced, a slot added.

Every function returns the new text, or None when the text has nothing to replace (the caller then adds the
slot at the end, `append_slot`).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.conversation.slots import COMPANY_PRONOUNS, MEASURE_PRONOUN
from finrag.tools.routing.text import SHORT_SUFFIX_WORDS


def possessive(name: str) -> str:
    """'Acme Widgets' -> "Acme Widgets'", 'Cobalt Software' -> "Cobalt Software's"."""
    return name + ("'" if name.endswith("s") else "'s")


def period_label(years: list[int], periods: list[str]) -> str:
    """How a resolved question names a period: 'FY2023', 'Q2 FY2023', or '' for none."""
    if periods:
        labels = [f"Q{p[5:]} FY{p[:4]}" if "Q" in p and p[:4].isdigit() else p for p in periods]
        return " and ".join(dict.fromkeys(labels))
    return " and ".join(f"FY{y}" for y in sorted(set(years)))


def replace_company(text: str, mentions: list[str], name: str) -> Optional[str]:
    """`text` with its first company mention (of `mentions`) replaced by `name`, possessive kept."""
    for m in sorted({x for x in mentions if x}, key=len, reverse=True):
        rx = re.compile(re.escape(m) + rf"(?:,?\s+(?:{SHORT_SUFFIX_WORDS})\b\.?)?(?P<pos>'s|’s|'(?!\w))?", re.I)
        hit = rx.search(text)
        if hit:
            new = possessive(name) if hit.group("pos") else name
            return text[:hit.start()] + new + text[hit.end():]
    return None


def _period_rx(year: int) -> re.Pattern[str]:
    """A period naming `year` as a question writes it ('FY2022', 'fiscal year 2022', 'Q2 of FY2022', '2022')."""
    yy = f"{year % 100:02d}"
    return re.compile(r"(?:\bQ[1-4]\s*(?:of\s+)?(?:the\s+)?)?(?:\b(?:fiscal\s+year|fiscal|FY)\s*['’]?\s*)?"
                      rf"(?:(?<!\d){year}(?!\d)|(?<=FY){yy}\b|(?<=FY ){yy}\b|(?<=FY'){yy}\b)(?:\s*Q[1-4]\b)?", re.I)


def replace_period(text: str, years: list[int], label: str) -> Optional[str]:
    """`text` with its first mention of one of `years` replaced by `label`."""
    best = None
    for y in years:
        hit = _period_rx(int(y)).search(text)
        if hit and (best is None or hit.start() < best.start()):
            best = hit
    if best is None:
        return None
    return text[:best.start()] + label + text[best.end():]


def replace_words(text: str, words: str, new: str) -> Optional[str]:
    """`text` with the phrase `words` (as written in it) replaced by `new`."""
    i = text.find(words) if words else -1
    return None if i < 0 else text[:i] + new + text[i + len(words):]


def replace_company_pronouns(text: str, name: str) -> Optional[str]:
    """`text` with "its" / "their" / "the company's" made `name`'s and "it" / "they" / "the company" made
    `name`."""
    def sub(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        return possessive(name) if word in ("its", "their") or word.endswith(("'s", "’s")) else name

    new, n = COMPANY_PRONOUNS.subn(sub, text)
    return new if n else None


def replace_measure_pronoun(text: str, phrase: str) -> Optional[str]:
    """`text` with the "that" / "this" / "it" that stands for the previous figure replaced by `phrase`."""
    new, n = MEASURE_PRONOUN.subn(phrase, text, count=1)
    return new if n else None


def append_slot(text: str, phrase: str) -> str:
    """`text` with `phrase` added before its final question mark ('What was revenue?' + 'in FY2023')."""
    body = text.rstrip()
    end = ""
    while body and body[-1] in "?.!":
        end = body[-1] + end
        body = body[:-1].rstrip()
    return f"{body} {phrase}{end or '?'}"


def capitalised(text: str) -> str:
    """The question with its first letter upper case."""
    return text[:1].upper() + text[1:] if text else text
