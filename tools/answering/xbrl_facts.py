"""Exact line-item answers from an inline-XBRL filing's own tagged facts (`ix:nonFraction`).

    result = answer_from_facts(question, facts, doc_id, info)   # a ReaderResult, or None

* The concept comes from the question (`CONCEPTS`: revenue, net income, EPS basic/diluted, operating income,
  operating cash flow, capex, total assets, debt, R&D...), the line item named first.
* The context comes from the period asked, in the registrant's fiscal calendar: the filing's period end
  (`dei:DocumentPeriodEndDate`), shifted back a year per fiscal year before the filing's when the question
  asks for a prior year; three months for a quarter question (the default of a 10-Q), the year-to-date
  duration for "six/nine months", "year to date" or "first half", twelve months for a fiscal-year question
  (the default of a 10-K); an instant at that end for a balance (or at the date of "as of June 27, 2025").
  Only contexts without dimensions are stored, so a segment, class or parent-only value is never taken.
* The value is the fact's, with its scale and sign applied; the answer states it, keeps the displayed text
  and cites the page the fact is displayed on (`[doc, p. N]`, added to the contexts by the caller).
* With an LLM generator (when the fast path is not taken) the facts go to it as a structured block
  (`facts_block`: concept | period | value with unit and scale | page), the chosen fact first.

PDFs and HTML without inline XBRL keep the statement-table reader (`reader.py`). For an answer from a fact the
caller also runs the table reader on the same question (`check_against_table`): when the statement table shows a
different value for the period, the answer says so in one sentence and `ReaderResult.table_check` records both.
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Optional, cast

from finrag.state.question import QuestionFacts
from finrag.tools.answering.questions import period_kind
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.answering.render import possessive
from finrag.tools.numbers import SCALE_OF_POWER
from finrag.tools.question import read_question
from finrag.tools.vocabulary.dates import dei_date
from finrag.tools.vocabulary.line_items import LINE_ITEMS, ROW, item_in_question, line_item

__all__ = ["CONCEPTS", "DISPLAY", "PREFIX", "answer_from_facts", "choose_fact", "asked_item", "check_against_table",
           "fact_cite", "facts_block", "fact_line", "item_display", "money", "owner", "part_display"]

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
DISPLAY = {"eps_basic": "basic earnings per share", "eps_diluted": "diluted earnings per share",
            "cfo": "operating cash flow", "capex": "capital expenditures", "total_debt": "total debt"}
_LOSS_WORDS = {"operating_income": re.compile(r"(?i)\boperating loss(?:es)?\b|\bloss from operations\b"),
               "net_income": re.compile(r"(?i)\bnet loss\b")}  # a loss asked for: the answer says it so
_FLOW_FREE = {"total_assets", "total_liabilities", "total_equity", "total_current_assets", "total_current_liabilities",
              "cash", "inventory", "receivables", "accounts_payable", "ppe_net", "long_term_debt", "current_debt", "total_debt"}
_PER_SHARE = r"(?:eps|(?:earnings|loss|income|net income|net loss|\(loss\)|earnings \(loss\)) per (?:common )?share)"
_EPS_BASIC = re.compile(rf"(?i)\bbasic\b.*\b{_PER_SHARE}|\b{_PER_SHARE}.*\bbasic\b")
_EPS_DILUTED = re.compile(rf"(?i)\bdiluted\b.*\b{_PER_SHARE}|\b{_PER_SHARE}.*\bdiluted\b|^(?!.*\bbasic\b).*\b{_PER_SHARE}")
_EXTRA = [("cfo", re.compile(r"(?i)\b(?:operating cash flows?|cash (?:flows? )?from operations|cash provided by "
                             r"operating|net cash (?:provided|from) .*operating)\b")),
          ("capex", re.compile(r"(?i)\b(?:capex|capital expenditures?|purchases? of property|payments? for property)\b")),
          ("rnd", re.compile(r"(?i)\b(?:r&d|research and development)\b")),
          ("total_debt", re.compile(r"(?i)\b(?:total|overall|gross) (?:borrowings|debt)\b|^(?!.*\b(?:long|short)[- ]term\b)"
                                    r".*\b(?:debt|borrowings)\b")),
          ("current_debt", re.compile(r"(?i)\bcurrent (?:portion|maturities) of (?:long[- ]term )?debt\b|"
                                      r"\bshort[- ]term (?:debt|borrowings)\b")),
          ("long_term_debt", re.compile(r"(?i)(?<!portion of )(?<!maturities of )\blong[- ]term debt\b")),
          ("total_assets", re.compile(r"(?i)\btotal assets\b")),
          # "How much did Tesla earn from automotive leasing": a revenue asked without the word
          ("revenue", re.compile(r"(?i)\b(?:earn(?:ed)?|br(?:ing|ought) in|generat(?:e|ed)|t(?:ake|ook) in|ma(?:ke|de)|"
                                 r"g[eo]t|receive[ds]?|collect(?:ed)?|"
                                 r"book(?:ed)?|pull(?:ed)? in|rake(?:d)? in)\s+(?:in\s+(?:revenues?|sales)\s+)?from\b|"
                                 r"\btop[- ]?line\b"))]


def owner(info: dict) -> str:
    """The routed filing's company as a possessive ("Apple's", "Adobe Systems'"), "The company's" without one."""
    return possessive(str(info.get("company") or ""), "The company's")


def fact_cite(doc_id: str, fact: dict) -> str:
    """A tagged fact's citation: the page it is displayed on, or the inline XBRL for a hidden fact."""
    page = int(fact.get("page", -1))
    return f"[{doc_id}, p. {page}]" if page >= 0 else f"[{doc_id}, inline XBRL]"


def item_display(item: str) -> str:
    """A line item's name in an answer ("diluted earnings per share", "total revenue")."""
    if item.startswith(ROW):  # a row the question names: its words ("row:x@capex" is "x")
        return line_item(item).display
    return DISPLAY.get(item) or (LINE_ITEMS[item].display if item in LINE_ITEMS else item.replace("_", " "))


def part_display(item: str) -> str:
    """The line item's name for a part of it ("revenue", not "total revenue")."""
    return re.sub(r"^total\s+", "", item_display(item))


def asked_item(question: str) -> Optional[str]:
    """The line item the question names first, EPS basic/diluted told apart; None when it names none."""
    if _EPS_BASIC.search(question):
        return "eps_basic"
    if _EPS_DILUTED.search(question):
        return "eps_diluted"
    hits = [(m.start(), name) for name, rx in _EXTRA for m in [rx.search(question)] if m]
    hits += item_in_question(question, [n for n in LINE_ITEMS if n in CONCEPTS])
    return min(hits)[1] if hits else None


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


def money(value: float, fact: dict, item: str) -> str:
    """The value exactly, at the precision the filing reports (`decimals`), in millions from $1 million up."""
    unit = str(fact.get("unit") or "").lower()
    a, sign = abs(value), "-" if value < 0 else ""
    if item.startswith("eps") or "share" in unit and "usd" in unit:
        return f"{sign}${a:,.2f} per share"
    try:
        dec = int(cast(Any, fact.get("decimals")))  # None or "INF" raise, handled below
    except (TypeError, ValueError):
        dec = 0
    if a >= 1e6:
        text = f"{sign}${a / 1e6:,.{min(6, max(0, dec + 6))}f} million"
        return text + (f" ({sign}${a / 1e9:,.2f} billion)" if a >= 1e9 else "")
    return f"{sign}${a:,.{min(2, max(0, dec))}f}"


def answer_from_facts(question: str, facts: Optional[dict], doc_id: str, info: Optional[dict],
                      asked: Optional[QuestionFacts] = None) -> Optional[ReaderResult]:
    """The answer to a single line-item question from the filing's facts (see the module docstring), or None
    when the question names no known item, the filing has no facts, or no fact matches the period. `asked` is
    the question's one reading (`read_question(question)` when not given)."""
    if not facts or not facts.get("facts"):
        return None
    asked = asked if asked is not None else read_question(question)
    if asked.aggregate != "single" or asked.metric is not None:
        return None  # a change, an average or a ratio is not one tagged fact: the statement reader computes it
    item = asked_item(question)
    if item is None:
        return None
    info = info or {}
    picked = choose_fact(facts, item, asked, info)
    if picked is None:
        return None
    fact, period = picked
    value = float(fact["value"])
    if item == "capex":
        value = abs(value)
    display = item_display(item)
    page = int(fact.get("page", -1))
    cite = fact_cite(doc_id, fact)
    whose = owner(info)
    scale = SCALE_OF_POWER.get(str(fact.get("scale") or ""), "")
    text = str(fact.get("text") or "")
    shown = (f"({text})" if fact.get("sign") == "-" else text) + (f" in {scale}" if scale else "")
    when = period if period.startswith('as of') else 'for ' + period
    loss = _LOSS_WORDS.get(item)
    asked_loss = loss.search(question) if loss is not None and value < 0 else None
    if asked_loss:  # "loss from operations" asked, a loss tagged: said as asked, the tagged value beside it
        tagged = money(value, fact, item).split(" (")[0]
        stated = f"{whose} {asked_loss.group(0).lower()} {when} was {money(-value, fact, item)}, i.e. {display} of {tagged}"
    else:
        stated = f"{whose} {display} {when} was {money(value, fact, item)}"
    answer = f"{stated} {cite}. Source: the filing's inline XBRL fact {fact['concept']} (displayed as {shown})."
    found = Found(item=item, year=int(info.get("fiscal_year") or 0), value=value, label=fact["concept"],
                  raw=str(fact.get("text") or ""), header=period, doc_id=doc_id, page=max(page, 0),
                  scale=None, statement=None, score=1.0)
    return ReaderResult(answer=answer, confident=True, kind="item", found=[found] if page >= 0 else [],
                        pages_added=[(doc_id, page)] if page >= 0 else [], value=value,
                        facts_context=facts_block(facts, fact, doc_id), asked="line_item")




def _period_words(ctx: dict) -> str:
    if ctx.get("instant"):
        return f"as of {ctx['instant'][:10]}"
    s, e = _date(ctx.get("start", "")), _date(ctx.get("end", ""))
    if s is None or e is None:
        return "period unknown"
    months = round((e - s).days / 30.44)
    return f"{s.isoformat()} to {e.isoformat()} ({months} months)"


def _unit_words(unit_id: str) -> str:
    """A unit id as filers name them ('usd', 'U_USD', 'usdPerShare', 'U_USDollarShare', 'shares') in words."""
    u = unit_id.lower()
    money = "usd" in u or "dollar" in u
    if money and "share" in u:
        return "USD per share"
    if money:
        return "USD"
    if "share" in u:
        return "shares"
    return "" if "pure" in u else unit_id


def fact_line(fact: dict, ctx: dict, doc_id: str) -> str:
    """One tagged fact for an LLM: concept | period | value with unit and scale | where it is displayed."""
    unit = _unit_words(str(fact.get("unit") or ""))
    scale = str(fact.get("scale") or "0")
    shown = str(fact.get("text") or "")
    scale_words = f", displayed in {SCALE_OF_POWER[scale]}" if scale in SCALE_OF_POWER else ""
    value = float(fact["value"])
    page = int(fact.get("page", -1))
    where = f"[{doc_id}, p. {page}]" if page >= 0 else f"[{doc_id}, hidden fact]"
    return (f"{fact['concept']} | {_period_words(ctx)} | {value:,.{2 if abs(value) < 1000 else 0}f} {unit} "
            f"(displayed \"{'(' + shown + ')' if fact.get('sign') == '-' else shown}\"{scale_words}) | {where}")


def facts_block(facts: dict, chosen: dict, doc_id: str, limit: int = 8) -> str:
    """The tagged facts an LLM gets as structured context: the chosen fact first, then the same concept's other
    dimensionless periods (the comparative quarter, the year to date, the prior year) to choose among."""
    contexts = facts.get("contexts") or {}
    same = [f for f in facts.get("facts") or [] if f.get("concept") == chosen.get("concept") and f is not chosen
            and contexts.get(f.get("context"))]
    seen, lines = set(), []
    for f in [chosen, *same]:
        key = (f.get("context"), f.get("value"))
        if key in seen:
            continue
        seen.add(key)
        lines.append("- " + fact_line(f, contexts.get(f.get("context")) or {}, doc_id))
        if len(lines) >= limit:
            break
    head = (f"Tagged inline-XBRL facts of {doc_id} (consolidated: no dimensions; concept | period | value with unit, "
            f"scale applied | where displayed); the first answers the question:")
    return head + "\n" + "\n".join(lines)


def _plain(value: float, per_share: bool) -> str:
    """'$391,035 million', '$391.035 million', '-$0.92 per share': short, as precise as the value."""
    sign, a = ("-" if value < 0 else ""), abs(value)
    if per_share:
        return f"{sign}${a:,.2f} per share"
    if a >= 1e6:
        return f"{sign}${f'{a / 1e6:,.3f}'.rstrip('0').rstrip('.')} million"
    return f"{sign}${a:,.0f}"


def check_against_table(exact: ReaderResult, table: Optional[ReaderResult]) -> ReaderResult:
    """Compare the fact's answer with the table reader's answer to the same question; record the comparison in
    `exact.table_check` (page, the cell as printed, both values, `agrees`) and, when the displayed value differs
    (by more than rounding: 0.1%, a cent per share), add one sentence to the answer. Returns `exact`."""
    if table is None or not table.confident or table.kind != "item" or len(table.found) != 1 or not exact.found:
        return exact
    fact, cell = exact.found[0], table.found[0]
    if cell.item != fact.item or table.value is None:
        return exact
    a, b = abs(float(table.value)), abs(float(exact.value if exact.value is not None else fact.value))
    per_share = fact.item.startswith("eps")
    agrees = abs(a - b) < 0.005 if per_share else abs(a - b) <= 1e-3 * max(a, b)
    scale = f" ({cell.scale})" if cell.scale else ""
    exact.table_check = {"doc_id": cell.doc_id, "page": cell.page, "label": cell.label, "table_text": f"{cell.raw}{scale}",
                         "table_value": float(table.value), "fact_value": float(fact.value), "concept": fact.label,
                         "agrees": bool(agrees)}
    if not agrees:
        exact.answer += (f" The statement table [{cell.doc_id}, p. {cell.page}] reads {cell.raw}{scale} ('{cell.label}', "
                         f"{_plain(float(table.value), per_share)}); the tagged XBRL fact is "
                         f"{_plain(float(fact.value), per_share)}.")
    return exact
