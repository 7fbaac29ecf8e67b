"""Time to answerable and the embed pass's speed against the raw encoder, in one run.

    python bench/embed_pass.py --pdfs ../shared/data/financebench/pdfs --index /tmp/fb-fresh [--limit N] [--out f.json]

1. `finrag index --no-embed` into a fresh directory: every filing's text, BM25 postings and registry entry
   (what HDRR needs to route and search a filing); its wall time is the time until the corpus is
   answerable, and one HDRR question is then answered to prove it (its routed filing is embedded on demand).
2. The raw encoder: `embed_documents` on a sample of the segments the pass will embed (`--sample`), timed
   alone, in this process, right before the pass.
3. The embed pass (`finrag index --embed`'s function): every document's segments, stored document by
   document; its segments/s over wall time, against the raw encoder's.
Prints one JSON object. Run it on a quiet machine: every number here is CPU-bound.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfs", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True, help="a new directory (deleted first if it exists)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    ap.add_argument("--sample", type=int, default=640, help="segments for the raw encoder measurement")
    ap.add_argument("--embed-docs", type=int, default=0, help="embed only the first N documents (0: all)")
    ap.add_argument("--question", default="What is the FY2018 capital expenditure amount (in USD millions) for 3M?")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    shutil.rmtree(args.index, ignore_errors=True)
    files = sorted(str(p) for p in args.pdfs.iterdir() if p.suffix.lower() == ".pdf")
    if args.limit:
        files = files[: args.limit]
    out: dict = {"files": len(files), "cpus": os.cpu_count(), "load_avg_start": os.getloadavg()[0]}

    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "finrag.cli", "index", *files, "--index", str(args.index), "--no-embed",
                        "-q"], capture_output=True, text=True)
    out["text_pass_s"] = round(time.perf_counter() - t0, 1)
    out["text_pass_stdout"] = r.stdout.strip()[-400:]
    if r.returncode not in (0, 1):
        print(r.stderr[-2000:], file=sys.stderr)
        return 1
    t1 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "finrag.cli", "ask", "--index", str(args.index), "--json", args.question],
                       capture_output=True, text=True)
    answer = json.loads(r.stdout) if r.returncode == 0 else {}
    out["first_question_s"] = round(time.perf_counter() - t1, 1)
    out["first_question_retrieval"] = answer.get("retrieval")
    out["first_question_routed"] = answer.get("routing", {}).get("routed_docs")
    out["answerable_after_s"] = out["text_pass_s"]

    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import embed_pending
    from finrag.tools.indexing.store import Store

    store = Store(args.index)
    store.check_embedder(get_embedder())
    pending, total = store.vector_coverage()
    if args.embed_docs:
        pending = pending[: args.embed_docs]
    sample: list[str] = []
    for doc in pending:
        sample += store.segment_texts(doc)
        if len(sample) >= args.sample:
            break
    sample = sample[: args.sample]
    store.embedder.embed_documents(sample[:32])  # load the model outside the timings
    t = time.perf_counter()
    store.embedder.embed_documents(sample)
    raw = len(sample) / (time.perf_counter() - t)
    rep = embed_pending(store, progress=False, doc_ids=pending)
    store.build_faiss("base")
    store.close()
    out.update({
        "documents_embedded": len(rep.embedded), "segments": rep.segments,
        "raw_encoder_segments_per_s": round(raw, 2),
        "embed_pass_segments_per_s": round(rep.segments / rep.embed_pass_seconds, 2),
        "encoder_time_in_pass_segments_per_s": round(rep.segments / rep.embed_seconds, 2),
        "pass_vs_raw": round(rep.segments / rep.embed_pass_seconds / raw, 3),
        "embed_pass_s": round(rep.embed_pass_seconds, 1), "load_avg_end": os.getloadavg()[0],
    })
    print(json.dumps(out, indent=2))
    if args.out:
        args.out.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
