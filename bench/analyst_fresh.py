"""Analyst questions written by hand after the answerers were built (issue 33): the same classes as
`bench/analyst_questions.py`, in phrasings its templates never produce, to see whether its numbers hold for
questions nobody tuned to. Gold is computed from each filing's inline XBRL at run time (`gold_of`), never typed in.

    python bench/analyst_fresh.py --index runs/edgar-real-idx --out runs/analyst_fresh.json
    python bench/analyst_fresh.py --reader-only --out runs/analyst_fresh_noix.json   # inline XBRL stripped

Each entry of `QUESTIONS` is (class, filing, question, gold spec). Specs:
* ``("member", label)``: revenue of the one-member fact displayed beside `label` (or whose member QName holds it),
  for the filing's own period (fiscal year of a 10-K, quarter of a 10-Q);
* ``("change", key)``: this period's percent change of a line item (`edgar_real.CONCEPTS[key]`) against a year before;
* ``("margin", numerator concepts)``: numerator over revenue in percent;
* ``("auditor",)``: `dei:AuditorName`;
* ``("delta", key)``: this period's change of a line item against a year before, as an amount (gold kind "money";
  per share for the EPS keys);
* ``("share", label)``: the revenue of the member of ``("member", label)`` over total revenue, in percent;
* ``("shares",)`` or ``("shares", member)``: the cover's `dei:EntityCommonStockSharesOutstanding` (the context
  without dimensions, or the one of the class whose member QName holds `member`), gold kind "shares";
* ``("float",)``: the cover's `dei:EntityPublicFloat` (scaled), gold kind "money";
* ``("cik",)``: `dei:EntityCentralIndexKey`; ``("fye",)``: `dei:CurrentFiscalYearEndDate` as "September 28" (kind
  "date");
* ``("rank", axis, order)``: the member of the axis with the highest or lowest revenue (aggregates left out).
The judge is `analyst_judge.judge` (value stated, wrong measure), as for the generated questions.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_questions as aq  # noqa: E402
import edgar_real as er  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PRODUCT, SEGMENT, REGION = "srt:ProductOrServiceAxis", "us-gaap:StatementBusinessSegmentsAxis", \
    "srt:StatementGeographicalAxis"

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    ("segment", "aapl-10-k-2024-11-01", "How much did Apple bring in from Mac sales during fiscal 2024?", ("member", "Mac")),
    ("segment", "aapl-10-k-2024-11-01", "Apple's Greater China net sales, FY2024?", ("member", "Greater China")),
    ("segment", "tsla-10-k-2025-01-30", "How much did Tesla earn from automotive leasing in 2024?",
     ("member", "Automotive leasing")),
    ("segment", "meta-10-k-2025-01-30", "Reality Labs revenue at Meta for 2024?", ("member", "Reality Labs")),
    ("segment", "ko-10-k-2025-02-20", "What were Coca-Cola's North America revenues in fiscal 2024?",
     ("member", "North America")),
    ("change", "aapl-10-k-2024-11-01", "What was Apple's year-over-year revenue growth in fiscal 2024?",
     ("change", "revenue")),
    ("change", "ko-10-k-2025-02-20", "How did Coca-Cola's net income change in percentage terms from 2023 to 2024?",
     ("change", "net_income")),
    ("change", "meta-10-k-2025-01-30", "Meta's operating income growth rate for 2024 versus 2023?",
     ("change", "operating_income")),
    ("change", "tsla-10-q-2025-07-24", "What was the percentage change in Tesla's total revenues for Q2 2025 compared "
                                       "to Q2 2024?", ("change", "revenue")),
    ("margin", "meta-10-k-2025-01-30", "What operating margin did Meta report for 2024?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", "amzn-10-k-2025-02-07", "Amazon's net profit margin in 2024?", ("margin", ("NetIncomeLoss",))),
    ("margin", "ko-10-q-2025-07-24", "What was Coca-Cola's operating margin in the second quarter of 2025?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", "aapl-10-q-2025-08-01", "What was Apple's net margin for its fiscal Q3 2025?",
     ("margin", ("NetIncomeLoss",))),
    ("cover", "tsla-10-k-2025-01-30", "Which audit firm audited Tesla's 2024 financial statements?", ("auditor",)),
    ("cover", "meta-10-k-2025-01-30", "Name Meta's independent auditor for fiscal 2024.", ("auditor",)),
    ("cover", "ibm-10-k-2025-02-25", "Who is IBM's external auditor for 2024?", ("auditor",)),
    ("ranking", "aapl-10-k-2024-11-01", "Which Apple product category brought in the most revenue in fiscal 2024?",
     ("rank", PRODUCT, "highest")),
    ("ranking", "meta-10-k-2025-01-30", "Which of Meta's geographic regions generated the least revenue in 2024?",
     ("rank", REGION, "lowest")),
    ("ranking", "amzn-10-k-2025-02-07", "Which Amazon segment had the highest sales in 2024?",
     ("rank", SEGMENT, "highest")),
    ("ranking", "ko-10-k-2025-02-20", "Which of Coca-Cola's operating segments had the smallest revenue in 2024?",
     ("rank", SEGMENT, "lowest")),
]


def _members(filing: dict, axis: str) -> dict[str, list[dict]]:
    by_axis, facts = aq.revenue_members(filing)
    return {member: facts[(ax, member)] for ax, member in by_axis.get(axis, [])}


def gold_of(spec: tuple, meta: dict, filing: dict) -> dict | None:
    """The question's gold fields (`analyst_judge.judge`'s) from the filing's facts, or None when it lacks them."""
    xbrl, end = filing["xbrl"], meta["end"]
    months = 12 if meta["form"] == "10K" else 3
    kind = spec[0]
    if kind in ("member", "share"):
        for axis in (PRODUCT, SEGMENT, REGION):
            for member, facts in _members(filing, axis).items():
                labels = {aq.clean_label(f.get("row", "")) for f in facts} | {aq.member_name(member)}
                if spec[1] in labels:
                    g = er._gold(aq._periodic(filing, facts), aq.REVENUE, end, False, months)
                    if g and kind == "member":
                        return {"gold_value": g["value"], "gold_kind": "money", "gold_pages": g["pages"]}
                    rev = er._gold(xbrl, aq.REVENUE, end, False, months)
                    if g and rev and rev["value"]:
                        return {"gold_value": g["value"] / rev["value"] * 100, "gold_kind": "pct",
                                "gold_pages": sorted(set(g["pages"]) | set(rev["pages"])),
                                "inputs": [g["value"], rev["value"]]}
        return None
    if kind == "change":
        cur = er._gold(xbrl, er.CONCEPTS[spec[1]][1], end, False, months, 0)
        prior = er._gold(xbrl, er.CONCEPTS[spec[1]][1], end, False, months, 1)
        if not cur or not prior or not prior["value"]:
            return None
        pct = (cur["value"] - prior["value"]) / abs(prior["value"]) * 100
        return {"gold_value": pct, "gold_pct": pct, "gold_abs": cur["value"] - prior["value"], "gold_kind": "pct",
                "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])), "inputs": [cur["value"], prior["value"]]}
    if kind == "delta":
        cur = er._gold(xbrl, er.CONCEPTS[spec[1]][1], end, False, months, 0)
        prior = er._gold(xbrl, er.CONCEPTS[spec[1]][1], end, False, months, 1)
        if not cur or not prior:
            return None
        return {"gold_value": cur["value"] - prior["value"], "gold_kind": "money", "per_share": spec[1].startswith("eps"),
                "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])), "inputs": [cur["value"], prior["value"]]}
    if kind == "margin":
        num = er._gold(xbrl, spec[1], end, False, months)
        rev = er._gold(xbrl, aq.REVENUE, end, False, months)
        if not num or not rev or not rev["value"]:
            return None
        return {"gold_value": num["value"] / rev["value"] * 100, "gold_kind": "pct",
                "gold_pages": sorted(set(num["pages"]) | set(rev["pages"])), "inputs": [num["value"], rev["value"]]}
    if kind == "auditor":
        name = str(xbrl["dei"].get("AuditorName") or "")
        page = filing["dei_pages"].get("AuditorName", -1)
        return {"gold_value": name, "gold_kind": "name", "gold_pages": [page] if page >= 0 else []} if name else None
    if kind in ("shares", "float"):
        concept = "dei:EntityCommonStockSharesOutstanding" if kind == "shares" else "dei:EntityPublicFloat"
        hits = [f for f in filing["all"] if f["concept"] == concept
                and (any(spec[1] in m for _, m in f["members"]) if len(spec) > 1 else not f["members"])]
        if len(hits) != 1:
            return None
        page = hits[0].get("page", -1)
        return {"gold_value": hits[0]["value"], "gold_kind": "shares" if kind == "shares" else "money",
                "gold_pages": [page] if page >= 0 else []}
    if kind in ("cik", "fye"):
        name = "EntityCentralIndexKey" if kind == "cik" else "CurrentFiscalYearEndDate"
        text = str(xbrl["dei"].get(name) or "").strip()
        value = (text if text.isdigit() else "") if kind == "cik" else aq.fiscal_year_end(text)
        page = filing["dei_pages"].get(name, -1)
        return {"gold_value": value, "gold_kind": "cik" if kind == "cik" else "date",
                "gold_pages": [page] if page >= 0 else []} if value else None
    if kind == "rank":
        from analyst_ranking import _sum_of_others

        rows = []
        members = _members(filing, spec[1])
        for member, facts in members.items():
            g = er._gold(aq._periodic(filing, facts), aq.REVENUE, end, False, months)
            if g and g["value"] > 0:
                # a row label that other members share ("Net sales" of each segment's table) names the measure
                others = {aq.clean_label(o.get("row", "")) for m2, fs in members.items() if m2 != member for o in fs}
                labels = [aq.clean_label(f.get("row", "")) for f in facts if f.get("row")]
                names = [n for n in [*labels, aq.member_name(member)]
                         if n and n not in others and not aq._MEASURE_LABEL.match(n)]
                if names:
                    rows.append({"names": list(dict.fromkeys(names)), "value": g["value"], "pages": g["pages"]})

        rows = [r for r in rows if not _sum_of_others(r["value"], [o["value"] for o in rows if o is not r])]
        if len(rows) < 2:
            return None
        rows.sort(key=lambda r: r["value"], reverse=spec[2] == "highest")
        return {"gold_value": rows[0]["names"][0], "gold_names": rows[0]["names"], "gold_kind": "rank",
                "gold_pages": rows[0]["pages"], "other_names": [n for r in rows[1:] for n in r["names"]]}
    raise ValueError(f"unknown gold spec {spec!r}")


def questions(edgar: Path, asked: list[tuple[str, str, str, tuple]] | None = None,
              prefix: str = "fresh") -> tuple[list[dict], dict[str, list[dict]]]:
    """The questions of `asked` (default `QUESTIONS`) with their gold, and each filing's facts for the judge."""
    filings: dict[str, tuple[dict, dict]] = {}
    facts: dict[str, list[dict]] = {}
    for path in sorted(edgar.glob("*.htm*")):
        filing = aq.read_filing(path.read_text(encoding="utf-8", errors="replace"))
        meta = aq._filing_meta(path, filing)
        if meta is not None:
            filings[meta["doc_id"]] = (meta, filing)
            facts[meta["doc_id"]] = [{"concept": f["concept"], "value": f["value"], "unit": f["unit"],
                                      "members": f["members"]} for f in filing["all"]]
    out = []
    for k, (cls, doc, text, spec) in enumerate(QUESTIONS if asked is None else asked):
        if doc not in filings:
            continue
        meta, filing = filings[doc]
        gold = gold_of(spec, meta, filing)
        if gold is None:
            print(f"no gold for {text!r} in {doc}: left out", file=sys.stderr)
            continue
        out.append({"id": f"{prefix}:{k}", "question": text, "cls": cls, "sub": cls, "doc_id": doc, "form": meta["form"],
                    **gold})
    return out, facts


def main(argv=None, asked: list[tuple[str, str, str, tuple]] | None = None, prefix: str = "fresh",
         title: str = "hand-written questions", doc: str | None = None) -> int:
    ap = argparse.ArgumentParser(description=(doc or __doc__ or "").splitlines()[0])
    ap.add_argument("--edgar", default=str(REPO.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--index", help="the index to ask (default: edgar_real's, or its stripped copy's)")
    ap.add_argument("--reader-only", action="store_true", help="ask the index of the filings without inline XBRL")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    index = Path(args.index or REPO / "runs" / ("edgar-real-noix-idx" if args.reader_only else "edgar-real-idx"))
    if not index.exists():
        print(f"no index at {index}: run bench/analyst_questions.py{' --reader-only' if args.reader_only else ''} "
              "first (it builds it)", file=sys.stderr)
        return 2
    qs, facts = questions(Path(args.edgar), asked, prefix)
    rows = aq.ask(qs, facts, index)
    print(f"{len(rows)} {title}; HDRR offline{' (inline XBRL stripped)' if args.reader_only else ''}")
    print("\n".join(aq.table(rows)))
    for r in rows:
        if not r["value"]:
            print(f"- not stated: {r['question']} -> {r['answer'][:160]!r}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": aq.rates(rows), "rows": rows}, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
