"""Typos of a company's name (a part of the linker): "Nvidea", and "nvida" in lower case, are NVIDIA; "Merk" (a letter
dropped from a large registrant's name) is Merck; "Phillip Morris" (one word of a longer name a letter off) is Philip
Morris."""
from __future__ import annotations

import re
from typing import Mapping, Optional

from finrag.tools.routing.mentions import Candidate, Company
from finrag.tools.routing.names import blank_check
from finrag.tools.routing.size import PROMINENT_RANK, far_larger, size_rank
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
        self._blanked: Optional[dict[tuple[str, ...], list[tuple[str, ...]]]] = None
        self._by_initials: Optional[dict[tuple[str, ...], list[tuple[str, ...]]]] = None

    def _names_blanked(self) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
        """Every full name of two words or more, keyed by itself with one word of five letters or more blanked."""
        if self._blanked is None:
            self._blanked = {}
            for t, kinds in self.alias_index.items():
                if len(t) >= 2 and "name" in kinds.values():
                    for i, w in enumerate(t):
                        if len(w) >= 5 and w.isalpha():
                            self._blanked.setdefault((*t[:i], "", *t[i + 1:]), []).append(t)
        return self._blanked

    def _candidate(self, cand: Candidate, ckey: str, confidence: float, how: str = "one typo from"
                   ) -> Optional[Candidate]:
        comp = self.companies[ckey]
        if blank_check(comp):  # a blank-check company's whole name names it, not a near miss of a word it begins with
            return None
        return Candidate(comp.name or ckey, ckey, comp.in_registry, confidence, f"'{cand.text}' is {how} "
                         f"'{comp.name}'", "fuzzy", cand.text, cand.start, cand.end)

    def fuzzy_words(self, cand: Candidate) -> Optional[Candidate]:
        """A typo in one word of a company's name of two words or more ('Phillip Morris' -> Philip Morris, 'Exon
        Mobil'): every other word as the name writes it, the one word (five letters or more) one edit off."""
        from rapidfuzz.distance import OSA

        spans = list(re.finditer(r"[\w&]+", cand.text))
        words = tuple(m.group(0).casefold() for m in spans)
        if len(words) < 2:
            return None
        hits = set()
        for i, w in enumerate(words):
            for t in self._names_blanked().get((*words[:i], "", *words[i + 1:]), ()):
                if OSA.distance(w, t[i]) == 1 and w[:1] == t[i][:1]:
                    hits |= {k for k, kind in self.alias_index[t].items() if kind == "name"}
        if len(hits) == 1:
            return self._candidate(cand, hits.pop(), 0.65)
        if hits:
            return None
        for n in range(len(words), 1, -1):  # the longest leading run of the words that is a name with typos
            hits = self._far_largest(self._typo_in_each(words[:n]))
            if len(hits) == 1:
                end = spans[n - 1].end()
                part = Candidate(cand.text[:end], text=cand.text[:end], start=cand.start, end=cand.start + end)
                return self._candidate(part, hits.pop(), 0.65, "a typo in each word of")
        return None

    def _typo_in_each(self, words: tuple[str, ...]) -> set[str]:
        """A large registrant's name of two words or more, each word of five letters or more written one edit off
        or as the name writes it, and at least one off ("Phillip Moris", and "Phillip Morris Zyn": the name, then
        what is asked of it): a typo in each of two words of a name everyone writes, read only as a prominent
        registrant's (`PROMINENT_RANK`), the far larger one when several are near."""
        from rapidfuzz.distance import OSA

        if self._by_initials is None:
            self._by_initials = {}
            for t, kinds in self.alias_index.items():
                if len(t) >= 2 and "name" in kinds.values() and all(w.isalpha() for w in t):
                    self._by_initials.setdefault(tuple(w[0] for w in t), []).append(t)
        hits: set[str] = set()
        for t in self._by_initials.get(tuple(w[:1] for w in words), ()):
            off = [OSA.distance(w, n) for w, n in zip(words, t)]
            if any(off) and all(d == 0 or (d == 1 and len(n) >= 5 and len(w) >= 5) for d, w, n in zip(off, words, t)):
                hits |= {k for k, kind in self.alias_index[t].items() if kind == "name"
                         and (rank := size_rank(self.companies[k].tickers)) is not None and rank < PROMINENT_RANK}
        return hits

    def dropped_letter(self, cand: Candidate) -> Optional[Candidate]:
        """A large registrant's one-word name of five letters or more with one letter dropped, written capitalised
        and no common English word ('Merk' -> Merck, 'Pfzer'): four letters are too few for any edit to be safe,
        but a dropped letter of a name everyone writes is the commonest typo there is."""
        w = cand.text.casefold()
        if len(w) != 4 or not cand.text[:1].isupper() or zipf(w) >= 3.0:
            return None
        hits = set()
        for t in self._by_len.get(5, ()):
            if any(t[:i] + t[i + 1:] == w for i in range(5)) and t[0] == w[0]:
                hits |= {k for k, kind in self.alias_index[self._names[t]].items() if kind == "name"
                         and (rank := size_rank(self.companies[k].tickers)) is not None and rank < PROMINENT_RANK}
        return self._candidate(cand, hits.pop(), 0.65) if len(hits) == 1 else None

    def fuzzy(self, cand: Candidate) -> Optional[Candidate]:
        """A typo of a known one-word name ('Nvidea' -> NVIDIA, 'Chipolte' -> Chipotle): one edit (a letter added,
        dropped or changed, or two letters side by side swapped), five letters or more."""
        w = cand.text.casefold()
        if " " in w:
            return self.fuzzy_words(cand)
        if len(w) == 4:
            return self.dropped_letter(cand)
        if len(w) < 5:
            return None
        try:
            from rapidfuzz import process
            from rapidfuzz.distance import OSA
        except ImportError:  # pragma: no cover
            return None
        near = [t for n in (len(w) - 1, len(w), len(w) + 1) for t in self._by_len.get(n, ())]
        hits = {k for t, _d, _i in process.extract(w, near, scorer=OSA.distance, score_cutoff=1, limit=None)
                for k in self.alias_index[self._names[t]]}
        hits = self._far_largest(hits)
        return self._candidate(cand, hits.pop(), 0.65) if len(hits) == 1 else None

    def _far_largest(self, hits: set[str]) -> set[str]:
        """Several registrants one edit away ('traget': Target and Target Group): the one far larger than every other
        (`size.far_larger`), as the typo of the name everyone writes; else all of them (no reading)."""
        if len(hits) < 2:
            return hits
        rank = {k: size_rank(self.companies[k].tickers) for k in hits}
        large = [k for k in hits if far_larger(rank[k], [rank[o] for o in hits if o != k])]
        return {large[0]} if large else hits

    def opening_typo(self, text: str, taken: list[tuple[int, int]]) -> list[Candidate]:
        """The question's first word, capitalised as every first word is, and rare in English (no run of
        capitalised words marks it a name there): a typo of a known name ('Nvidea revenue', 'Merk pipeline')."""
        m = re.match(r"\s*([A-Z][a-z]{3,})(?![\w'’\-])", text)
        if not m or zipf(m.group(1)) >= 3.0 or any(a < m.end(1) and m.start(1) < b for a, b in taken):
            return []
        fixed = self.fuzzy(Candidate(m.group(1), text=m.group(1), start=m.start(1), end=m.end(1)))
        return [fixed] if fixed else []

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
