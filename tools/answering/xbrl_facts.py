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
from typing import Optional

from finrag.state.facts import Fact
from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_sources.xbrl import CONCEPTS, PREFIX, XbrlFacts, choose_fact
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.answering.render import possessive
from finrag.tools.numbers import SCALE_OF_POWER
from finrag.tools.question import read_question
from finrag.tools.vocabulary.line_items import LINE_ITEMS, ROW, item_in_question, line_item

__all__ = ["CONCEPTS", "DISPLAY", "PREFIX", "answer_from_facts", "choose_fact", "asked_item", "check_against_table",
           "fact_cite", "facts_block", "fact_line", "item_display", "money", "owner", "part_display"]

DISPLAY = {"eps_basic": "basic earnings per share", "eps_diluted": "diluted earnings per share",
            "cfo": "operating cash flow", "capex": "capital expenditures", "total_debt": "total debt"}
_LOSS_WORDS = {"operating_income": re.compile(r"(?i)\boperating loss(?:es)?\b|\bloss from operations\b"),
               "net_income": re.compile(r"(?i)\bnet loss\b")}  # a loss asked for: the answer says it so
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


def fact_cite(fact: Fact) -> str:
    """A tagged fact's citation: the page it is displayed on, or the inline XBRL for a hidden fact."""
    return fact.citation.text


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


def money(value: float, fact: Fact, item: str) -> str:
    """The value exactly, at the precision the filing reports (`decimals`), in millions from $1 million up."""
    unit = fact.unit.lower()
    a, sign = abs(value), "-" if value < 0 else ""
    if item.startswith("eps") or "share" in unit and "usd" in unit:
        return f"{sign}${a:,.2f} per share"
    dec = fact.decimals if fact.decimals is not None else 0  # unknown or "INF": whole units
    if a >= 1e6:
        text = f"{sign}${a / 1e6:,.{min(6, max(0, dec + 6))}f} million"
        return text + (f" ({sign}${a / 1e9:,.2f} billion)" if a >= 1e9 else "")
    return f"{sign}${a:,.{min(2, max(0, dec))}f}"


def answer_from_facts(question: str, facts: Optional[dict], doc_id: str, info: Optional[dict],
                      asked: Optional[QuestionFacts] = None) -> Optional[ReaderResult]:
    """The answer to a single line-item question from the filing's facts (see the module docstring), or None
    when the question names no known item, the filing has no facts, or no fact matches the period. `asked` is
    the question's one reading (`read_question(question)` when not given)."""
    source = XbrlFacts(facts, doc_id, info or {})
    if not source:
        return None
    asked = asked if asked is not None else read_question(question)
    if asked.aggregate != "single" or asked.metric is not None:
        return None  # a change, an average or a ratio is not one tagged fact: the statement reader computes it
    item = asked_item(question)
    if item is None:
        return None
    info = info or {}
    fact = source.fact(item, asked)
    if fact is None:
        return None
    period = fact.period.words
    value = abs(fact.value) if item == "capex" else fact.value
    display = item_display(item)
    page = fact.citation.page
    whose = owner(info)
    scale = SCALE_OF_POWER.get(fact.scale, "")
    shown = fact.displayed + (f" in {scale}" if scale else "")
    when = period if period.startswith('as of') else 'for ' + period
    loss = _LOSS_WORDS.get(item)
    asked_loss = loss.search(question) if loss is not None and value < 0 else None
    if asked_loss:  # "loss from operations" asked, a loss tagged: said as asked, the tagged value beside it
        tagged = money(value, fact, item).split(" (")[0]
        stated = f"{whose} {asked_loss.group(0).lower()} {when} was {money(-value, fact, item)}, i.e. {display} of {tagged}"
    else:
        stated = f"{whose} {display} {when} was {money(value, fact, item)}"
    answer = f"{stated} {fact_cite(fact)}. Source: the filing's inline XBRL fact {fact.concept} (displayed as {shown})."
    found = Found(item=item, year=int(info.get("fiscal_year") or 0), value=value, label=fact.concept,
                  raw=fact.text, header=period, doc_id=doc_id, page=max(page, 0),
                  scale=None, statement=None, score=1.0)
    return ReaderResult(answer=answer, confident=True, kind="item", found=[found] if page >= 0 else [],
                        pages_added=[(doc_id, page)] if page >= 0 else [], value=value,
                        facts_context=facts_block(source, fact), asked="line_item")


def _period_words(fact: Fact) -> str:
    if fact.period.instant:
        return f"as of {fact.period.instant}"
    try:
        s, e = _dt.date.fromisoformat(fact.period.start), _dt.date.fromisoformat(fact.period.end)
    except ValueError:
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


def fact_line(fact: Fact) -> str:
    """One tagged fact for an LLM: concept | period | value with unit and scale | where it is displayed."""
    unit = _unit_words(fact.unit)
    scale = fact.scale or "0"
    scale_words = f", displayed in {SCALE_OF_POWER[scale]}" if scale in SCALE_OF_POWER else ""
    value = fact.value
    where = fact.citation.text if fact.citation.shown else f"[{fact.doc_id}, hidden fact]"
    return (f"{fact.concept} | {_period_words(fact)} | {value:,.{2 if abs(value) < 1000 else 0}f} {unit} "
            f"(displayed \"{fact.displayed}\"{scale_words}) | {where}")


def facts_block(source: XbrlFacts, chosen: Fact, limit: int = 8) -> str:
    """The tagged facts an LLM gets as structured context: the chosen fact first, then the same concept's other
    dimensionless periods (the comparative quarter, the year to date, the prior year) to choose among."""
    lines = ["- " + fact_line(f) for f in source.same_concept(chosen)[:limit]]
    head = (f"Tagged inline-XBRL facts of {source.doc_id} (consolidated: no dimensions; concept | period | value with "
            f"unit, scale applied | where displayed); the first answers the question:")
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
