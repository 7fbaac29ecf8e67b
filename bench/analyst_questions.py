"""Analyst questions beyond one line item (issue 33): segments, changes, margins, cover facts, on real EDGAR filings.

    python bench/analyst_questions.py                               # ../shared/data/edgar, scratch index in runs/
    python bench/analyst_questions.py --index runs/edgar-real-idx --out runs/analyst.json
    python bench/analyst_questions.py --write-questions q.jsonl      # the generated questions only
    python bench/analyst_questions.py --questions q.jsonl --index IDX   # ask given questions (e.g. older code)
    python bench/analyst_questions.py --fb-run runs/fb-dev             # + FinanceBench dev split by class
    python bench/analyst_questions.py --reader-only --out runs/aq-noix.json   # inline XBRL stripped: tables only

The filings are indexed as they are (`finrag index`, the same scratch index as `bench/edgar_real.py`). Questions
come from each filing's own inline XBRL, read with the system's HTML reader (`_FilingText`, so the pages are the
index's pages) and a collector that, unlike the system's, keeps the dimensional contexts (one explicit member)
and the row label the filing displays beside each fact. Classes (`cls`):

* ``segment``: revenue of one member of ``srt:ProductOrServiceAxis``, ``us-gaap:StatementBusinessSegmentsAxis`` or
  ``srt:StatementGeographicalAxis``, named by the row label displayed beside the fact ("iPhone", "Germany",
  "Automotive leasing"; footnote marks dropped); where that label does not tell the members apart (a segment
  column under a "Net sales" row) or is the measure's own name ("Sales" beside IBM's product member) the member's
  own name ("Greater China" from ``GreaterChinaSegmentMember``, "Product").
  Gold: the dimensional fact. Members whose value equals the consolidated total are left out.
* ``change``: revenue / net income / operating income / diluted EPS / operating cash flow, this period against the
  comparative one the filing tags (the prior fiscal year; the year-ago quarter and year to date for a 10-Q).
  Gold: the percent change (judged within 0.1 pp), the absolute change (0.5%), or either ("how much did ... grow").
* ``margin``: gross / operating / net margin (percent of revenue, 0.1 pp), current ratio and debt to equity (total
  debt ``LongTermDebt`` or its current + noncurrent parts, over ``StockholdersEquity``; within 0.01), free cash
  flow = operating cash flow - capital expenditures (0.5%; every other filing's question states that definition).
* ``cover``: the auditor (``dei:AuditorName``, case-insensitive), shares outstanding on the cover with its as-of
  date (``dei:EntityCommonStockSharesOutstanding``, within 0.01%), public float, CIK (the number), fiscal year end
  (month and day). A CIK is right from any filing of the registrant, a fiscal year's end from any filing of that
  fiscal year (`gold_docs`): exact filing then means routed to those filings only.
* ``line_item``: plain dimensionless facts, `edgar_real`'s phrasing and gold (the control).
* ``series``: a 10-K's revenue, net income or operating income for each of its three fiscal years ("for each of
  the last three fiscal years", "in fiscal 2022, 2023 and 2024"). Gold: the three dimensionless facts; value
  stated when all three are (0.5% each); wrong measure when some year's value is stated as the series without
  saying the others are missing.
* ``ranking`` (`bench/analyst_ranking.py`): which member ranks first by revenue, growth or share; ``change`` also
  holds `bench/analyst_dated.py`'s changes between two named dates (a 10-Q's balance, year end to quarter end).

Each question is asked to HDRR offline (`run_query(system="hdrr")`) and judged: exact filing (routed documents ==
the gold filing, or a non-empty subset of `gold_docs`); evidence (a context of the gold filing covers a page where
an input fact is displayed; None when every input is hidden, e.g. a CIK only in the ``ix:header``); value stated;
and wrong measure: the answer does not state the gold but its headline (first sentence; an extractive answer, which
quotes passages, has none) states as a number the value of another fact of the filing (the consolidated total for
a segment, this year's value for a change, the numerator of a margin...), and it does not say that the asked value was
not found. `--out` writes the per-class table and every question's outcome.

FinanceBench dev questions (`--financebench`) are classified by `fb_class` (keyword rules) and counted per class;
with `--fb-run DIR` (a `finrag eval run` output with the offline judge) the per-class P(s>=8) is added.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import edgar_real as er  # noqa: E402  (bench/edgar_real.py: its gold, phrasing and value judge)
from analyst_dated import dated_change_questions  # noqa: E402  (changes between two named dates)
from analyst_fb import fb_class, financebench  # noqa: E402,F401  (FinanceBench dev questions by class)
from analyst_judge import headline, judge, numbers, other_measure, states_gold  # noqa: E402,F401  (the judge)
from analyst_ranking import ranking_questions  # noqa: E402  (the ranking class)

from finrag.tools.documents.html import _FilingText  # noqa: E402
from finrag.tools.documents.xbrl import XbrlCollector  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
AXES = {"srt:ProductOrServiceAxis": "product", "us-gaap:StatementBusinessSegmentsAxis": "segment",
        "srt:StatementGeographicalAxis": "region"}
REVENUE = er.CONCEPTS["revenue"][1] + ("RevenueFromContractWithCustomerIncludingAssessedTax",)
CLASSES = ("segment", "change", "margin", "cover", "line_item", "series", "ranking")
_COUNTRIES = {"US": "United States", "CN": "China", "DE": "Germany", "GB": "United Kingdom", "JP": "Japan",
              "CA": "Canada", "FR": "France", "IN": "India"}
_MEASURE_LABEL = re.compile(r"(?i)^(?:net |total )?(?:sales|revenues?)$")
"""A row label that is the consolidated measure's own name ("Sales" beside IBM's product member): not a name for
the member (the question would read as the total's); the member's QName is used instead."""
_SKIP_MEMBERS = re.compile(r"(?i)(Eliminat|Corporate|Intersegment|Reconcil|Consolidat|AllOther)")


class FactCollector(XbrlCollector):
    """The system's collector, also keeping each context's explicit members (`members`: id -> [(axis, member)]),
    the period of every context, the text of the first label cell of the table row a fact is displayed in
    (`row`), and the page of every dei fact (`dei_pages`)."""

    def __init__(self) -> None:
        super().__init__()
        self.members: dict[str, list[tuple[str, str]]] = {}
        self.periods: dict[str, dict] = {}
        self.dei_pages: dict[str, int] = {}
        self._member: list[str] | None = None
        self._row: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def start(self, tag: str, attrs: list, page: int, hidden: bool) -> None:
        if tag == "tr":
            self._row, self._cell = [], None
        elif tag in ("td", "th"):
            if self._row is None:
                self._row = []
            self._cell = []
            self._row.append(self._cell)
        elif tag == "xbrldi:explicitmember" and self._ctx is not None:
            self._member = [next((v or "" for k, v in attrs if k and k.lower() == "dimension"), ""), ""]
        super().start(tag, attrs, page, hidden)

    def data(self, text: str) -> None:
        if self._member is not None:
            self._member[1] += text.strip()
        if self._cell is not None:
            self._cell.append(text)
        super().data(text)

    def end(self, tag: str) -> None:
        if tag == "xbrldi:explicitmember" and self._member is not None and self._ctx is not None:
            self._ctx.setdefault("_members", []).append(tuple(self._member))
            self._member = None
        elif tag == "xbrli:context" and self._ctx is not None:
            c = self._ctx
            self.members[c["id"]] = list(c.get("_members", []))
            self.periods[c["id"]] = {k: c[f] for k, f in (("start", "startdate"), ("end", "enddate"),
                                                          ("instant", "instant")) if c.get(f)}
        elif tag == "tr":
            self._row = self._cell = None
        elif tag in ("td", "th"):
            self._cell = None
        super().end(tag)

    def _finish(self, tag: str, a: dict, parts: list[str]) -> None:
        n = len(self.facts)
        name = a.get("name", "")
        if name.startswith("dei:") and name[4:] not in self.dei_pages:
            self.dei_pages[name[4:]] = a.get("_page", -1)
        super()._finish(tag, a, parts)
        if len(self.facts) > n and self._row:
            for cell in self._row[:-1] or self._row:
                text = re.sub(r"\s+", " ", "".join(cell).replace("\xa0", " ")).strip()
                if text and not re.fullmatch(r"[$()\d,.\s%\u2014\u2013-]*", text):
                    self.facts[-1]["row"] = text
                    break


def read_filing(markup: str) -> dict:
    """The facts of one filing: `xbrl` (the system's shape: dimensionless contexts and facts, dei), `all` (every
    numeric fact, with its context's `members` and period), `dei_pages` and the number of pages."""
    collector = FactCollector()
    parser = _FilingText(collector)
    parser.feed(markup)
    parser.close()
    data = collector.data_dict() or {"contexts": {}, "facts": [], "dei": {}}
    facts = [{**f, "members": collector.members.get(f["context"], []), **collector.periods.get(f["context"], {})}
             for f in collector.facts]
    return {"xbrl": data, "all": facts, "dei_pages": collector.dei_pages, "pages": len(parser.pages())}


def member_name(member: str) -> str:
    """How a member QName reads ("aapl:GreaterChinaSegmentMember" -> "Greater China"; "country:DE" -> "Germany")."""
    prefix, _, local = member.partition(":")
    if prefix == "country":
        return _COUNTRIES.get(local, "")
    local = re.sub(r"(Segment)?Member$", "", local)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", local).split()
    return " ".join(w.lower() if w in ("And", "Of", "The") else w for w in words)


def clean_label(row: str) -> str:
    """A displayed row label as analysts say it: footnote marks, trademarks and a leading "Total" dropped."""
    text = re.sub(r"\s*\(\d\)|[\u00ae\u2122*]", "", row or "")
    return re.sub(r"(?i)^total\s+", "", text).strip(" :,")


def _periodic(filing: dict, facts: list[dict]) -> dict:
    """A facts dict of `er._gold`'s shape holding only `facts` (their contexts' periods as contexts)."""
    return {"contexts": {f["context"]: {k: f[k] for k in ("start", "end", "instant") if k in f} for f in facts},
            "facts": facts}


def _filing_meta(path: Path, filing: dict) -> dict | None:
    from finrag.tools.vocabulary.dates import dei_date

    dei = filing["xbrl"]["dei"]
    if not dei.get("DocumentType") or not dei.get("DocumentPeriodEndDate"):
        return None
    form = dei["DocumentType"].replace("-", "")
    fy, fp = int(dei["DocumentFiscalYearFocus"]), dei.get("DocumentFiscalPeriodFocus", "FY")
    end = er._date(dei_date(dei["DocumentPeriodEndDate"]) or "")
    if end is None:
        return None
    legal = dei["EntityRegistrantName"]
    short = re.sub(r"(?i),?\s+(?:inc\.?|corporation|company|co\.?|platforms, inc\.)$", "", legal).strip()
    names = [re.sub(r"(?i)^the\s+", "", short), (dei.get("TradingSymbol") or [short])[0], legal]
    names = [n.title().replace(".Com", ".com") if n.isupper() and len(n) > 5 else n for n in names]
    return {"doc_id": path.stem, "form": form, "fy": fy, "q": int(fp[1]) if fp.startswith("Q") else 4, "end": end,
            "names": names}


def _owner(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _q(meta: dict, cls: str, sub: str, text: str, gold: dict, k: int) -> dict:
    return {"id": f"{meta['doc_id']}:{cls}:{sub}:{k}", "question": text[0].upper() + text[1:], "cls": cls,
            "sub": sub, "doc_id": meta["doc_id"], "form": meta["form"], **gold}


def revenue_members(filing: dict) -> tuple[dict[str, list[tuple[str, str]]], dict[tuple[str, str], list[dict]]]:
    """The revenue facts of one-member contexts of the breakdown axes (reconciling members left out): the members
    of each axis in the filing's order, and each (axis, member)'s facts."""
    by_axis: dict[str, list[tuple[str, str]]] = defaultdict(list)
    facts: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for f in filing["all"]:
        if len(f["members"]) == 1 and f["members"][0][0] in AXES and f["concept"][8:] in REVENUE \
                and f["concept"].startswith("us-gaap:") and not _SKIP_MEMBERS.search(f["members"][0][1]):
            key = f["members"][0]
            if key not in facts:
                by_axis[key[0]].append(key)
            facts[key].append(f)
    return by_axis, facts


def segment_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """Revenue of one member (see the module docstring), current period first, one per member, at most `limit`,
    taken in turn from each axis."""
    xbrl = filing["xbrl"]
    periods = er._periods(meta["form"], meta["fy"], meta["q"], meta["end"])
    total = {p[1]: er._gold(xbrl, REVENUE, meta["end"], False, p[2], p[3]) for p in periods}
    by_axis, facts = revenue_members(filing)
    out: list[dict] = []
    order = [k for group in zip(*[by_axis[a] + [("", "")] * 20 for a in AXES]) for k in group if k[0]]
    for i, key in enumerate(order):
        if len(out) >= limit:
            break
        rows = [clean_label(f.get("row", "")) for f in facts[key] if f.get("row")]
        others = {clean_label(g.get("row", "")) for k2 in by_axis[key[0]] if k2 != key for g in facts[k2]}
        label = next((r for r in rows if r and r not in others and not _MEASURE_LABEL.match(r)), "") \
            or member_name(key[1])
        if not label or "." in label:
            continue
        phrase, kind, months, back = periods[len(out) % len(periods)]
        gold = er._gold(_periodic(filing, facts[key]), REVENUE, meta["end"], False, months, back)
        t = total.get(kind)
        if gold is None or gold["value"] <= 0 or (t and abs(t["value"] - gold["value"]) < 1):
            continue
        name = meta["names"][i % 2]
        axis = AXES[key[0]]
        if axis == "region":
            text = (f"How much revenue did {name} generate from {label} {phrase}?", f"{name} revenue from {label} "
                    f"{phrase}")[i % 2]
        elif axis == "segment":
            text = f"What was the revenue of {_owner(name)} {label} segment {phrase}?"
        else:
            noun = "" if re.search(r"(?i)(revenues?|sales)$", label) else " revenue"
            text = (f"What was {_owner(name)} {label}{noun} {phrase}?", f"{name} {label}{noun} {phrase}")[i % 2]
        out.append(_q(meta, "segment", axis, text, {"gold_value": gold["value"], "gold_pages": gold["pages"],
                                                    "gold_kind": "money", "member": key[1], "label": label,
                                                    "period": kind}, len(out)))
    return out


_CHANGE = ("revenue", "net_income", "operating_income", "eps_diluted", "cfo")


def change_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """This period against the comparative one (see the module docstring)."""
    fy, q, xbrl = meta["fy"], meta["q"], filing["xbrl"]
    if meta["form"] == "10K":
        spans = [(12, f"from fiscal {fy - 1} to fiscal {fy}", f"in fiscal {fy}", "annual"),
                 (12, f"between FY{fy - 1} and FY{fy}", f"in FY{fy} versus FY{fy - 1}", "annual")]
    else:
        spans = [(3, f"in Q{q} of fiscal {fy} compared with Q{q} of fiscal {fy - 1}",
                  f"year over year in Q{q} FY{fy}", "quarter")]
        if q > 1:
            spans.append((3 * q, f"in the first {('half', 'nine months')[q - 2]} of fiscal {fy} versus the prior-year "
                                 "period", f"year over year through Q{q} of fiscal {fy}", "ytd"))
    out: list[dict] = []
    for i, key in _turn(list(_CHANGE), meta["n"]):
        if len(out) >= limit:
            break
        months, between, within, kind = spans[i % len(spans)]
        if key == "cfo" and months == 3:
            continue
        concepts = er.CONCEPTS[key][1]
        cur = er._gold(xbrl, concepts, meta["end"], False, months, 0)
        prior = er._gold(xbrl, concepts, meta["end"], False, months, 1)
        sub = ("pct", "abs", "either")[(len(out) + meta["n"]) % 3]
        if not cur or not prior or not prior["value"] or (sub != "abs" and cur["value"] * prior["value"] <= 0):
            continue  # (a percent change across a sign flip means nothing)
        label = er.LABELS[key][i % len(er.LABELS[key])]
        name = meta["names"][i % 3]
        pct = (cur["value"] - prior["value"]) / abs(prior["value"]) * 100
        text = {"pct": f"By what percentage did {_owner(name)} {label} change {between}?",
                "abs": f"By how much did {_owner(name)} {label} change {between}?",
                "either": f"How much did {_owner(name)} {label} grow {within}?"}[sub]
        gold = {"gold_value": cur["value"] - prior["value"] if sub == "abs" else pct, "gold_pct": pct,
                "gold_abs": cur["value"] - prior["value"], "gold_kind": {"pct": "pct", "abs": "money",
                                                                        "either": "either"}[sub],
                "per_share": key.startswith("eps"), "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])),
                "inputs": [cur["value"], prior["value"]], "measure": key, "period": kind}
        out.append(_q(meta, "change", f"{key}_{sub}", text, gold, len(out)))
    return out


_DEBT = (("LongTermDebt",), ("LongTermDebtNoncurrent", "LongTermDebtCurrent"))


def _debt(xbrl: dict, end: dt.date) -> dict | None:
    for parts in _DEBT:
        got = [er._gold(xbrl, (c,), end, True, 0) for c in parts]
        if all(got):
            pages = sorted({p for g in got if g for p in g["pages"]})
            return {"value": sum(g["value"] for g in got if g), "pages": pages}
    return None


def _turn(items: list, start: int) -> list[tuple[int, Any]]:
    """`items` with their indexes, from `start` (modulo) round: each filing starts the rotation elsewhere."""
    k = start % len(items) if items else 0
    return [(i, items[i]) for i in [*range(k, len(items)), *range(k)]]


def margin_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """Gross / operating / net margin, current ratio, debt to equity, free cash flow (see the module docstring),
    at most `limit`, the rotation starting at the filing's number."""
    xbrl, end, fy, q = filing["xbrl"], meta["end"], meta["fy"], meta["q"]
    months = 12 if meta["form"] == "10K" else 3
    phrase = (f"for FY{fy}", f"in fiscal {fy}") if months == 12 else (f"in Q{q} of fiscal {fy}",
                                                                      f"for the quarter ended {er._words(end)}")
    rev = er._gold(xbrl, REVENUE, end, False, months)
    cfo_m = 12 if months == 12 else 3 * q
    gross = er._gold(xbrl, ("GrossProfit",), end, False, months)
    cost = er._gold(xbrl, ("CostOfRevenue", "CostOfGoodsAndServicesSold"), end, False, months)
    if gross is None and cost is not None and rev is not None:
        gross = {"value": rev["value"] - cost["value"], "pages": cost["pages"]}
    items: list[tuple[str, str, dict | None, dict | None, str]] = [
        ("gross_margin", "gross margin", gross, rev, "pct"),
        ("operating_margin", "operating margin", er._gold(xbrl, ("OperatingIncomeLoss",), end, False, months), rev,
         "pct"),
        ("net_margin", "net profit margin", er._gold(xbrl, ("NetIncomeLoss",), end, False, months), rev, "pct"),
        ("current_ratio", "current ratio", er._gold(xbrl, ("AssetsCurrent",), end, True, 0),
         er._gold(xbrl, ("LiabilitiesCurrent",), end, True, 0), "ratio"),
        ("debt_to_equity", "debt-to-equity ratio", _debt(xbrl, end),
         er._gold(xbrl, ("StockholdersEquity",), end, True, 0), "ratio"),
        ("fcf", "free cash flow", er._gold(xbrl, er.CONCEPTS["cfo"][1], end, False, cfo_m),
         er._gold(xbrl, er.CONCEPTS["capex"][1], end, False, cfo_m), "money")]
    out: list[dict] = []
    for i, (key, label, a, b, kind) in _turn(items, meta["n"]):
        if len(out) >= limit:
            break
        if not a or not b or (kind != "money" and not b["value"]) or (key == "debt_to_equity" and b["value"] <= 0):
            continue
        name = meta["names"][i % 3]
        if kind == "money":
            value = a["value"] - abs(b["value"])
            when = (f"for fiscal {fy}" if months == 12 else f"for the {('three', 'six', 'nine')[q - 1]} months "
                    f"ended {er._words(end)}")
            define = " (operating cash flow minus capex)" if meta["n"] % 2 else ""  # as FinanceBench defines it
            text = f"What was {_owner(name)} free cash flow{define} {when}?"
        else:
            value = a["value"] / b["value"] * (100 if kind == "pct" else 1)
            when = f"as of {er._words(end)}" if kind == "ratio" else phrase[i % 2]
            text = (f"What was {_owner(name)} {label} {when}?", f"{name} {label} {when}")[i % 2]
        out.append(_q(meta, "margin", key, text, {"gold_value": value, "gold_kind": kind, "measure": key,
                                                   "inputs": [a["value"], b["value"]],
                                                   "gold_pages": sorted(set(a["pages"]) | set(b["pages"]))}, len(out)))
    return out


def fiscal_year_end(text: str) -> str:
    """`dei:CurrentFiscalYearEndDate` ("--09-28", or as displayed: "September 28") as "September 28"; "" if neither."""
    m = re.fullmatch(r"--(\d\d)-(\d\d)", text.strip())
    if m and 1 <= int(m.group(1)) <= 12:
        return f"{er._MONTHS[int(m.group(1)) - 1]} {int(m.group(2))}"
    m = re.fullmatch(r"(?i)(" + "|".join(er._MONTHS) + r")\s+(\d{1,2})", text.strip())
    return f"{m.group(1).title()} {int(m.group(2))}" if m else ""


def cover_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """Auditor, shares outstanding with its date, public float, CIK, fiscal year end (see the module docstring),
    at most `limit` (a 10-K one more): the auditor and the shares first, then the others in turn from the filing's
    number."""
    dei, pages = filing["xbrl"]["dei"], filing["dei_pages"]
    page = {k: ([v] if v >= 0 else []) for k, v in pages.items()}
    name, short = meta["names"][0], meta["names"][1]
    out: list[dict] = []
    if dei.get("AuditorName"):
        out.append(_q(meta, "cover", "auditor", f"Who audited {_owner(name)} fiscal {meta['fy']} financial statements?",
                      {"gold_value": dei["AuditorName"], "gold_kind": "name", "gold_pages": page["AuditorName"]}, 0))
    shares = [f for f in filing["all"] if f["concept"] == "dei:EntityCommonStockSharesOutstanding" and f.get("instant")]
    if shares:
        f = shares[0]
        cls = f" {member_name(f['members'][0][1]).replace('Common ', '')}" if f["members"] else ""
        when = er._date(f["instant"])
        text = (f"How many shares of {short}{cls} common stock were outstanding as of {er._words(when)}?"
                if when else f"How many shares of {short}{cls} common stock were outstanding?")
        out.append(_q(meta, "cover", "shares_outstanding", text,
                      {"gold_value": f["value"], "gold_kind": "shares", "as_of": f["instant"],
                       "gold_pages": [f["page"]] if f["page"] >= 0 else []}, 1))
    floats = [f for f in filing["all"] if f["concept"] == "dei:EntityPublicFloat"]
    if floats:
        f = floats[0]
        out.append(_q(meta, "cover", "public_float", f"What was {_owner(name)} public float reported in its "
                      f"FY{meta['fy']} 10-K?", {"gold_value": f["value"], "gold_kind": "money",
                                                 "gold_pages": [f["page"]] if f["page"] >= 0 else []}, 2))
    if dei.get("EntityCentralIndexKey"):
        out.append(_q(meta, "cover", "cik", f"What is {_owner(short)} CIK number?",
                      {"gold_value": dei["EntityCentralIndexKey"], "gold_kind": "cik",
                       "gold_pages": page["EntityCentralIndexKey"]}, 3))
    fye = fiscal_year_end(dei.get("CurrentFiscalYearEndDate", ""))
    if fye:
        text = f"On what date does {_owner(name)} fiscal year {meta['fy']} end?"
        out.append(_q(meta, "cover", "fiscal_year_end", text,
                      {"gold_value": fye, "gold_kind": "date",
                       "gold_pages": page.get("CurrentFiscalYearEndDate", [])}, 4))
    first = [q for q in out if q["sub"] in ("auditor", "shares_outstanding")]
    rest = [q for _i, q in _turn([q for q in out if q not in first], meta["n"])]
    return (first + rest)[:limit + (meta["form"] == "10K")]


def line_item_questions(meta: dict, filing: dict, limit: int = 2) -> list[dict]:
    """Plain line items in `edgar_real`'s phrasing and gold (the control): the first `limit` concepts found."""
    out: list[dict] = []
    for key in ("revenue", "net_income", "operating_income", "cfo", "eps_diluted"):
        if len(out) >= limit:
            break
        _label, concepts, balance = er.CONCEPTS[key]
        phrase, kind, months, back = er._periods(meta["form"], meta["fy"], meta["q"], meta["end"])[len(out)]
        gold = er._gold(filing["xbrl"], concepts, meta["end"], balance, months, back)
        if gold is None:
            continue
        name = meta["names"][len(out) % 3]
        text = er._TEMPLATES[len(out) % len(er._TEMPLATES)].format(owner=_owner(name), name=name,
                                                                   label=er.LABELS[key][0], phrase=phrase)
        out.append(_q(meta, "line_item", key, text, {"gold_value": gold["value"], "gold_pages": gold["pages"],
                                                     "gold_kind": "money", "per_share": key.startswith("eps"),
                                                     "period": kind}, len(out)))
    return out


_SERIES = ("revenue", "net_income", "operating_income")


def series_questions(meta: dict, filing: dict, limit: int = 2) -> list[dict]:
    """A 10-K's line item for each of its three fiscal years (the statement's comparative columns): "for each of
    the last three fiscal years", "in fiscal 2022, 2023 and 2024", "FY2022 through FY2024, year by year"."""
    if meta["form"] != "10K":
        return []
    out: list[dict] = []
    fy = meta["fy"]
    for i, key in enumerate(_SERIES):
        if len(out) >= limit:
            break
        _label, concepts, balance = er.CONCEPTS[key]
        golds = [er._gold(filing["xbrl"], concepts, meta["end"], balance, 12, back) for back in (2, 1, 0)]
        if any(g is None for g in golds):
            continue
        k = meta["n"] + i
        name, label = meta["names"][k % 2], er.LABELS[key][k % len(er.LABELS[key])]
        text = (f"What was {_owner(name)} {label} for each of the last three fiscal years?",
                f"Show {_owner(name)} {label} for fiscal {fy - 2}, {fy - 1} and {fy}.",
                f"{name} {label} FY{fy - 2} through FY{fy}, year by year")[k % 3]
        out.append(_q(meta, "series", key, text, {
            "gold_value": golds[-1]["value"], "gold_values": [g["value"] for g in golds],
            "gold_pages": sorted({p for g in golds for p in g["pages"]}), "gold_kind": "series",
            "period": "annual"}, len(out)))
    return out


def generate(edgar: Path) -> tuple[list[dict], dict[str, list[dict]]]:
    """(questions, every numeric fact per filing: what the wrong-measure judge compares with)."""
    questions: list[dict] = []
    facts: dict[str, list[dict]] = {}
    company: dict[str, tuple[str, int, str, list[int]]] = {}
    for n, path in enumerate(sorted(edgar.glob("*.htm*"))):
        filing = read_filing(path.read_text(encoding="utf-8", errors="replace"))
        meta = _filing_meta(path, filing)
        if meta is None:
            continue
        meta["n"] = n
        facts[meta["doc_id"]] = [{"concept": f["concept"], "value": f["value"], "unit": f["unit"],
                                  "members": f["members"]} for f in filing["all"]]
        for make in (segment_questions, change_questions, margin_questions, cover_questions, line_item_questions,
                     series_questions, ranking_questions, dated_change_questions):
            questions += make(meta, filing)
        dei = filing["xbrl"]["dei"]
        page = filing["dei_pages"].get("CurrentFiscalYearEndDate", -1)
        fye = fiscal_year_end(dei.get("CurrentFiscalYearEndDate", ""))
        company[meta["doc_id"]] = (dei.get("EntityCentralIndexKey", ""), meta["fy"], fye, [page] if page >= 0 else [])
    for q in questions:  # a company's CIK is on each of its filings, a fiscal year's end on each filing of that year
        cik, fy, fye, _pages = company[q["doc_id"]]
        if q["sub"] == "cik":
            q["gold_docs"] = sorted(d for d, c in company.items() if c[0] == cik)
        elif q["sub"] == "fiscal_year_end":
            q["gold_docs"] = sorted(d for d, c in company.items() if c[:3] == (cik, fy, fye))
            q["gold_pages_by_doc"] = {d: company[d][3] for d in q["gold_docs"]}
    return questions, facts


# --- the judge

def ask(questions: list[dict], facts: dict[str, list[dict]], index: Path) -> list[dict]:
    from finrag.api import run_query

    rows = []
    for q in questions:
        t0 = time.perf_counter()
        res = run_query(q["question"], system="hdrr", index_dir=str(index))
        rows.append({**q, **judge(q, res, facts.get(q["doc_id"], [])), "ms": round((time.perf_counter() - t0) * 1000)})
    return rows


_METRICS = ("exact", "evidence", "value", "wrong_measure")


def rates(rows: list[dict]) -> dict:
    """n and the share of each metric over the rows where it is defined."""
    out: dict = {"n": len(rows)}
    for m in _METRICS:
        known = [r[m] for r in rows if r.get(m) is not None]
        out[m] = round(sum(known) / len(known), 3) if known else None
    return out


def table(rows: list[dict], key: str = "cls") -> list[str]:
    """The Markdown table per value of `key` (class or subclass), all rows last."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    lines = [f"| {key} | n | exact filing | evidence | value stated | wrong measure |", "|---|---|---|---|---|---|"]
    order = [c for c in CLASSES if c in groups] if key == "cls" else sorted(groups)
    for g in [*order, "all"]:
        s = rates(rows if g == "all" else groups[g])
        lines.append(f"| {g} | {s['n']} | " + " | ".join("-" if s[m] is None else f"{s[m]:.3f}" for m in _METRICS)
                     + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", default=str(REPO.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--index", default=str(REPO / "runs" / "edgar-real-idx"), help="scratch index (edgar_real's)")
    ap.add_argument("--questions", help="ask these questions (JSONL) instead of generating them")
    ap.add_argument("--write-questions", help="write the generated questions (JSONL) and stop")
    ap.add_argument("--out", help="write the tables and every question's outcome as JSON")
    ap.add_argument("--financebench", default=str(REPO.parent / "shared" / "data" / "financebench" /
                                                  "questions_dev.jsonl"))
    ap.add_argument("--fb-run", help="a `finrag eval run` output (offline judge, HDRR) on the dev questions")
    ap.add_argument("--reader-only", action="store_true",
                    help="ask copies of the filings without inline XBRL (edgar_real's `strip_ixbrl`): the table reader "
                         "alone; --index defaults to runs/edgar-real-noix-idx")
    args = ap.parse_args(argv)
    if args.reader_only and args.index == str(REPO / "runs" / "edgar-real-idx"):
        args.index = str(REPO / "runs" / "edgar-real-noix-idx")
    t0 = time.perf_counter()
    questions, facts = generate(Path(args.edgar))
    if args.questions:
        questions = [json.loads(ln) for ln in Path(args.questions).read_text().splitlines() if ln.strip()]
    if args.write_questions:
        Path(args.write_questions).write_text("".join(json.dumps(q) + "\n" for q in questions))
        print(f"{len(questions)} questions -> {args.write_questions}")
        return 0
    if not questions:
        print(f"no questions: no inline-XBRL filings in {args.edgar}", file=sys.stderr)
        return 1
    from finrag.cli import main as finrag_main

    folder = args.edgar
    if args.reader_only:  # the same questions (gold from the original filings' facts) of stripped copies
        folder = str(er.stripped_copies(Path(args.edgar), REPO / "runs" / "edgar-real-noix-files"))
    if finrag_main(["index", folder, "--index", args.index, "-q"]) not in (0, None):
        print("indexing failed", file=sys.stderr)
        return 1
    rows = ask(questions, facts, Path(args.index))
    print(f"{len(rows)} questions over {len({r['doc_id'] for r in rows})} filings; HDRR offline "
          f"({time.perf_counter() - t0:.0f} s)")
    print("\n".join(table(rows)))
    print()
    print("\n".join(table(rows, "sub")))
    fb = None
    if args.financebench and Path(args.financebench).is_file():
        fb = financebench(Path(args.financebench), Path(args.fb_run) if args.fb_run else None, CLASSES)
        print("\nFinanceBench dev questions by class: " + ", ".join(
            f"{c} {e['n']}" + (f" (P(s>=8) {e['p_ge_8']:.3f})" if "p_ge_8" in e else "") for c, e in fb.items()))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            groups[r["cls"]].append(r)
        out = {"summary": rates(rows), "classes": {c: rates(rs) for c, rs in groups.items()},
               "financebench_dev": fb, "rows": rows}
        Path(args.out).write_text(json.dumps(out, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
