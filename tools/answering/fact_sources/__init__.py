"""finrag.tools.answering.fact_sources = `tools/answering/fact_sources/`: one module per evidence source, each a
`finrag.state.facts.FactSource` that yields typed `Fact`s (concept or row label, value, unit, period, dimensions,
citation) for the line item and period a question asks.

xbrl.py: a filing's inline-XBRL facts (`XbrlFacts`; `CONCEPTS`, the one choice of a fact for a period, `choose_fact`).
tables.py: the statement tables of a PDF, HTML or text filing (`TableFacts`, over the statement reader's `Lookup`).
cover.py: the cover page's dei facts (`CoverFacts`: shares outstanding, public float, and the dei text facts).

Adding an evidence source is one module here with a class that has `doc_id`, `reads(item)` and
`fact(item, asked, years_back=0)` (docs/architecture.md, "Add an evidence source").
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from finrag.state.facts import FactSource
    from finrag.tools.answering.fact_sources.cover import CoverFacts
    from finrag.tools.answering.fact_sources.tables import TableFacts
    from finrag.tools.answering.fact_sources.xbrl import XbrlFacts

    def _conforms(xbrl: XbrlFacts, tables: TableFacts, cover: CoverFacts) -> tuple[FactSource, FactSource, FactSource]:
        """Every source satisfies `FactSource`: mypy checks this return; never run."""
        return xbrl, tables, cover
