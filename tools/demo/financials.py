"""Seeded financials of the demo companies (all money in integer tenths of $ million).

Each year's figures come from `random.Random` seeded with the company key and the year, chained year
by year from `BASE_YEAR`, so a filing's numbers depend only on its company and year, never on which
other filings are generated. The statements are internally consistent: revenue is the sum of the
segments, the cash flow statement reconciles cash, and the balance sheet balances.

The random draws happen in a fixed order (income statement, shares and dividends, working capital,
cash flows, balance sheet, market data); changing that order changes every number.
"""
from __future__ import annotations

import random
from functools import lru_cache

from .companies import BASE_YEAR, MIN_YEAR, CompanyRef, DemoCompany, check_year, company_by

__all__ = ["demo_financials"]


def _rng(*parts) -> random.Random:
    return random.Random("finrag-demo|" + "|".join(str(p) for p in parts))


def _opening_year(c: DemoCompany, r0: random.Random) -> dict:
    """`BASE_YEAR`'s balances, the seed of the chain."""
    rev = c.revenue_base
    return {
        "year": BASE_YEAR, "revenue": rev, "cash": round(rev * r0.uniform(0.12, 0.18)),
        "ar": round(rev * 0.13), "inventory": round(rev * (1 - c.gross_margin) * c.inventory_ratio),
        "prepaid": round(rev * 0.02), "ppe": round(rev * max(0.25, c.capex_ratio * 6)),
        "goodwill": round(rev * 0.22), "intangibles": round(rev * 0.08), "other_assets": round(rev * 0.04),
        "ap": round(rev * (1 - c.gross_margin) * 0.11), "accrued": round(rev * 0.06),
        "debt": c.debt_base, "other_lt": round(rev * 0.05), "shares_k": c.shares_k_base,
        "employees": int(rev / 10 * c.employees_per_musd), "dps_cents": c.dps_cents_base,
    }


def _income_statement(c: DemoCompany, p: dict, r: random.Random, f: dict, seg_share: float) -> None:
    """Growth, revenue by segment, costs, taxes and net income."""
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


def _shares_dividends_and_staff(p: dict, r: random.Random, f: dict) -> None:
    """Share counts, earnings and dividends per share, dividends paid and headcount."""
    f["shares_k"] = round(p["shares_k"] * (1 - r.uniform(0.0, 0.02)))
    f["diluted_shares_k"] = round(f["shares_k"] * r.uniform(1.003, 1.012))
    f["eps_basic"] = f["net_income"] * 100_000 / f["shares_k"] / 1000  # dollars
    f["eps_diluted"] = f["net_income"] * 100_000 / f["diluted_shares_k"] / 1000
    raise_cents = r.choice((0, 2, 4, 4, 6, 8))
    payout_cap = 0.6 * 100 * f["eps_diluted"]  # no raise above a 60% payout ratio
    f["dps_cents"] = p["dps_cents"] + (raise_cents if p["dps_cents"] + raise_cents <= payout_cap else 0)
    f["dividends"] = round(f["dps_cents"] * f["shares_k"] / 10_000)
    f["employees"] = int(p["employees"] * (1 + f["growth"] * 0.6 + r.uniform(-0.02, 0.02)))


def _working_capital(c: DemoCompany, p: dict, r: random.Random, f: dict) -> None:
    """Receivables, inventory, prepaid, payables, accruals and their change over the year."""
    rev, cor = f["revenue"], f["cost_of_revenue"]
    f["ar"] = round(rev * r.uniform(0.11, 0.15))
    f["inventory"] = round(cor * c.inventory_ratio * r.uniform(0.9, 1.1))
    f["prepaid"] = round(rev * r.uniform(0.015, 0.025))
    f["ap"] = round(cor * r.uniform(0.09, 0.13))
    f["accrued"] = round(rev * r.uniform(0.05, 0.07))
    wc = -((f["ar"] - p["ar"]) + (f["inventory"] - p["inventory"]) + (f["prepaid"] - p["prepaid"])) \
        + (f["ap"] - p["ap"]) + (f["accrued"] - p["accrued"])
    f["working_capital_change"] = wc


def _amortization(p: dict) -> int:
    return round(p["intangibles"] * 0.1)


def _cash_flows_and_debt(c: DemoCompany, p: dict, r: random.Random, f: dict) -> None:
    """Operating, investing and financing cash flows; borrowing closes the gap to a target cash level."""
    rev = f["revenue"]
    f["da"] = round(p["ppe"] * r.uniform(0.08, 0.11)) + _amortization(p)
    f["sbc"] = round(rev * r.uniform(0.008, 0.02))
    f["cfo"] = f["net_income"] + f["da"] + f["sbc"] + f["working_capital_change"]
    f["capex"] = round(rev * c.capex_ratio * r.uniform(0.85, 1.15))
    f["acquisitions"] = c.acquisition_price if f["year"] == c.acquisition_year else 0
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


def _balance_sheet(p: dict, r: random.Random, f: dict) -> None:
    """Assets, liabilities and equity (equity is the balancing figure)."""
    rev, amort = f["revenue"], _amortization(p)
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


def _market_data(r: random.Random, f: dict) -> None:
    """Holders of record, share price (dollars) and the day of the filing month."""
    f["holders"] = r.randint(900, 9000)
    f["price"] = max(5.0, f["eps_diluted"] * r.uniform(14, 26))
    f["filing_day"] = r.randint(12, 27)


def _next_year(c: DemoCompany, p: dict, year: int, seg_share: float) -> dict:
    """Fiscal `year`'s figures from the prior year's `p`."""
    r = _rng(c.key, year)
    f: dict = {"year": year}
    _income_statement(c, p, r, f, seg_share)
    _shares_dividends_and_staff(p, r, f)
    _working_capital(c, p, r, f)
    _cash_flows_and_debt(c, p, r, f)
    _balance_sheet(p, r, f)
    _market_data(r, f)
    return f


@lru_cache(maxsize=None)
def _financial_series(key: str, last_year: int) -> tuple[dict, ...]:
    """Figures of `BASE_YEAR..last_year` (index 0 is `BASE_YEAR`)."""
    c = company_by(key)
    r0 = _rng(c.key, BASE_YEAR)
    out = [_opening_year(c, r0)]
    seg_share = r0.uniform(0.58, 0.70)
    for year in range(BASE_YEAR + 1, last_year + 1):
        out.append(_next_year(c, out[-1], year, seg_share))
    return tuple(out)


def demo_financials(company: CompanyRef, year: int) -> dict:
    """Seeded financials of one fiscal year; money in integer tenths of $ million."""
    c = company_by(company)
    year = check_year(year, MIN_YEAR - 1)
    return dict(_financial_series(c.key, year)[year - BASE_YEAR])
