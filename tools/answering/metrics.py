"""A small registry of financial metric definitions: formula, inputs, and how to compute them.

Every `Metric` names the line items it needs (`finrag.tools.answering.line_items`) per period offset
(0 = the asked fiscal year, -1 = the year before, for averages and changes), a formula as shown to the
reader, and a function of those inputs. The reader fetches each input with its `[doc, p. N]` citation
and reports the formula, the inputs and the result.

The definitions are the textbook ones (and the ones FinanceBench questions spell out): averages of
balance-sheet items are (this year + last year) / 2; days ratios use 365 days; DPO's denominator is
COGS plus the change in inventory; EBITDA is unadjusted operating income plus depreciation and
amortization from the cash flow statement.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["Metric", "METRICS", "metric_in_question", "Input"]


@dataclass(frozen=True)
class Input:
    item: str
    offset: int = 0
    """0: the asked year; -1: the year before."""
    optional: bool = False


@dataclass(frozen=True)
class Metric:
    name: str
    display: str
    question: tuple[str, ...]
    """Question patterns (regular expressions, case-insensitive) that ask for this metric."""
    formula: str
    inputs: tuple[Input, ...]
    compute: Callable[[dict], Optional[float]]
    """Takes {(item, offset): value in the table's units}; returns the metric (None when undefined)."""
    unit: str
    """'percent', 'ratio', 'days' or 'currency'."""
    decimals: int = 2
    good: str = ""
    """For yes/no questions on health: 'high' when larger is better, 'low' when smaller is better."""
    threshold: Optional[float] = None
    """A conventional threshold for yes/no questions ('healthy', 'positive'), stated in the answer."""
    threshold_text: str = ""


def _avg(v: dict, item: str) -> float:
    return (v[(item, 0)] + v[(item, -1)]) / 2


def _div(a: float, b: float) -> Optional[float]:
    return a / b if b else None


def _gross_profit(v: dict) -> float:
    if ("gross_profit", 0) in v and v[("gross_profit", 0)] is not None:
        return v[("gross_profit", 0)]
    return v[("revenue", 0)] - v[("cogs", 0)]


def _dpo(v: dict) -> Optional[float]:
    denom = v[("cogs", 0)] + v[("inventory", 0)] - v[("inventory", -1)]
    return _div(365 * _avg(v, "accounts_payable"), denom)


def _dio(v: dict) -> Optional[float]:
    return _div(365 * _avg(v, "inventory"), v[("cogs", 0)])


def _dso(v: dict) -> Optional[float]:
    return _div(365 * _avg(v, "receivables"), v[("revenue", 0)])


def _ccc(v: dict) -> Optional[float]:
    dio, dso, dpo = _dio(v), _dso(v), _dpo(v)
    if dio is None or dso is None or dpo is None:
        return None
    return dio + dso - dpo


def _quick(v: dict) -> Optional[float]:
    liquid = v[("cash", 0)] + (v.get(("short_term_investments", 0)) or 0.0) + v[("receivables", 0)]
    return _div(liquid, v[("total_current_liabilities", 0)])


def _ebitda(v: dict) -> float:
    return v[("operating_income", 0)] + abs(v[("depreciation_amortization", 0)])


def _etr(v: dict) -> Optional[float]:
    tax, pretax = v[("income_tax", 0)], v[("pretax_income", 0)]
    # statements that print expenses in parentheses show the provision as a negative number
    if pretax > 0 and tax < 0:
        tax = -tax
    return _div(tax, pretax)


def _pct(f: Callable[[dict], Optional[float]]) -> Callable[[dict], Optional[float]]:
    def g(v: dict) -> Optional[float]:
        r = f(v)
        return None if r is None else 100.0 * r
    return g


In = Input
_OF_REVENUE = (r"(?:(?:as (?:a )?)?(?:%|percent(?:age)?|share|proportion) of|relative to|over|to|/|divided by|"
               r"compared (?:to|with)) (?:its |the )?(?:total )?(?:net )?(?:operating )?(?:sales|revenues?)")
"""'as a percent of revenue' as analysts write it ("as a % of sales", "as a percentage of net operating revenues")."""
_METRICS = [
    Metric("gross_margin", "gross margin", (r"gross (?:profit )?margin",), "gross profit / total revenue",
           (In("revenue"), In("cogs"), In("gross_profit", optional=True)),
           _pct(lambda v: _div(_gross_profit(v), v[("revenue", 0)])), "percent", 1, good="high"),
    Metric("operating_margin", "operating margin",
           (r"operating (?:income |profit )?(?:% )?margin", r"operating profit margin", r"operating income %",
            rf"(?:operating income|income from operations|operating profit) {_OF_REVENUE}"),
           "operating income / total revenue", (In("revenue"), In("operating_income")),
           _pct(lambda v: _div(v[("operating_income", 0)], v[("revenue", 0)])), "percent", 1, good="high"),
    Metric("net_margin", "net profit margin",
           (r"net (?:income|profit|earnings) (?:% )?margin", rf"net (?:income|earnings|profit) {_OF_REVENUE}",
            r"\bnet margins?\b"),
           "net income / total revenue", (In("revenue"), In("net_income")),
           _pct(lambda v: _div(v[("net_income", 0)], v[("revenue", 0)])), "percent", 1, good="high"),
    Metric("ebitda_margin", "unadjusted EBITDA margin", (r"ebitda (?:% )?margin",),
           "(operating income + depreciation and amortization) / total revenue",
           (In("revenue"), In("operating_income"), In("depreciation_amortization")),
           _pct(lambda v: _div(_ebitda(v), v[("revenue", 0)])), "percent", 1),
    Metric("da_margin", "depreciation and amortization as a % of revenue",
           (r"(?:depreciation and amortization|d&a) (?:% )?margin", rf"(?:depreciation and amortization|d&a) {_OF_REVENUE}"),
           "depreciation and amortization / total revenue", (In("revenue"), In("depreciation_amortization")),
           _pct(lambda v: _div(abs(v[("depreciation_amortization", 0)]), v[("revenue", 0)])), "percent", 1),
    Metric("capex_revenue", "capital expenditure as a % of revenue",
           (rf"(?:capex|capital expenditures?) {_OF_REVENUE}", r"capex intensity",
            r"capex ?/ ?revenue", r"capital intensity"),
           "capital expenditure / total revenue", (In("revenue"), In("capex")),
           _pct(lambda v: _div(abs(v[("capex", 0)]), v[("revenue", 0)])), "percent", 1),
    Metric("cogs_revenue", "cost of goods sold as a % of revenue",
           (rf"(?:cogs|cost of goods sold|cost of sales|cost of revenues?) {_OF_REVENUE}",
            r"(?:cogs|cost of goods sold) (?:% )?margin"),
           "cost of goods sold / total revenue", (In("revenue"), In("cogs")),
           _pct(lambda v: _div(v[("cogs", 0)], v[("revenue", 0)])), "percent", 1),
    Metric("rnd_revenue", "research and development as a % of revenue",
           (rf"(?:r&d|research (?:and|&) development)(?: expenses?| spend(?:ing)?| costs?)? {_OF_REVENUE}",
            r"(?:r&d|research (?:and|&) development) intensity", rf"(?:spend|spent) on (?:r&d|research (?:and|&) "
            rf"development) {_OF_REVENUE}", r"(?:%|percent(?:age)?|share) of (?:[\w.&-]+'s )?(?:total )?(?:net )?"
            r"(?:revenues?|sales)[^?]{0,40}\b(?:r&d|research (?:and|&) development)\b"),
           "research and development / total revenue", (In("revenue"), In("rnd")),
           _pct(lambda v: _div(abs(v[("rnd", 0)]), v[("revenue", 0)])), "percent", 1),
    Metric("sales_marketing_revenue", "sales and marketing as a % of revenue",
           (rf"(?:s&m|(?:sales|selling) (?:and|&) marketing)(?: expenses?| spend(?:ing)?| costs?)? {_OF_REVENUE}",),
           "sales and marketing expense / total revenue", (In("revenue"), In("sales_marketing")),
           _pct(lambda v: _div(abs(v[("sales_marketing", 0)]), v[("revenue", 0)])), "percent", 1),
    Metric("sga_revenue", "SG&A as a % of revenue",
           (rf"(?:sg&a|selling, general(?:,)? and administrative)(?: expenses?| costs?)? {_OF_REVENUE}",),
           "selling, general and administrative expense / total revenue", (In("revenue"), In("sga")),
           _pct(lambda v: _div(abs(v[("sga", 0)]), v[("revenue", 0)])), "percent", 1),
    Metric("ebitda", "unadjusted EBITDA", (r"\bebitda\b",),
           "operating income + depreciation and amortization (from the cash flow statement)",
           (In("operating_income"), In("depreciation_amortization")), _ebitda, "currency", 0),
    Metric("fcf", "free cash flow", (r"free cash ?flow(?! conversion)", r"\bfcf\b(?! conversion)"),
           "cash from operations - capital expenditure", (In("cfo"), In("capex")),
           lambda v: v[("cfo", 0)] - abs(v[("capex", 0)]), "currency", 0, good="high"),
    Metric("fcf_conversion", "free cash flow conversion", (r"free cash ?flow conversion", r"fcf conversion"),
           "(cash from operations - capital expenditure) / net income", (In("cfo"), In("capex"), In("net_income")),
           _pct(lambda v: _div(v[("cfo", 0)] - abs(v[("capex", 0)]), v[("net_income", 0)])), "percent", 1, good="high"),
    Metric("working_capital", "working capital", (r"(?:net )?working capital",),
           "total current assets - total current liabilities", (In("total_current_assets"), In("total_current_liabilities")),
           lambda v: v[("total_current_assets", 0)] - v[("total_current_liabilities", 0)], "currency", 0, good="high",
           threshold=0.0, threshold_text="positive working capital means current assets exceed current liabilities"),
    Metric("current_ratio", "current ratio", (r"current ratio",),
           "total current assets / total current liabilities", (In("total_current_assets"), In("total_current_liabilities")),
           lambda v: _div(v[("total_current_assets", 0)], v[("total_current_liabilities", 0)]), "ratio", 2, good="high",
           threshold=1.0, threshold_text="a current ratio of at least 1.0 is the usual sign of adequate liquidity"),
    Metric("quick_ratio", "quick ratio", (r"quick ratio", r"acid[- ]test"),
           "(cash and cash equivalents + short-term investments + accounts receivable) / total current liabilities",
           (In("cash"), In("short_term_investments", optional=True), In("receivables"), In("total_current_liabilities")),
           _quick, "ratio", 2, good="high",
           threshold=1.0, threshold_text="a quick ratio of at least 1.0 is the usual sign of a healthy liquidity profile"),
    Metric("ocf_ratio", "operating cash flow ratio", (r"operating cash flow ratio",),
           "cash from operations / total current liabilities", (In("cfo"), In("total_current_liabilities")),
           lambda v: _div(v[("cfo", 0)], v[("total_current_liabilities", 0)]), "ratio", 2, good="high"),
    Metric("roa", "return on assets", (r"return on (?:total )?assets", r"\broa\b"),
           "net income / average total assets", (In("net_income"), In("total_assets"), In("total_assets", -1)),
           lambda v: _div(v[("net_income", 0)], _avg(v, "total_assets")), "ratio", 2, good="high"),
    Metric("roe", "return on equity", (r"return on (?:shareholders'? |stockholders'? )?equity", r"\broe\b"),
           "net income / average shareholders' equity", (In("net_income"), In("total_equity"), In("total_equity", -1)),
           lambda v: _div(v[("net_income", 0)], _avg(v, "total_equity")), "ratio", 2, good="high"),
    Metric("inventory_turnover", "inventory turnover ratio", (r"inventory turnover",),
           "cost of goods sold / average inventory", (In("cogs"), In("inventory"), In("inventory", -1)),
           lambda v: _div(v[("cogs", 0)], _avg(v, "inventory")), "ratio", 2, good="high"),
    Metric("fixed_asset_turnover", "fixed asset turnover ratio", (r"fixed asset turnover",),
           "total revenue / average net PP&E", (In("revenue"), In("ppe_net"), In("ppe_net", -1)),
           lambda v: _div(v[("revenue", 0)], _avg(v, "ppe_net")), "ratio", 2, good="high"),
    Metric("asset_turnover", "total asset turnover ratio", (r"(?:total )?asset turnover",),
           "total revenue / average total assets", (In("revenue"), In("total_assets"), In("total_assets", -1)),
           lambda v: _div(v[("revenue", 0)], _avg(v, "total_assets")), "ratio", 2, good="high"),
    Metric("dpo", "days payable outstanding", (r"days payable outstanding", r"\bdpo\b"),
           "365 * average accounts payable / (cost of goods sold + change in inventory)",
           (In("accounts_payable"), In("accounts_payable", -1), In("cogs"), In("inventory"), In("inventory", -1)),
           _dpo, "days", 2),
    Metric("dio", "days inventory outstanding", (r"days inventory outstanding", r"\bdio\b", r"days in inventory"),
           "365 * average inventory / cost of goods sold", (In("inventory"), In("inventory", -1), In("cogs")), _dio, "days", 2),
    Metric("dso", "days sales outstanding", (r"days sales outstanding", r"\bdso\b"),
           "365 * average accounts receivable / total revenue",
           (In("receivables"), In("receivables", -1), In("revenue")), _dso, "days", 2),
    Metric("ccc", "cash conversion cycle", (r"cash conversion cycle", r"\bccc\b"), "DIO + DSO - DPO",
           (In("inventory"), In("inventory", -1), In("receivables"), In("receivables", -1), In("accounts_payable"),
            In("accounts_payable", -1), In("cogs"), In("revenue")), _ccc, "days", 2),
    Metric("interest_coverage", "interest coverage ratio", (r"interest coverage",),
           "operating income / interest expense", (In("operating_income"), In("interest_expense")),
           lambda v: _div(v[("operating_income", 0)], abs(v[("interest_expense", 0)])), "ratio", 2, good="high"),
    Metric("effective_tax_rate", "effective tax rate", (r"effective (?:income )?tax rate",),
           "provision for income taxes / income before income taxes", (In("income_tax"), In("pretax_income")),
           _pct(_etr), "percent", 1),
    Metric("payout_ratio", "dividend payout ratio", (r"(?:dividend )?payout ratio",),
           "dividends paid / net income", (In("dividends_paid"), In("net_income")),
           _pct(lambda v: _div(abs(v[("dividends_paid", 0)]), v[("net_income", 0)])), "percent", 1),
    Metric("debt_to_equity", "debt-to-equity ratio", (r"debt[- ]to[- ]equity", r"\bd/e\b"),
           "(long-term debt + current portion of debt) / total shareholders' equity",
           (In("long_term_debt"), In("current_debt", optional=True), In("total_equity")),
           lambda v: _div(v[("long_term_debt", 0)] + (v.get(("current_debt", 0)) or 0.0), v[("total_equity", 0)]),
           "ratio", 2, good="low"),
    Metric("total_debt", "total debt", (r"\btotal debt\b", r"\bdebt on (?:its |the )?balance sheet\b",
                                        r"\b(?:increased?|decreased?|reduced?) (?:its |their )?(?:total )?debt\b"),
           "long-term debt + current portion of debt", (In("long_term_debt"), In("current_debt", optional=True)),
           lambda v: v[("long_term_debt", 0)] + (v.get(("current_debt", 0)) or 0.0), "currency", 0, good="low"),
]
METRICS: dict[str, Metric] = {m.name: m for m in _METRICS}
_QRX = [(m, [re.compile(p, re.I) for p in m.question]) for m in _METRICS]


def metric_in_question(question: str) -> Optional[Metric]:
    """The metric a question asks for: the earliest match, longer patterns winning ties (so 'EBITDA margin'
    is not plain 'EBITDA' and 'free cash flow conversion' is not 'free cash flow')."""
    q = question.replace("’", "'")
    best: Optional[tuple[int, int, Metric]] = None
    for m, rxs in _QRX:
        for rx in rxs:
            hit = rx.search(q)
            if hit:
                key = (hit.start(), -(hit.end() - hit.start()))
                if best is None or key < best[:2]:
                    best = (key[0], key[1], m)
    return best[2] if best else None
