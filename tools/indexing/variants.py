"""Chunk prefixes for the two index variants.

* `meta` (CBR+Meta, V-A): `[Company: {TICKER}, Fiscal Year: {YEAR}]` before every chunk.
* `llmctx` (CBR+LLM-Ctx, V-B): a 50-100 token context that situates the chunk in its
  filing. With an LLM, the prompt puts the (truncated) document first and the chunk
  last, so providers with prompt caching reuse the document prefix across a
  filing's chunks. Offline, the context is built from the registry (company, form,
  period) and the nearest section heading before the chunk.

Prefixes are stored in SQLite (`chunk_prefix`) as they are made, so a run that is
stopped or hits its budget resumes where it stopped.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from finrag.state.forms import FORM_DESCRIPTIONS
from finrag.state.schema import DocumentInfo

FORM_NAMES = FORM_DESCRIPTIONS  # one home: finrag.state.forms

_HEADING = re.compile(
    r"^(?:item\s+\d{1,2}[a-c]?\.?\s.{0,90}"
    r"|(?:consolidated\s+)?(?:statements?|balance\s+sheets?)\s+of\s.{0,60}"
    r"|(?:consolidated\s+)?balance\s+sheets?"
    r"|notes?\s+to\s+(?:the\s+)?(?:consolidated\s+)?financial\s+statements.{0,40}"
    r"|note\s+\d{1,2}[.:\s].{0,80}"
    r"|management.s\s+discussion\s+and\s+analysis.{0,60}"
    r"|risk\s+factors|liquidity\s+and\s+capital\s+resources|results\s+of\s+operations"
    r"|critical\s+accounting\s+(?:policies|estimates).{0,20}|revenue\s+recognition)\s*$",
    re.I | re.M)


def meta_prefix(info: DocumentInfo) -> str:
    company = info.tickers[0] if info.tickers else (info.company or info.company_key or info.doc_id)
    year = info.fiscal_year if info.fiscal_year is not None else "unknown"
    return f"[Company: {company}, Fiscal Year: {year}]"


@dataclass
class HeadingIndex:
    """Section headings of one document with their character offsets."""

    offsets: list[int] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, text: str) -> "HeadingIndex":
        idx = cls()
        for m in _HEADING.finditer(text):
            title = " ".join(m.group(0).split())
            if len(title) >= 8:
                idx.offsets.append(m.start())
                idx.titles.append(title.rstrip(" .")[:90])
        return idx

    def before(self, offset: int) -> str:
        i = bisect.bisect_right(self.offsets, offset) - 1
        return self.titles[i] if i >= 0 else ""


def offline_context(info: DocumentInfo, page_start: int, heading: str) -> str:
    name = info.company or info.company_key or info.doc_id
    tick = f" ({', '.join(info.tickers[:2])})" if info.tickers else ""
    form = FORM_NAMES.get(info.form, "filing")
    if info.quarter and info.fiscal_year:
        period = f"fiscal {info.fiscal_year} Q{info.quarter}"
    elif info.fiscal_year:
        period = f"fiscal year {info.fiscal_year}"
    else:
        period = "an unknown period"
    dated = f", dated {info.filed_date}" if info.filed_date else ""
    section = f" Section: {heading}." if heading else ""
    # no page number: contexts then repeat within a section and are embedded once per distinct text
    return f"This excerpt is from {name}{tick}'s {form} for {period}{dated}.{section}"
