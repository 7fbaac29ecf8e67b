"""One `finrag fetch` run: companies -> filings -> files with sidecars; resumable, with a summary.

Request pattern (what a run costs at 10 requests/s): 1 for the ticker map (only with tickers), 1 submissions
JSON per company (+1 per older submissions page, only when the years reach back past the recent list), then
1 per 10-K/10-Q/8-K and 2 per earnings release (the filing index, then the exhibit). Already fetched filings
(a sidecar with their accession and kind under OUT) cost nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from finrag.tools.edgar.client import EdgarClient, EdgarError
from finrag.tools.edgar.download import download_filing
from finrag.tools.edgar.identity import read_sidecar
from finrag.tools.edgar.listing import Filing, list_filings
from finrag.tools.edgar.tickers import Company, load_ticker_map, resolve_tickers

__all__ = ["FetchReport", "download_requests", "fetched_keys", "plan_requests", "run_fetch"]

RATE = 10  # requests per second, SEC's limit


def download_requests(kinds) -> int:
    """Requests to download filings of these kinds: 1 each, 2 for an earnings release (index + exhibit)."""
    return sum(2 if k == "earnings" else 1 for k in kinds)


def plan_requests(companies: int, kinds, *, older_pages: int = 0, ticker_map: bool = True) -> int:
    """Requests of a whole run (the pattern above): ticker map + submissions (+ older pages) + downloads."""
    return int(ticker_map) + companies + older_pages + download_requests(kinds)


@dataclass
class FetchReport:
    companies: int = 0
    listed: int = 0
    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    requests: int = 0
    retries: int = 0
    interrupted: bool = False
    planned: list[str] = field(default_factory=list)  # kinds of the filings a dry run would fetch

    def summary(self) -> str:
        if self.planned:
            n = download_requests(self.planned)
            return (f"dry run: would fetch {len(self.planned)} filing(s) with {n} requests (about {n / RATE:.0f} s "
                    f"at {RATE} requests/s); skipped {len(self.skipped)} already fetched, failed {len(self.failed)}; "
                    f"{self.companies} companies, {self.listed} filings matched; listing took {self.requests} requests")
        return (f"fetched {len(self.fetched)} filing(s), skipped {len(self.skipped)} already fetched, "
                f"failed {len(self.failed)}; {self.companies} companies, {self.listed} filings matched; "
                f"{self.requests} requests ({self.retries} retries)")


def fetched_keys(out: Path) -> set[str]:
    """`accession:kind` of every complete filing under `out` (a sidecar whose document exists)."""
    keys: set[str] = set()
    if not out.is_dir():
        return keys
    for p in out.rglob("*.json"):
        s = read_sidecar(p)
        if s and (p.parent / str(s.get("document", ""))).is_file():
            keys.add(f"{s.get('accession')}:{s.get('kind')}")
    return keys


def run_fetch(client: EdgarClient, out: Path, forms: list[str], years: tuple[int, int], *,
              tickers: Optional[list[str]] = None, companies: Optional[list[Company]] = None,
              progress: bool = False, log: Callable[[str], None] = print, dry_run: bool = False) -> FetchReport:
    from tqdm import tqdm

    rep = FetchReport()
    out.mkdir(parents=True, exist_ok=True)
    todo_companies = list(companies or [])
    if tickers:
        found, missing = resolve_tickers(tickers, load_ticker_map(client))
        todo_companies += found
        rep.failed += [(t, "ticker not in SEC's company_tickers.json") for t in missing]
    todo_companies = list({c.cik: c for c in todo_companies}.values())  # GOOGL and GOOG: one company, one listing
    rep.companies = len(todo_companies)
    for stale in out.rglob(".*.part"):  # a download cut off by a kill: never renamed, so never a filing
        stale.unlink(missing_ok=True)
    done = fetched_keys(out)
    filings: list[Filing] = []
    try:
        for c in tqdm(todo_companies, desc="list", unit="company", disable=not progress):
            try:
                filings += list_filings(client, c, forms, years)
            except EdgarError as exc:
                rep.failed.append((c.ticker or f"CIK {c.cik}", str(exc)))
        rep.listed = len(filings)
        for f in tqdm(filings, desc="fetch", unit="filing", disable=not progress):
            label = f"{(f.tickers or [f'CIK{f.cik}'])[0]} {f.kind} {f.accession}"
            if f.key in done:
                rep.skipped.append(label)
                continue
            if dry_run:
                rep.planned.append(f.kind)
                continue
            try:
                path = download_filing(client, f, out)
            except EdgarError as exc:
                rep.failed.append((label, str(exc)))
                continue
            done.add(f.key)
            rep.fetched.append(str(path))
    except KeyboardInterrupt:
        rep.interrupted = True
    rep.requests, rep.retries = client.requests, client.retries
    return rep
