"""The routing benchmark at EDGAR scale (issue 35): the S&P-style corpus plus the SEC's registrants with tickers.

The registry of `bench/routing_scale.py` holds, beside the development corpus of `finrag.eval.routing_corpus`
(410 companies x FY2021-2024, `{year}/{TICKER}.pdf`), one FY2024 10-K cover of every other registrant of the SEC's
list (`finrag.tools.routing.registrants`, tools/routing/data/sec_registrants.jsonl.gz): its conformed name as the SEC spells it
(often in capitals), its first ticker of ticker shape as the file name and every other listed class on the cover's
Section 12(b) table (`cover_page` of `routing_corpus`, the same generator). A registrant of the development corpus
(matched by ticker or by name) keeps its own entry, with its other classes from the SEC list on its covers. The
companies the development corpus leaves out on purpose (its "## not indexed" section: Lululemon, Ulta, Snowflake
...) are SEC registrants like any other here.

Registrants with two listed common classes that an index built from a list of constituents holds twice
(`DUAL_CLASS`: GOOG and GOOGL, FOX and FOXA, NWS and NWSA ...) get one file per class, the same cover in each:
routing must see one company.

Sizes: `scale_companies(size)` keeps the development corpus, every registrant a question names (`required`), then
the largest other registrants in the SEC's order up to `size` registrants in all; `size=None` keeps all of them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from finrag.eval.routing_corpus import YEARS, BenchCompany, cover_page, load_companies
from finrag.tools.routing.documents import build_document_info
from finrag.tools.routing.registrants import SecRegistrant, load_registrants
from finrag.tools.routing.text import clean_company_name

__all__ = ["DUAL_CLASS", "SCALE_YEAR", "ScaleCompany", "scale_companies", "scale_documents"]

SCALE_YEAR = 2024
"""The fiscal year of the one filing each registrant outside the development corpus has."""

DUAL_CLASS = {"GOOGL": ("GOOG",), "FOXA": ("FOX",), "NWSA": ("NWS",), "BRK.B": ("BRK.A",), "UAA": ("UA",),
              "ZG": ("Z",), "LBRDA": ("LBRDK",), "BF.A": ("BF.B",), "HEI": ("HEI.A",), "LEN": ("LEN.B",)}
"""Primary ticker -> the other common classes that get a file of their own (the same filing under each ticker)."""

_CLASS_SHAPE = re.compile(r"[A-Z]{1,5}(?:[.\-][A-Z])?")


@dataclass
class ScaleCompany:
    """A registrant of the scale corpus: its generated cover's company, CIK, fiscal years and file tickers."""

    bench: BenchCompany
    cik: int
    years: tuple[int, ...]
    files: tuple[str, ...]  # the tickers that each name a copy of the filing (the primary first)
    dev: bool  # a company of the development corpus (routing_corpus)

    @property
    def ticker(self) -> str:
        return self.bench.ticker

    def doc_ids(self) -> list[str]:
        return [f"{t}_{y}" for y in self.years for t in self.files]


def _dotted(ticker: str) -> str:
    return ticker.replace("-", ".")


def _name_key(name: str) -> str:
    """'MARSH & MCLENNAN COMPANIES, INC.' and 'Marsh & McLennan Companies, Inc.' -> one key."""
    name = re.sub(r"\s*/[A-Z]{2,}/?\s*$", "", name.strip())  # the SEC's '/DE/', '/NEW/' state marks
    return re.sub(r"[^a-z0-9]", "", clean_company_name(name).lower())


def _class_tickers(reg: SecRegistrant) -> list[str]:
    return [_dotted(t) for t in reg.tickers if _CLASS_SHAPE.fullmatch(t)]


def _conformed(name: str) -> str:
    """The SEC's conformed name without its trailing state mark ('KEYCORP /NEW/' -> 'KEYCORP')."""
    return re.sub(r"\s*/[A-Z]{2,}/?\s*$", "", name).strip() or name


def _fye(ticker: str) -> tuple[int, int]:
    import random

    r = random.Random(f"fye|{ticker}")
    if r.random() < 0.8:
        return 12, 31
    month = r.choice([3, 6, 9, 1, 2, 4, 5, 7, 8, 10, 11])
    return month, {2: 28, 4: 30, 6: 30, 9: 30, 11: 30}.get(month, 31)


def all_scale_companies() -> list[ScaleCompany]:
    """Every registrant: the development corpus's indexed companies first, then the SEC's in its order."""
    regs = load_registrants()
    by_ticker = {_dotted(t): r for r in regs for t in r.tickers}
    by_name: dict[str, SecRegistrant] = {}
    for r in regs:
        by_name.setdefault(_name_key(r.name), r)
    out: list[ScaleCompany] = []
    taken: set[int] = set()
    used_tickers: set[str] = set()
    for c in load_companies():
        if not c.indexed:
            continue
        reg = by_ticker.get(c.ticker) or by_name.get(_name_key(c.legal))
        others: tuple[str, ...] = ()
        cik = -len(out) - 1  # a development company the SEC list no longer holds (delisted, renamed)
        if reg is not None and reg.cik not in taken:
            cik = reg.cik
            taken.add(reg.cik)
            others = tuple(t for t in _class_tickers(reg) if t != c.ticker)[:4]
        bench = BenchCompany(c.ticker, c.legal, c.fye, list(c.short), True, others)
        files = (c.ticker, *DUAL_CLASS.get(c.ticker, ()))
        out.append(ScaleCompany(bench, cik, YEARS, files, True))
        used_tickers.update(files)
    for reg in regs:
        if reg.cik in taken:
            continue
        classes = [t for t in _class_tickers(reg) if t not in used_tickers]
        if not classes:
            continue  # preferred shares, warrants or units only: no common ticker to file it under
        primary = classes[0]
        bench = BenchCompany(primary, _conformed(reg.name), _fye(primary), [], True, tuple(classes[1:5]))
        files = (primary, *(t for t in DUAL_CLASS.get(primary, ()) if t in classes))
        out.append(ScaleCompany(bench, reg.cik, (SCALE_YEAR,), files, False))
        taken.add(reg.cik)
        used_tickers.update(files)
    return out


def scale_companies(size: Optional[int] = None, required: Iterable[str] = ()) -> list[ScaleCompany]:
    """The registrants of a corpus of `size` registrants (None: all): the development corpus, those `required`
    (by any of their tickers), then the largest others."""
    every = all_scale_companies()
    if size is None or size >= len(every):
        return every
    need = {_dotted(t) for t in required}
    keep = [c for c in every if c.dev or need & {c.ticker, *c.files, *c.bench.other_tickers}]
    chosen = {id(c) for c in keep}
    for c in every:
        if len(keep) >= size:
            break
        if id(c) not in chosen:
            keep.append(c)
            chosen.add(id(c))
    return keep


def scale_documents(companies: Sequence[ScaleCompany], root: str = "/corpus"):
    """`DocumentInfo` of every filing of the corpus, built by the registry's own code from path + cover text."""
    return [build_document_info(f"{root}/{y}/{t}.pdf", cover_page(c.bench, y))
            for c in companies for y in c.years for t in c.files]
