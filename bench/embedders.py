"""Embedders side by side: distillation, encoder speed, full-index wall time, and evidence on FinanceBench dev.

    python -m bench.embedders --pdfs ../shared/data/financebench/pdfs \
        --dataset ../shared/data/financebench/questions_dev.jsonl --work runs/bench-embedders \
        [--embedders static] [--minilm-index DIR] [--phases distill,index,eval,scoped,encoders] \
        [--scoped-filings 58] [--sample 400] [--out docs/results/bench_embedders.json]

Self-contained (every phase starts from the PDFs; run it on a quiet machine, the load averages are recorded):
`--phases` picks the phases (default: index,eval,scoped,encoders):
1. `distill`: model2vec's distillation of the bundled MiniLM into a fresh, empty cache folder with
   HF_HUB_OFFLINE=1 (proves it needs no download; its wall time is the first-use cost).
2. `index`, for each of `--embedders`: `finrag index PDFS --variant meta --variant llmctx --embedder E` into a fresh
   folder under `--work`, in a subprocess: wall time, "answerable after", the segments/s it printed, peak RSS.
3. `scoped`: vectors alone inside the gold filing (the first `--scoped-filings`): evidence page in the top 10 by cosine, static
   against MiniLM on the same segments and questions (no routing, BM25 or reranking: independent of the rest
   of the pipeline), and each encoder's segments/s there.
3b. `encoders`: speed on the same `--sample` segments (spread over the filings of the first index): the static
   model, MiniLM fp32 (torch threads = the cores) and MiniLM dynamically quantised to int8 (with the mean
   cosine of its vectors to fp32's).
3c. `onnx`: MiniLM through ONNX Runtime for documents (the first 200 of those segments): fp32 and int8 weights,
   on one and on every core, against sentence-transformers fp32 (speed, mean cosine).
4. `eval`: `finrag eval run --systems cbr,cbr_meta,cbr_llm_ctx,agentic,hdrr` on each index (offline, concurrency 1):
   the share of questions with a gold evidence page in the context, per system. MiniLM's numbers: an eval on
   `--minilm-index` when given, else the committed MiniLM run (docs/results/financebench_dev_offline).
5. The mix (static vectors corpus-wide, MiniLM for the routed filing embedded on demand): CBR/V-A/V-B/Agentic
   are the static run's, HDRR is MiniLM's; its cost is the first question's on-demand MiniLM pass over the
   routed filing, derived from the mean segments per filing and MiniLM's measured segments/s.
Each phase's result is kept in `--work` (bench-<phase>.json); a later run without that phase reuses it, so
phases can run one at a time. Prints and writes one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = "cbr,cbr_meta,cbr_llm_ctx,agentic,hdrr"
REFERENCE = Path(__file__).resolve().parent.parent / "docs/results/financebench_dev_offline/summary.json"
FINRAG = [sys.executable, "-m", "finrag.cli"]


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def phase_distill() -> dict:
    cache = Path(tempfile.mkdtemp(prefix="finrag-distill-"))
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    code = ("from finrag.tools.indexing.static_embedder import ensure_model, StaticEmbedder; "
            "p = ensure_model(); print(StaticEmbedder(p).embed_query('revenue').shape)")
    la, t = load(), time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    out = {"offline": True, "exit_code": r.returncode, "wall_s": round(time.perf_counter() - t, 1),
           "load_before": la, "load_after": load(), "tail": (r.stdout + r.stderr)[-300:]}
    shutil.rmtree(cache, ignore_errors=True)
    return out


def phase_index(pdfs: str, index: Path, embedder: str) -> dict:
    shutil.rmtree(index, ignore_errors=True)
    cmd = [*FINRAG, "index", pdfs, "--index", str(index), "--variant", "meta", "--variant", "llmctx",
           "--embedder", embedder, "-q"]
    la, t = load(), time.perf_counter()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = r.stdout + r.stderr
    m = re.search(r"answerable after ([0-9.]+)s", text)
    base = re.search(r"; total ([0-9.]+)s", text)  # the base index (text + vectors), before the variants
    rate = re.findall(r"([0-9.]+) segments/s \(encoder alone ([0-9.]+)/s\)", text)
    return {"embedder": embedder, "command": " ".join(cmd[2:]), "exit_code": r.returncode, "wall_s": round(wall, 1),
            "answerable_after_s": float(m.group(1)) if m else None,
            "base_index_with_vectors_s": float(base.group(1)) if base else None,
            "embed_segments_per_s": float(rate[-1][0]) if rate else None,
            "encoder_segments_per_s": float(rate[-1][1]) if rate else None,
            "cpu_s": round(ru.ru_utime + ru.ru_stime - ru0.ru_utime - ru0.ru_stime, 1),
            "peak_rss_children_mb": round(ru.ru_maxrss / 1024),
            "load_before": la, "load_after": load(), "tail": text[-400:]}


def sample_segments(index: Path, n: int) -> tuple[list[str], float]:
    from finrag.tools.indexing.store import Store

    store = Store(index)
    docs = [d.doc_id for d in store.documents()]
    per = [store.segment_texts(d) for d in docs]
    mean_per_filing = sum(map(len, per)) / max(len(per), 1)
    step = max(1, len(docs) // max(1, n // 20))
    texts = [t for segs in per[::step] for t in segs[len(segs) // 3: len(segs) // 3 + 20]][:n]
    store.close()
    return texts, mean_per_filing


def _rate(fn, texts) -> tuple[float, object]:
    fn(texts[:8])  # warm up (model load)
    t = time.perf_counter()
    out = fn(texts)
    return round(len(texts) / (time.perf_counter() - t), 1), out


def phase_encoders(texts: list[str]) -> dict:
    import numpy as np
    import torch

    from finrag.tools.indexing.embedders import MiniLMEmbedder, embed_threads
    from finrag.tools.indexing.static_embedder import StaticEmbedder

    out: dict = {"segments": len(texts), "threads": embed_threads(), "load_before": load()}
    out["static_segments_per_s"], _ = _rate(StaticEmbedder().embed_documents, texts)
    minilm = MiniLMEmbedder(device="cpu")
    out["minilm_fp32_segments_per_s"], fp32 = _rate(minilm.embed_documents, texts)
    minilm._model = torch.quantization.quantize_dynamic(minilm.model, {torch.nn.Linear}, dtype=torch.qint8)
    out["minilm_int8_segments_per_s"], int8 = _rate(minilm.embed_documents, texts)
    out["minilm_int8_mean_cosine_to_fp32"] = round(float(np.mean(np.sum(fp32 * int8, axis=1))), 3)
    out["load_after"] = load()
    return out


def phase_onnx(texts: list[str]) -> dict:
    """MiniLM through ONNX Runtime for documents: finrag's own ONNX graph of the bundled weights (the query
    encoder's, `minilm_onnx.py`) in fp32 and dynamically quantised to int8 weights (onnxruntime.quantization),
    one text per call, on 1 and on every core (one session per worker thread: ONNX Runtime releases the GIL),
    against sentence-transformers fp32 on the same segments (speed and mean cosine of the vectors)."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from finrag.tools.indexing.embedders import MiniLMEmbedder
    from finrag.tools.indexing.minilm_numpy import NumpyMiniLM
    from finrag.tools.indexing.minilm_onnx import OnnxMiniLM, ensure_model_file

    out: dict = {"segments": len(texts), "load_before": load()}
    minilm = MiniLMEmbedder(device="cpu")
    weights = Path(minilm.model_path) / "model.safetensors"
    numpy_model = NumpyMiniLM(minilm.model_path)
    minilm.embed_documents(texts[:8])
    t = time.perf_counter()
    ref = minilm.embed_documents(texts)
    out["sentence_transformers_fp32_segments_per_s"] = round(len(texts) / (time.perf_counter() - t), 1)
    int8_file = Path(tempfile.mkdtemp(prefix="finrag-int8-")) / "minilm-int8.onnx"
    t = time.perf_counter()
    quantize_dynamic(str(ensure_model_file(numpy_model, weights)), str(int8_file), weight_type=QuantType.QInt8)
    out["quantize_s"] = round(time.perf_counter() - t, 1)
    cores = os.cpu_count() or 1
    for name in ("fp32", "int8"):
        for workers in sorted({1, cores}):
            encoders = [OnnxMiniLM(numpy_model, weights, threads=1) for _ in range(workers)]
            if name == "int8":
                opts = ort.SessionOptions()
                opts.intra_op_num_threads, opts.inter_op_num_threads, opts.log_severity_level = 1, 1, 3
                for e in encoders:
                    e.session = ort.InferenceSession(str(int8_file), opts, providers=["CPUExecutionProvider"])
            for e in encoders:
                e.embed(texts[0])
            t = time.perf_counter()
            with ThreadPoolExecutor(workers) as ex:
                vecs = np.stack(list(ex.map(lambda i, es=encoders: es[i % len(es)].embed(texts[i]), range(len(texts)))))
            out[f"onnx_{name}_{workers}_workers_segments_per_s"] = round(len(texts) / (time.perf_counter() - t), 1)
        out[f"onnx_{name}_mean_cosine_to_fp32"] = round(float(np.mean(np.sum(vecs * ref, axis=1))), 4)
    shutil.rmtree(int8_file.parent, ignore_errors=True)
    out["load_after"] = load()
    return out


def phase_scoped(index: Path, dataset: str, filings: int, k: int = 10) -> dict:
    """Vectors alone, inside the gold filing (what HDRR's vector branch sees): for the questions of the first
    `filings` gold filings (sorted), is a chunk on a gold evidence page among the top `k` by cosine? Both
    embedders read the same segments and build chunk vectors the store's way (mean of the chunk's segments)."""
    import numpy as np

    from finrag.eval.datasets import load_financebench
    from finrag.tools.indexing.embedders import MiniLMEmbedder, normalize
    from finrag.tools.indexing.static_embedder import StaticEmbedder
    from finrag.tools.indexing.store import Store

    rows = [r for r in load_financebench(dataset) if r["evidence"]]
    docs = sorted({r["doc_ids"][0] for r in rows})[:filings]
    store = Store(index)
    embedders = {"static": StaticEmbedder(), "minilm": MiniLMEmbedder(device="cpu")}
    hits = {name: 0 for name in embedders}
    seconds = {name: 0.0 for name in embedders}
    asked = segs = 0
    for doc in docs:
        texts = store.segment_texts(doc)
        spans = store._reader().execute("SELECT page_start, page_end, seg_first, seg_count FROM chunks "
                                        "WHERE doc_id = ? ORDER BY ord", (doc,)).fetchall()
        segs += len(texts)
        questions = [r for r in rows if r["doc_ids"][0] == doc]
        for name, emb in embedders.items():
            t = time.perf_counter()
            sv = emb.embed_documents(texts)
            seconds[name] += time.perf_counter() - t
            cv = normalize(np.stack([sv[a:a + n].mean(axis=0) for _, _, a, n in spans]))
            for r in questions:
                top = np.argsort(-(cv @ emb.embed_query(r["question"])))[:k]
                pages = {e["page"] for e in r["evidence"] if e["doc_id"] == doc}
                hits[name] += any(spans[i][0] <= p <= spans[i][1] for i in top for p in pages)
        asked += len(questions)
    store.close()
    return {"filings": len(docs), "questions": asked, "segments": segs, "k": k,
            "evidence_in_top_k_pct": {n: round(100 * h / max(asked, 1), 1) for n, h in hits.items()},
            "segments_per_s": {n: round(segs / max(t, 1e-9), 1) for n, t in seconds.items()}, "load_after": load()}


def evidence(summary: Path) -> dict:
    rows = json.loads(summary.read_text())["tables"]["retrieval"]
    return {r["system"]: round(100 * r["evidence_hit_rate"], 1) for r in rows if r["system"] in SYSTEMS.split(",")}


def phase_eval(index: Path, out: Path, embedder: str, dataset: str) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [*FINRAG, "eval", "run", "--systems", SYSTEMS, "--dataset", dataset, "--groups", "5", "--index",
           str(index), "--out", str(out), "--concurrency", "1", "--no-plots", "-q",
           "--configurable", f"embedder={embedder}"]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"exit_code": r.returncode, "tail": (r.stdout + r.stderr)[-400:]}
    return {"evidence_page_in_context_pct": evidence(out / "summary.json"), "wall_s": round(time.perf_counter() - t, 1),
            "command": " ".join(cmd[2:])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pdfs", required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--work", default="runs/bench-embedders")
    ap.add_argument("--embedders", default="static", help="comma-separated: indexed and evaluated in turn")
    ap.add_argument("--minilm-index", default=None, help="a full MiniLM index (meta+llmctx) to evaluate too")
    ap.add_argument("--sample", type=int, default=400, help="segments for the encoder-speed phase")
    ap.add_argument("--scoped-filings", type=int, default=58,
                    help="gold filings for the vectors-only phase (58: every dev filing; MiniLM embeds them)")
    ap.add_argument("--phases", default="index,eval,scoped,encoders",
                    help="comma-separated, of: distill,index,eval,scoped,encoders,onnx (index/eval reuse --work)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    res: dict = {"machine": {"cpus": os.cpu_count(), "load_at_start": load()}}
    phases = {p.strip() for p in args.phases.split(",")}

    def phase(name: str, run) -> dict:
        """Run a phase (its result kept in --work), or reuse the result an earlier run of this script kept."""
        kept = work / f"bench-{name.replace(':', '-')}.json"
        if name.split(":")[0] in phases:
            kept.write_text(json.dumps(run(), indent=2))
        return json.loads(kept.read_text()) if kept.exists() else {}

    res["distill"] = phase("distill", phase_distill)
    res["index"], res["eval"] = {}, {}
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    for emb in embedders:
        res["index"][emb] = phase(f"index:{emb}", lambda e=emb: phase_index(args.pdfs, work / f"fb-{e}", e))
        res["eval"][emb] = phase(f"eval:{emb}",
                                 lambda e=emb: phase_eval(work / f"fb-{e}", work / f"eval-{e}", e, args.dataset))
    first = work / f"fb-{embedders[0]}"
    res["scoped_vectors"] = phase("scoped", lambda: phase_scoped(first, args.dataset, args.scoped_filings))
    texts, per_filing = sample_segments(first, args.sample)
    res["encoders"] = phase("encoders", lambda: phase_encoders(texts))
    res["encoders"]["mean_segments_per_filing"] = round(per_filing, 1)
    res["onnx"] = phase("onnx", lambda: phase_onnx(texts[:200]))
    if args.minilm_index and "eval" in phases:
        res["eval"]["minilm"] = phase_eval(Path(args.minilm_index), work / "eval-minilm", "minilm", args.dataset)
    elif REFERENCE.exists():
        res["eval"]["minilm"] = {"evidence_page_in_context_pct": evidence(REFERENCE),
                                 "source": str(REFERENCE.relative_to(REFERENCE.parents[3]))}
    static = res["eval"].get("static", {}).get("evidence_page_in_context_pct")
    minilm = res["eval"].get("minilm", {}).get("evidence_page_in_context_pct")
    minilm_rate = (res["encoders"].get("minilm_fp32_segments_per_s")
                   or res.get("scoped_vectors", {}).get("segments_per_s", {}).get("minilm"))
    if static and minilm:
        mix = {s: static[s] for s in static if s != "hdrr"}
        mix["hdrr"] = minilm["hdrr"]
        res["mix"] = {"evidence_page_in_context_pct": mix,
                      "hdrr_first_question_per_filing_extra_s": round(
                          per_filing / minilm_rate, 1) if minilm_rate else None}
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
