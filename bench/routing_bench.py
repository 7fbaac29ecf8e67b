"""Routing benchmark (issue 9): the offline linker + resolver on the generated open-world development set.

    python -m bench.routing_bench                           # 410 companies x FY2021-2024, eval/data/routing_dev.jsonl
    python -m bench.routing_bench --show-misses --out docs/results/bench_routing.json

The corpus is the paper's layout `{year}/{TICKER}.pdf` with realistic cover pages
(`finrag.eval.routing_corpus`); the registry is built from those paths and cover texts by the same code
that indexes real filings (no PDFs are needed here). Questions without a period are routed with
`default_year` = the corpus's latest year (2024). Printed, as in the paper's Table 9:

* exact company: the routed companies are exactly the gold companies (questions naming indexed companies);
* exact filing: the routed filings are exactly the gold filings (same questions);
* stray-company rate: questions whose routed filings include any company not in the gold set (all questions;
  for a company the index does not hold, any routed filing is a stray);
* unknown-company recognition: questions about companies the index does not hold that get `company_not_indexed`;
* the status breakdown, per category and per status.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from finrag.eval.routing_corpus import DATA, corpus_documents, dev_questions, load_companies
from finrag.tools.routing.registry import Registry


def run(questions: list[dict], registry: Registry, default_year: int, scope: str) -> list[dict]:
    rows = []
    for q in questions:
        t = time.perf_counter()
        res = registry.resolve(registry.link(q["question"]), q["question"], default_year=default_year, scope=scope)
        ms = (time.perf_counter() - t) * 1000
        gold_keys = {registry.company_of(f"{t}_2021") for t in q["gold_tickers"]}
        got_keys = {registry.company_of(d) for d in res.doc_ids}
        rows.append({**q, "status": res.status, "routed": res.doc_ids, "reason": res.reason, "ms": ms,
                     "confidence": res.confidence,
                     "exact_company": got_keys == gold_keys, "exact_filing": sorted(res.doc_ids) == sorted(q["gold_docs"]),
                     "stray": bool(got_keys - gold_keys)})
    return rows


def pct(xs: list[dict], k: str) -> float:
    return 100.0 * sum(bool(x[k]) for x in xs) / max(1, len(xs))


def summarise(rows: list[dict]) -> dict:
    named = [r for r in rows if r["gold_tickers"]]
    unknown = [r for r in rows if r["category"] == "not_indexed"]
    out = {
        "questions": len(rows), "naming_indexed_companies": len(named),
        "exact_company_pct": round(pct(named, "exact_company"), 1),
        "exact_filing_pct": round(pct(named, "exact_filing"), 1),
        "stray_company_pct": round(pct(rows, "stray"), 1),
        "unknown_recognised_pct": round(100.0 * sum(r["status"] == "company_not_indexed" and not r["routed"]
                                                    for r in unknown) / max(1, len(unknown)), 1),
        "no_company_fallback_pct": round(100.0 * sum(r["status"] == "fallback_no_tickers" for r in rows
                                                     if r["category"] == "no_company")
                                         / max(1, sum(r["category"] == "no_company" for r in rows)), 1),
        "ms_per_question": round(sum(r["ms"] for r in rows) / max(1, len(rows)), 3),
    }
    cats = defaultdict(list)
    for r in rows:
        cats[r["category"]].append(r)
    out["by_category"] = {c: {"n": len(rs), "exact_company_pct": round(pct(rs, "exact_company"), 1),
                              "exact_filing_pct": round(pct(rs, "exact_filing"), 1),
                              "stray_pct": round(pct(rs, "stray"), 1)} for c, rs in sorted(cats.items())}
    by_status = defaultdict(list)
    for r in rows:
        by_status[r["status"]].append(r)
    out["by_status"] = {s: {"n": len(rs), "share_pct": round(100.0 * len(rs) / len(rows), 1),
                            "exact_filing_pct": round(pct(rs, "exact_filing"), 1)}
                        for s, rs in sorted(by_status.items(), key=lambda kv: -len(kv[1]))}
    return out


BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 1.01)


def reliability(rows: list[dict]) -> list[dict]:
    """Confidence against accuracy (issue 48): the routed questions binned by routing confidence, each bin's share of
    them and how many of its routes are right (the exact gold filings; any route of a question about no indexed
    company is wrong)."""
    routed = [r for r in rows if r["routed"]]
    out = []
    for lo, hi in zip(BINS, BINS[1:]):
        rs = [r for r in routed if lo <= float(r["confidence"] or 0.0) < hi]
        right = sum(bool(r["gold_tickers"]) and r["exact_filing"] for r in rs)
        out.append({"confidence": f"{lo:.1f}-{min(hi, 1.0):.1f}", "n": len(rs),
                    "share_pct": round(100.0 * len(rs) / max(1, len(routed)), 1),
                    "accuracy_pct": round(100.0 * right / len(rs), 1) if rs else None,
                    "mean_confidence": round(sum(float(r["confidence"] or 0) for r in rs) / len(rs), 3) if rs else None})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="routing benchmark on the generated open-world development set")
    ap.add_argument("--questions", default=str(DATA / "routing_dev.jsonl"),
                    help="question file (default: the committed set; 'generate' rebuilds it in memory)")
    ap.add_argument("--seed", type=int, default=9, help="with --questions generate: the sampling seed (the "
                                                         "committed set is seed 9; others resample companies, "
                                                         "templates and years)")
    ap.add_argument("--default-year", type=int, default=2024)
    ap.add_argument("--scope", default="confidence", choices=["confidence", "filing"])
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--out", help="write the summary (and every row) as JSON here")
    args = ap.parse_args(argv)
    companies = load_companies()
    t = time.perf_counter()
    docs = corpus_documents(companies)
    registry = Registry(docs)
    build_s = time.perf_counter() - t
    questions = dev_questions(companies, seed=args.seed) if args.questions == "generate" else \
        [json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = run(questions, registry, args.default_year, args.scope)
    s = summarise(rows)
    print(f"corpus: {len({d.company_key for d in docs})} companies x 4 fiscal years = {len(docs)} filings "
          f"(paper layout, generated cover pages); registry built in {build_s:.1f} s")
    print(f"questions: {s['questions']} ({s['naming_indexed_companies']} name indexed companies)")
    print(f"exact company            {s['exact_company_pct']:5.1f}%")
    print(f"exact filing             {s['exact_filing_pct']:5.1f}%")
    print(f"stray-company rate       {s['stray_company_pct']:5.1f}%")
    print(f"unknown company -> company_not_indexed  {s['unknown_recognised_pct']:5.1f}%")
    print(f"no company -> fallback_no_tickers      {s['no_company_fallback_pct']:5.1f}%")
    print(f"link + resolve           {s['ms_per_question']:.2f} ms per question")
    print("\ncategory           n   exact company  exact filing  stray")
    for c, v in s["by_category"].items():
        print(f"{c:<17}{v['n']:>4}   {v['exact_company_pct']:>11.1f}%  {v['exact_filing_pct']:>11.1f}%  {v['stray_pct']:>5.1f}%")
    print("\nstatus                   n   share  exact filing")
    for st, v in s["by_status"].items():
        print(f"{st:<23}{v['n']:>4}  {v['share_pct']:>5.1f}%  {v['exact_filing_pct']:>11.1f}%")
    s["reliability"] = reliability(rows)
    print("\nconfidence   n   share  accuracy  mean confidence   (routed questions)")
    for b in s["reliability"]:
        acc = f"{b['accuracy_pct']:>7.1f}%" if b["accuracy_pct"] is not None else "       -"
        mean = f"{b['mean_confidence']:.3f}" if b["mean_confidence"] is not None else "-"
        print(f"{b['confidence']:<10}{b['n']:>5}  {b['share_pct']:>5.1f}%  {acc}  {mean:>10}")
    if args.show_misses:
        print("\nmisses:")
        for r in rows:
            bad = (r["gold_tickers"] and not r["exact_filing"]) or r["stray"] or \
                (r["category"] == "not_indexed" and r["status"] != "company_not_indexed") or \
                (r["category"] == "no_company" and r["status"] != "fallback_no_tickers")
            if bad:
                print(f"  [{r['category']}] {r['question']!r}: gold {r['gold_docs']} got {r['routed']} "
                      f"({r['status']}: {r['reason'][:150]})")
    if args.out:
        misses = [r for r in rows if (r["gold_tickers"] and not r["exact_filing"]) or r["stray"]
                  or (r["category"] == "not_indexed" and r["status"] != "company_not_indexed")]
        Path(args.out).write_text(json.dumps({"summary": s, "misses": misses}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
