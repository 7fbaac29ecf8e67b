"""Which table recovery reads statement cells best: finrag's word-geometry reader, its plain-text fallback,
PyMuPDF's `page.find_tables()` and `pymupdf4llm`'s Markdown tables.

    python -m bench.reader_tables --pdfs ../shared/data/financebench/pdfs --out docs/results/bench_reader_tables.json

Each labelled cell is (filing, zero-based page, row label as printed, column year, value as printed). The
values come from FinanceBench dev answers where the answer is a single statement cell (marked `gold`) and,
for the rest, from the page's plain text read by eye. A method gets a cell right when it returns a row
whose label equals the printed label (compared without spaces and punctuation, because find_tables drops
spaces) with the value in the column headed by the year. Timing is per page, on this machine.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "reader_tables_cells.jsonl"
"""The labelled cells (the last 5 of the 29: harder layouts, percent columns between the periods, blank cells,
headers split over lines), one JSON object a line: filing, page, label, year, value, source ("gold" or "eye")."""
CELLS = [(c["filing"], c["page"], c["label"], c["year"], c["value"], c["source"])
         for c in (json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip())]


def norm(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


def num(cell: str):
    from finrag.tools.answering.tables import parse_number

    c = re.sub(r"[\s*]|<br>", "", cell or "").strip(",")
    return parse_number(c) if c else None


def rows_words(pdf, page_no: int, doc_id: str):
    from finrag.tools.answering.tables import tables_from_words

    p = pdf[page_no]
    out = []
    for t in tables_from_words(p.get_text("words"), doc_id=doc_id, page=page_no, page_width=p.rect.width,
                               text=p.get_text()):
        for r in t.rows:
            out.append((r.label, {t.columns[i].year: v for i, v in r.values.items()}))
    return out


def rows_text(pdf, page_no: int, doc_id: str):
    from finrag.tools.answering.tables import tables_from_text

    out = []
    for t in tables_from_text(pdf[page_no].get_text(), doc_id=doc_id, page=page_no):
        for r in t.rows:
            out.append((r.label, {t.columns[i].year: v for i, v in r.values.items()}))
    return out


def _grid_rows(grid: list[list[str]]):
    """Rows of a cell grid whose header row holds years: (label, {year: value})."""
    out, years = [], {}
    for cells in grid:
        cells = [c or "" for c in cells]
        ys = {i: int(m.group(1)) for i, c in enumerate(cells)
              for m in [re.fullmatch(r"\**((?:19|20)\d\d)\**", re.sub(r"\s|<br>", "", c))] if m}
        if len(ys) >= 2:
            years = ys
            continue
        if not years:
            continue
        label = next((c for c in cells if re.search(r"[A-Za-z]{2}", c)), "")
        vals = {}
        for i, y in years.items():
            # values sit in the year's column or just left of it ($ signs take a column of their own)
            for j in (i, i - 1, i + 1):
                if 0 <= j < len(cells) and num(cells[j]) is not None and j not in vals:
                    vals[y] = num(cells[j])
                    break
        if label and vals:
            out.append((re.sub(r"\*|<br>", " ", label).strip(), vals))
    return out


def rows_find_tables(pdf, page_no: int, doc_id: str):
    out = []
    for t in pdf[page_no].find_tables().tables:
        out += _grid_rows(t.extract())
    return out


def rows_pymupdf4llm(pdf, page_no: int, doc_id: str):
    import pymupdf4llm

    md = pymupdf4llm.to_markdown(pdf, pages=[page_no], show_progress=False)
    grid = [[c.strip() for c in line.strip().strip("|").split("|")] for line in md.splitlines()
            if line.strip().startswith("|") and not re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", line.strip())]
    return _grid_rows(grid)


METHODS = {"words": rows_words, "text": rows_text,  # finrag: word geometry (default), plain-text fallback
           "find_tables": rows_find_tables, "pymupdf4llm": rows_pymupdf4llm}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", default="../shared/data/financebench/pdfs")
    ap.add_argument("--out", default="docs/results/bench_reader_tables.json")
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args(argv)
    import pymupdf

    pdfs = Path(args.pdfs)
    if not pdfs.is_dir():
        print(f"no PDFs at {pdfs}", file=sys.stderr)
        return 2
    pages = sorted({(d, p) for d, p, *_ in CELLS})
    results = {}
    for name in args.methods.split(","):
        fn = METHODS[name]
        parsed, secs = {}, []
        for doc_id, page in pages:
            with pymupdf.open(pdfs / f"{doc_id}.pdf") as pdf:
                t0 = time.perf_counter()
                try:
                    parsed[(doc_id, page)] = fn(pdf, page, doc_id)
                except Exception as exc:  # a method that fails on a page gets no cells there
                    parsed[(doc_id, page)] = []
                    print(f"{name}: {doc_id} p.{page}: {type(exc).__name__}: {exc}", file=sys.stderr)
                secs.append(time.perf_counter() - t0)
        right, misses = 0, []
        for doc_id, page, label, year, value, _src in CELLS:
            got = [v.get(year) for lab, v in parsed[(doc_id, page)] if norm(lab) == norm(label)]
            if any(g is not None and abs(g - value) < 1e-6 for g in got):
                right += 1
            else:
                misses.append(f"{doc_id} p.{page} {label} {year}: got {got[:2]}")
        results[name] = {"cells_right": right, "cells": len(CELLS), "accuracy": round(right / len(CELLS), 3),
                         "ms_per_page_mean": round(1000 * sum(secs) / len(secs), 1), "pages": len(pages),
                         "misses": misses}
        print(f"{name:28s} {right}/{len(CELLS)} cells right, {results[name]['ms_per_page_mean']} ms/page")
    Path(args.out).write_text(json.dumps({"cells": [list(c) for c in CELLS], "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
