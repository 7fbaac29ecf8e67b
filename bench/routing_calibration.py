"""How well the linker's confidence is calibrated (issue 48): a reliability table from labelled routing sets.

    python -m bench.routing_calibration --out docs/results/routing_calibration.json

On the corpus of every SEC registrant (`bench/routing_scale.py`), every reading of a known company the linker makes
for a labelled question (after ranking: alternatives it set aside included) is one row: its confidence and whether
its company is one the question names (gold). Per confidence bin, the share of readings and their accuracy (the
share naming a gold company); a calibrated linker's accuracy rises with its confidence, and the acceptance threshold
(`mentions.ACCEPT`) belongs where a reading becomes more often right than wrong. For each candidate threshold, the
readings accepted, their precision and the gold companies they recall (F1), so the threshold can be chosen from the
table. The sets: the scale queries (eval/data/routing_scale_dev.jsonl) and the blind sets of sessions 48 and 53
(bench/data/routing_blind{48,53}.jsonl; blind53 was also used to develop issue 48's third round).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.routing_scale import all_documents
from finrag.eval.routing_corpus import DATA
from finrag.eval.routing_scale_corpus import scale_companies
from finrag.eval.routing_scale_questions import load_scale_questions
from finrag.tools.routing.registry import Registry

REPO = Path(__file__).resolve().parents[1]
SETS = {"scale_dev": DATA / "routing_scale_dev.jsonl", "blind48": REPO / "bench/data/routing_blind48.jsonl",
        "blind53": REPO / "bench/data/routing_blind53.jsonl"}
BINS = [(0.0, 0.3), (0.3, 0.4), (0.4, 0.45), (0.45, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)]
THRESHOLDS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]


def readings(questions: list[dict], registry: Registry, gold_key) -> tuple[list[tuple[float, bool]], int]:
    """(confidence, names a gold company) per reading of a known company (best per company and question), and the
    number of gold companies."""
    rows, gold_total = [], 0
    for q in questions:
        gold = {gold_key(t) for t in q["gold_tickers"]} - {""}
        gold_total += len(gold)
        best: dict[str, float] = {}
        for c in registry.link(q["question"]).candidates:
            k = c["key"]
            if k:
                best[k] = max(best.get(k, 0.0), float(c["confidence"]))
        rows += [(conf, k in gold) for k, conf in best.items()]
    return rows, gold_total


def table(rows: list[tuple[float, bool]], gold_total: int) -> dict:
    bins = []
    for lo, hi in BINS:
        sel = [ok for conf, ok in rows if lo <= conf < hi]
        confs = [conf for conf, _ok in rows if lo <= conf < hi]
        bins.append({"bin": f"{lo:.2f}-{min(hi, 1.0):.2f}", "n": len(sel), "share": round(len(sel) / max(1, len(rows)), 3),
                     "accuracy": round(sum(sel) / len(sel), 3) if sel else None,
                     "mean_confidence": round(sum(confs) / len(confs), 3) if confs else None})
    thresholds = []
    for t in THRESHOLDS:
        acc = [ok for conf, ok in rows if conf >= t]
        tp = sum(acc)
        p, r = tp / max(1, len(acc)), tp / max(1, gold_total)
        thresholds.append({"threshold": t, "accepted": len(acc), "precision": round(p, 3), "recall": round(r, 3),
                           "f1": round(2 * p * r / max(1e-9, p + r), 3)})
    return {"readings": len(rows), "gold_companies": gold_total, "bins": bins, "thresholds": thresholds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="reliability table of the linker's confidence on labelled routing sets")
    ap.add_argument("--cache", type=Path, default=None, help="keep the generated DocumentInfo here between runs")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    sets = {name: load_scale_questions(path) for name, path in SETS.items()}
    docs = all_documents(args.cache)
    by_id = {d.doc_id: d for d in docs}
    required = sorted({g for qs in sets.values() for q in qs for g in q["gold_tickers"]})
    companies = scale_companies(None, required=required)
    ticker_doc = {t: c.doc_ids()[0] for c in companies for t in (c.ticker, *c.files)}
    registry = Registry([by_id[i] for c in companies for i in c.doc_ids()])

    def gold_key(tick: str) -> str:
        return registry.company_of(ticker_doc.get(tick) or ticker_doc.get(tick.replace("-", "."), ""))

    out, everything, gold_all = {}, [], 0
    for name, qs in sets.items():
        rows, gold_total = readings(qs, registry, gold_key)
        out[name] = table(rows, gold_total)
        everything += rows
        gold_all += gold_total
    out["all"] = table(everything, gold_all)
    for name, t in out.items():
        print(f"\n{name}: {t['readings']} readings of known companies, {t['gold_companies']} gold companies")
        print("  confidence     n   share  accuracy  mean confidence")
        for b in t["bins"]:
            acc = "-" if b["accuracy"] is None else f"{b['accuracy']:.3f}"
            mean = "-" if b["mean_confidence"] is None else f"{b['mean_confidence']:.3f}"
            print(f"  {b['bin']:<11}{b['n']:>5}  {b['share']:.3f}  {acc:>8}  {mean:>8}")
        print("  threshold  accepted  precision  recall  F1")
        for r in t["thresholds"]:
            print(f"  {r['threshold']:<9}{r['accepted']:>9}  {r['precision']:>9.3f}  {r['recall']:.3f}  {r['f1']:.3f}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
