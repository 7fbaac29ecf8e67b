"""Where a word sits, evidence that it is no company by itself (issue 48; a part of the linker).

Calendar words (`calendar_word`: 'Q2', 'H1', 'FY', 'Nov', 'DEC 2023') are never a company by themselves unless
written as a ticker ('$NOV'). A name or ticker the linker reads is set to no company (`veto_by_shape`) when the words
around it make it part of something else:

* **a hyphenated compound of capitalised words** it only begins or ends ("Rent" of "Enterprise Rent-A-Car",
  "Benz" of "Mercedes-Benz"): the compound is one name, and a company matched on part of it is not that name
  ("Coca-Cola", read whole, is not a part; a lower-case tail, "Berkshire-owned", keeps the company);
* **a unit**: a slash and a lower-case rate after it ("BOE/d", "MMBtu/d", "Mcf/yr"): barrels of oil equivalent a
  day, not the ticker BOE;
* **a person's or place's name**: a capitalised word right after a lower-case name particle ("da Vinci", "van
  Gogh", "de la Rosa"), or a single capital with a possessive right after a capitalised word ("Mickey D's");
* **what the question asks of a company it names**: a ticker-shaped word in capitals, with no ticker context,
  right before "for", "of" or "at" and another company's name ("ETR for Alphabet", "ROIC of Microsoft"): a metric
  of that company, not a second one;
* **a product of a company the index does not hold**: a word derived from a registrant's name right after a
  capitalised word that is no English word or a camel-case brand, and no known company ("SpaceX Starlink"), is set aside
  (`products_of_unknown`); so is a ticker in capitals right after a run of capitalised words that names no known
  company ("Samsung Electronics HBM": the unknown company's product, `abbreviation_of_unknown`), and a registrant
  named by one generic word that ends such a run ("Pellucid Harbor Bancorp" is not The Bancorp,
  `generic_tail_of_unknown`).
"""
from __future__ import annotations

import re
from typing import Iterable

from finrag.tools.routing.mentions import Candidate
from finrag.tools.routing.subject import GENERIC_SUBJECT
from finrag.tools.routing.words import zipf
from finrag.tools.vocabulary.dates import MONTH_RE

__all__ = ["abbreviation_of_unknown", "generic_tail_of_unknown", "asked_of_group", "asked_of_named", "asked_of_unknown", "unknown_continuation", "LISTED_TICKERS", "listed_capitals", "only_capitals", "calendar_token", "calendar_word", "ends_many_names", "not_a_company_alone", "products_of_unknown",
           "veto_by_shape"]

_COMPOUND_BEFORE = re.compile(r"[A-Za-z0-9]-$")
_COMPOUND_AFTER = re.compile(r"^-[A-Z0-9]")
_UNIT_AFTER = re.compile(r"^/[a-z]{1,4}\b")
_SLASH_LIST = re.compile(r"[A-Za-z]{1,5}(?:/[A-Za-z]{1,5}){2,}")
"""Three or more short words joined by slashes ("jpm/bac/c/wfc") are a list: a rate has one slash ("$/bbl")."""


def _slashed(text: str, start: int, end: int) -> str:
    """The run of letters and slashes around text[start:end]."""
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "/"):
        start -= 1
    while end < len(text) and (text[end].isalpha() or text[end] == "/"):
        end += 1
    return text[start:end]
_PARTICLE_BEFORE = re.compile(r"(?<![\w'’])(?:da|de|di|del|della|van|von|der|den|du|le|la|dos|das)\s+$")
_CAPITALISED_WORD_BEFORE = re.compile(r"(?<![\w'’.&\-])[A-Z][a-z]+\s+$")
_POSSESSIVE_AFTER = re.compile(r"^['’]s\b")
_UNKNOWN_BEFORE = re.compile(r"(?<![\w'’&.\-])([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*) $")
_ASKED_OF = re.compile(r"^\s+(?:for|of|at)\s+(?:the\s+)?$", re.I)
_ASKED_OF_GROUP = re.compile(r"(?i)^\s+(?:for|of|at)\s+(?:the\s+|all\s+|most\s+)?(?:[\w&\-]+\s+){0,2}"
                             + GENERIC_SUBJECT.pattern.replace("(?i)", "").removeprefix("\\b"))


_PERIOD_WORD = re.compile(r"(?i)^(?:Q[1-4]|[1-4]Q|H[12]|[12]H|FY|CY|YE|FYE)$")
_MONTH_WORD = re.compile(rf"(?i)^{MONTH_RE}$")
_NUMBER_NEAR = re.compile(r"^\s*(?:['’]?\d)")
_PERIOD_NOUN_AFTER = re.compile(r"(?i)^\s*(?:qtrs?|quarters?|months?|mos?|year[- ]?end|quarter[- ]?end|fiscal|fy|"
                                r"qtd|mtd|ytd)\b")


def calendar_word(text: str, start: int, end: int) -> bool:
    """Whether the word at text[start:end] is a calendar word, never a company by itself (unless written as a
    ticker: '$NOV', 'NYSE: NOV', 'ticker NOV'): a quarter, half or fiscal-period word ('Q2', 'H1', 'FY'); a month
    or its abbreviation not written in capitals ('Nov', 'Dec'), or next to a number ('DEC 2023', "NOV '23") or before
    a period noun ('DEC qtr', 'the DEC quarter', 'JUN year-end')."""
    word = text[start:end]
    if _PERIOD_WORD.match(word):
        return True
    if not _MONTH_WORD.match(word):
        return False
    return not word.isupper() or bool(_NUMBER_NEAR.match(text[end:end + 4])) \
        or bool(_PERIOD_NOUN_AFTER.match(text[end:end + 14])) \
        or bool(re.search(r"\d\s*$", text[max(0, start - 4):start]))


def calendar_token(word: str) -> bool:
    """Whether a word is a period word or a month, whatever its case ('q3', 'dec')."""
    return bool(_PERIOD_WORD.match(word) or _MONTH_WORD.match(word))


def not_a_company_alone(text: str, start: int, end: int) -> str:
    """Why the word at text[start:end] is part of a larger name or a unit ('' when nothing says so)."""
    before, after = text[max(0, start - 2):start], text[end:end + 6]
    if (_COMPOUND_BEFORE.search(before) and text[start:start + 1].isupper()) or _COMPOUND_AFTER.match(after):
        return "part of a hyphenated compound of capitalised words"
    if _UNIT_AFTER.match(after) and not _SLASH_LIST.fullmatch(_slashed(text, start, end)):
        return "a unit (a rate after a slash)"
    head = text[max(0, start - 12):start]
    if _PARTICLE_BEFORE.search(head) and text[start:start + 1].isupper():
        return "a name after a lower-case name particle (a person's or a place's)"
    if end - start == 1 and _POSSESSIVE_AFTER.match(after) and _CAPITALISED_WORD_BEFORE.search(text[:start]):
        return "a single capital with a possessive after a capitalised word: the end of a nickname"
    return ""


def asked_of_named(text: str, tickers: Iterable[Candidate], named: Iterable[Candidate]) -> None:
    """'ETR for Alphabet': a ticker in capitals without ticker context, right before 'for'/'of'/'at' and another
    company's accepted name, is what the question asks of that company (its confidence goes to 0, the reason says
    why); changed in place."""
    starts = {c.start: c for c in named if c.accepted and c.key and c.kind != "ticker"}
    if not starts:
        return
    for t in tickers:
        if t.kind != "ticker" or not t.accepted or not t.text.isupper() or "ticker context" in t.reason \
                or "parentheses" in t.reason or "next to 'ticker'" in t.reason:
            continue
        for s, owner in starts.items():
            if s > t.end and owner.key != t.key and _ASKED_OF.match(text[t.end:s]):
                t.confidence = 0.0
                t.reason += f"; what the question asks of {owner.name} ('{text[t.start:s]}{owner.text}')"
                break


def asked_of_group(text: str, tickers: Iterable[Candidate]) -> None:
    """'the typical ETR for US corporates', 'ROE of large banks': a ticker in capitals without ticker context or a
    possessive, right before 'for'/'of'/'at' and a word for many companies (`GENERIC_SUBJECT`), is what the question
    asks of that group, not a company (its confidence goes to 0; "AAPL among S&P 500 companies" places a company in
    a group and stays); changed in place."""
    for t in tickers:
        if t.kind != "ticker" or not t.accepted or not t.text.isupper() or "ticker context" in t.reason \
                or "parentheses" in t.reason or "next to 'ticker'" in t.reason or "possessive" in t.reason:
            continue
        if _ASKED_OF_GROUP.match(text[t.end:t.end + 60]):
            t.confidence = 0.0
            t.reason += "; what the question asks of a group of companies"


def only_capitals(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is the only word with a capital letter in the question ("how much did WELL spend on
    acquisitions"): written in capitals on purpose, as a ticker, in a question typed in lower case (the caller
    leaves out a first word: "ON balance sheet vs off" shouts a word)."""
    return not re.search(r"[A-Z]", text[:start] + text[end:])


_LIST_GAP = re.compile(r"^\s*(?:,\s*(?:and\s+|&\s+)?|&\s*|/\s*|and\s+)$")
LISTED_TICKERS = "one of a list of tickers"
"""Marks a ticker `listed_capitals` read as one of a list: ranking links it to the others, an abbreviation included."""


def listed_capitals(text: str, tickers: list[Candidate], abbreviation, accept: float) -> None:
    """'JPM, BAC, WFC, C and GS': in a list of three or more known tickers in capitals joined by commas, 'and', '&'
    or '/', two of them accepted and no finance abbreviation (`abbreviation`), one of those no word ('JPM', 'WFC'),
    every member is a ticker, a letter or a word among them included ('C', 'GS'). A finance abbreviation is a member
    too ("CRM, NOW, WDAY", "GM, F, TSLA"), unless another abbreviation stands next to it in the list ("NII, ROE"
    are metrics listed) or it ends the list ("AAPL, MSFT and IT": as likely what is asked of them). Changed in
    place."""
    known = sorted((t for t in tickers if t.kind == "ticker" and t.key and t.text.isupper()), key=lambda t: t.start)
    runs: list[list[Candidate]] = []
    for t in known:
        if runs and runs[-1][-1].start == t.start:
            runs[-1].append(t)  # another company of the same ticker
        elif runs and runs[-1][-1].end <= t.start and _LIST_GAP.match(text[runs[-1][-1].end:t.start]):
            runs[-1].append(t)
        else:
            runs.append([t])
    for run in runs:
        starts = sorted({t.start for t in run})
        abbreviated = [abbreviation(text[s:next(t.end for t in run if t.start == s)]) for s in starts]
        if any(a and b for a, b in zip(abbreviated, abbreviated[1:])):
            run = [t for t in run if not abbreviation(t.text)]  # a list of metrics among them: tickers only
        elif abbreviated and abbreviated[-1]:
            run = [t for t in run if t.start != starts[-1]]  # "AAPL, MSFT and IT": what is asked of the list
        plain = [t for t in run if not abbreviation(t.text)]
        if len({t.start for t in run}) < 3 or sum(1 for t in plain if t.accepted) < 2 \
                or not any(t.accepted and not t.wordish for t in plain):
            continue
        for t in run:
            if not t.accepted and t.confidence > 0:
                t.confidence = accept + 0.05
                t.reason += f", {LISTED_TICKERS}"


def veto_by_shape(text: str, found: list[Candidate]) -> None:
    """Readings the words around them make part of something else (`shapes.not_a_company_alone`): no company
    unless written as a ticker ('$BOE')."""
    for c in found:
        if c.confidence > 0 and c.key and "ticker context" not in c.reason \
                and (why := not_a_company_alone(text, c.start, c.end)):
            c.confidence, c.reason = 0.0, f"{c.reason}; '{c.text}' is {why}"


def _known_over(known: Iterable[Candidate], start: int, end: int) -> list[Candidate]:
    """The readings of a known company (a key, some confidence) that overlap text[start:end]."""
    return [k for k in known if k.key and k.confidence > 0 and k.start < end and start < k.end]


TAILS_OF_MANY = 10
"""A word ends many registrants' names ('Holdings', 'Bancorp', 'Electronics') when it ends this many on the SEC list."""


def ends_many_names(word: str, tails: dict[str, int]) -> bool:
    """Whether `word` ends `TAILS_OF_MANY` registrants' names or more (`tails`: `registrants.name_tails`)."""
    return tails.get(word.casefold(), 0) >= TAILS_OF_MANY


def products_of_unknown(text: str, names: list[Candidate], known: list[Candidate]) -> None:
    """'SpaceX Starlink subscribers': a word derived from a registrant's name ('Starlink' of Starlink AI
    Acquisition) right after a capitalised word that is no English word or is written in camel case ('SpaceX',
    'OpenAI'), nothing but a space between, is that company's product or unit: set aside (changed in place),
    whether the brand is no company the linker knows or a company it names by its own name (an alias: 'SpaceX')."""
    for c in names:
        if not (c.accepted and c.kind in ("head", "prefix", "word")):
            continue
        m = _UNKNOWN_BEFORE.search(text[:c.start])
        if not m or (zipf(m.group(1)) >= 2.0 and not re.search(r"[a-z][A-Z]", m.group(1))):
            continue
        owner = _known_over(known, m.start(1), m.end(1))
        if not owner:
            c.set_aside(m.group(1), f"'{c.text}' right after '{m.group(1)}', a company the index does not hold: its "
                                    "product or unit")
        elif owner[0].accepted and owner[0].kind == "name" and owner[0].key != c.key and c.kind != "word":
            c.set_aside(owner[0].name, f"'{c.text}' right after the brand '{m.group(1)}', a company named by its "
                                       "own name: its product or unit")


_CAPITALISED_RUN_BEFORE = re.compile(r"((?:[A-Z][a-z][\w\-]*\s+){1,4})$")
_RUN_WORDS_OUT = frozenset({"what", "how", "which", "who", "did", "does", "is", "are", "was", "compare", "show", "list",
                            "the", "and", "of", "for", "in", "vs", "versus"})


def _unknown_run_before(text: str, start: int, known: list[Candidate]) -> str:
    """The run of capitalised words right before `start` (one space between), when it names no company the linker
    knows and reads as a name: two words or more, or one that is no common English word; '' otherwise."""
    m = _CAPITALISED_RUN_BEFORE.search(text[:start])
    if not m:
        return ""
    words = m.group(1).split()
    while words and words[0].lower() in _RUN_WORDS_OUT:
        words.pop(0)
    if not words or any(w.lower() in _RUN_WORDS_OUT or _MONTH_WORD.match(w) or _PERIOD_WORD.match(w) for w in words):
        return ""
    run_start = start - len(m.group(1)) + m.group(1).find(words[0])
    if _known_over(known, run_start, start):
        return ""
    if min(zipf(w) for w in words) >= (4.5 if len(words) > 1 else 3.0):
        return ""
    return " ".join(words)


def abbreviation_of_unknown(text: str, tickers: list[Candidate], known: list[Candidate], line_item,
                            tails: dict[str, int]) -> None:
    """'Samsung Electronics HBM': a ticker of three capitals or fewer (the length of an abbreviation; 'MSFT' is
    nothing but a ticker), no '$', right after a run of capitalised words that names no known company and reads as
    a company's name (two words or more, the last one a word that ends ten registrants' names or more on the SEC
    list, `tails`: 'Electronics', 'Holdings') is that company's product or metric, not a second company: set aside
    (in place). One capitalised word before a ticker is as often the ticker's own product ("Keytruda MRK"), and a
    line item in title case ("Gross Margin AMD") is no company."""
    for c in tickers:
        if not (c.accepted and c.kind == "ticker" and c.text.isupper() and len(c.text) <= 3) \
                or text[max(0, c.start - 1):c.start] == "$":
            continue
        run = _unknown_run_before(text, c.start, known)
        words = run.split()
        if len(words) >= 2 and ends_many_names(words[-1], tails) and not line_item.search(run) \
                and not any(re.search(r"[a-z][A-Z]", w) for w in words):
            c.set_aside(run, f"'{c.text}' right after '{run}', a company the index does not hold: its product or "
                             "metric")


def generic_tail_of_unknown(text: str, names: list[Candidate], tails: dict[str, int], known: list[Candidate]) -> None:
    """'Pellucid Harbor Bancorp': a registrant whose whole name is one word that ends many registrants' names
    (`tails`: 'Bancorp', 'Holdings') read at the end of a run of capitalised words naming no known company is the
    run's last word, not that registrant: set aside (in place)."""
    for c in names:
        if not (c.accepted and c.kind == "name" and " " not in c.text.strip()) or not ends_many_names(c.text, tails):
            continue
        run = _unknown_run_before(text, c.start, [k for k in known if k is not c])
        if run:
            c.set_aside(f"{run} {c.text}", f"'{c.text}' ends the name '{run} {c.text}', a company the index does "
                                           "not hold")


_NAME_WORD_AFTER = re.compile(r"^ ([A-Z][a-z]{3,})\b(?![-'’])")
_COMPANY_WORD = 4.1
"""A word that ends many registrants' names and is rarer than this in English ('Robotics', 'Therapeutics',
'Bancorp', 'Holdings'; not 'Energy' or 'Services', which also name a company's own segment) is a company-name word."""


def unknown_continuation(text: str, names: list[Candidate], others: list[Candidate], tails: dict[str, int],
                         legal) -> list[Candidate]:
    """'Acme Robotics', 'Apple Biosciences': a registrant's name (or a word of it) right before a capitalised
    company-name word (`_COMPANY_WORD`: ending many registrants' names, rare in English) that is not the next word of
    its own name names another company; when no registrant continues so (`continuation.py` reads those first), it
    is one the index does not hold: set aside (in place), with any reading of that word (`others`: 'Biosciences' as a
    typo of a registrant's name), and returned as the company the index does not hold. A legal-form word after the
    name ('Apple Inc') is its own, and a segment word ('Tesla Energy', 'Apple Services') is common English."""
    found: list[Candidate] = []
    for c in names:
        if not (c.accepted and c.key and c.kind in ("name", "head", "prefix")) or not c.text[:1].isupper():
            continue
        m = _NAME_WORD_AFTER.match(text[c.end:c.end + 40])
        if not m:
            continue
        word = m.group(1)
        own = {w.casefold().strip(",.") for w in c.name.split()}
        if word.casefold() in own or legal(word) or not ends_many_names(word, tails) or zipf(word) >= _COMPANY_WORD:
            continue
        why = f"'{c.text} {word}': a company-name word after '{c.text}', not {c.name}'s own: a company the index " \
              "does not hold"
        for o in [c, *(o for o in others if o.accepted and o.start == c.end + 1)]:  # 'Biosciences' read alone too
            o.set_aside(f"{c.text} {word}", why)
        found.append(Candidate(f"{c.text} {word}", "", False, 0.9, why, "unknown", f"{c.text} {word}", c.start,
                               c.end + 1 + len(word)))
    return found


def asked_of_unknown(text: str, tickers: list[Candidate], unknown: list[Candidate]) -> None:
    """'Zorblax Corporation HQ tax credits', 'Acme Robotics MOB NOI': the question's subject is a company the index
    does not hold (an unknown name read with confidence, before the ticker); a short word in capitals after it, with
    no ticker context (no '$', parentheses, 'ticker', possessive) and not listed with it ("Zorblax Corp and AAPL"),
    is what is asked of that company (a metric, a unit, a place), not a second company: set aside (in place). The
    caller leaves out comparisons, where every company named is routed or said to be missing."""
    owners = [u for u in unknown if not u.key and u.kind == "unknown" and u.confidence >= 0.9]
    for t in tickers:
        if not (t.kind == "ticker" and t.accepted and t.key and t.text.isupper() and len(t.text) <= 3) \
                or text[max(0, t.start - 1):t.start] == "$" or any(
                    cue in t.reason for cue in ("ticker context", "parentheses", "next to 'ticker'", "possessive")):
            continue
        owner = next((u for u in owners if u.end <= t.start and not _LIST_GAP.match(text[u.end:t.start])), None)
        if owner:
            t.set_aside(owner.name, f"'{t.text}' after '{owner.text}', a company the index does not hold: what is "
                                    "asked of it")
