"""The fictional demo registrants and the filings (company x fiscal year) a demo corpus consists of.

Companies are data: `data/companies.yaml` is loaded into `DemoCompany` records (`load_companies`),
in file order, as `DEMO_COMPANIES`. Look one up with `company_by`; name filings with `demo_doc_id`
and list a corpus's filings with `demo_filings`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence, Union

from finrag.tools.vocabulary.dates import MONTH_NAMES

from .data_files import load_data

__all__ = [
    "BASE_YEAR", "MIN_YEAR", "MAX_YEAR", "MONTHS",
    "DemoCompany", "DemoFiling", "CompanyRef", "DEMO_COMPANIES",
    "load_companies", "company_by", "select_companies", "check_year", "demo_doc_id", "demo_filings",
]

BASE_YEAR = 2010  # financials are chained from here (seeded year by year)
MIN_YEAR, MAX_YEAR = 2012, 2040  # fiscal years a filing can be generated for (each shows year - 1 too)

MONTHS = list(MONTH_NAMES)


@dataclass(frozen=True)
class DemoCompany:
    """A fictional registrant. Amounts are in tenths of $ million (8200 = $820.0 million)."""

    key: str                 # file-name key, e.g. "ACMEWIDGETS"
    name: str                # exact name of registrant, e.g. "Acme Widgets, Inc."
    short: str               # how questions name it, e.g. "Acme Widgets"
    ticker: str
    exchange: str
    state: str               # state of incorporation
    irs_number: str
    address: str
    hq_city: str             # "Dayton, Ohio" (distinctive fact)
    zip_code: str
    phone: str
    fiscal_year_end: str     # "December 31" or "June 30"
    founded: int
    industry: str
    products: str
    customers: str
    segments: tuple[str, str]            # (larger, smaller)
    acquisition: str                     # acquired company (distinctive fact)
    acquisition_year: int                # fiscal year in which it closed
    acquisition_month_day: tuple[int, int]
    acquisition_desc: str
    acquisition_price: int               # tenths of $ million
    revenue_policy: str                  # company-specific clause of the revenue recognition policy
    website: str
    # seeded model parameters
    revenue_base: int
    growth: tuple[float, float]
    gross_margin: float
    sga_ratio: float
    rnd_ratio: float
    capex_ratio: float
    employees_per_musd: float
    dps_cents_base: int
    shares_k_base: int
    debt_base: int
    inventory_ratio: float
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @property
    def fye_month(self) -> int:
        return MONTHS.index(self.fiscal_year_end.split()[0]) + 1

    @property
    def possessive(self) -> str:
        return self.short + ("'" if self.short.endswith("s") else "'s")

    def as_dict(self) -> dict:
        return {"key": self.key, "name": self.name, "short": self.short, "ticker": self.ticker,
                "exchange": self.exchange, "hq_city": self.hq_city,
                "fiscal_year_end": self.fiscal_year_end, "segments": list(self.segments),
                "acquisition": self.acquisition, "acquisition_year": self.acquisition_year,
                "aliases": list(self.aliases)}


_FLOAT_FIELDS = ("gross_margin", "sga_ratio", "rnd_ratio", "capex_ratio", "employees_per_musd",
                 "inventory_ratio")
_TUPLE_FIELDS = ("segments", "acquisition_month_day", "aliases")


def _company_from_row(row: dict) -> DemoCompany:
    """One `companies.yaml` entry as a `DemoCompany` (YAML lists become tuples, ratios floats)."""
    values = dict(row)
    for name in _TUPLE_FIELDS:
        if name in values:
            values[name] = tuple(values[name])
    for name in _FLOAT_FIELDS:
        values[name] = float(values[name])
    values["growth"] = tuple(float(g) for g in values["growth"])
    return DemoCompany(**values)


def load_companies(name: str = "companies.yaml") -> tuple[DemoCompany, ...]:
    """The demo companies of `data/<name>`, in file order."""
    return tuple(_company_from_row(row) for row in load_data(name))


DEMO_COMPANIES: tuple[DemoCompany, ...] = load_companies()

CompanyRef = Union[DemoCompany, str]


def company_by(ref: CompanyRef) -> DemoCompany:
    """Look a demo company up by object, key, ticker, name or short name (case-insensitive)."""
    if isinstance(ref, DemoCompany):
        return ref
    want = str(ref).strip().lower()
    for c in DEMO_COMPANIES:
        if want in (c.key.lower(), c.ticker.lower(), c.name.lower(), c.short.lower()):
            return c
    raise KeyError(f"unknown demo company: {ref!r}")


def select_companies(companies: Union[int, Sequence[CompanyRef]]) -> list[DemoCompany]:
    """The first `companies` demo companies, or the ones named."""
    if isinstance(companies, int):
        if not 1 <= companies <= len(DEMO_COMPANIES):
            raise ValueError(f"companies must be between 1 and {len(DEMO_COMPANIES)}, got {companies}")
        return list(DEMO_COMPANIES[:companies])
    return [company_by(c) for c in companies]


def check_year(year: int, lo: int = MIN_YEAR) -> int:
    """`year` as an int, or ValueError outside `lo..MAX_YEAR`."""
    year = int(year)
    if not lo <= year <= MAX_YEAR:
        raise ValueError(f"demo fiscal years must be in {lo}..{MAX_YEAR}, got {year}")
    return year


def demo_doc_id(company: CompanyRef, year: int) -> str:
    """FinanceBench-style document id (file name without extension): `ACMEWIDGETS_2023_10K`."""
    return f"{company_by(company).key}_{int(year)}_10K"


@dataclass(frozen=True)
class DemoFiling:
    company: DemoCompany
    year: int

    @property
    def doc_id(self) -> str:
        return demo_doc_id(self.company, self.year)

    @property
    def file_name(self) -> str:
        return self.doc_id + ".pdf"


def demo_filings(companies: Union[int, Sequence[CompanyRef]] = 3,
                 years: Iterable[int] = (2022, 2023)) -> list[DemoFiling]:
    """The filings a corpus consists of, in generation order (company, then year)."""
    ys = [check_year(y) for y in years]
    return [DemoFiling(c, y) for c in select_companies(companies) for y in ys]
