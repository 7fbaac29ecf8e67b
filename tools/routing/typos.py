"""Typos of a company's one-word name (a part of the linker): "Nvidea", and "nvida" in lower case, are NVIDIA."""
from __future__ import annotations

import re
from typing import Mapping, Optional

from finrag.tools.routing.mentions import Candidate, Company
from finrag.tools.routing.names import blank_check
from finrag.tools.routing.words import zipf

__all__ = ["Typos"]


class Typos:
    """The one-word names of five letters or more, by length, to find a name one edit from a word."""

    def __init__(self, alias_index: Mapping[tuple[str, ...], Mapping[str, str]], companies: Mapping[str, Company]):
        self.alias_index = alias_index
        self.companies = companies
        self._names = {t[0]: t for t in alias_index if len(t) == 1 and len(t[0]) >= 5}
        self._by_len: dict[int, list[str]] = {}
        for name in self._names:
            self._by_len.setdefault(len(name), []).append(name)

    def fuzzy(self, cand: Candidate) -> Optional[Candidate]:
        """A typo of a known one-word name ('Nvidea' -> NVIDIA, 'Chipolte' -> Chipotle): one edit (a letter added,
        dropped or changed, or two letters side by side swapped), five letters or more."""
        w = cand.text.casefold()
        if len(w) < 5 or " " in w:
            return None
        try:
            from rapidfuzz import process
            from rapidfuzz.distance import OSA
        except ImportError:  # pragma: no cover
            return None
        near = [t for n in (len(w) - 1, len(w), len(w) + 1) for t in self._by_len.get(n, ())]
        hits = {k for t, _d, _i in process.extract(w, near, scorer=OSA.distance, score_cutoff=1, limit=None)
                for k in self.alias_index[self._names[t]]}
        if len(hits) != 1:
            return None
        ckey = hits.pop()
        comp = self.companies[ckey]
        if blank_check(comp):  # a blank-check company's whole name names it, not a near miss of a word it begins with
            return None
        return Candidate(comp.name or ckey, ckey, comp.in_registry, 0.65, f"'{cand.text}' is one typo from "
                         f"'{comp.name}'", "fuzzy", cand.text, cand.start, cand.end)

    def lower_typos(self, text: str, taken: list[tuple[int, int]]) -> list[Candidate]:
        """'nvida': a word in lower case that is no English word at all (wordfreq never saw it), five letters or
        more, one edit from a known one-word name (`fuzzy`)."""
        out = []
        for m in re.finditer(r"(?<![\w'’\-])[a-z]{5,}(?![\w'’\-])", text):
            if zipf(m.group(0)) > 0 or any(a < m.end() and m.start() < b for a, b in taken):
                continue
            fixed = self.fuzzy(Candidate(m.group(0), text=m.group(0), start=m.start(), end=m.end()))
            if fixed:
                fixed.confidence, fixed.reason = 0.6, fixed.reason + " (in lower case, no English word)"
                out.append(fixed)
        return out
