"""Baselines for the retrieval table: plain BM25 (SQLite FTS5) top-k over the shared store and scoped to the
gold filing, with the raw question as the query. Prints evidence-page recall at k.

    python -m bench.bm25_baselines --index .finrag-fb [--k 10]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from finrag.tools.indexing.store import Store

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "financebench"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", default=".finrag-fb")
    ap.add_argument("--questions", default=str(DATA / "questions_dev.jsonl"))
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    store = Store(args.index)
    qs = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    out = {}
    for name, scoped in (("bm25_shared", False), ("bm25_scoped_to_gold", True)):
        hits = wrong = total = 0
        for q in qs:
            gold = {(e["doc_name"], e["evidence_page_num"]) for e in q["evidence"]}
            res = store.search_fts(q["question"], args.k, doc_ids=[q["doc_name"]] if scoped else None)
            pages = {(c.doc_id, p) for c in res for p in range(c.page_start, c.page_end + 1)}
            hits += bool(gold & pages)
            wrong += sum(c.doc_id != q["doc_name"] for c in res)
            total += len(res)
        out[name] = {"evidence_recall": round(hits / len(qs), 3), "wrong_doc_share": round(wrong / max(total, 1), 3),
                     "k": args.k, "questions": len(qs)}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
