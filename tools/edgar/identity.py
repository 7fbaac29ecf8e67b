"""A fetched filing's exact identity, written next to it as a sidecar `<filing>.json`.

Sources: the submissions JSON (CIK, conformed company name, form, accession, filing date, period of report,
items, fiscal year end) and the filing's own cover data, the dei facts of inline XBRL (`DocumentType`,
`DocumentFiscalYearFocus`, `DocumentFiscalPeriodFocus`, `DocumentPeriodEndDate`, `TradingSymbol`,
`EntityRegistrantName`, `CurrentFiscalYearEndDate` ...), read by `finrag.tools.documents.xbrl.dei_facts` (the
indexer's own collector). The tickers at filing time are the filing's own `TradingSymbol` facts; `current_tickers` are the ones SEC lists today, so a renamed ticker keeps its history.
`identity_source` says which values come from the filing and which were estimated.
`finrag.tools.routing.documents` reads the sidecar when it indexes the filing.
"""
from __future__ import annotations

import json
import os
import re
from datetime import date, datetime
from pathlib import Path
from typing import Optional

from finrag.tools.documents.xbrl import dei_facts
from finrag.tools.edgar.listing import Filing

__all__ = ["SCHEMA", "build_sidecar", "dei_facts", "read_sidecar", "sidecar_path", "write_sidecar"]

SCHEMA = "finrag.edgar.filing/1"


def _iso(text: str) -> Optional[str]:
    text = re.sub(r"\s+", " ", str(text or "")).strip().replace(",", "")
    for fmt in ("%Y-%m-%d", "%B %d %Y", "%b %d %Y", "%m/%d/%Y", "%d %B %Y"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def build_sidecar(filing: Filing, facts: dict, source_url: str, document: str, primary_url: str = "") -> dict:
    fy_fact = str(facts.get("DocumentFiscalYearFocus", "")).strip()
    fp_fact = str(facts.get("DocumentFiscalPeriodFocus", "")).strip().upper()
    fiscal_year = int(fy_fact) if fy_fact.isdigit() and len(fy_fact) == 4 else filing.fiscal_year
    fiscal_period = fp_fact if fp_fact in ("FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2") else \
        ("FY" if filing.form.startswith("10-K") else "")
    symbols = [str(t).upper() for t in facts.get("TradingSymbol", []) if re.fullmatch(r"[A-Za-z.\-]{1,8}", str(t))]
    period_end = _iso(facts.get("DocumentPeriodEndDate", "")) or filing.report_date or None
    return {
        "schema": SCHEMA,
        "cik": filing.cik,
        "cik10": f"{filing.cik:010d}",
        "company": str(facts.get("EntityRegistrantName") or filing.company),
        "conformed_name": filing.company,
        "tickers": symbols or list(filing.tickers),
        "current_tickers": list(filing.tickers),
        "form": filing.form,
        "kind": filing.kind,
        "document_type": str(facts.get("DocumentType", "")) or filing.form,
        "fiscal_year": fiscal_year,
        "fiscal_period": fiscal_period,
        "period_of_report": filing.report_date or None,
        "period_end": period_end,
        "fiscal_year_end": filing.fiscal_year_end or None,
        "filing_date": filing.filing_date,
        "accession": filing.accession,
        "items": list(filing.items),
        "source_url": source_url,
        "primary_document_url": primary_url or source_url,
        "document": document,
        "dei": facts,
        "identity_source": {"fiscal_year": "dei" if fy_fact.isdigit() else "estimated from the period of report",
                            "fiscal_period": "dei" if fp_fact else ("form" if fiscal_period else "unknown"),
                            "tickers": "dei TradingSymbol" if symbols else "submissions (current tickers)"},
        "fetched": date.today().isoformat(),
    }


def sidecar_path(document: Path) -> Path:
    return Path(document).with_suffix(".json")


def write_sidecar(document: Path, sidecar: dict) -> Path:
    """Written last and atomically: a sidecar means its filing is complete (what resume relies on)."""
    path = sidecar_path(document)
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_text(json.dumps(sidecar, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_sidecar(path: Path) -> Optional[dict]:
    """A sidecar written by `write_sidecar`, or None (missing, unreadable, not ours)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == SCHEMA else None
