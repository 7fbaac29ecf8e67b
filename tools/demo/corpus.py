"""A small, generated corpus of 10-K-like PDFs that reproduces cross-document chunk confusion.

Every filing uses the same section headings and near-identical boilerplate; only the numbers (and a
few distinctive facts per company) differ. A chunk about "Revenue Recognition" or "Liquidity and
Capital Resources" from one filing therefore looks almost exactly like the same chunk from another
company's or another year's filing, which is the failure mode finrag's routing exists to fix.

Everything is deterministic: the financials come from `random.Random` seeded with strings, chained
year by year from `BASE_YEAR` (so a filing's text depends only on its company and year, never on which
other filings are generated), and the PDFs are saved with fixed metadata and no fresh /ID, so two runs
produce identical bytes. The companies, people and addresses are fictional.

Public API
----------
- `DEMO_COMPANIES`: tuple of `DemoCompany` (name, short, key, ticker, exchange, hq_city, segments,
  acquisition, ...); `company_by(ticker_or_key_or_name)`.
- `demo_doc_id(company, year)` -> "ACMEWIDGETS_2023_10K"; `demo_filings(companies, years)`.
- `demo_financials(company, year)` -> dict of the seeded numbers (integers are tenths of $ million).
- `demo_filing_pages(company, year)` -> list of page texts exactly as drawn into the PDF.
- `write_demo_pdf(company, year, path)`; `generate_demo_corpus(out_dir, companies=3, years=(2022, 2023))`.
- `demo_questions(corpus=None, *, companies=3, years=(2022, 2023))` -> ~12 question dicts;
  `write_demo_questions(path, corpus=None, ...)` writes them as JSONL.

Command line: ``python -m finrag.tools.demo.corpus OUT_DIR [--companies N] [--years 2022 2023]
[--questions questions.jsonl]``.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence, Union

try:  # PyMuPDF >= 1.24 ships `pymupdf`; `fitz` is the legacy alias (deprecated in 2.0)
    import pymupdf as fitz
except ImportError:  # pragma: no cover
    import fitz  # type: ignore

__all__ = [
    "BASE_YEAR",
    "DEMO_COMPANIES",
    "DemoCompany",
    "DemoFiling",
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

BASE_YEAR = 2010  # financials are chained from here (seeded year by year)
MIN_YEAR, MAX_YEAR = 2012, 2040  # fiscal years a filing can be generated for (each shows year - 1 too)
NBSP = "\u00a0"

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]


# --------------------------------------------------------------------------------------------------
# Companies
# --------------------------------------------------------------------------------------------------
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
        return _MONTHS.index(self.fiscal_year_end.split()[0]) + 1

    @property
    def possessive(self) -> str:
        return self.short + ("'" if self.short.endswith("s") else "'s")

    def as_dict(self) -> dict:
        return {"key": self.key, "name": self.name, "short": self.short, "ticker": self.ticker,
                "exchange": self.exchange, "hq_city": self.hq_city,
                "fiscal_year_end": self.fiscal_year_end, "segments": list(self.segments),
                "acquisition": self.acquisition, "acquisition_year": self.acquisition_year,
                "aliases": list(self.aliases)}


DEMO_COMPANIES: tuple[DemoCompany, ...] = (
    DemoCompany(
        key="ACMEWIDGETS", name="Acme Widgets, Inc.", short="Acme Widgets", ticker="ACME",
        exchange="New York Stock Exchange", state="Delaware", irs_number="31-4417520",
        address="1200 Foundry Road", hq_city="Dayton, Ohio", zip_code="45402", phone="(937) 555-0142",
        fiscal_year_end="December 31", founded=1948, industry="industrial components",
        products="engineered fasteners, precision springs and motion-control assemblies",
        customers="original equipment manufacturers in the automotive, appliance and aerospace markets",
        segments=("Fastening Systems", "Precision Springs"),
        acquisition="Tristate Gearworks LLC", acquisition_year=2023, acquisition_month_day=(3, 14),
        acquisition_desc="a maker of small-batch gear reducers for packaging machinery",
        acquisition_price=1420,
        revenue_policy="Product revenue is recognized at a point in time, generally upon shipment, "
                       "when control of the goods transfers to the customer.",
        website="www.acmewidgets.example",
        revenue_base=8200, growth=(0.02, 0.09), gross_margin=0.31, sga_ratio=0.14, rnd_ratio=0.03,
        capex_ratio=0.045, employees_per_musd=3.4, dps_cents_base=60, shares_k_base=81_500,
        debt_base=3000, inventory_ratio=0.20, aliases=("Acme", "Acme Widgets Inc"),
    ),
    DemoCompany(
        key="BOREALISENERGY", name="Borealis Energy Corporation", short="Borealis Energy", ticker="BORL",
        exchange="New York Stock Exchange", state="Delaware", irs_number="45-2290871",
        address="400 Prairie Wind Drive", hq_city="Bismarck, North Dakota", zip_code="58501",
        phone="(701) 555-0187", fiscal_year_end="December 31", founded=1987,
        industry="renewable power generation",
        products="electricity from wind and solar facilities and grid balancing services",
        customers="utilities, municipal power agencies and large commercial and industrial buyers",
        segments=("Wind Generation", "Grid Services"),
        acquisition="Prairie Storage Partners LP", acquisition_year=2022, acquisition_month_day=(8, 1),
        acquisition_desc="a developer of utility-scale battery storage projects",
        acquisition_price=3865,
        revenue_policy="Revenue from the sale of electricity is recognized over time as energy is "
                       "delivered to the interconnection point, based on metered volumes.",
        website="www.borealisenergy.example",
        revenue_base=21000, growth=(0.0, 0.12), gross_margin=0.36, sga_ratio=0.07, rnd_ratio=0.005,
        capex_ratio=0.22, employees_per_musd=0.7, dps_cents_base=120, shares_k_base=152_000,
        debt_base=34000, inventory_ratio=0.04, aliases=("Borealis", "Borealis Energy Corp"),
    ),
    DemoCompany(
        key="COBALTSOFTWARE", name="Cobalt Software Inc.", short="Cobalt Software", ticker="CBLT",
        exchange="The Nasdaq Stock Market LLC", state="Washington", irs_number="91-3376214",
        address="88 Foothill Tech Parkway", hq_city="Boise, Idaho", zip_code="83702",
        phone="(208) 555-0119", fiscal_year_end="June 30", founded=2004, industry="enterprise software",
        products="cloud-based planning, billing and analytics software",
        customers="mid-sized enterprises and public-sector agencies",
        segments=("Cloud Subscriptions", "Professional Services"),
        acquisition="Lanternfish Analytics, Inc.", acquisition_year=2023, acquisition_month_day=(11, 6),
        acquisition_desc="a provider of embedded reporting tools",
        acquisition_price=2210,
        revenue_policy="Subscription revenue is recognized ratably over the contract term, beginning "
                       "on the date the cloud service is made available to the customer.",
        website="www.cobaltsoftware.example",
        revenue_base=4100, growth=(0.08, 0.20), gross_margin=0.74, sga_ratio=0.36, rnd_ratio=0.19,
        capex_ratio=0.03, employees_per_musd=3.0, dps_cents_base=20, shares_k_base=64_000,
        debt_base=1500, inventory_ratio=0.0, aliases=("Cobalt", "Cobalt Software"),
    ),
    DemoCompany(
        key="DUNMOREFOODS", name="Dunmore Foods Corp.", short="Dunmore Foods", ticker="DNFD",
        exchange="New York Stock Exchange", state="Delaware", irs_number="47-1058893",
        address="2500 Granary Street", hq_city="Omaha, Nebraska", zip_code="68102",
        phone="(402) 555-0163", fiscal_year_end="December 31", founded=1921, industry="packaged foods",
        products="breakfast cereals, packaged grains and frozen prepared meals",
        customers="grocery chains, mass merchandisers and foodservice distributors",
        segments=("Packaged Grains", "Frozen Meals"),
        acquisition="Harvest Hollow Bakeries, Inc.", acquisition_year=2022, acquisition_month_day=(5, 23),
        acquisition_desc="a regional producer of frozen baked goods",
        acquisition_price=1975,
        revenue_policy="Revenue is recognized when product is delivered to the customer's distribution "
                       "center, net of trade promotions, coupons and slotting fees.",
        website="www.dunmorefoods.example",
        revenue_base=15000, growth=(0.01, 0.06), gross_margin=0.28, sga_ratio=0.15, rnd_ratio=0.01,
        capex_ratio=0.04, employees_per_musd=3.0, dps_cents_base=90, shares_k_base=98_000,
        debt_base=9000, inventory_ratio=0.16, aliases=("Dunmore",),
    ),
    DemoCompany(
        key="ELMSTEADPHARMA", name="Elmstead Pharmaceuticals, Inc.", short="Elmstead Pharmaceuticals",
        ticker="ELMX", exchange="The Nasdaq Stock Market LLC", state="Delaware", irs_number="26-8830412",
        address="7 Laurel Research Circle", hq_city="Raleigh, North Carolina", zip_code="27601",
        phone="(919) 555-0135", fiscal_year_end="December 31", founded=1996,
        industry="specialty pharmaceuticals",
        products="branded specialty therapeutics and affordable generic medicines",
        customers="wholesale distributors, specialty pharmacies and hospital systems",
        segments=("Specialty Therapeutics", "Generic Medicines"),
        acquisition="Quillon Biosciences Ltd.", acquisition_year=2023, acquisition_month_day=(9, 12),
        acquisition_desc="a clinical-stage developer of long-acting injectable therapies",
        acquisition_price=4380,
        revenue_policy="Product revenue is recognized when the wholesaler obtains control, net of "
                       "estimated chargebacks, rebates, returns and distribution fees.",
        website="www.elmsteadpharma.example",
        revenue_base=11000, growth=(0.03, 0.11), gross_margin=0.66, sga_ratio=0.27, rnd_ratio=0.16,
        capex_ratio=0.035, employees_per_musd=1.6, dps_cents_base=48, shares_k_base=57_000,
        debt_base=9000, inventory_ratio=0.12, aliases=("Elmstead", "Elmstead Pharma"),
    ),
)

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


def _select_companies(companies: Union[int, Sequence[CompanyRef]]) -> list[DemoCompany]:
    if isinstance(companies, int):
        if not 1 <= companies <= len(DEMO_COMPANIES):
            raise ValueError(f"companies must be between 1 and {len(DEMO_COMPANIES)}, got {companies}")
        return list(DEMO_COMPANIES[:companies])
    return [company_by(c) for c in companies]


def _check_year(year: int, lo: int = MIN_YEAR) -> int:
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
    ys = [_check_year(y) for y in years]
    return [DemoFiling(c, y) for c in _select_companies(companies) for y in ys]


# --------------------------------------------------------------------------------------------------
# Seeded financials (all money in integer tenths of $ million)
# --------------------------------------------------------------------------------------------------
def _rng(*parts) -> random.Random:
    return random.Random("finrag-demo|" + "|".join(str(p) for p in parts))


@lru_cache(maxsize=None)
def _financial_series(key: str, last_year: int) -> tuple[dict, ...]:
    c = company_by(key)
    r0 = _rng(c.key, BASE_YEAR)
    rev = c.revenue_base
    st = {
        "year": BASE_YEAR, "revenue": rev, "cash": round(rev * r0.uniform(0.12, 0.18)),
        "ar": round(rev * 0.13), "inventory": round(rev * (1 - c.gross_margin) * c.inventory_ratio),
        "prepaid": round(rev * 0.02), "ppe": round(rev * max(0.25, c.capex_ratio * 6)),
        "goodwill": round(rev * 0.22), "intangibles": round(rev * 0.08), "other_assets": round(rev * 0.04),
        "ap": round(rev * (1 - c.gross_margin) * 0.11), "accrued": round(rev * 0.06),
        "debt": c.debt_base, "other_lt": round(rev * 0.05), "shares_k": c.shares_k_base,
        "employees": int(rev / 10 * c.employees_per_musd), "dps_cents": c.dps_cents_base,
    }
    out = [st]
    seg_share = r0.uniform(0.58, 0.70)
    for year in range(BASE_YEAR + 1, last_year + 1):
        p = out[-1]
        r = _rng(c.key, year)
        f: dict = {"year": year}
        g = r.uniform(*c.growth)
        f["growth"] = g
        rev = round(p["revenue"] * (1 + g))
        f["revenue"] = rev
        seg1 = round(rev * (seg_share + r.uniform(-0.02, 0.02)))
        f["seg1_revenue"], f["seg2_revenue"] = seg1, rev - seg1
        cor = round(rev * (1 - c.gross_margin + r.uniform(-0.025, 0.025)))
        f["cost_of_revenue"], f["gross_profit"] = cor, rev - cor
        f["sga"] = round(rev * (c.sga_ratio + r.uniform(-0.01, 0.01)))
        f["rnd"] = round(rev * c.rnd_ratio * r.uniform(0.9, 1.1))
        f["operating_income"] = f["gross_profit"] - f["sga"] - f["rnd"]
        f["interest"] = round(p["debt"] * r.uniform(0.035, 0.055))
        f["other_income"] = round(rev * r.uniform(-0.004, 0.006))
        f["pretax"] = f["operating_income"] - f["interest"] + f["other_income"]
        f["tax"] = round(f["pretax"] * r.uniform(0.165, 0.262))
        f["net_income"] = f["pretax"] - f["tax"]
        f["tax_rate"] = f"{100.0 * f['tax'] / f['pretax']:.1f}%"
        f["shares_k"] = round(p["shares_k"] * (1 - r.uniform(0.0, 0.02)))
        f["diluted_shares_k"] = round(f["shares_k"] * r.uniform(1.003, 1.012))
        f["eps_basic"] = f["net_income"] * 100_000 / f["shares_k"] / 1000  # dollars
        f["eps_diluted"] = f["net_income"] * 100_000 / f["diluted_shares_k"] / 1000
        raise_cents = r.choice((0, 2, 4, 4, 6, 8))
        payout_cap = 0.6 * 100 * f["eps_diluted"]  # no raise above a 60% payout ratio
        f["dps_cents"] = p["dps_cents"] + (raise_cents if p["dps_cents"] + raise_cents <= payout_cap else 0)
        f["dividends"] = round(f["dps_cents"] * f["shares_k"] / 10_000)
        f["employees"] = int(p["employees"] * (1 + g * 0.6 + r.uniform(-0.02, 0.02)))
        # balance sheet working capital
        f["ar"] = round(rev * r.uniform(0.11, 0.15))
        f["inventory"] = round(cor * c.inventory_ratio * r.uniform(0.9, 1.1))
        f["prepaid"] = round(rev * r.uniform(0.015, 0.025))
        f["ap"] = round(cor * r.uniform(0.09, 0.13))
        f["accrued"] = round(rev * r.uniform(0.05, 0.07))
        wc = -((f["ar"] - p["ar"]) + (f["inventory"] - p["inventory"]) + (f["prepaid"] - p["prepaid"])) \
            + (f["ap"] - p["ap"]) + (f["accrued"] - p["accrued"])
        f["working_capital_change"] = wc
        amort = round(p["intangibles"] * 0.1)
        f["da"] = round(p["ppe"] * r.uniform(0.08, 0.11)) + amort
        f["sbc"] = round(rev * r.uniform(0.008, 0.02))
        f["cfo"] = f["net_income"] + f["da"] + f["sbc"] + wc
        f["capex"] = round(rev * c.capex_ratio * r.uniform(0.85, 1.15))
        f["acquisitions"] = c.acquisition_price if year == c.acquisition_year else 0
        f["cfi"] = -f["capex"] - f["acquisitions"]
        f["buybacks"] = round(rev * r.uniform(0.0, 0.02))
        target_cash = round(rev * r.uniform(0.11, 0.19))
        borrow = target_cash - (p["cash"] + f["cfo"] + f["cfi"] - f["dividends"] - f["buybacks"])
        if borrow < -p["debt"]:  # debt repaid in full: return the excess cash through buybacks
            f["buybacks"] += -p["debt"] - borrow
            borrow = -p["debt"]
        f["borrowings"] = borrow
        f["cff"] = -f["dividends"] - f["buybacks"] + borrow
        f["cash_begin"] = p["cash"]
        f["net_change_cash"] = f["cfo"] + f["cfi"] + f["cff"]
        f["cash"] = p["cash"] + f["net_change_cash"]
        f["debt"] = p["debt"] + borrow
        f["current_debt"] = round(f["debt"] * 0.05)
        f["lt_debt"] = f["debt"] - f["current_debt"]
        f["total_current_assets"] = f["cash"] + f["ar"] + f["inventory"] + f["prepaid"]
        f["ppe"] = p["ppe"] + f["capex"] - (f["da"] - amort)
        f["goodwill"] = p["goodwill"] + round(f["acquisitions"] * 0.65)
        f["intangibles"] = p["intangibles"] + (f["acquisitions"] - round(f["acquisitions"] * 0.65)) - amort
        f["other_assets"] = round(rev * r.uniform(0.03, 0.05))
        f["total_assets"] = (f["total_current_assets"] + f["ppe"] + f["goodwill"] + f["intangibles"]
                             + f["other_assets"])
        f["total_current_liabilities"] = f["ap"] + f["accrued"] + f["current_debt"]
        f["other_lt"] = round(rev * r.uniform(0.04, 0.06))
        f["total_liabilities"] = f["total_current_liabilities"] + f["lt_debt"] + f["other_lt"]
        f["equity"] = f["total_assets"] - f["total_liabilities"]
        f["holders"] = r.randint(900, 9000)
        f["price"] = max(5.0, f["eps_diluted"] * r.uniform(14, 26))
        f["filing_day"] = r.randint(12, 27)
        out.append(f)
    return tuple(out)


def demo_financials(company: CompanyRef, year: int) -> dict:
    """Seeded financials of one fiscal year; money in integer tenths of $ million."""
    c = company_by(company)
    year = _check_year(year, MIN_YEAR - 1)
    return dict(_financial_series(c.key, year)[year - BASE_YEAR])


# --------------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------------
def _num(tenths: int) -> str:
    """1234 -> '123.4' with thousands separators."""
    return f"{tenths / 10:,.1f}"


def _money(tenths: int) -> str:
    """Narrative amount: '$1,234.5 million'."""
    return f"${_num(tenths)} million"


def _cell(tenths: int) -> str:
    if tenths == 0:
        return "-"
    return f"({_num(-tenths)})" if tenths < 0 else _num(tenths)


def _pct(x: float) -> str:
    return f"{100.0 * x:.1f}%"


def _dps(f: dict) -> str:
    return f"${f['dps_cents'] / 100:.2f} per share"


def _fye(c: DemoCompany, year: int) -> str:
    return f"{c.fiscal_year_end}, {year}"


def _calendar(c: DemoCompany, fiscal_year: int, month: int, day: int) -> str:
    """A date inside fiscal year `fiscal_year` (fiscal years end in c.fye_month)."""
    year = fiscal_year - 1 if month > c.fye_month else fiscal_year
    return f"{_MONTHS[month - 1]} {day}, {year}"


def _filing_date(c: DemoCompany, year: int, f: dict) -> str:
    month = c.fye_month % 12 + 2
    cal = year + 1 if month <= c.fye_month else year
    return f"{_MONTHS[month - 1]} {f['filing_day']}, {cal}"


def _mid_year(c: DemoCompany, year: int) -> str:
    month = (c.fye_month + 6 - 1) % 12 + 1
    return _calendar(c, year, month, 30 if month in (4, 6, 9, 11) else 31)


# --------------------------------------------------------------------------------------------------
# Layout: lines on pages, with tracked facts and headings
# --------------------------------------------------------------------------------------------------
PAGE_W, PAGE_H = 612.0, 792.0
MARGIN_X, TOP, BOTTOM = 54.0, 64.0, 730.0
TEXT_W = PAGE_W - 2 * MARGIN_X
WRAP = 100            # characters per body line (Helvetica 9pt: ~117 fit; width is checked when drawn)
PAGE_CHAR_BUDGET = 3300

# style -> (font, size, leading, centred)
_STYLES = {
    "title": ("hebo", 13.0, 19.0, True),
    "center": ("helv", 9.5, 13.0, True),
    "centerb": ("hebo", 10.0, 14.0, True),
    "h1": ("hebo", 11.0, 17.0, False),
    "h2": ("hebo", 9.5, 14.0, False),
    "body": ("helv", 9.0, 12.5, False),
    "mono": ("cour", 8.0, 10.5, False),
    "blank": ("helv", 9.0, 7.0, False),
}


@dataclass
class _Page:
    lines: list = field(default_factory=list)   # (text, style)
    height: float = 0.0
    chars: int = 0

    def text(self) -> str:
        return "\n".join(t for t, s in self.lines if s != "blank")


_AMOUNT_RE = re.compile(r"\$[\d,]+(?:\.\d+)? (?:million|billion|per diluted share|per share)")


class _Layout:
    def __init__(self) -> None:
        self.pages: list[_Page] = [_Page()]
        self.facts: dict[str, list[int]] = {}
        self.fact_text: dict[tuple[str, int], str] = {}  # (fact, page) -> paragraph/line stating it
        self.headings: dict[str, int] = {}

    @property
    def page_index(self) -> int:
        return len(self.pages) - 1

    def page_break(self) -> None:
        if self.pages[-1].lines:
            self.pages.append(_Page())

    def _emit(self, text: str, style: str) -> None:
        page = self.pages[-1]
        lead = _STYLES[style][2]
        if style == "blank":
            if page.lines:
                page.lines.append(("", style))
                page.height += lead
            return
        if page.lines and (page.height + lead > BOTTOM - TOP or page.chars + len(text) > PAGE_CHAR_BUDGET):
            self.page_break()
            page = self.pages[-1]
        page.lines.append((text, style))
        page.height += lead
        page.chars += len(text) + 1

    def _room(self, lines: int, chars: int = 0) -> None:
        page = self.pages[-1]
        if page.lines and (page.height + lines * 12.5 > BOTTOM - TOP or page.chars + chars > PAGE_CHAR_BUDGET):
            self.page_break()

    def blank(self) -> None:
        self._emit("", "blank")

    def title(self, text: str) -> None:
        self._emit(text, "title")

    def center(self, text: str, bold: bool = False) -> None:
        self._emit(text, "centerb" if bold else "center")

    def heading(self, text: str, level: int = 1, new_page: bool = False) -> None:
        if new_page:
            self.page_break()
        else:
            self._room(5, 400)
        self.blank()
        self._emit(text, "h1" if level == 1 else "h2")
        self.headings.setdefault(text, self.page_index)

    def para(self, text: str, facts: dict[str, str] | None = None) -> None:
        facts = facts or {}
        for ans in facts.values():
            if ans not in text:
                raise ValueError(f"fact {ans!r} not in paragraph {text[:60]!r}")
            text = text.replace(ans, ans.replace(" ", NBSP))
        # keep every amount on one line ("$1,234.5 million", "$0.88 per share") so it can be matched verbatim
        text = _AMOUNT_RE.sub(lambda m: m.group(0).replace(" ", NBSP), text)
        lines = textwrap.wrap(text, WRAP, break_long_words=False, break_on_hyphens=False)
        for line in lines:
            self._emit(line.replace(NBSP, " "), "body")
            for fid, ans in facts.items():
                if ans in line.replace(NBSP, " "):
                    pages = self.facts.setdefault(fid, [])
                    if self.page_index not in pages:
                        pages.append(self.page_index)
                    self.fact_text.setdefault((fid, self.page_index), text.replace(NBSP, " "))
        self.blank()

    def mark_fact(self, fid: str, answer: str) -> None:
        """Record that the line just emitted states `answer` (for lines not drawn by `para`)."""
        text = self.pages[-1].lines[-1][0]
        if answer not in text:
            raise ValueError(f"fact {answer!r} not in line {text!r}")
        pages = self.facts.setdefault(fid, [])
        if self.page_index not in pages:
            pages.append(self.page_index)
        self.fact_text.setdefault((fid, self.page_index), text)

    def mono(self, lines: Sequence[str]) -> None:
        """Fixed-width lines (tables) kept on one page."""
        self._room(len(lines) + 1, sum(len(x) + 1 for x in lines))
        for line in lines:
            self._emit(line, "mono")
        self.blank()


# --------------------------------------------------------------------------------------------------
# The filing's text
# --------------------------------------------------------------------------------------------------
def _table(header: Sequence[str], rows: Sequence[tuple], width: int = 54) -> list[str]:
    """rows: (label, v1, v2) with ints (tenths), strings, or None for a label-only row."""
    out = [" " * width + "".join(f"{h:>13}" for h in header)]
    for row in rows:
        label, vals = row[0], row[1:]
        if not vals or vals[0] is None:
            out.append(label)
            continue
        cells = [v if isinstance(v, str) else _cell(v) for v in vals]
        out.append(f"{label:<{width}}" + "".join(f"{v:>13}" for v in cells))
    return out


TOC_ITEMS = [
    ("PART I", None),
    ("Item 1.", "Business"),
    ("Item 1A.", "Risk Factors"),
    ("Item 1B.", "Unresolved Staff Comments"),
    ("Item 2.", "Properties"),
    ("Item 3.", "Legal Proceedings"),
    ("Item 4.", "Mine Safety Disclosures"),
    ("PART II", None),
    ("Item 5.", "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity Securities"),
    ("Item 6.", "[Reserved]"),
    ("Item 7.", "Management's Discussion and Analysis of Financial Condition and Results of Operations"),
    ("Item 7A.", "Quantitative and Qualitative Disclosures About Market Risk"),
    ("Item 8.", "Financial Statements and Supplementary Data"),
    ("Item 9.", "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure"),
    ("Item 9A.", "Controls and Procedures"),
    ("PART III", None),
    ("Item 10.", "Directors, Executive Officers and Corporate Governance"),
    ("PART IV", None),
    ("Item 15.", "Exhibits and Financial Statement Schedules"),
]


def _heading_of(item: str, title: str) -> str:
    return f"{item} {title}"


def _build(c: DemoCompany, year: int, toc_pages: dict[str, int] | None = None) -> _Layout:
    f = demo_financials(c, year)
    p = demo_financials(c, year - 1)
    L = _Layout()
    fy, py = f"fiscal {year}", f"fiscal {year - 1}"
    fye, pfye = _fye(c, year), _fye(c, year - 1)
    s1, s2 = c.segments
    acq_date = _calendar(c, c.acquisition_year, *c.acquisition_month_day)
    facts_hq = {"hq": c.hq_city}

    # ---- cover page --------------------------------------------------------------------------------
    L.title("UNITED STATES")
    L.title("SECURITIES AND EXCHANGE COMMISSION")
    L.center("Washington, D.C. 20549")
    L.blank()
    L.title("FORM 10-K")
    L.blank()
    L.para("[X] ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934")
    L.center(f"For the fiscal year ended {fye}", bold=True)
    L.center("OR")
    L.para("[ ] TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934")
    L.center("For the transition period from __________ to __________")
    L.center(f"Commission File Number 001-{30000 + int(c.irs_number[3:7]):05d}")
    L.blank()
    L.title(c.name)
    L.center("(Exact name of registrant as specified in its charter)")
    L.blank()
    L.mono([f"{c.state:<48}{c.irs_number:>40}",
            f"{'(State or other jurisdiction of incorporation)':<48}{'(I.R.S. Employer Identification No.)':>40}"])
    L.center(f"{c.address}, {c.hq_city} {c.zip_code}")
    L.mark_fact("hq", c.hq_city)
    L.center("(Address of principal executive offices) (Zip Code)")
    L.center(f"{c.phone}")
    L.center("(Registrant's telephone number, including area code)")
    L.blank()
    L.para("Securities registered pursuant to Section 12(b) of the Act:")
    L.mono([f"{'Title of each class':<42}{'Trading Symbol(s)':<20}Name of each exchange on which registered",
             f"{'Common Stock, $0.01 par value per share':<42}{c.ticker:<20}{c.exchange}"])
    L.para("Securities registered pursuant to Section 12(g) of the Act: None")
    L.para("Indicate by check mark if the registrant is a well-known seasoned issuer, as defined in Rule 405 "
           "of the Securities Act. Yes [X] No [ ] Indicate by check mark if the registrant is not required to "
           "file reports pursuant to Section 13 or Section 15(d) of the Act. Yes [ ] No [X]")
    L.para("Indicate by check mark whether the registrant (1) has filed all reports required to be filed by "
           "Section 13 or 15(d) of the Securities Exchange Act of 1934 during the preceding 12 months, and (2) "
           "has been subject to such filing requirements for the past 90 days. Yes [X] No [ ]")
    L.para("Indicate by check mark whether the registrant is a large accelerated filer, an accelerated filer, "
           "a non-accelerated filer, a smaller reporting company, or an emerging growth company. Large "
           "accelerated filer [X] Accelerated filer [ ] Non-accelerated filer [ ] Smaller reporting company [ ]")
    mv = f["price"] * f["shares_k"] * 0.97 / 1e6
    filed = _filing_date(c, year, f)
    L.para(f"The aggregate market value of the voting stock held by non-affiliates of the registrant as of "
           f"{_mid_year(c, year)} was approximately ${mv:,.1f} billion. As of {filed}, the registrant had "
           f"{f['shares_k'] * 1000 + f['holders']:,} shares of common stock outstanding.")
    L.para("DOCUMENTS INCORPORATED BY REFERENCE: Portions of the registrant's definitive Proxy Statement for "
           f"its {year + 1} Annual Meeting of Stockholders are incorporated by reference into Part III.")

    # ---- table of contents and forward-looking statements ------------------------------------------
    L.page_break()
    L.center("TABLE OF CONTENTS", bold=True)
    L.blank()
    toc = []
    for item, title in TOC_ITEMS:
        if title is None:
            toc.append(item)
            continue
        pg = (toc_pages or {}).get(_heading_of(item, title))
        short_title = title if len(title) <= 70 else title[:67] + "..."
        toc.append(f"  {item:<10}{short_title:<72}{'' if pg is None else pg + 1:>4}")
    L.mono(toc)
    L.heading("CAUTIONARY NOTE REGARDING FORWARD-LOOKING STATEMENTS", 2)
    L.para("This Annual Report on Form 10-K contains forward-looking statements within the meaning of "
           "Section 27A of the Securities Act of 1933 and Section 21E of the Securities Exchange Act of 1934. "
           "Words such as \"anticipate,\" \"believe,\" \"continue,\" \"estimate,\" \"expect,\" \"intend,\" "
           "\"may,\" \"plan,\" \"project,\" \"should\" and \"will\" and similar expressions identify "
           "forward-looking statements. These statements relate to, among other things, our expected revenue "
           "growth, margins, capital expenditures, liquidity, dividends and the integration of acquired "
           "businesses. They are based on management's current expectations and are subject to risks and "
           "uncertainties that could cause actual results to differ materially, including those described "
           "under Item 1A. Risk Factors. We undertake no obligation to update any forward-looking statement, "
           "except as required by law.")
    L.para(f"Unless the context indicates otherwise, references in this report to the \"Company,\" \"we,\" "
           f"\"us\" and \"our\" refer to the registrant and its consolidated subsidiaries. Our fiscal year ends "
           f"on {c.fiscal_year_end}; references to {fy} refer to the fiscal year ended {fye}.")

    # ---- Item 1. Business --------------------------------------------------------------------------
    L.heading("PART I", 1, new_page=True)
    L.heading(_heading_of("Item 1.", "Business"))
    L.heading("General", 2)
    L.para(f"We are a provider of {c.industry}. We design, develop and sell {c.products} to "
           f"{c.customers}. The Company was founded in {c.founded}, is incorporated in {c.state} and has its "
           f"corporate headquarters in {c.hq_city}.", facts_hq)
    L.heading("Segments", 2)
    L.para(f"We manage our business in two reportable segments: {s1} and {s2}. The {s1} segment is our "
           f"largest segment and accounted for {_pct(f['seg1_revenue'] / f['revenue'])} of total revenue in "
           f"{fy}. The {s2} segment accounted for the remainder. Segment results are reviewed by our chief "
           f"operating decision maker, who allocates resources and assesses performance based on segment "
           f"revenue and segment operating income. Additional information is presented in Note 4 to the "
           f"consolidated financial statements.")
    if year == c.acquisition_year:
        L.heading("Acquisitions", 2)
        L.para(f"On {acq_date}, we completed the acquisition of {c.acquisition}, {c.acquisition_desc}, for "
               f"total cash consideration of {_money(c.acquisition_price)}, net of cash acquired. The acquired "
               f"business is reported within our {s2} segment.", {"acquisition": c.acquisition})
    elif year > c.acquisition_year:
        L.heading("Acquisitions", 2)
        L.para(f"We did not complete any material acquisitions in {fy}. In fiscal {c.acquisition_year} we "
               f"acquired {c.acquisition}, which is reported within our {s2} segment.")
    else:
        L.heading("Acquisitions", 2)
        L.para(f"We did not complete any material acquisitions in {fy}. We continue to evaluate acquisitions "
               f"that expand our product portfolio or our presence in attractive end markets.")
    L.heading("Competition", 2)
    L.para("The markets in which we operate are highly competitive. We compete on the basis of product "
           "performance, quality, price, delivery times, technical support and the breadth of our product "
           "offering. Our competitors include large multinational companies as well as smaller regional "
           "businesses, some of which have greater financial resources than we do. We believe that our "
           "engineering expertise, long-standing customer relationships and scale provide a competitive "
           "advantage, but we cannot be certain that we will maintain our market position.")
    L.heading("Raw Materials and Suppliers", 2)
    L.para("We purchase raw materials, components and services from a large number of suppliers. We "
           "generally have multiple sources for our key inputs and have not experienced material "
           "disruptions in supply, although prices for certain materials and for freight fluctuated during "
           "the year. We use long-term agreements and, where appropriate, hedging to manage price risk.")
    L.heading("Human Capital", 2)
    L.para(f"As of {fye}, we employed approximately {f['employees']:,} full-time employees, compared with "
           f"approximately {p['employees']:,} as of {pfye}. None of our employees in the United States are "
           f"represented by a labor union. We believe our relations with our employees are good. We invest "
           f"in safety, training and development programs and offer competitive compensation and benefits.",
           {"employees": f"{f['employees']:,}"})
    L.heading("Available Information", 2)
    L.para(f"Our website address is {c.website}. We make available free of charge on our website our Annual "
           f"Reports on Form 10-K, Quarterly Reports on Form 10-Q, Current Reports on Form 8-K and amendments "
           f"to those reports as soon as reasonably practicable after they are filed with the SEC. The "
           f"information on our website is not incorporated by reference into this report.")

    # ---- Item 1A. Risk Factors ---------------------------------------------------------------------
    L.heading(_heading_of("Item 1A.", "Risk Factors"), new_page=True)
    L.para("Our business, financial condition and results of operations are subject to various risks and "
           "uncertainties, including those described below. These risks are not the only ones we face. "
           "Additional risks not presently known to us or that we currently deem immaterial may also impair "
           "our business operations.")
    risks = [
        ("Adverse economic conditions could reduce demand for our products and services.",
         "Demand for our offerings depends on the level of capital spending and general economic activity in "
         "the markets we serve. A recession, inflation, higher interest rates, or reduced customer "
         "confidence could cause customers to delay or cancel purchases, which could reduce our revenue and "
         "margins and increase the risk that receivables become uncollectible."),
        ("We face intense competition, which could reduce our market share and profitability.",
         "Competitors may introduce new technologies, lower their prices or consolidate to achieve greater "
         "scale. If we are unable to respond effectively, we may lose customers or be forced to reduce prices, "
         "which would adversely affect our results of operations."),
        ("Disruptions in our supply chain could increase costs and delay deliveries.",
         "We rely on third parties for raw materials, components, logistics and information technology "
         "services. Supplier failures, transportation constraints, natural disasters, pandemics or "
         "geopolitical events could interrupt our operations and increase our costs."),
        ("Cybersecurity incidents could disrupt our operations and harm our reputation.",
         "We depend on information systems to operate our business. A breach of our systems or those of our "
         "vendors could result in the loss of confidential information, operational disruption, litigation, "
         "regulatory penalties and remediation costs."),
        ("Acquisitions involve risks that could adversely affect our business.",
         "We may not realize the expected benefits of acquisitions, and integrating acquired businesses may "
         "divert management attention, result in the loss of key employees or customers, or require "
         "impairment charges on goodwill and intangible assets."),
        ("Our indebtedness could limit our flexibility.",
         "Our credit agreements contain covenants that restrict our ability to incur additional debt, pay "
         "dividends and make investments. A failure to comply with these covenants could result in an event "
         "of default and the acceleration of our obligations."),
        ("Changes in tax laws could affect our effective tax rate.",
         "We are subject to income taxes in the United States and in foreign jurisdictions. Changes in tax "
         "legislation, the mix of earnings by jurisdiction, or the outcome of tax audits could materially "
         "change our effective tax rate and our cash taxes."),
        ("Climate change and related regulation may increase our costs.",
         "Physical risks such as severe weather, and transition risks such as new emissions regulations, "
         "disclosure requirements and changing customer preferences, could increase our operating costs or "
         "reduce demand for some of our products."),
        ("The market price of our common stock may be volatile.",
         "The price of our common stock may fluctuate significantly in response to our operating results, "
         "announcements by competitors, changes in analysts' estimates and general market conditions, and "
         "we cannot assure that we will continue to pay dividends at current levels."),
    ]
    for head, body in risks:
        L.heading(head, 2)
        L.para(body)
    L.heading(_heading_of("Item 1B.", "Unresolved Staff Comments"))
    L.para("None.")
    L.heading(_heading_of("Item 2.", "Properties"))
    L.para(f"Our corporate headquarters is located in {c.hq_city}, in a facility of approximately "
           f"{120 + int(c.irs_number[-3:]) % 180},000 square feet that we own. We also operate manufacturing, "
           f"distribution, research and office facilities in North America, Europe and Asia, which we believe "
           f"are suitable and adequate for our current needs.", facts_hq)
    L.heading(_heading_of("Item 3.", "Legal Proceedings"))
    L.para("From time to time we are involved in legal proceedings arising in the ordinary course of "
           "business, including product liability, commercial, employment and environmental matters. We do "
           "not believe that the outcome of any pending proceeding will have a material adverse effect on our "
           "financial position, results of operations or cash flows.")
    L.heading(_heading_of("Item 4.", "Mine Safety Disclosures"))
    L.para("Not applicable.")

    # ---- Item 5 -------------------------------------------------------------------------------------
    L.heading("PART II", 1)
    L.heading(_heading_of("Item 5.", TOC_ITEMS[8][1]))
    L.para(f"Our common stock is listed on the {c.exchange} under the trading symbol \"{c.ticker}\". As of "
           f"{filed}, there were approximately {f['holders']:,} holders of record of our common stock.")
    L.para(f"During {fy}, our Board of Directors declared quarterly cash dividends totaling {_dps(f)}, "
           f"compared with {_dps(p)} in {py}. The declaration and payment of future dividends is at the "
           f"discretion of the Board of Directors and will depend on our earnings, financial condition and "
           f"capital requirements.", {"dps": _dps(f)})
    L.para(f"During {fy}, we repurchased shares of our common stock for {_money(f['buybacks'])} under our "
           f"share repurchase program. Repurchases may be made in the open market or in privately negotiated "
           f"transactions and the program may be suspended at any time.")
    L.heading(_heading_of("Item 6.", "[Reserved]"))

    # ---- Item 7. MD&A -------------------------------------------------------------------------------
    L.heading(_heading_of("Item 7.", TOC_ITEMS[10][1]), new_page=True)
    L.para("The following discussion should be read together with our consolidated financial statements and "
           "the related notes included in Item 8 of this report. This section discusses the results of "
           f"{fy} compared with {py}.")
    L.heading("Results of Operations", 2)
    growth = (f["revenue"] - p["revenue"]) / p["revenue"]
    L.para(f"Total revenue for {fy} was {_money(f['revenue'])}, "
           f"{'an increase' if growth >= 0 else 'a decrease'} of {_pct(abs(growth))} compared with "
           f"{_money(p['revenue'])} in {py}. The change reflected pricing actions, volume trends in our end "
           f"markets and the contribution of acquired businesses.", {"revenue": _money(f["revenue"])})
    L.para(f"{s1} revenue was {_money(f['seg1_revenue'])} in {fy} compared with {_money(p['seg1_revenue'])} "
           f"in {py}. {s2} revenue was {_money(f['seg2_revenue'])} in {fy} compared with "
           f"{_money(p['seg2_revenue'])} in {py}.", {"seg2_revenue": _money(f["seg2_revenue"]),
                                                      "seg1_revenue": _money(f["seg1_revenue"])})
    L.para(f"Gross profit was {_money(f['gross_profit'])}, or {_pct(f['gross_profit'] / f['revenue'])} of "
           f"revenue, compared with {_pct(p['gross_profit'] / p['revenue'])} in {py}. Selling, general and "
           f"administrative expenses were {_money(f['sga'])} and research and development expenses were "
           f"{_money(f['rnd'])}. Operating income was {_money(f['operating_income'])} compared with "
           f"{_money(p['operating_income'])} in {py}.")
    L.para(f"Net income for {fy} was {_money(f['net_income'])}, or ${f['eps_diluted']:.2f} per diluted "
           f"share, compared with {_money(p['net_income'])}, or ${p['eps_diluted']:.2f} per diluted share, "
           f"in {py}.", {"net_income": _money(f["net_income"])})
    L.heading("Income Taxes", 2)
    L.para(f"Our provision for income taxes was {_money(f['tax'])} in {fy}, representing an effective tax "
           f"rate of {f['tax_rate']}, compared with an effective tax rate of {p['tax_rate']} in {py}. The "
           f"effective tax rate differs from the U.S. federal statutory rate of 21% primarily because of state "
           f"income taxes, the mix of foreign earnings, research tax credits and stock-based compensation.",
           {"tax_rate": f["tax_rate"]})
    L.heading("Critical Accounting Estimates", 2)
    L.heading("Revenue Recognition", 2)
    L.para("We recognize revenue when control of the promised goods or services is transferred to our "
           "customers, in an amount that reflects the consideration we expect to be entitled to in exchange "
           f"for those goods or services. {c.revenue_policy} Contracts with multiple performance obligations "
           "are allocated based on relative standalone selling prices. Estimates of variable consideration, "
           "such as rebates, discounts and returns, are based on historical experience and are updated each "
           "reporting period. Judgment is required in determining the timing of the transfer of control and "
           "in estimating variable consideration.")
    L.heading("Goodwill and Intangible Assets", 2)
    L.para("We test goodwill for impairment annually in the fourth quarter and whenever events indicate that "
           "the carrying amount of a reporting unit may exceed its fair value. Fair value is estimated using "
           "discounted cash flows that depend on assumptions about revenue growth, margins and discount "
           "rates. No impairment was recorded in the periods presented.")
    L.heading("Liquidity and Capital Resources", 2)
    L.para(f"As of {fye}, we had cash and cash equivalents of {_money(f['cash'])}, compared with "
           f"{_money(p['cash'])} as of {pfye}. Total current assets were {_money(f['total_current_assets'])} "
           f"and total current liabilities were {_money(f['total_current_liabilities'])} as of {fye}.",
           {"cash": _money(f["cash"]), "total_current_assets": _money(f["total_current_assets"])})
    L.para(f"Net cash provided by operating activities was {_money(f['cfo'])} in {fy}. Capital expenditures "
           f"were {_money(f['capex'])} in {fy}, compared with {_money(p['capex'])} in {py}, and were "
           f"primarily for capacity expansion, productivity improvements and information technology. We paid "
           f"dividends of {_money(f['dividends'])} and repurchased shares for {_money(f['buybacks'])}.",
           {"capex": _money(f["capex"])})
    L.para(f"Total debt was {_money(f['debt'])} as of {fye}. We believe that cash on hand, cash generated from "
           f"operations and availability under our revolving credit facility will be sufficient to fund our "
           f"operations, capital expenditures, dividends and debt service for at least the next twelve months.")
    L.heading(_heading_of("Item 7A.", TOC_ITEMS[11][1]))
    L.para("We are exposed to market risks from changes in interest rates, foreign currency exchange rates "
           "and commodity prices. We manage these exposures through normal operating and financing activities "
           "and, when appropriate, through derivative instruments. A hypothetical 10% change in foreign "
           "exchange rates or a 100 basis point change in interest rates would not have had a material effect "
           "on our results of operations.")

    # ---- Item 8. Financial statements ---------------------------------------------------------------
    yr_hdr = (str(year), str(year - 1))
    L.heading(_heading_of("Item 8.", "Financial Statements and Supplementary Data"))
    L.heading("Consolidated Statements of Operations", 2)
    L.para(f"(In millions, except per share amounts) Fiscal years ended {c.fiscal_year_end}.")
    L.mono(_table(yr_hdr, [
        ("Revenue:", None),
        (f"  {s1}", f["seg1_revenue"], p["seg1_revenue"]),
        (f"  {s2}", f["seg2_revenue"], p["seg2_revenue"]),
        ("Total revenue", f["revenue"], p["revenue"]),
        ("Cost of revenue", f["cost_of_revenue"], p["cost_of_revenue"]),
        ("Gross profit", f["gross_profit"], p["gross_profit"]),
        ("Selling, general and administrative", f["sga"], p["sga"]),
        ("Research and development", f["rnd"], p["rnd"]),
        ("Operating income", f["operating_income"], p["operating_income"]),
        ("Interest expense, net", f["interest"], p["interest"]),
        ("Other income (expense), net", f["other_income"], p["other_income"]),
        ("Income before income taxes", f["pretax"], p["pretax"]),
        ("Provision for income taxes", f["tax"], p["tax"]),
        ("Net income", f["net_income"], p["net_income"]),
        ("Earnings per share:", None),
        ("  Basic", f"{f['eps_basic']:.2f}", f"{p['eps_basic']:.2f}"),
        ("  Diluted", f"{f['eps_diluted']:.2f}", f"{p['eps_diluted']:.2f}"),
        ("Weighted-average shares outstanding (millions):", None),
        ("  Basic", f"{f['shares_k'] / 1000:.1f}", f"{p['shares_k'] / 1000:.1f}"),
        ("  Diluted", f"{f['diluted_shares_k'] / 1000:.1f}", f"{p['diluted_shares_k'] / 1000:.1f}"),
        ("Cash dividends declared per share", f"{f['dps_cents'] / 100:.2f}", f"{p['dps_cents'] / 100:.2f}"),
    ]))
    L.heading("Consolidated Balance Sheets", 2, new_page=True)
    L.para(f"(In millions) As of {c.fiscal_year_end}.")
    L.mono(_table(yr_hdr, [
        ("ASSETS", None),
        ("Current assets:", None),
        ("  Cash and cash equivalents", f["cash"], p["cash"]),
        ("  Accounts receivable, net", f["ar"], p["ar"]),
        ("  Inventories", f["inventory"], p["inventory"]),
        ("  Prepaid expenses and other current assets", f["prepaid"], p["prepaid"]),
        ("Total current assets", f["total_current_assets"], p["total_current_assets"]),
        ("Property, plant and equipment, net", f["ppe"], p["ppe"]),
        ("Goodwill", f["goodwill"], p["goodwill"]),
        ("Intangible assets, net", f["intangibles"], p["intangibles"]),
        ("Other assets", f["other_assets"], p["other_assets"]),
        ("Total assets", f["total_assets"], p["total_assets"]),
        ("LIABILITIES AND STOCKHOLDERS' EQUITY", None),
        ("Current liabilities:", None),
        ("  Accounts payable", f["ap"], p["ap"]),
        ("  Accrued expenses", f["accrued"], p["accrued"]),
        ("  Current portion of long-term debt", f["current_debt"], p["current_debt"]),
        ("Total current liabilities", f["total_current_liabilities"], p["total_current_liabilities"]),
        ("Long-term debt", f["lt_debt"], p["lt_debt"]),
        ("Other long-term liabilities", f["other_lt"], p["other_lt"]),
        ("Total liabilities", f["total_liabilities"], p["total_liabilities"]),
        ("Total stockholders' equity", f["equity"], p["equity"]),
        ("Total liabilities and stockholders' equity", f["total_assets"], p["total_assets"]),
    ]))
    L.heading("Consolidated Statements of Cash Flows", 2)
    L.para(f"(In millions) Fiscal years ended {c.fiscal_year_end}.")
    L.mono(_table(yr_hdr, [
        ("Operating activities:", None),
        ("  Net income", f["net_income"], p["net_income"]),
        ("  Depreciation and amortization", f["da"], p["da"]),
        ("  Stock-based compensation", f["sbc"], p["sbc"]),
        ("  Changes in operating assets and liabilities", f["working_capital_change"],
         p["working_capital_change"]),
        ("Net cash provided by operating activities", f["cfo"], p["cfo"]),
        ("Investing activities:", None),
        ("  Capital expenditures", -f["capex"], -p["capex"]),
        ("  Acquisitions, net of cash acquired", -f["acquisitions"], -p["acquisitions"]),
        ("Net cash used in investing activities", f["cfi"], p["cfi"]),
        ("Financing activities:", None),
        ("  Dividends paid", -f["dividends"], -p["dividends"]),
        ("  Repurchases of common stock", -f["buybacks"], -p["buybacks"]),
        ("  Net proceeds from (repayments of) debt", f["borrowings"], p["borrowings"]),
        ("Net cash provided by (used in) financing activities", f["cff"], p["cff"]),
        ("Net increase (decrease) in cash and cash equivalents", f["net_change_cash"], p["net_change_cash"]),
        ("Cash and cash equivalents at beginning of year", f["cash_begin"], p["cash_begin"]),
        ("Cash and cash equivalents at end of year", f["cash"], p["cash"]),
    ]))

    # ---- Notes --------------------------------------------------------------------------------------
    L.heading("Notes to Consolidated Financial Statements", 2, new_page=True)
    L.heading("Note 1. Summary of Significant Accounting Policies", 2)
    L.para("Basis of presentation. The consolidated financial statements include the accounts of the "
           "Company and its wholly owned subsidiaries and are prepared in accordance with accounting "
           "principles generally accepted in the United States. Intercompany transactions have been "
           "eliminated. The preparation of financial statements requires management to make estimates and "
           "assumptions that affect reported amounts; actual results could differ from those estimates.")
    L.para("Revenue recognition. Revenue is recognized when control of goods or services transfers to the "
           f"customer. {c.revenue_policy} Payment terms are generally 30 to 60 days. Sales taxes collected "
           "from customers are excluded from revenue. Shipping and handling costs are included in cost of "
           "revenue.")
    L.heading("Note 2. Acquisitions", 2)
    if year == c.acquisition_year:
        L.para(f"On {acq_date}, the Company acquired {c.acquisition} for {_money(c.acquisition_price)}, net "
               f"of cash acquired. The purchase price was allocated to goodwill of "
               f"{_money(round(c.acquisition_price * 0.65))}, which is not deductible for tax purposes, and "
               f"to customer relationships and technology intangible assets. Pro forma results have not been "
               f"presented because the acquisition is not material to our consolidated results.",
               {"acquisition": c.acquisition})
    elif year > c.acquisition_year:
        L.para(f"The Company completed no material acquisitions in {fy}. The acquisition of {c.acquisition} "
               f"in fiscal {c.acquisition_year} is described in our Annual Report for that year.")
    else:
        L.para(f"The Company completed no material acquisitions in {fy} or {py}.")
    L.heading("Note 3. Income Taxes", 2)
    L.para(f"Income before income taxes was {_money(f['pretax'])} and the provision for income taxes was "
           f"{_money(f['tax'])} in {fy}. The effective tax rate was {f['tax_rate']} compared with "
           f"{p['tax_rate']} in {py}. The Company files income tax returns in the U.S. federal jurisdiction "
           f"and various state and foreign jurisdictions and is no longer subject to examination for years "
           f"before {year - 4}.", {"tax_rate": f["tax_rate"]})
    L.heading("Note 4. Segment Information", 2)
    L.para(f"The Company has two reportable segments, {s1} and {s2}. Segment revenue was "
           f"{_money(f['seg1_revenue'])} and {_money(f['seg2_revenue'])}, respectively, in {fy}. There are "
           f"no material intersegment sales. Corporate expenses are not allocated to the segments.",
           {"seg2_revenue": _money(f["seg2_revenue"]), "seg1_revenue": _money(f["seg1_revenue"])})

    # ---- Item 9/9A, Part III, IV, signatures --------------------------------------------------------
    L.heading(_heading_of("Item 9.", TOC_ITEMS[13][1]))
    L.para("None.")
    L.heading(_heading_of("Item 9A.", "Controls and Procedures"))
    L.para("Our management, with the participation of our Chief Executive Officer and Chief Financial "
           "Officer, evaluated the effectiveness of our disclosure controls and procedures as of the end of "
           "the period covered by this report and concluded that they were effective. Management also "
           "concluded that our internal control over financial reporting was effective based on the criteria "
           "in Internal Control - Integrated Framework (2013) issued by the Committee of Sponsoring "
           "Organizations of the Treadway Commission.")
    L.heading("PART III", 1)
    L.heading(_heading_of("Item 10.", TOC_ITEMS[16][1]))
    L.para(f"The information required by this item is incorporated by reference to our definitive Proxy "
           f"Statement for the {year + 1} Annual Meeting of Stockholders.")
    L.heading("PART IV", 1)
    L.heading(_heading_of("Item 15.", "Exhibits and Financial Statement Schedules"))
    L.para("The consolidated financial statements are filed as part of this report under Item 8. All "
           "financial statement schedules are omitted because they are not applicable or the required "
           "information is included in the consolidated financial statements or notes.")
    L.heading("SIGNATURES", 2)
    L.para("Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, the "
           "registrant has duly caused this report to be signed on its behalf by the undersigned, thereunto "
           f"duly authorized on {filed}. Registrant: {c.name} By: /s/ Chief Executive Officer")
    return L


@lru_cache(maxsize=None)
def _layout(key: str, year: int) -> _Layout:
    c = company_by(key)
    first = _build(c, year)
    return _build(c, year, toc_pages=first.headings)  # TOC has a fixed line count: pages do not move


def demo_filing_pages(company: CompanyRef, year: int) -> list[str]:
    """The text of each page of a filing, exactly as drawn into its PDF (lines joined by newlines)."""
    return [pg.text() for pg in _layout(company_by(company).key, _check_year(year)).pages]


# --------------------------------------------------------------------------------------------------
# PDF writing
# --------------------------------------------------------------------------------------------------
def _pdf_date(c: DemoCompany, year: int) -> str:
    f = demo_financials(c, year)
    month = c.fye_month % 12 + 2
    cal = year + 1 if month <= c.fye_month else year
    return f"D:{cal:04d}{month:02d}{f['filing_day']:02d}120000Z"


@lru_cache(maxsize=None)
def _advances(font: str) -> dict[str, float]:
    """Advance widths (at size 1) of printable ASCII for a Base-14 font (`fitz.get_text_length` per line
    is slow in PyMuPDF 2.x)."""
    return {chr(i): fitz.get_text_length(chr(i), fontname=font, fontsize=1) for i in range(32, 127)}


def _text_width(text: str, font: str, size: float) -> float:
    adv = _advances(font)
    return size * sum(adv.get(ch, 0.6) for ch in text)


def write_demo_pdf(company: CompanyRef, year: int, path: Union[str, Path]) -> Path:
    """Write one filing to `path` (deterministic bytes) and return the path."""
    c = company_by(company)
    layout = _layout(c.key, _check_year(year))
    path = Path(path)
    doc = fitz.open()
    date = _pdf_date(c, year)
    doc.set_metadata({"title": "Form 10-K", "author": "", "subject": "Annual report",
                      "keywords": "", "creator": "finrag demo corpus", "producer": "finrag",
                      "creationDate": date, "modDate": date})
    for i, pg in enumerate(layout.pages):
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        shape = page.new_shape()  # one shape (one content stream commit) per page: ~10x faster
        y = TOP
        for text, style in pg.lines:
            font, size, lead, centred = _STYLES[style]
            if style != "blank":
                w = _text_width(text, font, size)
                if w > TEXT_W:  # never clip: shrink the rare over-long line
                    size = size * TEXT_W / w
                    w = TEXT_W
                x = (PAGE_W - w) / 2 if centred else MARGIN_X
                shape.insert_text((x, y), text, fontname=font, fontsize=size)
            y += lead
        if i:
            num = str(i + 1)
            shape.insert_text(((PAGE_W - _text_width(num, "helv", 8)) / 2, PAGE_H - 36), num,
                              fontname="helv", fontsize=8)
        shape.commit()
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def generate_demo_corpus(out_dir: Union[str, Path], companies: Union[int, Sequence[CompanyRef]] = 3,
                         years: Iterable[int] = (2022, 2023)) -> list[Path]:
    """Write one 10-K PDF per company and fiscal year into `out_dir`; return their paths.

    File names follow FinanceBench: `{KEY}_{YEAR}_10K.pdf`, e.g. `ACMEWIDGETS_2023_10K.pdf`.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [write_demo_pdf(fl.company, fl.year, out / fl.file_name) for fl in demo_filings(companies, years)]


# --------------------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------------------
_NAME_RE = re.compile(r"^([A-Z0-9]+)_(\d{4})_10K$")


def _filings_from(corpus) -> list[DemoFiling]:
    if isinstance(corpus, (str, Path)) and Path(corpus).is_dir():
        corpus = sorted(Path(corpus).glob("*.pdf"))
    elif isinstance(corpus, (str, Path)):
        corpus = [corpus]
    found = []
    for item in corpus:
        m = _NAME_RE.match(Path(str(item)).stem)
        if not m:
            continue
        try:
            found.append(DemoFiling(company_by(m.group(1)), _check_year(int(m.group(2)))))
        except (KeyError, ValueError):
            continue
    return found


# (metric, question template, answer function); {name} {short} {poss} {ticker} {year}
_TEMPLATES = [
    ("revenue", "What was {poss} total revenue in FY{year}?"),
    ("capex", "What capital expenditure did {short} report for fiscal {year}?"),
    ("net_income", "What was {ticker}'s net income for fiscal year {year}?"),
    ("employees", "How many full-time employees did {name} have at the end of fiscal {year}?"),
    ("tax_rate", "What was the effective tax rate of {short} in FY{year}?"),
    ("cash", "How much cash and cash equivalents did {ticker} hold at the end of fiscal {year}?"),
    ("total_current_assets", "What were {poss} total current assets at the end of fiscal {year}?"),
    ("dps", "What cash dividends per share did {short} declare in fiscal {year}?"),
    ("hq", "In which city is the company with ticker {ticker} headquartered?"),
    ("acquisition", "Which company did {short} acquire during fiscal {year}?"),
    ("seg2_revenue", "How much revenue did {poss} {seg2} segment generate in fiscal {year}?"),
    ("revenue", "What was {ticker}'s total revenue for fiscal {year}?"),
]

_QUESTION_TYPE = {"hq": "distinctive_fact", "acquisition": "distinctive_fact", "seg2_revenue": "segment"}


def _answer(metric: str, c: DemoCompany, year: int) -> str:
    f = demo_financials(c, year)
    if metric == "hq":
        return c.hq_city
    if metric == "acquisition":
        return c.acquisition
    if metric == "employees":
        return f"{f['employees']:,}"
    if metric == "tax_rate":
        return f["tax_rate"]
    if metric == "dps":
        return _dps(f)
    return _money(f[metric])


def demo_questions(corpus=None, *, companies: Union[int, Sequence[CompanyRef]] = 3,
                   years: Iterable[int] = (2022, 2023)) -> list[dict]:
    """About 12 questions whose answers are stated verbatim in the demo filings.

    `corpus` may be a directory, a list of PDF paths (names `{KEY}_{YEAR}_10K.pdf`) or None (then
    `companies` x `years`). Each question: id, question, answer, doc_id, evidence_pages (zero-based),
    plus company, ticker, fiscal_year, metric, question_type and a FinanceBench-like `evidence` list.
    """
    filings = _filings_from(corpus) if corpus is not None else demo_filings(companies, years)
    order = {c.key: i for i, c in enumerate(DEMO_COMPANIES)}
    filings = sorted(set(filings), key=lambda fl: (fl.year, order[fl.company.key]))
    if not filings:
        return []
    out: list[dict] = []
    n = len(filings)
    for j, (metric, template) in enumerate(_TEMPLATES):
        fl = filings[j % n]
        if metric == "acquisition":
            cands = [filings[(j + k) % n] for k in range(n)]
            cands = [x for x in cands if x.year == x.company.acquisition_year]
            if not cands:
                metric, template = "seg2_revenue", _TEMPLATES[10][1]
            else:
                fl = cands[0]
        if metric == "hq":  # no year in the question: the company's latest filing is the answer
            fl = max((x for x in filings if x.company == fl.company), key=lambda x: x.year)
        c, year = fl.company, fl.year
        layout = _layout(c.key, year)
        answer = _answer(metric, c, year)
        pages = sorted(layout.facts[metric])
        qid = f"demo_{c.ticker}_{year}_{metric}"
        k = 2
        while any(q["id"] == qid for q in out):
            qid, k = f"demo_{c.ticker}_{year}_{metric}_{k}", k + 1
        out.append({
            "id": qid,
            "question": template.format(name=c.name, short=c.short, poss=c.possessive, ticker=c.ticker,
                                        year=year, seg2=c.segments[1]),
            "answer": answer,
            "doc_id": fl.doc_id,
            "evidence_pages": pages,
            "company": c.name,
            "ticker": c.ticker,
            "fiscal_year": year,
            "metric": metric,
            "question_type": _QUESTION_TYPE.get(metric, "metric_lookup"),
            "doc_name": fl.doc_id,
            "evidence": [{"doc_name": fl.doc_id, "evidence_page_num": pg,
                          "evidence_text": layout.fact_text[(metric, pg)]} for pg in pages],
        })
    return out


def write_demo_questions(path: Union[str, Path], corpus=None, *,
                         companies: Union[int, Sequence[CompanyRef]] = 3,
                         years: Iterable[int] = (2022, 2023)) -> Path:
    """Write `demo_questions(...)` as JSONL (one object per line) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    qs = demo_questions(corpus, companies=companies, years=years)
    with path.open("w", encoding="utf-8") as fh:
        for q in qs:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    return path


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
