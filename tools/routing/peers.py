"""A comparison's bare common word read with the industry words of the peer it is compared with (issue 48).

"Delta vs United vs American": "United" and "American" begin the names of dozens of registrants each (United
Rentals, United Therapeutics, American Express, American Tower ...) and are common English words, so alone they name
nobody. In a comparison, though, the companies compared are peers: the named one's name after its first word
("Delta Air Lines": "Air Lines") says which of those registrants is meant, the one whose name continues the bare word
with the same words ("United Airlines Holdings", "American Airlines Group"; "Ford Motor" vs "General" -> "General
Motors"). `peer_readings` adds that reading when exactly one registrant whose name opens with the word continues it
with the peer's words (spaces, legal and holding words ignored; a plural or a shared stem is the same word: "Motor",
"Motors"), and the word stands in the same list as the peer, joined by "vs", "versus", "against", ",", "and", "&",
"/" or "or". Words in capitals are left to the ticker reading.
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Mapping

from finrag.tools.routing.mentions import ACCEPT, Candidate, Company
from finrag.tools.routing.size import far_larger, size_rank
from finrag.tools.routing.text import name_core

__all__ = ["PEER_CONFIDENCE", "peer_readings", "peer_tails"]

PEER_CONFIDENCE = 0.8
_WORD = r"[A-Z][\w'’.\-]*"
_GLUE = r"(?:\s*,\s*(?:and\s+)?|\s+(?:vs\.?|v\.?|versus|against|and|&|or)\s+|\s*/\s*)"
_LIST = re.compile(rf"{_WORD}(?:\s+{_WORD})*(?:{_GLUE}{_WORD}(?:\s+{_WORD})*)+")
_ITEM = re.compile(_WORD)
_GLUE_BEFORE = re.compile(rf"{_GLUE}$")
_GLUE_AFTER = re.compile(_GLUE)
_GENERIC = {"holdings", "holding", "group", "companies", "company", "co", "the", "and", "international", "global",
            "worldwide", "enterprises", "industries", "of", "america", "us", "usa"}
_MIN_STEM = 4


def _tail(core: str) -> str:
    """A name core's words after the first, generic words out, joined: 'delta air lines' -> 'airlines'."""
    return "".join(w for w in core.split()[1:] if w not in _GENERIC)


def peer_tails(companies: Mapping[str, Company]) -> dict[str, list[tuple[str, str]]]:
    """Every company by the first word of its name (lower case): (key, the rest of its name as `_tail` joins it)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, comp in companies.items():
        for core in {name_core(n) for n in (comp.name or key, *comp.names)}:
            if len(core.split()) >= 2 and (tail := _tail(core)):
                out.setdefault(core.split()[0], []).append((key, tail))
    return out


def _own_tails(comp: Company, key: str) -> set[str]:
    """Every tail of the company's names ('Ford' and 'Ford Motor Company': {'motor'})."""
    return {t for n in (comp.name or key, *comp.names) if (t := _tail(name_core(n)))}


def _same_words(a: str, b: str) -> bool:
    """'airlines' and 'airlines', 'motor' and 'motors': one starts with the other's stem (all but a last letter)."""
    if len(a) < _MIN_STEM or len(b) < _MIN_STEM:
        return False
    return len(os.path.commonprefix([a, b])) >= max(_MIN_STEM, min(len(a), len(b)) - 1)


def _plain_word_name(c: Candidate, word: str) -> bool:
    """Whether a reading of the word is only a registrant's whole name that is a common English word, capitalised
    ("Citizens" of Citizens, Inc.): the word a comparison's peer may read as a far larger registrant's name."""
    return c.kind == "name" and c.text == word and "also an English word" in c.reason


def _one(match: set[str], companies: Mapping[str, Company]) -> str:
    """The one registrant of `match`, or the far larger of several (`size.far_larger`: "Citizens" with a bank's
    "Financial" continues as Citizens Financial Group, not as Citizens Financial Services); '' when none."""
    if len(match) == 1:
        return next(iter(match))
    ranks = {k: size_rank(companies[k].tickers) for k in match}
    return next((k for k in match if far_larger(ranks[k], [ranks[o] for o in match if o != k])), "")


def peer_readings(text: str, found: Iterable[Candidate], tails: Mapping[str, list[tuple[str, str]]],
                  companies: Mapping[str, Company]) -> list[Candidate]:
    """The readings of a comparison's bare capitalised words completed by a named peer's words (module docstring)."""
    found = list(found)
    out: list[Candidate] = []
    for run in _LIST.finditer(text):
        peers = [c for c in found if c.accepted and c.key and run.start() <= c.start < run.end()]
        if not peers:
            continue
        peer_tail = {c.key: _own_tails(companies[c.key], c.key) for c in peers if c.key in companies}
        for item in _ITEM.finditer(text, run.start(), run.end()):
            word = item.group(0)
            glued = _GLUE_BEFORE.search(text, run.start(), item.start()) or _GLUE_AFTER.match(text, item.end())
            over = [c for c in found if c.start < item.end() and item.start() < c.end and c.confidence > 0]
            if not glued or word.isupper() or any(not _plain_word_name(c, word) for c in over):
                continue
            for peer_key, own in peer_tail.items():
                match = {k for k, t in tails.get(word.lower(), ())
                         if k != peer_key and any(_same_words(t, tail) for tail in own)}
                key = _one(match, companies)
                if not key or (over and not all(c.key != key and far_larger(size_rank(companies[key].tickers), [
                        size_rank(companies[c.key].tickers) if c.key in companies else None]) for c in over)):
                    continue
                comp = companies[key]
                for c in over:  # "Citizens" alone is Citizens, Inc.; compared with banks, Citizens Financial Group
                    c.set_aside(comp.name or key, f"'{word}' compared with {companies[peer_key].name} continues as "
                                                  "a far larger registrant's name")
                out.append(Candidate(comp.name or key, key, comp.in_registry, PEER_CONFIDENCE,
                                     f"'{word}' compared with {companies[peer_key].name}: the registrant whose name "
                                     f"continues '{word}' with the peer's words", "name", word, item.start(), item.end()))
                break
    return [c for c in out if c.confidence >= ACCEPT]
