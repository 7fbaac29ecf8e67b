"""A filing's identity from its inline-XBRL document-and-entity (`dei:`) facts.

`dei_identity(dei)` reads the dict the indexer collects (`finrag.tools.documents.xbrl`): DocumentType,
DocumentFiscalYearFocus, DocumentFiscalPeriodFocus, DocumentPeriodEndDate, TradingSymbol,
EntityRegistrantName, EntityCentralIndexKey and CurrentFiscalYearEndDate, and returns registry fields
(`form` '10K'/'10Q'/'8K', `fiscal_year`, `quarter`, `period_end` ISO, `fiscal_year_end` 'September 28',
`tickers`, `registrant`, `cik`); unknown fields are empty. Never raises.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.forms import SEC_FORM_KEYS
from finrag.tools.vocabulary.dates import MONTH_NAMES, dei_date

__all__ = ["dei_identity"]

_TICKER = re.compile(r"[A-Z]{1,5}(?:[.\-][A-Z]{1,2})?")


def dei_identity(dei: Optional[dict]) -> dict:
    """Registry fields from `dei` facts (see the module docstring)."""
    out: dict = {"registrant": "", "tickers": [], "form": "", "fiscal_year": None, "quarter": None,
                 "period_end": None, "fiscal_year_end": None, "cik": ""}
    if not isinstance(dei, dict):
        return out
    try:
        out["registrant"] = re.sub(r"\s+", " ", str(dei.get("EntityRegistrantName") or "")).strip()
        symbols = dei.get("TradingSymbol") or []
        symbols = [symbols] if isinstance(symbols, str) else symbols
        out["tickers"] = [t for t in (str(s).strip().upper() for s in symbols) if _TICKER.fullmatch(t)
                          and t not in ("NONE", "NA")]
        out["form"] = SEC_FORM_KEYS.get(re.sub(r"\s+", "", str(dei.get("DocumentType") or "")).upper(), "")
        fy = re.search(r"(?:19|20)\d{2}", str(dei.get("DocumentFiscalYearFocus") or ""))
        out["fiscal_year"] = int(fy.group()) if fy else None
        fp = str(dei.get("DocumentFiscalPeriodFocus") or "").strip().upper()
        if fp in ("Q1", "Q2", "Q3", "Q4") and out["form"] != "10K":
            out["quarter"] = int(fp[1])
        out["period_end"] = dei_date(str(dei.get("DocumentPeriodEndDate") or ""))
        m = re.search(r"--(\d{2})-(\d{2})", str(dei.get("CurrentFiscalYearEndDate") or ""))
        if m and 1 <= int(m.group(1)) <= 12:
            out["fiscal_year_end"] = f"{MONTH_NAMES[int(m.group(1)) - 1]} {int(m.group(2))}"
        cik = re.sub(r"\D", "", str(dei.get("EntityCentralIndexKey") or ""))
        out["cik"] = cik.lstrip("0") or ""
        if out["fiscal_year"] is None and out["period_end"] and out["form"]:  # no focus fact: the period's year
            out["fiscal_year"] = int(out["period_end"][:4])
    except Exception:  # a malformed fact never breaks indexing
        return out
    return out
