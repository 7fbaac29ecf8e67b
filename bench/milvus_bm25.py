"""Where the two backends' corpus-wide retrieval differs: BM25 (the embedded backend's finrag postings vs
Milvus: finrag's BM25 as sparse vectors with bm25=finrag, Milvus' BM25 function with bm25=function) and
exact vector search, per question, on the same index copied into Milvus.

    python -m bench.milvus_bm25 --index .finrag-fb --milvus milvus:/tmp/finrag-fb.db \\
        --dataset ../shared/data/financebench/questions_dev.jsonl [--k 20]

For each question (its text as the query, no routing): overlap of the top-k chunk ids, and whether a gold
evidence page (FinanceBench `evidence_page_num`, zero-based as PyMuPDF counts) of the gold filing is in the
top k, for BM25 and for vector search on each backend; `bm25_same_order`: questions whose BM25 top k is
the same chunks in the same order with scores within 1e-4 relative.
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def hit(chunks, doc: str, pages: set[int]) -> bool:
    return any(c.doc_id == doc and any(c.page_start <= p <= c.page_end for p in pages) for c in chunks)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--index", required=True)
    p.add_argument("--milvus", required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--k", type=int, default=20)
    args = p.parse_args(argv)
    from finrag.tools.indexing.backend import open_store
    from finrag.tools.indexing.embedders import get_embedder

    emb, mil = open_store(args.index), open_store(args.milvus)
    enc = get_embedder()
    rows = [json.loads(line) for line in open(args.dataset) if line.strip()]
    n = len(rows)
    acc = {"bm25_overlap": 0.0, "bm25_same_order": 0, "vec_overlap": 0.0, "bm25_hit_embedded": 0, "bm25_hit_milvus": 0,
           "vec_hit_embedded": 0, "vec_hit_milvus": 0}
    for r in rows:
        doc = r["doc_name"]
        pages = {int(e["evidence_page_num"]) for e in r.get("evidence") or [] if e.get("doc_name", doc) == doc}
        q = r["question"]
        a, b = emb.search_fts(q, args.k), mil.search_fts(q, args.k)
        acc["bm25_overlap"] += len({c.chunk_id for c in a} & {c.chunk_id for c in b}) / args.k
        acc["bm25_same_order"] += [c.chunk_id for c in a] == [c.chunk_id for c in b] and all(
            abs(x.score - y.score) <= 1e-4 * abs(x.score) for x, y in zip(a, b))
        acc["bm25_hit_embedded"] += hit(a, doc, pages)
        acc["bm25_hit_milvus"] += hit(b, doc, pages)
        qv = enc.embed_query(q)
        a, b = emb.search_vectors(qv, args.k), mil.search_vectors(qv, args.k)
        acc["vec_overlap"] += len({c.chunk_id for c in a} & {c.chunk_id for c in b}) / args.k
        acc["vec_hit_embedded"] += hit(a, doc, pages)
        acc["vec_hit_milvus"] += hit(b, doc, pages)
    out = {k: round(100.0 * v / n, 1) for k, v in acc.items()}
    out["questions"] = n
    out["milvus_bm25"] = getattr(mil, "bm25", None)
    out["k"] = args.k
    print(json.dumps(out, indent=2))
    emb.close()
    mil.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
