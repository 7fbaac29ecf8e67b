"""The text of a demo 10-K filing, laid out page by page.

A filing is built section by section (cover, contents, Part I, Item 5, MD&A, financial statements,
notes, closing items) from the texts in `data/filing_text.yaml` and the statement tables in
`data/statements.yaml`, filled with the company's data and its seeded financials (`_context`). The
section order and the facts tracked for the demo questions are code; the words are data.

Public: `demo_filing_pages(company, year)` (page texts exactly as drawn into the PDF),
`filing_layout(key, year)` (the cached `Layout`, with fact and heading pages) and
`fact_answer(fact, company, financials)` (the text that states a tracked fact).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from .companies import CompanyRef, DemoCompany, check_year, company_by
from .data_files import load_data
from .financials import demo_financials
from .formatting import calendar_date, dps, filing_date, fiscal_year_end, mid_year, money, pct, table
from .layout import Layout

__all__ = ["TOC_ITEMS", "demo_filing_pages", "filing_layout", "fact_answer"]

TEXTS_FILE = "filing_text.yaml"
STATEMENTS_FILE = "statements.yaml"

# (item, title) of the table of contents; title None for a PART line
TOC_ITEMS: list[tuple[str, str | None]] = [(item, title) for item, title in load_data(TEXTS_FILE)["toc"]]
_ITEM_TITLES = {item: title for item, title in TOC_ITEMS if title is not None}


def _item(item: str) -> str:
    """The heading of a 10-K item: 'Item 1A. Risk Factors'."""
    return f"{item} {_ITEM_TITLES[item]}"


def fact_answer(fact: str, c: DemoCompany, f: dict) -> str:
    """The text stating a tracked fact in the filing with financials `f` (a demo question's answer)."""
    if fact == "hq":
        return c.hq_city
    if fact == "acquisition":
        return c.acquisition
    if fact == "employees":
        return f"{f['employees']:,}"
    if fact == "tax_rate":
        return f["tax_rate"]
    if fact == "dps":
        return dps(f)
    return money(f[fact])


# --------------------------------------------------------------------------------------------------
# Filling texts
# --------------------------------------------------------------------------------------------------
def _context(c: DemoCompany, year: int) -> dict[str, Any]:
    """Placeholder values of a filing's texts: the company's fields plus the values derived here."""
    f, p = demo_financials(c, year), demo_financials(c, year - 1)
    growth = (f["revenue"] - p["revenue"]) / p["revenue"]
    derived = {
        "year": year, "next_year": year + 1, "last_closed_year": year - 4,
        "fy": f"fiscal {year}", "py": f"fiscal {year - 1}",
        "fye": fiscal_year_end(c, year), "pfye": fiscal_year_end(c, year - 1),
        "s1": c.segments[0], "s2": c.segments[1],
        "f": f, "p": p,
        "m": {k: money(v) for k, v in f.items() if isinstance(v, int)},
        "pm": {k: money(v) for k, v in p.items() if isinstance(v, int)},
        "filed": filing_date(c, year, f), "mid_year": mid_year(c, year),
        "market_value_bn": f["price"] * f["shares_k"] * 0.97 / 1e6,
        "shares_outstanding": f["shares_k"] * 1000 + f["holders"],
        "file_number": 30000 + int(c.irs_number[3:7]),
        "hq_thousand_sqft": 120 + int(c.irs_number[-3:]) % 180,
        "acq_date": calendar_date(c, c.acquisition_year, *c.acquisition_month_day),
        "acq_price": money(c.acquisition_price),
        "acq_goodwill": money(round(c.acquisition_price * 0.65)),
        "seg1_share": pct(f["seg1_revenue"] / f["revenue"]),
        "gross_margin_pct": pct(f["gross_profit"] / f["revenue"]),
        "p_gross_margin_pct": pct(p["gross_profit"] / p["revenue"]),
        "growth_direction": "an increase" if growth >= 0 else "a decrease",
        "growth_pct": pct(abs(growth)),
        "dps": dps(f), "p_dps": dps(p),
    }
    ctx = {fl.name: getattr(c, fl.name) for fl in fields(c)}
    if ctx.keys() & derived.keys():
        raise ValueError(f"filing context names clash: {sorted(ctx.keys() & derived.keys())}")
    ctx.update(derived)
    return ctx


@dataclass
class _Draft:
    """A filing being laid out: its company, year, financials, text context and layout."""

    c: DemoCompany
    year: int
    ctx: dict[str, Any]
    layout: Layout
    toc_pages: dict[str, int]

    @property
    def f(self) -> dict:
        return self.ctx["f"]

    def text(self, key: str) -> str:
        """The filled text at `section.name` of filing_text.yaml."""
        section, name = key.split(".")
        return load_data(TEXTS_FILE)[section][name].format_map(self.ctx)

    def para(self, key: str, *facts: str) -> None:
        """Lay out the text at `key` as a paragraph, tracking the named facts it states."""
        self.layout.para(self.text(key), {fid: fact_answer(fid, self.c, self.f) for fid in facts})

    @property
    def acquisition_timing(self) -> str:
        """Whether the acquisition closed in this ("this_year"), an earlier or a later fiscal year."""
        if self.year == self.c.acquisition_year:
            return "this_year"
        return "earlier" if self.year > self.c.acquisition_year else "later"


# --------------------------------------------------------------------------------------------------
# Sections, in filing order
# --------------------------------------------------------------------------------------------------
def _cover_registrant(d: _Draft) -> None:
    """Cover page, top: form, fiscal year, registrant name, address and telephone."""
    L, c = d.layout, d.c
    L.title("UNITED STATES")
    L.title("SECURITIES AND EXCHANGE COMMISSION")
    L.center("Washington, D.C. 20549")
    L.blank()
    L.title("FORM 10-K")
    L.blank()
    d.para("cover.annual_report")
    L.center(f"For the fiscal year ended {d.ctx['fye']}", bold=True)
    L.center("OR")
    d.para("cover.transition_report")
    L.center("For the transition period from __________ to __________")
    L.center(f"Commission File Number 001-{d.ctx['file_number']:05d}")
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


def _cover_securities(d: _Draft) -> None:
    """Cover page, bottom: registered securities, check boxes, market value, incorporation by reference."""
    L, c = d.layout, d.c
    d.para("cover.section_12b")
    L.mono([f"{'Title of each class':<42}{'Trading Symbol(s)':<20}Name of each exchange on which registered",
            f"{'Common Stock, $0.01 par value per share':<42}{c.ticker:<20}{c.exchange}"])
    for key in ("section_12g", "seasoned_issuer", "reports_filed", "filer_status", "market_value",
                "incorporated_by_reference"):
        d.para(f"cover.{key}")


def _toc_lines(toc_pages: dict[str, int]) -> list[str]:
    """The table of contents; page numbers (1-based) from `toc_pages` (heading -> page index)."""
    toc = []
    for item, title in TOC_ITEMS:
        if title is None:
            toc.append(item)
            continue
        pg = toc_pages.get(f"{item} {title}")
        short_title = title if len(title) <= 70 else title[:67] + "..."
        toc.append(f"  {item:<10}{short_title:<72}{'' if pg is None else pg + 1:>4}")
    return toc


def _contents(d: _Draft) -> None:
    """Table of contents and the forward-looking statements note."""
    L = d.layout
    L.page_break()
    L.center("TABLE OF CONTENTS", bold=True)
    L.blank()
    L.mono(_toc_lines(d.toc_pages))
    L.heading("CAUTIONARY NOTE REGARDING FORWARD-LOOKING STATEMENTS", 2)
    d.para("forward_looking.statements")
    d.para("forward_looking.references")


def _business(d: _Draft) -> None:
    """Part I, Item 1. Business."""
    L = d.layout
    L.heading("PART I", 1, new_page=True)
    L.heading(_item("Item 1."))
    L.heading("General", 2)
    d.para("business.general", "hq")
    L.heading("Segments", 2)
    d.para("business.segments")
    L.heading("Acquisitions", 2)
    timing = d.acquisition_timing
    d.para(f"business.acquisition_{timing}", *(["acquisition"] if timing == "this_year" else []))
    for heading, key in (("Competition", "competition"), ("Raw Materials and Suppliers", "raw_materials")):
        L.heading(heading, 2)
        d.para(f"business.{key}")
    L.heading("Human Capital", 2)
    d.para("business.human_capital", "employees")
    L.heading("Available Information", 2)
    d.para("business.available_information")


def _risks_to_mine_safety(d: _Draft) -> None:
    """Part I, Items 1A (risk factors) to 4."""
    L = d.layout
    risk_factors = load_data(TEXTS_FILE)["risk_factors"]
    L.heading(_item("Item 1A."), new_page=True)
    d.para("risk_factors.intro")
    for risk in risk_factors["risks"]:
        L.heading(risk["heading"], 2)
        L.para(risk["body"])
    items = (("Item 1B.", "unresolved_staff_comments", ()), ("Item 2.", "properties", ("hq",)),
             ("Item 3.", "legal_proceedings", ()), ("Item 4.", "mine_safety", ()))
    for item, key, facts in items:
        L.heading(_item(item))
        d.para(f"part_one_items.{key}", *facts)


def _market(d: _Draft) -> None:
    """Part II, Items 5 (market for the common stock) and 6."""
    L = d.layout
    L.heading("PART II", 1)
    L.heading(_item("Item 5."))
    d.para("market.listing")
    d.para("market.dividends", "dps")
    d.para("market.repurchases")
    L.heading(_item("Item 6."))


def _mdna(d: _Draft) -> None:
    """Item 7 (MD&A) and Item 7A."""
    L = d.layout
    L.heading(_item("Item 7."), new_page=True)
    d.para("mdna.intro")
    L.heading("Results of Operations", 2)
    d.para("mdna.revenue", "revenue")
    d.para("mdna.segment_revenue", "seg2_revenue", "seg1_revenue")
    d.para("mdna.profit")
    d.para("mdna.net_income", "net_income")
    L.heading("Income Taxes", 2)
    d.para("mdna.income_taxes", "tax_rate")
    L.heading("Critical Accounting Estimates", 2)
    L.heading("Revenue Recognition", 2)
    d.para("mdna.revenue_recognition")
    L.heading("Goodwill and Intangible Assets", 2)
    d.para("mdna.goodwill")
    L.heading("Liquidity and Capital Resources", 2)
    d.para("mdna.cash", "cash", "total_current_assets")
    d.para("mdna.cash_flows", "capex")
    d.para("mdna.debt")
    L.heading(_item("Item 7A."))
    d.para("mdna.market_risk")


def _statement_cell(value, spec: str | None, div: int | None):
    if spec is None:
        return value
    return format(value / div if div else value, spec)


def _statement_row(row: list, d: _Draft) -> tuple:
    """One statements.yaml row as (label, this year, prior year); see that file for the row forms."""
    label = row[0].format_map(d.ctx)
    if len(row) == 1:
        return (label,)
    key = row[1]
    spec = row[2] if len(row) > 2 else None
    div = row[3] if len(row) > 3 else None
    f, p = d.ctx["f"], d.ctx["p"]
    if key.startswith("-"):
        return (label, -f[key[1:]], -p[key[1:]])
    return (label, _statement_cell(f[key], spec, div), _statement_cell(p[key], spec, div))


def _statements(d: _Draft) -> None:
    """Item 8: statements of operations, balance sheets and cash flows."""
    L = d.layout
    header = (str(d.year), str(d.year - 1))
    L.heading(_item("Item 8."))
    for st in load_data(STATEMENTS_FILE):
        L.heading(st["heading"], 2, new_page=st["new_page"])
        L.para(st["note"].format_map(d.ctx))
        L.mono(table(header, [_statement_row(row, d) for row in st["rows"]]))


def _notes(d: _Draft) -> None:
    """Notes 1-4 to the financial statements."""
    L = d.layout
    L.heading("Notes to Consolidated Financial Statements", 2, new_page=True)
    L.heading("Note 1. Summary of Significant Accounting Policies", 2)
    d.para("notes.basis_of_presentation")
    d.para("notes.revenue_recognition")
    L.heading("Note 2. Acquisitions", 2)
    timing = d.acquisition_timing
    d.para(f"notes.acquisition_{timing}", *(["acquisition"] if timing == "this_year" else []))
    L.heading("Note 3. Income Taxes", 2)
    d.para("notes.income_taxes", "tax_rate")
    L.heading("Note 4. Segment Information", 2)
    d.para("notes.segments", "seg2_revenue", "seg1_revenue")


def _closing(d: _Draft) -> None:
    """Items 9 and 9A, Part III (Item 10), Part IV (Item 15) and signatures."""
    L = d.layout
    L.heading(_item("Item 9."))
    d.para("closing.accountants")
    L.heading(_item("Item 9A."))
    d.para("closing.controls")
    L.heading("PART III", 1)
    L.heading(_item("Item 10."))
    d.para("closing.directors")
    L.heading("PART IV", 1)
    L.heading(_item("Item 15."))
    d.para("closing.exhibits")
    L.heading("SIGNATURES", 2)
    d.para("closing.signatures")


_SECTIONS = (_cover_registrant, _cover_securities, _contents, _business, _risks_to_mine_safety, _market,
             _mdna, _statements, _notes, _closing)


def _build(c: DemoCompany, year: int, toc_pages: dict[str, int] | None = None) -> Layout:
    d = _Draft(c, year, _context(c, year), Layout(), toc_pages or {})
    for section in _SECTIONS:
        section(d)
    return d.layout


@lru_cache(maxsize=None)
def filing_layout(key: str, year: int) -> Layout:
    """The laid-out filing of company `key` for fiscal `year` (cached; do not modify)."""
    c = company_by(key)
    first = _build(c, year)
    return _build(c, year, toc_pages=first.headings)  # TOC has a fixed line count: pages do not move


def demo_filing_pages(company: CompanyRef, year: int) -> list[str]:
    """The text of each page of a filing, exactly as drawn into its PDF (lines joined by newlines)."""
    return [pg.text() for pg in filing_layout(company_by(company).key, check_year(year)).pages]
