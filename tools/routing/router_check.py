"""An LLM router's choice checked against the question (issue 34 case 4, issue 38): it chooses among the
question's candidates, never outside them.

`check_router_choice` is the second half of `Registry.merge_llm` (the first drops the candidates the router
rejected): companies, tickers and `documents` count only if they are (filings of) the linker's candidates;
years, periods, forms and dates only if the question's own reading supports them. Whatever is refused leaves
the offline reading as it was and is listed in `ExtractedMetadata.llm_overridden`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from finrag.state.schema import ExtractedMetadata
from finrag.tools.routing.mentions import ACCEPT
from finrag.tools.sequences import uniq

if TYPE_CHECKING:
    from finrag.tools.routing.registry import Registry

__all__ = ["check_router_choice", "chosen_companies"]


def chosen_companies(llm: Any) -> list[Any]:
    """The companies and tickers the router's reply `llm` chose, as it wrote them."""
    return [*(getattr(llm, "companies", []) or []), *(getattr(llm, "tickers", []) or [])]


def check_router_choice(registry: Registry, linked: ExtractedMetadata, out: ExtractedMetadata, llm: Any,
                        drop: set, rejected: set[str]) -> ExtractedMetadata:
    """`out` (the linker's reading `linked`, less the candidate keys in `drop` and the casefolded names in
    `rejected` that the router rejected) with what the router `llm` chose that the question supports; the rest
    recorded in `out.llm_overridden`."""
    refused: list[str] = []
    allowed = {c.get("key") for c in linked.candidates if c.get("key")} - drop
    named_missing = {str(n).casefold() for c in linked.candidates if not c.get("key")
                     for n in (c.get("name"), c.get("text")) if n} | {n.casefold() for n in linked.not_indexed}
    for n in chosen_companies(llm):
        name = str(n).strip()
        if not name:
            continue
        known = registry.link(name)
        keys = {c.get("key") for c in known.candidates if c.get("key") and float(c.get("confidence") or 0) >= ACCEPT}
        if keys and keys <= allowed:
            out.companies = uniq([*out.companies, *known.companies])
            out.tickers = uniq([*out.tickers, *known.tickers])
        elif name.casefold() in named_missing and name.casefold() not in rejected:
            out.not_indexed = uniq([*out.not_indexed, name])
        else:
            refused.append(f"company {name!r}: not among the question's candidates")
    years_ok = set(linked.years) | {int(p[2:6] if p.startswith("FY") else p[:4]) for p in linked.periods
                                    if p[2:6].isdigit() or p[:4].isdigit()} | \
        {int(d[:4]) for d in linked.dates if d[:4].isdigit()}
    for y in getattr(llm, "years", []) or []:
        if str(y).isdigit() and int(y) in years_ok:
            out.years = sorted(set(out.years) | {int(y)})
        else:
            refused.append(f"year {str(y)!r}: not in the question")
    for p in getattr(llm, "periods", []) or []:
        if str(p) in linked.periods or (str(p).startswith("FY") and str(p)[2:].isdigit()
                                        and int(str(p)[2:]) in years_ok):
            out.periods = uniq([*out.periods, str(p)])
        else:
            refused.append(f"period {str(p)!r}: not in the question")
    for f, ok in (("forms", linked.forms), ("dates", linked.dates)):
        for v in getattr(llm, f, []) or []:
            if str(v) not in ok:
                refused.append(f"{f[:-1]} {str(v)!r}: not in the question")
    for d in getattr(llm, "documents", []) or []:
        doc = registry.get(str(d))
        if doc is not None and registry.company_of(doc.doc_id) in allowed:
            out.documents = uniq([*out.documents, doc.doc_id])
        else:
            refused.append(f"document {str(d)!r}: not a filing of the question's candidates")
    out.llm_overridden = uniq([*out.llm_overridden, *refused])
    return out
