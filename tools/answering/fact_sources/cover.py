"""The cover-page evidence source: an inline-XBRL filing's dei facts (`CoverFacts`).

    source = CoverFacts(tagged, doc_id)
    source.fact("shares_outstanding", asked)    # the one tagged count as a Fact (None: absent, or one per class)
    source.tagged("public_float")               # every tagged instant of the concept
    source.text("AuditorName")                   # a dei text fact ('' when not tagged)

The numbers a cover reports (`dei:EntityCommonStockSharesOutstanding`, `dei:EntityPublicFloat`) are `Fact`s with
their as-of instant and the page they are displayed on; the cover's text facts (auditor, address, exchange) are
text, read by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from finrag.state.facts import Citation, Fact, Period
from finrag.state.question import QuestionFacts

__all__ = ["COVER_CONCEPTS", "CoverFacts"]

COVER_CONCEPTS = {"shares_outstanding": "dei:EntityCommonStockSharesOutstanding", "public_float": "dei:EntityPublicFloat"}
"""The cover's numbers by finrag's name, and the dei concept that tags each."""


@dataclass(frozen=True)
class CoverFacts:
    """A filing's dei facts as a `finrag.state.facts.FactSource` (see the module docstring)."""

    facts: Optional[dict]
    doc_id: str

    def reads(self, item: str) -> bool:
        return item in COVER_CONCEPTS

    def tagged(self, item: str) -> list[Fact]:
        """Every instant fact of the cover number `item`, in the filing's order."""
        concept = COVER_CONCEPTS.get(item)
        facts = self.facts or {}
        contexts = facts.get("contexts") or {}
        out = []
        for raw in facts.get("facts") or []:
            ctx = contexts.get(raw.get("context")) or {}
            if concept is not None and raw.get("concept") == concept and ctx.get("instant"):
                instant = str(ctx["instant"])
                out.append(Fact(concept=concept, value=float(raw["value"]),
                                period=Period(instant=instant, words=f"as of {instant}"),
                                citation=Citation(self.doc_id, int(raw.get("page", -1))), unit=str(raw.get("unit") or ""),
                                text=str(raw.get("text") or ""), source="cover", key=str(raw.get("context") or "")))
        return out

    def fact(self, item: str, asked: QuestionFacts, years_back: int = 0) -> Optional[Fact]:
        """The cover's one number `item` (a cover states it as of one date: `asked` and `years_back` choose nothing);
        None when it is not tagged, or tagged once per class of stock without a total."""
        found = self.tagged(item) if years_back == 0 else []
        return found[0] if len(found) == 1 else None

    @property
    def dei(self) -> dict:
        """The dei text facts by name (`finrag.tools.documents.xbrl`: a list for symbols, exchanges, titles)."""
        return (self.facts or {}).get("dei") or {}

    def text(self, name: str) -> str:
        """A dei text fact by its local name ('AuditorName'), stripped; '' when not tagged."""
        return str(self.dei.get(name) or "").strip()
