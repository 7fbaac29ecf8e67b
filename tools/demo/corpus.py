"""A small, generated corpus of 10-K-like PDFs that reproduces cross-document chunk confusion.

Every filing uses the same section headings and near-identical boilerplate; only the numbers (and a
few distinctive facts per company) differ. A chunk about "Revenue Recognition" or "Liquidity and
Capital Resources" from one filing therefore looks almost exactly like the same chunk from another
company's or another year's filing, which is the failure mode finrag's routing exists to fix.

Everything is deterministic: the financials come from `random.Random` seeded with strings, chained
year by year from `BASE_YEAR` (so a filing's text depends only on its company and year, never on which
other filings are generated), and the PDFs are saved with fixed metadata and no fresh /ID, so two runs
produce identical bytes. The companies, people and addresses are fictional.

This module is the entry point (`generate_demo_corpus`, the command line) and re-exports the public
API of the package's modules:

- `companies.py`: `DEMO_COMPANIES` (tuple of `DemoCompany`, loaded from `data/companies.yaml`),
  `company_by(ticker_or_key_or_name)`, `demo_doc_id(company, year)` -> "ACMEWIDGETS_2023_10K",
  `demo_filings(companies, years)`.
- `financials.py`: `demo_financials(company, year)` -> dict of the seeded numbers (integers are
  tenths of $ million).
- `pages.py` (texts in `data/filing_text.yaml`, `data/statements.yaml`; layout in `layout.py`):
  `demo_filing_pages(company, year)` -> list of page texts exactly as drawn into the PDF.
- `pdf.py`: `write_demo_pdf(company, year, path)`.
- `questions.py` (templates in `data/questions.yaml`): `demo_questions(corpus=None, *, companies=3,
  years=(2022, 2023))` -> ~12 question dicts; `write_demo_questions(path, corpus=None, ...)` writes
  them as JSONL.

Command line: ``python -m finrag.tools.demo.corpus OUT_DIR [--companies N] [--years 2022 2023]
[--questions questions.jsonl]``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterable, Sequence, Union

from .companies import (
    BASE_YEAR,
    DEMO_COMPANIES,
    MAX_YEAR,
    MIN_YEAR,
    CompanyRef,
    DemoCompany,
    DemoFiling,
    company_by,
    demo_doc_id,
    demo_filings,
)
from .financials import demo_financials
from .pages import demo_filing_pages
from .pdf import write_demo_pdf
from .questions import demo_questions, write_demo_questions

__all__ = [
    "BASE_YEAR",
    "MIN_YEAR",
    "MAX_YEAR",
    "DEMO_COMPANIES",
    "DemoCompany",
    "DemoFiling",
    "CompanyRef",
    "company_by",
    "demo_doc_id",
    "demo_filings",
    "demo_financials",
    "demo_filing_pages",
    "write_demo_pdf",
    "generate_demo_corpus",
    "demo_questions",
    "write_demo_questions",
]


def generate_demo_corpus(out_dir: Union[str, Path], companies: Union[int, Sequence[CompanyRef]] = 3,
                         years: Iterable[int] = (2022, 2023)) -> list[Path]:
    """Write one 10-K PDF per company and fiscal year into `out_dir`; return their paths.

    File names follow FinanceBench: `{KEY}_{YEAR}_10K.pdf`, e.g. `ACMEWIDGETS_2023_10K.pdf`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [write_demo_pdf(fl.company, fl.year, out / fl.file_name) for fl in demo_filings(companies, years)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m finrag.tools.demo.corpus", description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--companies", type=int, default=3)
    ap.add_argument("--years", type=int, nargs="+", default=[2022, 2023])
    ap.add_argument("--questions", type=Path, default=None, help="also write questions JSONL here")
    args = ap.parse_args(argv)
    paths = generate_demo_corpus(args.out_dir, args.companies, args.years)
    for pth in paths:
        print(pth)
    if args.questions:
        print(write_demo_questions(args.questions, paths))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
