"""A company a question may name, as the linker, its ranking and its reading of unknown names share it: the
registry's `Company`, a `Candidate` reading with its confidence and reason, the acceptance thresholds, and the
ticker-context patterns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ACCEPT", "ALTERNATIVE", "EXCHANGE_BEFORE", "TICKER_WORD_BEFORE", "Candidate", "Company", "sentence_initial"]

ACCEPT = 0.5
"""A candidate with at least this confidence is taken as named by the question."""
ALTERNATIVE = 0.45
"""The confidence of a reading ranking set aside for a better one (`Candidate.set_aside`): below ACCEPT."""


@dataclass
class Company:
    """One company the registry knows: its documents (none for alias-book-only companies), names, tickers."""

    key: str
    name: str = ""
    in_registry: bool = True
    tickers: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)


@dataclass
class Candidate:
    """A company the question may name: registry key ('' when unknown), confidence, reason."""

    name: str
    key: str = ""
    in_index: bool = False
    confidence: float = 0.0
    reason: str = ""
    kind: str = ""  # name, head, initialism, abbrev, short, ticker, fuzzy, unknown
    text: str = ""
    start: int = 0
    end: int = 0
    ticker: str = ""
    alternative_to: str = ""  # a plausible reading that ranking set aside: the company it lost to
    weak: bool = False  # a ticker without ticker context that is a word, an abbreviation or a letter, or no subject
    wordish: bool = False  # weak as a word, abbreviation or letter (not only by its place in the question)

    @property
    def accepted(self) -> bool:
        return self.confidence >= ACCEPT

    def set_aside(self, winner: str, why: str) -> None:
        """Keep this reading as an alternative to `winner`: below acceptance, with its evidence and why."""
        self.reason += f"; alternative to {winner}: {why} (was {self.confidence:.2f})"
        self.confidence = min(self.confidence, ALTERNATIVE)
        self.alternative_to = winner

    def as_dict(self) -> dict:
        out = {"name": self.name, "key": self.key, "in_index": self.in_index, "text": self.text,
               "confidence": round(self.confidence, 3), "kind": self.kind, "reason": self.reason}
        if self.alternative_to:
            out["alternative_to"] = self.alternative_to
        return out


EXCHANGE_BEFORE = re.compile(r"(?:NYSE(?:\s+American)?|NASDAQ|Nasdaq(?:GS)?|AMEX|Cboe|CBOE)\s*:\s*$")
TICKER_WORD_BEFORE = re.compile(r"\b(?:tickers?|symbols?|stock|shares\s+of|ticker\s+symbol)\s*:?\s*$", re.I)


def sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".?!:;\n"
