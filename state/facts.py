"""Typed facts and the one protocol every evidence source answers through (issue 47).

A `Fact` is one reported number, whatever reported it: an inline-XBRL fact (`concept` a QName such as
'us-gaap:Revenues'), a statement table's cell (`concept` the row label as printed), a cover-page (dei) fact. It
carries its value, unit, period, dimensions and citation, so arithmetic, citation and wording never read a source's
own shape (an XBRL fact dict by string key, a table's row and column).

A `FactSource` is one evidence source of one filing: `fact(item, asked, years_back)` is the fact that reports the
line item `item` (`finrag.tools.vocabulary.line_items`, or a row item `row:<words>`) for the period the question
(`asked`, its one reading) asks, `years_back` years before it; `reads(item)` says whether the source can read that
line item at all (a concept it knows, a row it has bound). The implementations are in
`finrag.tools.answering.fact_sources` (`xbrl.py`, `tables.py`, `cover.py`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional, Protocol, runtime_checkable

from finrag.state.question import QuestionFacts

__all__ = ["Citation", "Fact", "FactSource", "Period", "SourceKind"]

SourceKind = Literal["xbrl", "table", "cover"]
"""Which evidence source reported a fact."""


@dataclass(frozen=True)
class Period:
    """The period a fact reports: a duration (`start`, `end`) or an instant, ISO dates ('' when the source has no
    date: a statement table's column is its header and fiscal year)."""

    start: str = ""
    end: str = ""
    instant: str = ""
    words: str = ""
    """How an answer says it ("the fiscal year ended 2024-09-28", "as of 2024-09-28", a table's column header)."""
    fiscal_year: int = 0
    """The fiscal year, when the source knows it (a table's column); 0 otherwise."""

    @property
    def is_instant(self) -> bool:
        return bool(self.instant)


@dataclass(frozen=True)
class Citation:
    """Where a fact is shown: its filing and the zero-based page (-1: not displayed, a hidden inline-XBRL fact)."""

    doc_id: str
    page: int = -1

    @property
    def shown(self) -> bool:
        """Is the fact displayed on a page (a citation a reader can open)?"""
        return self.page >= 0

    @property
    def text(self) -> str:
        """The citation as answers write it: '[doc, p. N]', or '[doc, inline XBRL]' for a hidden fact."""
        return f"[{self.doc_id}, p. {self.page}]" if self.page >= 0 else f"[{self.doc_id}, inline XBRL]"


@dataclass(frozen=True)
class Fact:
    """One reported number (see the module docstring)."""

    concept: str
    """An XBRL QName ('us-gaap:Revenues'), a table's row label, a dei name ('dei:EntityPublicFloat')."""
    value: float
    """With the source's scale and sign applied (dollars, shares; per-share amounts as printed)."""
    period: Period
    citation: Citation
    unit: str = ""
    """The unit as the source names it ('usd', 'usdPerShare', 'shares'; '' for a table's cell)."""
    dimensions: tuple[tuple[str, str], ...] = ()
    """(axis, member) pairs: () for a consolidated value."""
    label: str = ""
    """The row label the value is displayed on ('' when none)."""
    text: str = ""
    """The value as displayed ("391,035")."""
    decimals: Optional[int] = None
    """The precision the filing reports (XBRL `decimals`; None: unknown or exact)."""
    scale: str = ""
    """The displayed scale: XBRL's power of ten ('6'), a table's word ('millions'), '' when none."""
    sign: str = ""
    """'-' when the filing displays a negative value without its sign (XBRL `sign`)."""
    source: SourceKind = "xbrl"
    key: str = ""
    """The source's own id of the fact's period (an XBRL context id; '' otherwise)."""

    @property
    def doc_id(self) -> str:
        return self.citation.doc_id

    @property
    def displayed(self) -> str:
        """The value as displayed, a negative one the filing shows without its sign in parentheses."""
        return f"({self.text})" if self.sign == "-" else self.text


@runtime_checkable
class FactSource(Protocol):
    """One evidence source of one filing (see the module docstring)."""

    @property
    def doc_id(self) -> str: ...

    def reads(self, item: str) -> bool: ...

    def fact(self, item: str, asked: QuestionFacts, years_back: int = 0) -> Optional[Fact]: ...
