"""Routing at EDGAR scale (issue 35): the offline linker + resolver as the registry grows to every SEC registrant.

    python -m bench.routing_scale                                   # 500, 2,000 and all (~8,000) registrants
    python -m bench.routing_scale --sizes 500 all --show-misses --out docs/results/bench_routing_scale.json

The corpus (`finrag.eval.routing_scale_corpus`) is the development corpus of bench/routing_bench.py (410 companies x
FY2021-2024) plus one FY2024 10-K cover of every other registrant of the SEC's list of registrants with tickers
(tools/routing/data/sec_registrants.jsonl.gz, 7,992 CIKs); a size keeps the development corpus, every registrant a query names,
then the largest others. The registry is built from those paths and covers by the code that indexes real filings.
Queries: eval/data/routing_scale_dev.jsonl (`finrag.eval.routing_scale_questions`: written analyst queries by
category, plus plain queries about registrants drawn from the whole list), and beside them the development set of
bench/routing_bench.py (eval/data/routing_dev.jsonl, less its `not_indexed` questions, whose companies are SEC
registrants here). Per size, company-level (the filing is the resolver's business, measured by routing_bench.py):

* exact routing: the routed companies are exactly the gold ones (none for a company the index does not hold or a
  question about no company);
* right company among the routed: every gold company is routed (questions naming indexed companies);
* extra-company rate: questions whose route includes a company that is not gold (all questions);
* latency of `link` + `resolve` per query (p50, p95, mean), the registry's build time and its memory (what
  `Registry(docs)` allocates and keeps, by tracemalloc, in a second build; and the peak during that build).

The scale queries are reported together and split (eval/data/routing_scale_queries.txt): those the linker was tuned
on, the `holdout/` ones written after that tuning (then used for a second round of changes: reported before and
after in docs/benchmarks.md), and the `fresh/` ones written after every change and measured once.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import pickle
import statistics
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

from finrag.eval.routing_corpus import DATA
from finrag.eval.routing_scale_corpus import all_scale_companies, scale_companies, scale_documents
from finrag.eval.routing_scale_questions import load_scale_questions
from finrag.tools.routing.registry import Registry

REPO = Path(__file__).resolve().parents[1]
_CACHE_INPUTS = ["tools/routing/documents.py", "tools/routing/cover.py", "tools/routing/filenames.py",
                 "tools/routing/aliases.py", "tools/routing/data/aliases.yaml", "tools/routing/text.py",
                 "eval/routing_corpus.py", "eval/routing_scale_corpus.py", "tools/routing/data/sec_registrants.jsonl.gz",
                 "eval/data/routing_companies.txt"]


def all_documents(cache: Path | None):
    """Every filing's DocumentInfo (about a minute for ~9,000 covers); `cache` keeps them between runs, keyed by
    the code and data they are built from."""
    key = hashlib.sha1(b"".join((REPO / p).read_bytes() for p in _CACHE_INPUTS)).hexdigest()[:16]
    path = cache / f"routing-scale-docs-{key}.pickle" if cache else None
    if path and path.exists():
        return pickle.loads(path.read_bytes())
    docs = scale_documents(all_scale_companies())
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(docs))
    return docs


def route_all(questions: list[dict], registry: Registry, gold_key, repeat: int = 1) -> list[dict]:
    """Each question linked and resolved `repeat` times: its time is the fastest pass (a busy machine's pauses
    left out), its route the last one's."""
    rows = []
    for q in questions:
        ms = float("inf")
        for _ in range(max(1, repeat)):
            t = time.perf_counter()
            res = registry.resolve(registry.link(q["question"]), q["question"], default_year=2024)
            ms = min(ms, (time.perf_counter() - t) * 1000)
        gold = {gold_key(t) for t in q["gold_tickers"]}
        got = {registry.company_of(d) for d in res.doc_ids}
        rows.append({"id": q.get("id", ""), "question": q["question"], "category": q["category"],
                     "gold": sorted(gold), "routed": sorted(got), "status": res.status, "reason": res.reason[:200],
                     "ms": ms, "exact": got == gold, "among": bool(gold) and gold <= got, "extra": bool(got - gold)})
    return rows


def summarise(rows: list[dict]) -> dict:
    named = [r for r in rows if r["gold"]]
    ms = sorted(r["ms"] for r in rows)

    def rate(xs, k):
        return round(sum(bool(x[k]) for x in xs) / max(1, len(xs)), 4)

    out = {"questions": len(rows), "naming_indexed": len(named), "exact": rate(rows, "exact"),
           "exact_named": rate(named, "exact"), "right_among_routed": rate(named, "among"),
           "extra_company_rate": rate(rows, "extra"),
           "ms_p50": round(statistics.median(ms), 3), "ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 3),
           "ms_mean": round(statistics.fmean(ms), 3)}
    cats = defaultdict(list)
    for r in rows:
        cats[r["category"]].append(r)
    out["by_category"] = {c: {"n": len(rs), "exact": rate(rs, "exact"), "extra": rate(rs, "extra")}
                          for c, rs in sorted(cats.items())}
    return out


def registry_memory(docs) -> tuple[float, float]:
    """(MB that Registry(docs) allocates and keeps, MB at the peak of building it), by tracemalloc."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    reg = Registry(docs)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del reg
    return round((kept - base) / 2**20, 1), round((peak - base) / 2**20, 1)


def index_files(n: int, work: Path, workers: int) -> dict:
    """`finrag index` of the first `n` filings of the scale corpus, written as small PDFs (cover page and a short
    MD&A, `routing_corpus.write_pdf`) in the paper layout: wall time, files per second, the index's size."""
    import subprocess
    import sys

    from finrag.eval.routing_corpus import write_pdf

    pdfs, idx = work / "pdfs", work / "index"
    wanted = [(c, y, t) for c in all_scale_companies() for y in c.years for t in c.files][:n]
    t = time.perf_counter()
    for c, y, tick in wanted:
        path = pdfs / str(y) / f"{tick}.pdf"
        if not path.exists():
            write_pdf(path, c.bench, y)
    write_s = time.perf_counter() - t
    report = work / "index_report.json"
    cmd = [str(Path(sys.executable).with_name("finrag")), "index", str(pdfs), "--index", str(idx), "-q",
           "--workers", str(workers), "--json-report", str(report)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t
    size = sum(f.stat().st_size for f in idx.rglob("*") if f.is_file())
    out = {"files": len(wanted), "workers": workers, "write_pdfs_s": round(write_s, 1), "index_wall_s": round(wall, 1),
           "files_per_s": round(len(wanted) / wall, 1), "index_mb": round(size / 2**20, 1),
           "report": {k: (len(v) if isinstance(v, list) else v)  # counts, not the file lists
                      for k, v in (json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}).items()}}
    print(f"finrag index of {len(wanted)} small filings ({workers} workers): {wall:.1f} s, "
          f"{out['files_per_s']} files/s, index {out['index_mb']} MB")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="routing at EDGAR scale: 500, 2,000 and all SEC registrants")
    ap.add_argument("--sizes", nargs="+", default=["500", "2000", "all"])
    ap.add_argument("--questions", default=str(DATA / "routing_scale_dev.jsonl"))
    ap.add_argument("--no-dev", action="store_true", help="skip the routing_bench development set")
    ap.add_argument("--no-memory", action="store_true", help="skip the second, traced registry build")
    ap.add_argument("--cache", type=Path, default=None, help="keep the generated DocumentInfo here between runs")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="link + resolve each query this many times; its latency is "
                                                          "the fastest (best of N on a busy machine)")
    ap.add_argument("--out", help="write the summary and the misses at the largest size as JSON here")
    ap.add_argument("--index-files", type=int, default=0, help="instead: time `finrag index` of this many small "
                                                               "filings of the corpus (PDFs written under --index-work)")
    ap.add_argument("--index-work", type=Path, default=Path("/tmp/finrag-routing-scale-index"))
    ap.add_argument("--workers", type=int, default=2, help="with --index-files: finrag index's parser processes")
    args = ap.parse_args(argv)
    if args.index_files:
        result = index_files(args.index_files, args.index_work, args.workers)
        if args.out:
            Path(args.out).write_text(json.dumps({"index": result}, indent=1) + "\n", encoding="utf-8")
        return 0
    questions = load_scale_questions(Path(args.questions))
    dev = [] if args.no_dev else [
        {**q, "category": f"dev/{q['category']}"} for q in
        (json.loads(line) for line in (DATA / "routing_dev.jsonl").read_text(encoding="utf-8").splitlines() if line)
        if q["category"] != "not_indexed"]
    t = time.perf_counter()
    docs = all_documents(args.cache)
    by_id = {d.doc_id: d for d in docs}
    print(f"{len(docs)} filings generated or read in {time.perf_counter() - t:.1f} s")
    Registry(docs[:5])  # imports and the word-frequency table out of the timings
    required = sorted({g for q in questions for g in q["gold_tickers"]} | {g for q in dev for g in q["gold_tickers"]})
    results, misses = [], []
    for size in args.sizes:
        companies = scale_companies(None if size == "all" else int(size), required=required)
        ticker_doc = {t: c.doc_ids()[0] for c in companies for t in (c.ticker, *c.files)}
        for c in companies:  # a class's or the SEC list's newer ticker of a corpus company (MRSH for MMC)
            for t in c.bench.other_tickers:
                ticker_doc.setdefault(t, c.doc_ids()[0])
        sub = [by_id[i] for c in companies for i in c.doc_ids()]
        t = time.perf_counter()
        registry = Registry(sub)
        build_s = time.perf_counter() - t

        def gold_key(tick: str, registry: Registry = registry, ticker_doc: dict = ticker_doc) -> str:
            # the SEC writes share classes with a hyphen (BRK-B), the corpus's files with a dot (BRK.B)
            return registry.company_of(ticker_doc.get(tick) or ticker_doc.get(tick.replace("-", "."), ""))

        rows = route_all(questions, registry, gold_key, args.repeat)
        parts = {"scale_tuned_on": [r for r in rows if "/" not in r["category"]],
                 "scale_holdout": [r for r in rows if r["category"].startswith("holdout/")],
                 "scale_fresh": [r for r in rows if r["category"].startswith("fresh/")]}
        entry = {"registrants": len(companies), "filings": len(sub), "registry_companies": len(registry.companies()),
                 "build_s": round(build_s, 2), "scale": summarise(rows),
                 **{k: summarise(v) for k, v in parts.items() if v}}
        if dev:
            entry["dev"] = summarise(route_all(dev, registry, gold_key, args.repeat))
        if not args.no_memory:
            entry["registry_mb"], entry["registry_build_peak_mb"] = registry_memory(sub)
        results.append(entry)
        s = entry["scale"]
        print(f"\n{len(companies)} registrants, {len(sub)} filings (registry built in {build_s:.1f} s"
              + (f", {entry['registry_mb']} MB kept" if "registry_mb" in entry else "") + ")")
        print(f"  scale queries ({s['questions']}): exact {s['exact']:.3f}  right among routed "
              f"{s['right_among_routed']:.3f}  extra-company {s['extra_company_rate']:.3f}  "
              f"p50 {s['ms_p50']:.2f} ms  p95 {s['ms_p95']:.2f} ms")
        for part in ("scale_tuned_on", "scale_holdout", "scale_fresh"):
            v = entry.get(part)
            if v:
                print(f"    {part[6:]:<9} ({v['questions']}): exact {v['exact']:.3f}  right among routed "
                      f"{v['right_among_routed']:.3f}  extra-company {v['extra_company_rate']:.3f}")
        if dev:
            d = entry["dev"]
            print(f"  routing_bench dev set ({d['questions']}): exact {d['exact']:.3f}  extra-company "
                  f"{d['extra_company_rate']:.3f}  p50 {d['ms_p50']:.2f} ms")
        for c, v in s["by_category"].items():
            print(f"    {c:<14}{v['n']:>4}  exact {v['exact']:.3f}  extra {v['extra']:.3f}")
        misses = [r for r in rows if not r["exact"]]
    if args.show_misses:
        print("\nmisses at the largest size:")
        for r in misses:
            print(f"  [{r['category']}] {r['question']!r}: gold {r['gold']} got {r['routed']} ({r['status']}: "
                  f"{r['reason'][:140]})")
    if args.out:
        Path(args.out).write_text(json.dumps({"sizes": results, "misses_at_largest": misses}, indent=1) + "\n",
                                  encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
