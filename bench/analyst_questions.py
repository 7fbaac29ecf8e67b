"""Analyst questions beyond one line item (issue 33): segments, changes, margins, cover facts, on real EDGAR filings.

    python -m bench.analyst_questions                               # ../shared/data/edgar, scratch index in runs/
    python -m bench.analyst_questions --index runs/edgar-real-idx --out runs/analyst.json
    python -m bench.analyst_questions --write-questions q.jsonl      # the generated questions only
    python -m bench.analyst_questions --questions q.jsonl --index IDX   # ask given questions (e.g. older code)
    python -m bench.analyst_questions --fb-run runs/fb-dev             # + FinanceBench dev split by class
    python -m bench.analyst_questions --reader-only --out runs/aq-noix.json   # inline XBRL stripped: tables only

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

from bench import edgar_real as er  # its copies of the filings without inline XBRL
from bench.analyst_common import (
    AXES,
    CONCEPTS,
    LABELS,
    MEASURE_LABEL,
    MONTHS,
    REVENUE,
    TEMPLATES,
    clean_label,
    date_words,
    fact_gold,
    filing_meta,
    make_question,
    member_name,
    owner,
    parse_date,
    period_phrases,
    periodic,
    read_filing,
    revenue_members,
)
from bench.analyst_dated import dated_change_questions  # changes between two named dates
from bench.analyst_fb import fb_class, financebench  # noqa: F401  (FinanceBench dev questions by class)
from bench.analyst_judge import headline, judge, numbers, other_measure, states_gold  # noqa: F401  (the judge)
from bench.analyst_ranking import ranking_questions  # the ranking class

REPO = Path(__file__).resolve().parents[1]
CLASSES = ("segment", "change", "margin", "cover", "line_item", "series", "ranking")


def segment_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """Revenue of one member (see the module docstring), current period first, one per member, at most `limit`,
    taken in turn from each axis."""
    xbrl = filing["xbrl"]
    periods = period_phrases(meta["form"], meta["fy"], meta["q"], meta["end"])
    total = {p[1]: fact_gold(xbrl, REVENUE, meta["end"], False, p[2], p[3]) for p in periods}
    by_axis, facts = revenue_members(filing)
    out: list[dict] = []
    order = [k for group in zip(*[by_axis[a] + [("", "")] * 20 for a in AXES]) for k in group if k[0]]
    for i, key in enumerate(order):
        if len(out) >= limit:
            break
        rows = [clean_label(f.get("row", "")) for f in facts[key] if f.get("row")]
        others = {clean_label(g.get("row", "")) for k2 in by_axis[key[0]] if k2 != key for g in facts[k2]}
        label = next((r for r in rows if r and r not in others and not MEASURE_LABEL.match(r)), "") \
            or member_name(key[1])
        if not label or "." in label:
            continue
        phrase, kind, months, back = periods[len(out) % len(periods)]
        gold = fact_gold(periodic(filing, facts[key]), REVENUE, meta["end"], False, months, back)
        t = total.get(kind)
        if gold is None or gold["value"] <= 0 or (t and abs(t["value"] - gold["value"]) < 1):
            continue
        name = meta["names"][i % 2]
        axis = AXES[key[0]]
        if axis == "region":
            text = (f"How much revenue did {name} generate from {label} {phrase}?", f"{name} revenue from {label} "
                    f"{phrase}")[i % 2]
        elif axis == "segment":
            text = f"What was the revenue of {owner(name)} {label} segment {phrase}?"
        else:
            noun = "" if re.search(r"(?i)(revenues?|sales)$", label) else " revenue"
            text = (f"What was {owner(name)} {label}{noun} {phrase}?", f"{name} {label}{noun} {phrase}")[i % 2]
        out.append(make_question(meta, "segment", axis, text, {"gold_value": gold["value"], "gold_pages": gold["pages"],
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
        concepts = CONCEPTS[key][1]
        cur = fact_gold(xbrl, concepts, meta["end"], False, months, 0)
        prior = fact_gold(xbrl, concepts, meta["end"], False, months, 1)
        sub = ("pct", "abs", "either")[(len(out) + meta["n"]) % 3]
        if not cur or not prior or not prior["value"] or (sub != "abs" and cur["value"] * prior["value"] <= 0):
            continue  # (a percent change across a sign flip means nothing)
        label = LABELS[key][i % len(LABELS[key])]
        name = meta["names"][i % 3]
        pct = (cur["value"] - prior["value"]) / abs(prior["value"]) * 100
        text = {"pct": f"By what percentage did {owner(name)} {label} change {between}?",
                "abs": f"By how much did {owner(name)} {label} change {between}?",
                "either": f"How much did {owner(name)} {label} grow {within}?"}[sub]
        gold = {"gold_value": cur["value"] - prior["value"] if sub == "abs" else pct, "gold_pct": pct,
                "gold_abs": cur["value"] - prior["value"], "gold_kind": {"pct": "pct", "abs": "money",
                                                                        "either": "either"}[sub],
                "per_share": key.startswith("eps"), "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])),
                "inputs": [cur["value"], prior["value"]], "measure": key, "period": kind}
        out.append(make_question(meta, "change", f"{key}_{sub}", text, gold, len(out)))
    return out


_DEBT = (("LongTermDebt",), ("LongTermDebtNoncurrent", "LongTermDebtCurrent"))


def _debt(xbrl: dict, end: dt.date) -> dict | None:
    for parts in _DEBT:
        got = [fact_gold(xbrl, (c,), end, True, 0) for c in parts]
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
                                                                      f"for the quarter ended {date_words(end)}")
    rev = fact_gold(xbrl, REVENUE, end, False, months)
    cfo_m = 12 if months == 12 else 3 * q
    gross = fact_gold(xbrl, ("GrossProfit",), end, False, months)
    cost = fact_gold(xbrl, ("CostOfRevenue", "CostOfGoodsAndServicesSold"), end, False, months)
    if gross is None and cost is not None and rev is not None:
        gross = {"value": rev["value"] - cost["value"], "pages": cost["pages"]}
    items: list[tuple[str, str, dict | None, dict | None, str]] = [
        ("gross_margin", "gross margin", gross, rev, "pct"),
        ("operating_margin", "operating margin", fact_gold(xbrl, ("OperatingIncomeLoss",), end, False, months), rev,
         "pct"),
        ("net_margin", "net profit margin", fact_gold(xbrl, ("NetIncomeLoss",), end, False, months), rev, "pct"),
        ("current_ratio", "current ratio", fact_gold(xbrl, ("AssetsCurrent",), end, True, 0),
         fact_gold(xbrl, ("LiabilitiesCurrent",), end, True, 0), "ratio"),
        ("debt_to_equity", "debt-to-equity ratio", _debt(xbrl, end),
         fact_gold(xbrl, ("StockholdersEquity",), end, True, 0), "ratio"),
        ("fcf", "free cash flow", fact_gold(xbrl, CONCEPTS["cfo"][1], end, False, cfo_m),
         fact_gold(xbrl, CONCEPTS["capex"][1], end, False, cfo_m), "money")]
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
                    f"ended {date_words(end)}")
            define = " (operating cash flow minus capex)" if meta["n"] % 2 else ""  # as FinanceBench defines it
            text = f"What was {owner(name)} free cash flow{define} {when}?"
        else:
            value = a["value"] / b["value"] * (100 if kind == "pct" else 1)
            when = f"as of {date_words(end)}" if kind == "ratio" else phrase[i % 2]
            text = (f"What was {owner(name)} {label} {when}?", f"{name} {label} {when}")[i % 2]
        out.append(make_question(meta, "margin", key, text, {"gold_value": value, "gold_kind": kind, "measure": key,
                                                   "inputs": [a["value"], b["value"]],
                                                   "gold_pages": sorted(set(a["pages"]) | set(b["pages"]))}, len(out)))
    return out


def fiscal_year_end(text: str) -> str:
    """`dei:CurrentFiscalYearEndDate` ("--09-28", or as displayed: "September 28") as "September 28"; "" if neither."""
    m = re.fullmatch(r"--(\d\d)-(\d\d)", text.strip())
    if m and 1 <= int(m.group(1)) <= 12:
        return f"{MONTHS[int(m.group(1)) - 1]} {int(m.group(2))}"
    m = re.fullmatch(r"(?i)(" + "|".join(MONTHS) + r")\s+(\d{1,2})", text.strip())
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
        out.append(make_question(meta, "cover", "auditor", f"Who audited {owner(name)} fiscal {meta['fy']} financial statements?",
                      {"gold_value": dei["AuditorName"], "gold_kind": "name", "gold_pages": page["AuditorName"]}, 0))
    shares = [f for f in filing["all"] if f["concept"] == "dei:EntityCommonStockSharesOutstanding" and f.get("instant")]
    if shares:
        f = shares[0]
        cls = f" {member_name(f['members'][0][1]).replace('Common ', '')}" if f["members"] else ""
        when = parse_date(f["instant"])
        text = (f"How many shares of {short}{cls} common stock were outstanding as of {date_words(when)}?"
                if when else f"How many shares of {short}{cls} common stock were outstanding?")
        out.append(make_question(meta, "cover", "shares_outstanding", text,
                      {"gold_value": f["value"], "gold_kind": "shares", "as_of": f["instant"],
                       "gold_pages": [f["page"]] if f["page"] >= 0 else []}, 1))
    floats = [f for f in filing["all"] if f["concept"] == "dei:EntityPublicFloat"]
    if floats:
        f = floats[0]
        out.append(make_question(meta, "cover", "public_float", f"What was {owner(name)} public float reported in its "
                      f"FY{meta['fy']} 10-K?", {"gold_value": f["value"], "gold_kind": "money",
                                                 "gold_pages": [f["page"]] if f["page"] >= 0 else []}, 2))
    if dei.get("EntityCentralIndexKey"):
        out.append(make_question(meta, "cover", "cik", f"What is {owner(short)} CIK number?",
                      {"gold_value": dei["EntityCentralIndexKey"], "gold_kind": "cik",
                       "gold_pages": page["EntityCentralIndexKey"]}, 3))
    fye = fiscal_year_end(dei.get("CurrentFiscalYearEndDate", ""))
    if fye:
        text = f"On what date does {owner(name)} fiscal year {meta['fy']} end?"
        out.append(make_question(meta, "cover", "fiscal_year_end", text,
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
        _label, concepts, balance = CONCEPTS[key]
        phrase, kind, months, back = period_phrases(meta["form"], meta["fy"], meta["q"], meta["end"])[len(out)]
        gold = fact_gold(filing["xbrl"], concepts, meta["end"], balance, months, back)
        if gold is None:
            continue
        name = meta["names"][len(out) % 3]
        text = TEMPLATES[len(out) % len(TEMPLATES)].format(owner=owner(name), name=name,
                                                                   label=LABELS[key][0], phrase=phrase)
        out.append(make_question(meta, "line_item", key, text, {"gold_value": gold["value"], "gold_pages": gold["pages"],
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
        _label, concepts, balance = CONCEPTS[key]
        golds = [fact_gold(filing["xbrl"], concepts, meta["end"], balance, 12, back) for back in (2, 1, 0)]
        if any(g is None for g in golds):
            continue
        k = meta["n"] + i
        name, label = meta["names"][k % 2], LABELS[key][k % len(LABELS[key])]
        text = (f"What was {owner(name)} {label} for each of the last three fiscal years?",
                f"Show {owner(name)} {label} for fiscal {fy - 2}, {fy - 1} and {fy}.",
                f"{name} {label} FY{fy - 2} through FY{fy}, year by year")[k % 3]
        out.append(make_question(meta, "series", key, text, {
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
        meta = filing_meta(path, filing)
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
