"""The inline-XBRL evidence source: a filing's tagged facts (`ix:nonFraction`) as typed `Fact`s.

    source = XbrlFacts(tagged, doc_id, info)          # tagged: `IndexLabels.facts_of(doc_id)`
    fact = source.fact("revenue", asked)              # a finrag.state.facts.Fact, or None

* `CONCEPTS` names the us-gaap concepts of each line item finrag reads from tags (revenue, net income, EPS,
  operating cash flow, capex, the balance-sheet totals, debt...).
* `choose_fact` is the one choice of a fact for the asked period, in the registrant's fiscal calendar: the filing's
  period end (`dei:DocumentPeriodEndDate`), shifted back a year per fiscal year before the filing's when the question
  asks for a prior year; three months for a quarter question (the default of a 10-Q), the year-to-date duration for
  "six/nine months", "year to date" or "first half", twelve months for a fiscal-year question (the default of a
  10-K); an instant at that end for a balance (or at the date of "as of June 27, 2025"). Only contexts without
  dimensions are stored as the filing's facts, so a segment, class or parent-only value is never taken; a member's
  facts are a view of their own (`member_view`).
* A row item (`line_items.ROW`, "row:contract assets") is read from the concepts of the filing's row that carries
  its words, once the caller has bound it (`row_facts.bind_row` -> `RowBinding`, `XbrlFacts.with_rows`).

This module is the only reader of the collector's dicts (`finrag.tools.documents.xbrl`) for the answerers of
line items, metrics and formulas: what they get is a `Fact`.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from finrag.state.facts import Citation, Fact, Period
from finrag.state.question import QuestionFacts
from finrag.tools.answering.questions import period_kind
from finrag.tools.vocabulary.dates import dei_date

__all__ = ["CONCEPTS", "PREFIX", "RowBinding", "XbrlFacts", "choose_fact", "fact_of", "member_view"]


@dataclass(frozen=True)
class RowBinding:
    """The concepts (QNames) a row item reads, and the facts to read them from (the filing's, or one member's)."""

    concepts: list[str]
    facts: dict


PREFIX = "us-gaap:"
CONCEPTS: dict[str, tuple[str, ...]] = {
    "revenue": ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
                "RevenueFromContractWithCustomerIncludingAssessedTax", "SalesRevenueNet", "RevenuesNetOfInterestExpense"),
    "net_income": ("NetIncomeLoss", "NetIncomeLossAvailableToCommonStockholdersBasic", "ProfitLoss"),
    "eps_basic": ("EarningsPerShareBasic", "EarningsPerShareBasicAndDiluted"),
    "eps_diluted": ("EarningsPerShareDiluted", "EarningsPerShareBasicAndDiluted"),
    "operating_income": ("OperatingIncomeLoss",),
    "gross_profit": ("GrossProfit",),
    "cogs": ("CostOfGoodsAndServicesSold", "CostOfRevenue", "CostOfGoodsSold"),
    "pretax_income": ("IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
                      "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments"),
    "income_tax": ("IncomeTaxExpenseBenefit",),
    "rnd": ("ResearchAndDevelopmentExpense", "ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost"),
    "sga": ("SellingGeneralAndAdministrativeExpense",),
    "sales_marketing": ("SellingAndMarketingExpense", "MarketingAndAdvertisingExpense"),
    "general_administrative": ("GeneralAndAdministrativeExpense",),
    "interest_expense": ("InterestExpense", "InterestExpenseNonoperating", "InterestExpenseDebt"),
    "cfo": ("NetCashProvidedByUsedInOperatingActivities",
            "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"),
    "capex": ("PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets",
              "PaymentsForCapitalImprovements"),
    "depreciation_amortization": ("DepreciationDepletionAndAmortization", "DepreciationAmortizationAndAccretionNet",
                                  "DepreciationAndAmortization"),
    "dividends_paid": ("PaymentsOfDividends", "PaymentsOfDividendsCommonStock"),
    "share_repurchases": ("PaymentsForRepurchaseOfCommonStock",),
    "stock_based_compensation": ("ShareBasedCompensation", "AllocatedShareBasedCompensationExpense"),
    "total_costs_expenses": ("CostsAndExpenses",),
    "total_assets": ("Assets",),
    "total_liabilities": ("Liabilities",),
    "total_equity": ("StockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"),
    "total_current_assets": ("AssetsCurrent",),
    "total_current_liabilities": ("LiabilitiesCurrent",),
    "cash": ("CashAndCashEquivalentsAtCarryingValue",),
    "inventory": ("InventoryNet",),
    "receivables": ("AccountsReceivableNetCurrent",),
    "accounts_payable": ("AccountsPayableCurrent",),
    "ppe_net": ("PropertyPlantAndEquipmentNet",),
    "long_term_debt": ("LongTermDebtNoncurrent", "LongTermDebt", "LongTermDebtAndCapitalLeaseObligations"),
    "current_debt": ("LongTermDebtCurrent", "DebtCurrent"),
    "total_debt": ("DebtLongtermAndShorttermCombinedAmount", "LongTermDebt", "DebtAndCapitalLeaseObligations",
                   "LongTermDebtAndCapitalLeaseObligationsIncludingCurrentMaturities"),
}

_FLOW_FREE = {"total_assets", "total_liabilities", "total_equity", "total_current_assets", "total_current_liabilities",
              "cash", "inventory", "receivables", "accounts_payable", "ppe_net", "long_term_debt", "current_debt", "total_debt"}

def _date(iso: str) -> Optional[_dt.date]:
    try:
        return _dt.date.fromisoformat(iso[:10])
    except (TypeError, ValueError):
        return None


def _shift_years(d: _dt.date, years: int) -> _dt.date:
    try:
        return d.replace(year=d.year - years)
    except ValueError:  # 29 February
        return d.replace(year=d.year - years, day=28)


def choose_fact(facts: dict, item: str, asked: QuestionFacts, info: dict,
                years_back: int = 0, concepts: Optional[list[str]] = None) -> Optional[tuple[dict, str]]:
    """The fact that answers `item` for the period the question (`asked`: its one reading) asks, and that period
    in words; `years_back` years before it (the comparative period of a change, a prior balance of an average).
    `concepts` (QNames): the concepts of a row item (`line_items.ROW`), a balance when their facts are instants."""
    end = _date(str(info.get("period_end") or "")) or _date(str(dei_date((facts.get("dei") or {})
                                                                   .get("DocumentPeriodEndDate", "")) or ""))
    if end is None:
        return None
    quarterly = str(info.get("form") or "") == "10Q"
    # "as of"/"ended" a date, else a quarter named by its month ("the August 2024 quarter": Oracle's fiscal 2025 Q1)
    as_of = _date(asked.as_of or "") or _date(max(asked.month_quarters) if asked.month_quarters else "")
    years = asked.years_written
    fy = info.get("fiscal_year")
    target = as_of
    if target is None:
        target = end
        if years and fy and max(years) < int(fy):
            target = _shift_years(end, int(fy) - max(years))
    if years_back:
        target = _shift_years(target, years_back)
    balance = item in _FLOW_FREE
    want = period_kind(asked, quarterly)
    names = [PREFIX + c for c in CONCEPTS[item]] if concepts is None else list(concepts)
    if concepts is not None:
        contexts = facts.get("contexts") or {}
        balance = any("instant" in (contexts.get(f.get("context")) or {}) for f in facts.get("facts") or []
                      if f.get("concept") in names)
    best = _best_fact(facts, names, item, target, balance, want)
    if best is None and balance and quarterly and years_back == 1 and as_of is None:
        # a 10-Q's balance "a year before" is its comparative column: the prior fiscal year's end
        best = _comparative_balance(facts, names, end)
    if best is None and item == "revenue":  # a top line tagged with another concept ("OperatingRevenues", a filer's own)
        best = _best_fact(facts, _revenue_like(facts, names), item, target, balance, want)
    return (best[1], best[2]) if best else None


def _comparative_balance(facts: dict, names: list[str], end: _dt.date) -> Optional[tuple[float, dict, str]]:
    """The latest instant fact of `names` at least a month before the 10-Q's period end (the balance sheet's
    comparative column), or None."""
    contexts = facts.get("contexts") or {}
    found: list[tuple[_dt.date, int, dict]] = []
    for f in facts.get("facts") or []:
        if f.get("concept") in names:
            d = _date(str((contexts.get(f.get("context")) or {}).get("instant", "")))
            if d is not None and (end - d).days > 30:
                found.append((d, -names.index(f["concept"]), f))
    if not found:
        return None
    d, _rank, fact = max(found, key=lambda t: (t[0], t[1]))
    return 0.0, fact, f"as of {d.isoformat()}"


_REVENUE_LIKE = re.compile(r"Revenues?(?:Net|Total)?$")  # a concept's local name ending so: the largest is the total
_NOT_REVENUE = re.compile(r"(?i)cost|expense|deferred|unearned|unbilled|remaining|receivable|tax|reduction|percent|"
                          r"recogni[sz]ed|allowance|reserve|liabilit|asset|obligation|backlog|per|ratio|segment|"
                          r"intersegment|share")


def _revenue_like(facts: dict, known: list[str]) -> list[str]:
    """The concepts that read as the top line but are not the ones `CONCEPTS` names (us-gaap or a filer's own:
    "OperatingRevenues", "xyz:TotalNetRevenues"), never costs, deferrals or balances."""
    return sorted({str(f.get("concept")) for f in facts.get("facts") or []
                   if str(f.get("concept")) not in known
                   and _REVENUE_LIKE.search(str(f.get("concept")).partition(":")[2])
                   and not _NOT_REVENUE.search(str(f.get("concept")).partition(":")[2])})


def _best_fact(facts: dict, names: list[str], item: str, target: _dt.date, balance: bool,
               want: str) -> Optional[tuple[float, dict, str]]:
    """The best fact of `names` (earlier names first) for the period ending at `target`: (score, fact, period)."""
    contexts = facts.get("contexts") or {}
    best: Optional[tuple[float, dict, str]] = None
    for f in facts.get("facts") or []:
        if f.get("concept") not in names:
            continue
        ctx = contexts.get(f.get("context"))
        if not ctx:
            continue
        rank = names.index(f["concept"])
        if balance:
            d = _date(ctx.get("instant", ""))
            if d is None or abs((d - target).days) > 7:
                continue
            label = f"as of {d.isoformat()}"
            score = -abs((d - target).days)
        else:
            s, e = _date(ctx.get("start", "")), _date(ctx.get("end", ""))
            if s is None or e is None or abs((e - target).days) > 7:
                continue
            days = (e - s).days
            if want == "quarter" and not 80 <= days <= 100:
                continue
            if want == "annual" and not 350 <= days <= 380:
                continue
            if want == "ytd" and days < 170:
                continue
            label = {"quarter": "three months", "ytd": f"{round(days / 30.4)} months", "annual": "fiscal year"}[want]
            label = f"the {label} ended {e.isoformat()}"
            score = days if want == "ytd" else 0
        if item in ("revenue", "cogs"):  # the total: the largest revenue (cost of revenue) concept of the period
            score = score * 1e-3 + abs(f["value"]) * 1e-15 - rank * 1e-6
        else:
            score = score - rank * 100
        shown = 1 if f.get("page", -1) >= 0 else 0
        key = score + shown * 1e-3
        if best is None or key > best[0]:
            best = (key, f, label)
    return best




def _decimals(raw: object) -> Optional[int]:
    try:
        return int(str(raw))
    except (TypeError, ValueError):  # "INF", "" (unknown precision)
        return None


def fact_of(raw: dict, ctx: dict, doc_id: str, words: str = "",
            dimensions: tuple[tuple[str, str], ...] = ()) -> Fact:
    """One collected fact (`finrag.tools.documents.xbrl`'s dict) and its context as a typed `Fact`."""
    period = Period(start=str(ctx.get("start") or "")[:10], end=str(ctx.get("end") or "")[:10],
                    instant=str(ctx.get("instant") or "")[:10], words=words)
    return Fact(concept=str(raw.get("concept") or ""), value=float(raw["value"]), period=period,
                citation=Citation(doc_id, int(raw.get("page", -1))), unit=str(raw.get("unit") or ""),
                dimensions=dimensions, label=str(raw.get("row") or ""), text=str(raw.get("text") or ""),
                decimals=_decimals(raw.get("decimals")), scale=str(raw.get("scale") or ""),
                sign=str(raw.get("sign") or ""), source="xbrl", key=str(raw.get("context") or ""))


def member_view(tagged: dict, group: list[dict]) -> dict:
    """A facts dict of `choose_fact`'s shape holding one member's facts (`group`, of `member_facts`)."""
    return {"contexts": tagged.get("member_contexts") or {}, "facts": group, "dei": tagged.get("dei") or {}}


@dataclass(frozen=True)
class XbrlFacts:
    """A filing's inline-XBRL facts as a `finrag.state.facts.FactSource` (see the module docstring).

    `tagged`: the collector's dict (or a member's view, `member_view`, with `dimensions` its (axis, member));
    `rows`: row items bound to the filing's rows (`row_facts.bind_row`), read from their concepts and facts."""

    tagged: Optional[dict]
    doc_id: str
    info: Optional[dict] = None
    rows: Mapping[str, RowBinding] = field(default_factory=dict)
    dimensions: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        """Does the source hold any fact?"""
        return bool(self.tagged and self.tagged.get("facts"))

    @property
    def has_members(self) -> bool:
        """Does the filing tag any fact of a one-member context (a segment, product or region)?"""
        return bool((self.tagged or {}).get("member_facts"))

    def reads(self, item: str) -> bool:
        """A line item with concepts (`CONCEPTS`), or a row item bound to the filing's row."""
        return item in CONCEPTS or self.rows.get(item) is not None

    def with_rows(self, rows: Mapping[str, Optional[RowBinding]]) -> "XbrlFacts":
        """The same source with `rows` bound (a None binding: the filing has no such row)."""
        bound = {**self.rows, **{k: v for k, v in rows.items() if v is not None}}
        return XbrlFacts(self.tagged, self.doc_id, self.info, bound, self.dimensions)

    def fact(self, item: str, asked: QuestionFacts, years_back: int = 0) -> Optional[Fact]:
        """The fact of `item` for the asked period, `years_back` years before it; None when none is tagged."""
        if not self.tagged:
            return None
        bound = self.rows.get(item)
        if bound is None and item not in CONCEPTS:
            return None
        picked = choose_fact(bound.facts if bound else self.tagged, item, asked, self.info or {}, years_back=years_back,
                             concepts=bound.concepts if bound else None)
        if picked is None:
            return None
        raw, words = picked
        facts = bound.facts if bound else self.tagged
        ctx = (facts.get("contexts") or {}).get(raw.get("context")) or {}
        return fact_of(raw, ctx, self.doc_id, words, self.dimensions)

    def same_concept(self, chosen: Fact) -> list[Fact]:
        """The facts of `chosen`'s concept for every period (`chosen` first, one per context and value), the
        periods in words as `finrag.tools.answering.xbrl_facts.fact_line` says them."""
        facts = self.tagged or {}
        contexts = facts.get("contexts") or {}
        out = [chosen]
        seen = {(chosen.key, chosen.value)}
        for raw in facts.get("facts") or []:
            ctx = contexts.get(raw.get("context"))
            if raw.get("concept") != chosen.concept or not ctx:
                continue
            fact = fact_of(raw, ctx, self.doc_id, "", self.dimensions)
            if (fact.key, fact.value) in seen:
                continue
            seen.add((fact.key, fact.value))
            out.append(fact)
        return out

    def same_group(self, chosen: Fact) -> list[Fact]:
        """`chosen`, then every other fact of the source in the filing's order (a member's facts for an LLM)."""
        facts = self.tagged or {}
        contexts = facts.get("contexts") or {}
        out, skipped = [chosen], False
        for raw in facts.get("facts") or []:
            fact = fact_of(raw, contexts.get(raw.get("context")) or {}, self.doc_id, "", self.dimensions)
            if not skipped and _ident(fact) == _ident(chosen):
                skipped = True
                continue
            out.append(fact)
        return out


def _ident(fact: Fact) -> tuple:
    """What tells one collected fact from another (all but how its period is said)."""
    return (fact.concept, fact.key, fact.value, fact.citation, fact.text, fact.label, fact.unit, fact.scale, fact.sign)
