"""A distinctive word from inside a large registrant's name ("Roadhouse" of Texas Roadhouse; issue 48).

People name a company by the word of its name they remember, not always the first: "Roadhouse same store sales"
is Texas Roadhouse. `name_words` lists, for the largest registrants (`size.PROMINENT_RANK`), the words after the
first of their names that name nothing else: no other company's name holds the word, it is no common English
word (Zipf below `RARE`), five letters or more, and no legal or generic word of a name ("Holdings",
"Therapeutics", "Semiconductors": no other name holds the word, singular or plural). `name_word_readings` reads such a word in a question as the company when it
is capitalised (not shouted in capitals) and no other reading covers it, at a modest confidence: any stronger
reading of another company in the question leads (`ranking.rank`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Mapping, Optional

from finrag.tools.routing.mentions import Candidate, Company
from finrag.tools.routing.size import PROMINENT_RANK
from finrag.tools.routing.text import strip_legal_suffix
from finrag.tools.routing.words import zipf

__all__ = ["CONFIDENCE", "RARE", "name_word_readings", "name_words"]

RARE = 3.0
"""A name word rarer than this in English (Zipf) is distinctive."""
CONFIDENCE = 0.6
"""The confidence of a reading from a distinctive name word: accepted, below a name's."""
_WORD = re.compile(r"[A-Za-z][a-z]{4,}")


def name_words(companies: Mapping[str, Company], rank_of: Callable[[str], Optional[int]]) -> dict[str, str]:
    """word (lower case) -> the company key it names: words after the first of a large registrant's names that no
    other company's names hold, rare in English, five letters or more."""
    owners: dict[str, set[str]] = defaultdict(set)
    inner: dict[str, set[str]] = defaultdict(set)
    for key, comp in companies.items():
        for n in {comp.name, *comp.names}:
            words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'’]*", strip_legal_suffix(n))]
            for j, w in enumerate(words):
                owners[w].add(key)
                if j:
                    inner[w].add(key)
    out = {}
    for w, keys in inner.items():
        forms = {w, w + "s", w[:-1] if w.endswith("s") else w}  # 'Semiconductors' is many companies' word
        if len(set().union(*(owners.get(f, set()) for f in forms))) != 1 or len(w) < 5 or not w.isalpha() \
                or zipf(w) >= RARE:
            continue
        key = next(iter(keys))
        rank = rank_of(key)
        if rank is not None and rank < PROMINENT_RANK:
            out[w] = key
    return out


def name_word_readings(text: str, words: Mapping[str, str], companies: Mapping[str, Company],
                       covered: list[tuple[int, int]]) -> list[Candidate]:
    """Readings of distinctive name words written capitalised in `text`, outside the `covered` spans."""
    out = []
    for m in _WORD.finditer(text):
        key = words.get(m.group(0).lower())
        if not key or not m.group(0)[0].isupper() or any(a < m.end() and m.start() < b for a, b in covered):
            continue
        if re.match(r"[\w\-'’]", text[m.end():m.end() + 1]) or re.search(r"[\w\-]$", text[:m.start()]):
            continue  # part of a longer word
        comp = companies[key]
        out.append(Candidate(comp.name or key, key, comp.in_registry, CONFIDENCE,
                             f"'{m.group(0)}' is a distinctive word of {comp.name}'s name", "word", m.group(0),
                             m.start(), m.end()))
    return out
