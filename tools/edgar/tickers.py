"""Ticker -> CIK, from SEC's `files/company_tickers.json` ({"0": {"cik_str": 320193, "ticker": "AAPL",
"title": "Apple Inc."}, ...}). Class shares are written with a dash there (`BRK-B`); `BRK.B` and `brk/b` work too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from finrag.tools.edgar.client import EdgarClient, EdgarError

__all__ = ["Company", "load_ticker_map", "normalise_ticker", "parse_ciks", "resolve_tickers"]


@dataclass(frozen=True)
class Company:
    cik: int
    ticker: str = ""
    title: str = ""

    @property
    def cik10(self) -> str:
        return f"{self.cik:010d}"


def normalise_ticker(t: str) -> str:
    return re.sub(r"[./]", "-", str(t).strip().upper().lstrip("$"))


def load_ticker_map(client: EdgarClient) -> dict[str, Company]:
    url = f"{client.www}/files/company_tickers.json"
    raw = client.get_json(url)
    rows = raw.values() if isinstance(raw, dict) else raw if isinstance(raw, list) else None
    if rows is None:
        raise EdgarError(f"unexpected ticker map from {url}: expected an object of companies")
    out: dict[str, Company] = {}
    for row in rows:
        try:
            c = Company(cik=int(row["cik_str"]), ticker=normalise_ticker(row["ticker"]), title=str(row.get("title", "")))
        except (KeyError, TypeError, ValueError):
            raise EdgarError(f"unexpected ticker map from {url}: an entry without cik_str/ticker: {str(row)[:80]}") \
                from None
        out.setdefault(c.ticker, c)
    return out


def resolve_tickers(tickers: list[str], ticker_map: dict[str, Company]) -> tuple[list[Company], list[str]]:
    """(companies found, tickers SEC does not list)."""
    found, missing = [], []
    for t in tickers:
        c = ticker_map.get(normalise_ticker(t))
        (found.append(c) if c else missing.append(t))
    return found, missing


def parse_ciks(values: list[str]) -> list[Company]:
    """'320193', '0000320193', 'CIK0000320193' -> Company; ValueError on anything else."""
    out = []
    for v in values:
        digits = re.sub(r"^CIK", "", str(v).strip().upper())
        if not digits.isdigit() or len(digits) > 10 or int(digits) == 0:
            raise ValueError(f"not a CIK: {v!r} (expected up to 10 digits, e.g. 320193)")
        out.append(Company(cik=int(digits)))
    return out
