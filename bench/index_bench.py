"""Benchmark: index a folder of filings with the offline embedder, time each stage, then re-run it.

    python -m bench.index_bench --pdfs ../shared/data/financebench/pdfs --index runs/idx/full --out runs/idx/full.json
    python -m bench.index_bench --subset 20 --index runs/idx/sub20 --skip-parse-pass --variants ""

Reports: the parse pass alone (pages/s, on the pool), the full index run (wall, this process's and the pool's
CPU, the load average before and after: the machine may be shared), each stage's wall and CPU time
(`IndexReport.stages`: parse, chunk, postings and embed in the pool's workers, wait / write_text / sections_facts /
write_vectors in the writer, then the serial tail: lexical_flush, registry, embed_pass, vector_files) and the
critical path, peak RSS, index size, and the re-run time (no work).

Run with another checkout's Python (`/work/before/.venv/bin/python -m bench.index_bench ...`), whose indexer
records no stages, the same stages are timed from outside (`_old_stages`: its text pass, embed pass, BM25
flush, registry and vector files), so old and new are reported the same way.
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

WRITER = ("write_text", "sections_facts", "write_vectors")
POOL = ("parse", "chunk", "postings", "embed")
TAIL = ("lexical_flush", "registry", "embed_pass", "vector_files")


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def cpu_seconds() -> tuple[float, float]:
    """(this process's CPU, its waited-for children's: the parse pool once it shut down)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def critical_path(stages: dict, workers: int, cores: int, wall: float) -> dict:
    """Where the run's wall time went: the serial head and tail, and in the pipelined pass whether the writer
    waited for the pool (the pool is the critical path) or the pool waited for the writer."""
    w = {k: v["wall_s"] for k, v in stages.items()}
    c = {k: v["cpu_s"] for k, v in stages.items()}
    pipelined = "wait" in stages  # the code before issue 37 embeds and writes vectors in its tail (embed_pass)
    writer_busy = sum(w.get(k, 0.0) for k in (WRITER if pipelined else WRITER[:1]))
    pool_busy = sum(w.get(k, 0.0) for k in (POOL if pipelined else POOL[:2])) / max(workers, 1)
    tail = sum(w.get(k, 0.0) for k in TAIL)
    head = w.get("migrate", 0.0) + w.get("plan", 0.0)
    counted = (*POOL, *WRITER, *TAIL, "migrate", "plan", "wait") if pipelined else ("write_text", *TAIL)
    cpu_total = sum(c.get(k, 0.0) for k in counted)  # old: the pool's parse CPU is cpu_pool_s, not a stage
    out = {"head_s": round(head, 2), "pipeline_s": round(w.get("pipeline", 0.0), 2), "tail_s": round(tail, 2),
           "writer_busy_s": round(writer_busy, 2), "writer_wait_s": round(w.get("wait", 0.0), 2),
           "pool_busy_per_worker_s": round(pool_busy, 2), "stage_cpu_total_s": round(cpu_total, 2),
           "cpu_bound_s": round(cpu_total / max(cores, 1), 2), "wall_s": round(wall, 2)}
    if w.get("pipeline") and pipelined:
        out["pipeline_bound_by"] = "parse pool" if w.get("wait", 0.0) > 0.1 * w["pipeline"] else "writer"
    out["tail_bound_by"] = max(TAIL, key=lambda k: w.get(k, 0.0))
    return out


def _old_stages(indexer, store) -> dict:
    """Stage times of an indexer that records none (the code before issue 37), timed around its functions."""
    from collections import defaultdict

    acc: dict = defaultdict(lambda: [0.0, 0.0, 0])

    def timed(name, fn):
        def run(*a, **k):
            w, c = time.perf_counter(), time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                rec = acc[name]
                rec[0] += time.perf_counter() - w
                rec[1] += time.thread_time() - c
                rec[2] += 1
        return run

    indexer._store_text = timed("write_text", indexer._store_text)
    indexer._parse_and_store = timed("pipeline", indexer._parse_and_store)
    indexer.embed_pending = timed("embed_pass", indexer.embed_pending)
    indexer._update_vector_files = timed("vector_files", indexer._update_vector_files)
    indexer.refresh_registry = timed("registry", indexer.refresh_registry)
    store.flush_lexical = timed("lexical_flush", store.flush_lexical)
    store.embedder.embed_documents = timed("embed", store.embedder.embed_documents)
    store.add_segments = timed("write_vectors", store.add_segments)
    return acc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfs", default=str(Path(__file__).resolve().parents[2] / "shared/data/financebench/pdfs"))
    ap.add_argument("--index", default="runs/index_bench")
    ap.add_argument("--out", default=None, help="write the result JSON here")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--subset", type=int, default=0, help="index every k-th file, this many (0: all)")
    ap.add_argument("--skip-parse-pass", action="store_true")
    ap.add_argument("--no-rerun", action="store_true")
    ap.add_argument("--variants", default="meta,llmctx")
    ap.add_argument("--embedder", default="static")
    args = ap.parse_args()

    from finrag.tools.indexing import indexer
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.store import Store

    cores = os.cpu_count() or 1
    result: dict = {"pdfs": args.pdfs, "cores": cores, "code": indexer.__file__}
    files = [str(p) for p in indexer.discover([args.pdfs], indexer.IndexReport())]
    if args.subset and args.subset < len(files):
        k = max(1, len(files) // args.subset)
        files = files[::k][:args.subset]
    result["files"] = len(files)
    workers = args.workers or max(1, min(cores, 4))
    if not args.skip_parse_pass:
        from finrag.tools.indexing.pipeline import prepared_stream

        t0, load0 = time.perf_counter(), load()
        pages = 0
        for doc in prepared_stream(files, workers, chunk_size=2500, chunk_overlap=1250):
            if not isinstance(doc, tuple):
                pages += len(doc.doc.pages)
        dt = time.perf_counter() - t0
        result["parse_pass"] = {"pages": pages, "seconds": round(dt, 2), "pages_per_s": round(pages / dt, 1),
                                "workers": workers, "load_before": load0, "load_after": load()}
        print(f"parse pass: {pages} pages in {dt:.1f}s = {pages / dt:.0f} pages/s ({workers} workers, "
              f"load {load0} -> {load()})", flush=True)

    store = Store(args.index, create=True)
    store.check_embedder(get_embedder(args.embedder))
    old = None if "stages" in indexer.IndexReport.__dataclass_fields__ else _old_stages(indexer, store)
    own0, kids0 = cpu_seconds()
    t0, load0 = time.perf_counter(), load()
    rep = indexer.index_paths(files, store, workers=workers, progress=False)
    first = time.perf_counter() - t0
    own1, kids1 = cpu_seconds()
    stages = rep.stages if old is None else {
        k: {"wall_s": round(v[0], 3), "cpu_s": round(v[1], 3), "calls": v[2]} for k, v in old.items()}
    result["index_run"] = {"indexed": len(rep.indexed), "unchanged": len(rep.unchanged), "failed": rep.failed,
                           "pages": rep.pages, "chunks": rep.chunks, "segments_embedded": rep.segments,
                           "wall_seconds": round(first, 1), "answerable_seconds": round(rep.answerable_seconds, 1),
                           "cpu_main_s": round(own1 - own0, 1), "cpu_pool_s": round(kids1 - kids0, 1),
                           "load_before": load0, "load_after": load(), "stages": stages,
                           "critical_path": critical_path(stages, workers, cores, first)}
    print(json.dumps(result["index_run"], indent=1), flush=True)
    for variant in [v for v in args.variants.split(",") if v]:
        t1 = time.perf_counter()
        done = indexer.build_variant(store, variant, progress=False)
        result.setdefault("variants", {})[variant] = {"added": done["added"],
                                                      "seconds": round(time.perf_counter() - t1, 1)}
    if not args.no_rerun:
        t0 = time.perf_counter()
        rep2 = indexer.index_paths(files, store, workers=workers, progress=False)
        result["rerun"] = {"indexed": len(rep2.indexed), "unchanged": len(rep2.unchanged),
                           "segments_embedded": rep2.segments, "wall_seconds": round(time.perf_counter() - t0, 2)}
    stats = store.stats()
    store.close()
    result["index"] = {k: stats[k] for k in ("documents", "pages", "chunks", "embedder", "size_bytes")}
    result["index"]["size_mb"] = round(stats["size_bytes"] / 1e6, 1)
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "index_run"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
