"""Analyst questions written by hand after the answerers were built (issue 33): the same classes as
`bench/analyst_questions.py`, in phrasings its templates never produce, to see whether its numbers hold for
questions nobody tuned to. Gold is computed from each filing's inline XBRL at run time (`gold_of`), never typed in.

    python -m bench.analyst_fresh --index runs/edgar-real-idx --out runs/analyst_fresh.json
    python -m bench.analyst_fresh --reader-only --out runs/analyst_fresh_noix.json   # inline XBRL stripped
    python -m bench.analyst_fresh --set analyst_blind5 --out runs/analyst_blind5.json  # a blind set (see SETS)

Each row of a set (`--set`, `bench/data/<set>.jsonl`: `cls`, `filing`, `question`, `spec`) is a question with its
gold spec. Specs (JSON lists, read as tuples):
* ``("member", label)``: revenue of the one-member fact displayed beside `label` (or whose member QName holds it),
  for the filing's own period (fiscal year of a 10-K, quarter of a 10-Q);
* ``("change", key)``: this period's percent change of a line item (`analyst_common.CONCEPTS[key]`) against a year before;
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

from bench import analyst_questions as aq
from bench.analyst_common import (
    CONCEPTS,
    MEASURE_LABEL,
    REVENUE,
    clean_label,
    fact_gold,
    filing_meta,
    member_name,
    periodic,
    read_filing,
    revenue_members,
)
from bench.analyst_ranking import sum_of_others

REPO = Path(__file__).resolve().parents[1]
PRODUCT, SEGMENT, REGION = "srt:ProductOrServiceAxis", "us-gaap:StatementBusinessSegmentsAxis", \
    "srt:StatementGeographicalAxis"

DATA = REPO / "bench" / "data"
SETS = {  # set name (bench/data/<name>.jsonl) -> (question id prefix, title)
    "analyst_fresh": ("fresh", "hand-written questions"),
    "analyst_blind": ("blind", "blind hand-written questions"),
    "analyst_blind2": ("blind2", "second blind set"),
    "analyst_blind3": ("blind3", "third blind set"),
    "analyst_blind4": ("blind4", "fourth blind set"),
    "analyst_blind5": ("blind5", "fifth blind set"),
}
"""The hand-written sets; how each was written (blind, by whom, from what) is in bench/data/README.md."""


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def load_set(name: str) -> list[tuple[str, str, str, tuple]]:
    """The (class, filing, question, gold spec) rows of `bench/data/<name>.jsonl`, specs as tuples."""
    rows = [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["cls"], r["filing"], r["question"], _tuples(r["spec"])) for r in rows]


def _members(filing: dict, axis: str) -> dict[str, list[dict]]:
    by_axis, facts = revenue_members(filing)
    return {member: facts[(ax, member)] for ax, member in by_axis.get(axis, [])}


def gold_of(spec: tuple, meta: dict, filing: dict) -> dict | None:
    """The question's gold fields (`analyst_judge.judge`'s) from the filing's facts, or None when it lacks them."""
    xbrl, end = filing["xbrl"], meta["end"]
    months = 12 if meta["form"] == "10K" else 3
    kind = spec[0]
    if kind in ("member", "share"):
        for axis in (PRODUCT, SEGMENT, REGION):
            for member, facts in _members(filing, axis).items():
                labels = {clean_label(f.get("row", "")) for f in facts} | {member_name(member)}
                if spec[1] in labels:
                    g = fact_gold(periodic(filing, facts), REVENUE, end, False, months)
                    if g and kind == "member":
                        return {"gold_value": g["value"], "gold_kind": "money", "gold_pages": g["pages"]}
                    rev = fact_gold(xbrl, REVENUE, end, False, months)
                    if g and rev and rev["value"]:
                        return {"gold_value": g["value"] / rev["value"] * 100, "gold_kind": "pct",
                                "gold_pages": sorted(set(g["pages"]) | set(rev["pages"])),
                                "inputs": [g["value"], rev["value"]]}
        return None
    if kind == "change":
        cur = fact_gold(xbrl, CONCEPTS[spec[1]][1], end, False, months, 0)
        prior = fact_gold(xbrl, CONCEPTS[spec[1]][1], end, False, months, 1)
        if not cur or not prior or not prior["value"]:
            return None
        pct = (cur["value"] - prior["value"]) / abs(prior["value"]) * 100
        return {"gold_value": pct, "gold_pct": pct, "gold_abs": cur["value"] - prior["value"], "gold_kind": "pct",
                "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])), "inputs": [cur["value"], prior["value"]]}
    if kind == "delta":
        cur = fact_gold(xbrl, CONCEPTS[spec[1]][1], end, False, months, 0)
        prior = fact_gold(xbrl, CONCEPTS[spec[1]][1], end, False, months, 1)
        if not cur or not prior:
            return None
        return {"gold_value": cur["value"] - prior["value"], "gold_kind": "money", "per_share": spec[1].startswith("eps"),
                "gold_pages": sorted(set(cur["pages"]) | set(prior["pages"])), "inputs": [cur["value"], prior["value"]]}
    if kind == "margin":
        num = fact_gold(xbrl, spec[1], end, False, months)
        rev = fact_gold(xbrl, REVENUE, end, False, months)
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
        rows = []
        members = _members(filing, spec[1])
        for member, facts in members.items():
            g = fact_gold(periodic(filing, facts), REVENUE, end, False, months)
            if g and g["value"] > 0:
                # a row label that other members share ("Net sales" of each segment's table) names the measure
                others = {clean_label(o.get("row", "")) for m2, fs in members.items() if m2 != member for o in fs}
                labels = [clean_label(f.get("row", "")) for f in facts if f.get("row")]
                names = [n for n in [*labels, member_name(member)]
                         if n and n not in others and not MEASURE_LABEL.match(n)]
                if names:
                    rows.append({"names": list(dict.fromkeys(names)), "value": g["value"], "pages": g["pages"]})

        rows = [r for r in rows if not sum_of_others(r["value"], [o["value"] for o in rows if o is not r])]
        if len(rows) < 2:
            return None
        rows.sort(key=lambda r: r["value"], reverse=spec[2] == "highest")
        return {"gold_value": rows[0]["names"][0], "gold_names": rows[0]["names"], "gold_kind": "rank",
                "gold_pages": rows[0]["pages"], "other_names": [n for r in rows[1:] for n in r["names"]]}
    raise ValueError(f"unknown gold spec {spec!r}")


def questions(edgar: Path, asked: list[tuple[str, str, str, tuple]],
              prefix: str = "fresh") -> tuple[list[dict], dict[str, list[dict]]]:
    """The questions of `asked` (`load_set`'s rows) with their gold, and each filing's facts for the judge."""
    filings: dict[str, tuple[dict, dict]] = {}
    facts: dict[str, list[dict]] = {}
    for path in sorted(edgar.glob("*.htm*")):
        filing = read_filing(path.read_text(encoding="utf-8", errors="replace"))
        meta = filing_meta(path, filing)
        if meta is not None:
            filings[meta["doc_id"]] = (meta, filing)
            facts[meta["doc_id"]] = [{"concept": f["concept"], "value": f["value"], "unit": f["unit"],
                                      "members": f["members"]} for f in filing["all"]]
    out = []
    for k, (cls, doc, text, spec) in enumerate(asked):
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--set", default="analyst_fresh", choices=sorted(SETS),
                    help="the question set, bench/data/<SET>.jsonl (default: analyst_fresh)")
    ap.add_argument("--edgar", default=str(REPO.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--index", help="the index to ask (default: edgar_real's, or its stripped copy's)")
    ap.add_argument("--reader-only", action="store_true", help="ask the index of the filings without inline XBRL")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    index = Path(args.index or REPO / "runs" / ("edgar-real-noix-idx" if args.reader_only else "edgar-real-idx"))
    if not index.exists():
        print(f"no index at {index}: run python -m bench.analyst_questions{' --reader-only' if args.reader_only else ''} "
              "first (it builds it)", file=sys.stderr)
        return 2
    prefix, title = SETS[args.set]
    qs, facts = questions(Path(args.edgar), load_set(args.set), prefix)
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
