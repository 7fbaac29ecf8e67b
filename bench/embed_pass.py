"""Time to answerable, a question answered during the embed pass, and the pass's speed against the raw encoder.

    python -m bench.embed_pass --pdfs ../shared/data/financebench/pdfs --index /tmp/fb-fresh \
        [--watch 240] [--embed-docs 6] [--out f.json]

1. `finrag index <pdfs>` (text first, then the embed pass) into a fresh directory, in a subprocess. When it
   prints "answerable after N s", an HDRR `finrag ask --json` is issued at once, while the embed pass runs; its
   answer must route to a filing the pass has not reached and say so in `retrieval` (vectors embedded on demand,
   or none). The run's "embed pass:" lines (its rate so far, and the encoder's alone) are collected for `--watch`
   seconds after the answer; then the run is interrupted (Ctrl-C: every filing stored so far is kept).
2. In this process, on the same index: the raw encoder (`embed_documents` on `--sample` segments of filings not
   embedded yet, timed alone), the embed pass's own function (`embed_pending`) on the next `--embed-docs`
   filings, then the raw encoder again; `pass_vs_raw` is the pass's segments/s over the mean of the two raw
   measurements (the machine's load may drift during the pass; both are reported).
Prints one JSON object. Every number here is CPU-bound: run it on a quiet machine and keep the load averages.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

QUESTION = "What was Walmart's total revenue in FY2021?"  # a filing late in the embed pass's (sorted) order


def _raw_rate(embedder, texts: list[str]) -> float:
    t = time.perf_counter()
    embedder.embed_documents(texts)
    return len(texts) / (time.perf_counter() - t)


def phase_index(args, files: list[str], out: dict) -> None:
    cmd = [sys.executable, "-m", "finrag.cli", "index", *files, "--index", str(args.index), "--embedder", "minilm",
           "-q"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines: list[str] = []
    answerable = threading.Event()

    def reader() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line.rstrip())
            if line.startswith("answerable after"):
                out["answerable_seen_after_s"] = round(time.perf_counter() - t0, 1)
                answerable.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    while not answerable.wait(1.0):
        if proc.poll() is not None:
            th.join(5)
            raise SystemExit("finrag index ended before it was answerable:\n" + "\n".join(lines[-20:]))
    m = re.search(r"answerable after ([0-9.]+)s", next(x for x in lines if x.startswith("answerable after")))
    out["answerable_after_s"] = float(m.group(1)) if m else None
    out["load_avg_at_answerable"] = os.getloadavg()[0]
    t1 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "finrag.cli", "ask", "--index", str(args.index), "--json",
                        args.question], capture_output=True, text=True)
    ans = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else {}
    out["question"] = args.question
    out["question_exit_code"] = r.returncode
    out["question_wall_s"] = round(time.perf_counter() - t1, 1)
    out["question_answer"] = (ans.get("answer") or r.stderr.strip())[:300]
    out["question_routed"] = (ans.get("routing") or {}).get("routed_docs")
    out["question_retrieval"] = ans.get("retrieval")
    out["question_timings_ms"] = ans.get("timings_ms")
    deadline = time.perf_counter() + args.watch
    while time.perf_counter() < deadline and proc.poll() is None:
        time.sleep(1.0)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
    th.join(10)
    out["index_run_s"] = round(time.perf_counter() - t0, 1)
    out["index_exit_code"] = proc.returncode
    out["index_log"] = [x for x in lines if x.startswith(("answerable", "embed pass:", "indexed", "embedded"))]


def phase_throughput(args, out: dict) -> None:
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import embed_pending
    from finrag.tools.indexing.store import Store

    store = Store(args.index)
    store.check_embedder(get_embedder())
    pending, total = store.vector_coverage()
    out["filings_without_vectors_after_run"] = f"{len(pending)}/{total}"
    sample_docs = pending[args.embed_docs: args.embed_docs + 4]  # not the ones the pass embeds next
    sample: list[str] = []
    for doc in sample_docs:
        sample += store.segment_texts(doc)
    sample = sample[: args.sample]
    store.embedder.embed_documents(sample[:32])  # load the model outside the timings
    out["load_avg_before_raw"] = os.getloadavg()[0]
    raw_before = _raw_rate(store.embedder, sample)
    rep = embed_pending(store, progress=False, doc_ids=pending[: args.embed_docs])
    raw_after = _raw_rate(store.embedder, sample)
    rate = rep.segments / max(rep.embed_pass_seconds, 1e-9)
    raw = (raw_before + raw_after) / 2
    out.update({
        "raw_sample_segments": len(sample),
        "raw_encoder_before_segments_per_s": round(raw_before, 2),
        "raw_encoder_after_segments_per_s": round(raw_after, 2),
        "pass_documents": len(rep.embedded), "pass_segments": rep.segments,
        "pass_seconds": round(rep.embed_pass_seconds, 1),
        "embed_pass_segments_per_s": round(rate, 2),
        "encoder_inside_pass_segments_per_s": round(rep.segments / max(rep.embed_seconds, 1e-9), 2),
        "pass_vs_raw": round(rate / raw, 3),
        "load_avg_end": os.getloadavg()[0],
    })
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfs", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True, help="a new directory (deleted first if it exists)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    ap.add_argument("--watch", type=float, default=240.0, help="seconds of the run's embed pass to watch")
    ap.add_argument("--sample", type=int, default=640, help="segments for the raw encoder measurement")
    ap.add_argument("--embed-docs", type=int, default=6, help="filings the in-process pass embeds (phase 2)")
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--skip-throughput", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    shutil.rmtree(args.index, ignore_errors=True)
    files = sorted(str(p) for p in args.pdfs.iterdir() if p.suffix.lower() == ".pdf")
    if args.limit:
        files = files[: args.limit]
    out: dict = {"files": len(files), "cpus": os.cpu_count(), "load_avg_start": os.getloadavg()[0]}
    phase_index(args, files, out)
    if not args.skip_throughput:
        phase_throughput(args, out)
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
