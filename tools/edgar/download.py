"""Download one filing: its primary document, or for `earnings` the 8-K's press-release exhibit (EX-99.x,
found in the filing index `{accession}-index.htm`), then write it and its identity sidecar.

Files go to `OUT/{TICKER}/{TICKER}_{PERIOD}_{FORM}[_dated-{FILING DATE}]{.htm}` (FinanceBench's naming:
`NWTR_2023_10K.htm`, `NWTR_2023Q2_10Q.htm`, `NWTR_2023_EARNINGS_dated-2023-10-26.htm`), the sidecar beside it
as `.json`. The document is written to a hidden `.part` file and renamed; the sidecar is written last, so a
filing without a sidecar is unfinished and is fetched again.
"""
from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

from finrag.tools.edgar.client import EdgarClient, EdgarError
from finrag.tools.edgar.identity import build_sidecar, dei_facts, read_sidecar, sidecar_path, write_sidecar
from finrag.tools.edgar.listing import Filing

__all__ = ["download_filing", "exhibit_of", "target_name"]

_FORM_WORD = {"10-K": "10K", "10-Q": "10Q", "8-K": "8K", "earnings": "EARNINGS"}


class _IndexTable(HTMLParser):
    """Rows of the filing index's document table: [Seq, Description, Document, Type, Size] + the link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[tuple[list[str], str]] = []
        self._cells: list[str] | None = None
        self._href = ""
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._cells, self._href = [], ""
        elif tag in ("td", "th") and self._cells is not None:
            self._cells.append("")
            self._in_cell = True
        elif tag == "a" and self._in_cell and not self._href:
            self._href = dict(attrs).get("href") or ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._in_cell = False
        elif tag == "tr" and self._cells is not None:
            self.rows.append(([c.strip() for c in self._cells], self._href))
            self._cells = None

    def handle_data(self, data):
        if self._in_cell and self._cells:
            self._cells[-1] += data


def exhibit_of(index_html: str, prefix: str = "EX-99") -> str:
    """The document name of the press-release exhibit (EX-99.1 first, else the first EX-99.x), '' if none."""
    parser = _IndexTable()
    parser.feed(index_html)
    found = []
    for cells, href in parser.rows:
        types = [c for c in cells if c.upper().startswith(prefix)]
        if types and href:
            name = PurePosixPath(href.split("?")[0].replace("/ix?doc=", "")).name
            found.append((0 if types[0].upper() == f"{prefix}.1" else 1, name))
    return min(found)[1] if found else ""


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9.&-]+", "-", part).strip("-") or "X"


def target_name(filing: Filing, sidecar: dict, suffix: str) -> str:
    ticker = _safe((filing.tickers or sidecar.get("tickers") or [f"CIK{filing.cik}"])[0].upper())  # today's ticker
    fy = sidecar.get("fiscal_year") or filing.fiscal_year or filing.filing_date[:4]
    fp = str(sidecar.get("fiscal_period") or "")
    period = f"{fy}{fp}" if filing.kind == "10-Q" and re.fullmatch(r"Q[1-4]", fp) else f"{fy}"
    name = f"{ticker}_{period}_{_FORM_WORD[filing.kind]}"
    if filing.kind in ("8-K", "earnings"):
        name += f"_dated-{filing.filing_date}"
    return name + (suffix if suffix.lower() in (".htm", ".html", ".txt", ".pdf") else ".htm")


def _write_atomic(path: Path, body: bytes) -> None:
    tmp = path.with_name(f".{path.name}.part")
    with open(tmp, "wb") as fh:
        fh.write(body)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def download_filing(client: EdgarClient, filing: Filing, out: Path) -> Path:
    """Fetch `filing` into `out`; returns the document's path. EdgarError on failure (nothing half-written)."""
    folder = f"{client.www}{filing.folder_url_path}"
    primary_url = f"{folder}/{filing.primary_document}"
    if not filing.primary_document:
        raise EdgarError(f"{filing.accession}: the submissions JSON names no primary document")
    if filing.kind == "earnings":
        index_url = f"{folder}/{filing.accession}-index.htm"
        exhibit = exhibit_of(client.get(index_url).decode("utf-8", errors="replace"))
        if not exhibit:
            raise EdgarError(f"{filing.accession}: no EX-99 press-release exhibit in {index_url}")
        url = f"{folder}/{exhibit}"
    else:
        url = primary_url
    body = client.get(url)
    facts = dei_facts(body.decode("utf-8", errors="replace"))
    sidecar = build_sidecar(filing, facts, source_url=url, document="", primary_url=primary_url)
    name = target_name(filing, sidecar, PurePosixPath(url).suffix)
    company_dir = out / name.split("_")[0]
    company_dir.mkdir(parents=True, exist_ok=True)
    path = company_dir / name
    other = read_sidecar(sidecar_path(path))
    if other and other.get("accession") != filing.accession:  # two filings would share a name
        path = company_dir / f"{Path(name).stem}_{filing.accession.replace('-', '')}{Path(name).suffix}"
    sidecar["document"] = path.name
    _write_atomic(path, body)
    write_sidecar(path, sidecar)
    return path
