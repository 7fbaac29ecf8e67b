"""Corpus-wide BM25 alone as the corpus grows: the pruned search against the exhaustive scorer.

    python -m bench.bm25_scale --source .finrag-fb --work runs/bm25-scale --sizes 1 10 100 \
        --out docs/results/bench_bm25_scale.json

For each size m it builds (once; `--rebuild` to redo) a copy of `--source` with m copies of every filing as
`bench/scale.py` does (`scale.build`), but without vectors (so it runs on a source that is still embedding),
and the BM25 runs a finished `finrag index` leaves (`scale.write_runs`). Then, in a fresh process per size,
it issues the 86 FinanceBench dev questions as CBR's `fts_search` does (the offline rewrite's keywords,
`fts_phrases`, corpus-wide, k = `fts_k`) on the Store's reader connection and reports per size:

* p50/p95 latency of the pruned search (`lexical_search.search`, what CBR runs) and of the exhaustive scorer
  (every posting of every query term scored, `exhaustive=True`), one query at a time, after one untimed pass
  (the index's pages in the OS cache, as on a server; finrag's posting cache is not used);
* how many queries got the identical top k from both (chunk ids in order, scores within 1e-9 relative):
  any other count is a bug;
* the machine's load average before and after (timings on a shared machine compare at similar load only).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bench import scale  # bench/scale.py: the same copies, without vectors


def queries(path: Path, n: int) -> list[list[str]]:
    """The BM25 phrases CBR's fts_search issues for each question (offline rewrite; keywords, else the query)."""
    from finrag.tools.indexing.store_schema import fts_phrases
    from finrag.tools.retrieval.query_rewrite import offline_rewrite

    out = []
    for q in scale.load_questions(path, n):
        r = offline_rewrite(q)
        out.append(fts_phrases(" ".join(r.keywords) or r.query or q))
    return out


def _same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> bool:
    return [i for i, _ in a] == [i for i, _ in b] and all(
        abs(x - y) <= 1e-9 * max(1.0, abs(y)) for (_, x), (_, y) in zip(a, b))


def measure(index: Path, qs: list[list[str]], k: int) -> dict:
    from finrag.tools.indexing import lexical_search
    from finrag.tools.indexing.store import Store

    store = Store(index)
    conn = store._reader()
    out: dict = {"index": str(index), "load_avg_start": os.getloadavg()[0], "k": k, "queries": len(qs)}
    for q in qs:  # untimed: pages in the OS cache, words in the term cache
        lexical_search.search(conn, q, k)
        lexical_search.search(conn, q, k, exhaustive=True)
    lat: dict[str, list[float]] = {"pruned": [], "exhaustive": []}
    same = 0
    for q in qs:
        t = time.perf_counter()
        got = lexical_search.search(conn, q, k)
        lat["pruned"].append((time.perf_counter() - t) * 1000.0)
        t = time.perf_counter()
        want = lexical_search.search(conn, q, k, exhaustive=True)
        lat["exhaustive"].append((time.perf_counter() - t) * 1000.0)
        same += _same(got, want)
    for name, v in lat.items():
        out[name] = {"p50_ms": round(statistics.median(v), 2), "p95_ms": round(float(np.percentile(v, 95)), 2)}
    n_rows = conn.execute("SELECT rows FROM lex_stats").fetchone()[0]
    out.update({"chunks": n_rows, "documents": conn.execute("SELECT COUNT(*) FROM lex_docs").fetchone()[0],
                "identical_top_k": same, "load_avg_end": os.getloadavg()[0]})
    store.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="a finrag index whose BM25 is written (it is only read)")
    ap.add_argument("--work", type=Path, default=Path("runs/bm25-scale"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--questions", type=Path, default=scale.DEFAULT_QUESTIONS)
    ap.add_argument("--n", type=int, default=86)
    ap.add_argument("--k", type=int, default=20, help="BM25 candidates per query (CBR's fts_k)")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--measure", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.questions.exists():
        ap.error(f"no questions file at {args.questions}")
    qs = queries(args.questions, args.n)
    if args.measure:
        print(json.dumps(measure(args.measure, qs, args.k)))
        return 0
    results = []
    for m in args.sizes:
        dst = args.work / f"x{m}"
        if args.rebuild or not (dst / "BUILT").exists():
            if not args.source or not (args.source / "finrag.sqlite").exists():
                ap.error(f"{dst} is not built and --source names no finrag index")
            shutil.rmtree(dst, ignore_errors=True)
            print(f"building x{m} (BM25 only) in {dst}", file=sys.stderr)
            scale.build(args.source, dst, m, fts5_up_to=1, text_up_to=1, vectors=False,
                        log=lambda s: print(s, file=sys.stderr))
        scale.write_runs(dst, log=lambda s: print(s, file=sys.stderr))
        res = scale.measure_in_subprocess(m, ["-m", "bench.bm25_scale", "--measure", str(dst), "--questions", str(args.questions),
                                              "--n", str(args.n), "--k", str(args.k)])
        if res is None:
            return 1
        results.append(res)
    print("| size | chunks | pruned p50 / p95 ms | exhaustive p50 / p95 ms | identical top k |")
    print("|---|---|---|---|---|")
    for r in results:
        print(f"| {r['size']}x | {r['chunks']:,} | {r['pruned']['p50_ms']} / {r['pruned']['p95_ms']} | "
              f"{r['exhaustive']['p50_ms']} / {r['exhaustive']['p95_ms']} | {r['identical_top_k']}/{r['queries']} |")
    if args.out:
        scale.save_results(args.out, args.sizes, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
