"""Changes between two named dates, a subclass of `bench/analyst_questions.py`'s change class (issue 33).

* `dated_change_questions(meta, filing)`: for a 10-Q, one balance-sheet item (total assets, cash and cash
  equivalents, stockholders' equity, in turn from the filing's number) "from <the last fiscal year's end> to
  <the quarter's end>", both dates written out: the two columns of the 10-Q's balance sheet. Gold: the percent
  change between the two instant facts. A 10-Q also tags the balance a year before the quarter's end (the cash
  flow statement's beginning balance, an equity statement's row): an answer that uses it instead of the year's end
  states another measure (the judge's wrong measure).
"""
from __future__ import annotations

import datetime as dt

from bench.analyst_common import (
    date_words,
    fact_gold,
    make_question,
    owner,
    parse_date,
)

__all__ = ["dated_change_questions"]

_ITEMS = (("total assets", ("Assets",)), ("cash and cash equivalents", ("CashAndCashEquivalentsAtCarryingValue",)),
          ("total stockholders' equity", ("StockholdersEquity",)))


def _year_end_before(xbrl: dict, concepts: tuple, end: dt.date) -> dt.date | None:
    """The latest instant of the concept between 60 and 370 days before the quarter's end (the balance sheet's
    comparative column: the last fiscal year's end)."""
    dates = []
    for f in xbrl["facts"]:
        c = xbrl["contexts"].get(f["context"]) or {}
        d = parse_date(c.get("instant", ""))
        if f["concept"] in {f"us-gaap:{x}" for x in concepts} and d and 60 <= (end - d).days <= 370:
            dates.append(d)
    return max(dates) if dates else None


def dated_change_questions(meta: dict, filing: dict, limit: int = 1) -> list[dict]:
    """The dated changes of one 10-Q (see the module docstring)."""
    if meta["form"] != "10Q":
        return []
    xbrl, end = filing["xbrl"], meta["end"]
    out: list[dict] = []
    for k in range(len(_ITEMS)):
        label, concepts = _ITEMS[(meta["n"] + k) % len(_ITEMS)]
        start = _year_end_before(xbrl, concepts, end)
        if start is None:
            continue
        new = fact_gold(xbrl, concepts, end, True, 0)
        old = fact_gold(xbrl, concepts, start, True, 0)
        if not new or not old or not old["value"]:
            continue
        pct = (new["value"] - old["value"]) / abs(old["value"]) * 100
        name = meta["names"][(meta["n"] + k) % 2]
        text = f"How did {owner(name)} {label} change from {date_words(start)} to {date_words(end)}?"
        out.append(make_question(meta, "change", f"dated_{concepts[0]}", text,
                      {"gold_value": pct, "gold_pct": pct, "gold_abs": new["value"] - old["value"], "gold_kind": "either",
                       "gold_pages": sorted(set(new["pages"]) | set(old["pages"])),
                       "inputs": [new["value"], old["value"]], "measure": label, "period": "dated"}, len(out)))
        if len(out) >= limit:
            break
    return out
