"""Embedding throughput of the offline embedder on real filing text, and the int8 alternative we rejected.

    python bench/embed_throughput.py [--pdf ../shared/data/financebench/pdfs/3M_2018_10K.pdf] [--n 300] [--int8]

Embeds the first N 1,250-character segments of a filing (what the indexer embeds) and prints segments/s;
with --int8 also a dynamically quantised copy and the mean cosine between the two sets of vectors.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdf", default=str(Path(__file__).resolve().parents[2] / "shared/data/financebench/pdfs/3M_2018_10K.pdf"))
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--int8", action="store_true")
    args = ap.parse_args()

    from finrag.tools.documents.parsing import parse_file
    from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE, join_pages, segments
    from finrag.tools.indexing.embedders import MiniLMEmbedder

    text, _ = join_pages(parse_file(args.pdf).pages)
    segs = segments(text, CHUNK_SIZE - CHUNK_OVERLAP)[: args.n]
    emb = MiniLMEmbedder()
    emb.embed_documents(segs[:8])  # load the model
    t0 = time.perf_counter()
    fp32 = emb.embed_documents(segs)
    dt = time.perf_counter() - t0
    out = {"segments": len(segs), "seconds": round(dt, 2), "segments_per_s": round(len(segs) / dt, 1)}
    if args.int8:
        import numpy as np
        import torch

        q = torch.quantization.quantize_dynamic(emb.model, {torch.nn.Linear}, dtype=torch.qint8)
        t0 = time.perf_counter()
        int8 = q.encode(segs, batch_size=32, normalize_embeddings=True)
        dt8 = time.perf_counter() - t0
        out["int8_segments_per_s"] = round(len(segs) / dt8, 1)
        out["int8_mean_cosine_to_fp32"] = round(float((np.asarray(int8) * fp32).sum(axis=1).mean()), 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
