"""Small text helpers shared by the routing modules.

Squashing a name to its letters and digits, accents, a bounded edit distance, and the patterns several
modules share: what a ticker looks like and the legal-form words that end a company name.

The legal-form words are written here once, in the variants their users match (each variant matches
exactly what its module matched before it moved here): `SUFFIX_WORDS` (an alternation: documents,
cover pages), `LEGAL_SUFFIXES` (a case-insensitive word at the end of a string, with the group-type words
holdings, group, bancorp, ...; `finrag.tools.routing.words` exports it too), `CASED_SUFFIX_WORD` (a capitalised suffix
after an unknown name: the linker's "Zorblax Corp" rule) and `TRAILING_SUFFIX` / `strip_legal_suffix`
(the short list, removed from the end of a filing's names: the statement reader and the fast path).
`clean_company_name` is the one company-name cleaning: a leading 'The', every legal-form tail (`LEGAL_TAIL`:
`SUFFIX_WORDS`, '& Co.', `FOREIGN_FORMS`) and ALL CAPS off ('JPMorgan Chase & Co.' -> 'JPMorgan Chase',
'THE COCA-COLA COMPANY' -> 'Coca-Cola'), where `strip_legal_suffix` takes one short suffix only
('JPMorgan Chase &', 'The Coca-Cola').
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath
from typing import Union

__all__ = [
    "CASED_SUFFIX_WORD", "FOREIGN_FORMS", "LEGAL_SUFFIXES", "LEGAL_TAIL", "PathLike",
    "SHORT_SUFFIX_WORDS", "SUFFIX_WORDS", "TICKER_SHAPE", "TRAILING_SUFFIX", "clean_company_name",
    "edit_distance", "name_core", "squash", "strip_accents", "smart_case", "strip_legal_suffix",
]

PathLike = Union[str, PurePath]


TICKER_SHAPE = re.compile(r"[A-Z]{1,5}(?:\.[A-Z])?")
"""What a ticker looks like: 1-5 capitals and an optional share class ('BRK.B')."""

SUFFIX_WORDS = (r"inc|incorporated|corp|corporation|company|co|plc|p\.l\.c|ltd|limited|llc|l\.l\.c|"
                r"lp|l\.p|n\.v|s\.a|ag|se|sa|nv")
"""Legal-form words that end a company name (a regex alternation, without the trailing dot)."""

LEGAL_SUFFIXES = re.compile(
    r"(?:inc|incorporated|corp|corporation|company|co|plc|ltd|limited|llc|lp|l\.p|n\.v|nv|s\.a|sa|ag|se|"
    r"holdings|group|bancorp|bancshares|trust)\.?$", re.IGNORECASE)
"""Words that end a company's legal name: evidence that the words before them name a company."""

CASED_SUFFIX_WORD = re.compile(
    r"(?:Inc|Incorporated|Corp|Corporation|Company|Co|PLC|Plc|plc|Ltd|Limited|LLC|L\.P|LP|N\.V|NV|S\.A|SA|AG|SE|"
    r"Holdings|Group|Bancorp|Bancshares|Industries|Technologies|Enterprises|Brands)\.?")
"""A capitalised legal-form (or group-type) word, as written after a company's name ('Zorblax Corp.')."""

SHORT_SUFFIX_WORDS = r"inc|corp|corporation|co|company|ltd|plc|llc"
"""The common legal-form words (a regex alternation, without the trailing dot)."""
TRAILING_SUFFIX = re.compile(rf"(?i)[,.]?\s+(?:{SHORT_SUFFIX_WORDS})\.?$")
"""The common legal-form words at the end of a name, with the comma or space before them (' Inc.', ', Co')."""


_LEGAL_WORDS = re.compile(r"\b(?:inc|incorporated|corp|corporation|company|co|ltd|limited|plc|llc|lp|holdings?|"
                          r"group|the|n\.?v|s\.?a|ag|se)\b\.?", re.I)


def name_core(name: str) -> str:
    """A company name without its legal words anywhere, punctuation and case ('Apple Inc.' -> 'apple'): what two
    names are compared on (`Registry.close_names`)."""
    core = _LEGAL_WORDS.sub(" ", name.replace("&", " and "))
    return " ".join(re.sub(r"[^\w\s]", " ", core).lower().split())


def strip_legal_suffix(name: str) -> str:
    """'Apple Inc.' -> 'Apple', 'Best Buy Co' -> 'Best Buy' (`TRAILING_SUFFIX` removed)."""
    return TRAILING_SUFFIX.sub("", name)


FOREIGN_FORMS = r"s\.?a\.?b\.?\s+de\s+c\.?v|s\.?a\.?\s+de\s+c\.?v|asa|oyj|s\.?p\.?a|kgaa|&\s*co\.?\s+kgaa|n\.?v|b\.?v"
"""Legal forms of other countries' companies ('S.A.B. de C.V.', 'ASA', 'Oyj', 'N.V.'), a regex alternation."""
LEGAL_TAIL = re.compile(rf"(?:[\s,]+(?:&\s*(?:company|co)|{SUFFIX_WORDS}|{FOREIGN_FORMS})\.?)+\s*$", re.IGNORECASE)
"""Every legal-form word at the end of a name, with '& Co.' and the comma or space before each."""


def smart_case(name: str) -> str:
    """Title-case an ALL-CAPS name, keeping acronyms like CVS, MGM, 3M."""
    if not name or any(c.islower() for c in name):
        return name

    def word(w: str) -> str:
        core = re.sub(r"[^A-Za-z]", "", w)
        if any(c.isdigit() for c in w) or (len(core) <= 3 and not re.search(r"[AEIOUY]", core)):
            return w
        return "-".join(p[:1] + p[1:].lower() for p in w.split("-"))

    return " ".join(word(w) for w in name.split())


def clean_company_name(name: str) -> str:
    """'THE COCA-COLA COMPANY' -> 'Coca-Cola'; 'JPMorgan Chase & Co.' -> 'JPMorgan Chase'."""
    name = re.sub(r"\s+", " ", str(name or "")).strip(" ,.")
    name = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    prev = None
    while prev != name:
        prev, name = name, LEGAL_TAIL.sub("", name).strip(" ,")
    return smart_case(name)


def squash(text: str) -> str:
    """Upper-case letters and digits only: 'Coca-Cola' -> 'COCACOLA' (accents removed)."""
    return re.sub(r"[^A-Z0-9]", "", strip_accents(str(text or "")).upper())


def strip_accents(text: str) -> str:
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def edit_distance(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance, early exit once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if limit <= 1:
        return _within_one_edit(a, b) if limit == 1 else (0 if a == b else 1)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _within_one_edit(a: str, b: str) -> int:
    """edit_distance(a, b, 1) in one pass: 0, 1, or 2 for 'more than one'."""
    if a == b:
        return 0
    i, m = 0, min(len(a), len(b))
    while i < m and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return 1 if a[i + 1:] == b[i + 1:] else 2
    if len(a) > len(b):
        return 1 if a[i + 1:] == b[i:] else 2
    return 1 if a[i:] == b[i + 1:] else 2
