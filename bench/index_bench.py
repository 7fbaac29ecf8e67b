"""Benchmark: index a folder of filings with the offline embedder, then re-run it.

    python bench/index_bench.py --pdfs ../shared/data/financebench/pdfs --index .finrag-fb --out docs/bench_index.json

Reports: the parse pass alone (pages/s, on all cores), the full index run (chunks/s
for embedding, wall time), peak RSS, index size, and the re-run time (no work).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfs", default=str(Path(__file__).resolve().parents[2] / "shared/data/financebench/pdfs"))
    ap.add_argument("--index", default=".finrag-fb")
    ap.add_argument("--out", default="docs/bench_index.json")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--skip-parse-pass", action="store_true")
    ap.add_argument("--variants", default="meta,llmctx")
    args = ap.parse_args()

    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import IndexReport, _parsed_stream, build_variant, discover, index_paths
    from finrag.tools.indexing.store import Store

    result: dict = {"pdfs": args.pdfs, "cores": os.cpu_count()}
    files = [str(p) for p in discover([args.pdfs], IndexReport())]
    result["files"] = len(files)
    workers = args.workers or max(1, min(os.cpu_count() or 1, 4))
    if not args.skip_parse_pass:
        t0 = time.perf_counter()
        pages = 0
        for doc in _parsed_stream(files, workers):
            if not isinstance(doc, tuple):
                pages += len(doc.pages)
        dt = time.perf_counter() - t0
        result["parse_pass"] = {"pages": pages, "seconds": round(dt, 2), "pages_per_s": round(pages / dt, 1),
                                "workers": workers}
        print(f"parse pass: {pages} pages in {dt:.1f}s = {pages / dt:.0f} pages/s ({workers} workers)", flush=True)

    store = Store(args.index, create=True)
    store.check_embedder(get_embedder())
    t0 = time.perf_counter()
    rep = index_paths([args.pdfs], store, workers=workers, progress=True)
    first = time.perf_counter() - t0
    result["index_run"] = {"indexed": len(rep.indexed), "unchanged": len(rep.unchanged), "failed": rep.failed,
                           "pages": rep.pages, "chunks": rep.chunks, "segments_embedded": rep.segments,
                           "embed_seconds": round(rep.embed_seconds, 1),
                           "segments_per_s": round(rep.segments / rep.embed_seconds, 1) if rep.embed_seconds else None,
                           "chunks_per_s": round(rep.chunks / rep.embed_seconds, 1) if rep.embed_seconds else None,
                           "wall_seconds": round(first, 1)}
    print(json.dumps(result["index_run"]), flush=True)
    for variant in [v for v in args.variants.split(",") if v]:
        t1 = time.perf_counter()
        done = build_variant(store, variant, progress=True)
        result.setdefault("variants", {})[variant] = {"added": done["added"],
                                                      "seconds": round(time.perf_counter() - t1, 1)}
    t0 = time.perf_counter()
    rep2 = index_paths([args.pdfs], store, workers=workers, progress=False)
    result["rerun"] = {"indexed": len(rep2.indexed), "unchanged": len(rep2.unchanged),
                       "segments_embedded": rep2.segments, "wall_seconds": round(time.perf_counter() - t0, 2)}
    stats = store.stats()
    store.close()
    result["index"] = {k: stats[k] for k in ("documents", "pages", "chunks", "embedder", "size_bytes")}
    result["index"]["size_mb"] = round(stats["size_bytes"] / 1e6, 1)
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
