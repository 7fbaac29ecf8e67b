"""Wrong-document context chunks of one system in a `finrag eval run` directory, split by whether the
question was routed (HDRR's fallback questions are the unrouted ones).

    python bench/wrong_docs_by_routing.py runs/fb-dev-offline --system hdrr
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--system", default="hdrr")
    args = ap.parse_args()
    run = Path(args.run_dir)
    gold = {}
    for line in (run / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        gold[str(q["id"])] = set(q.get("doc_ids") or [])
    out = {"routed": [0, 0, 0], "unrouted": [0, 0, 0]}  # questions, wrong chunks, chunks
    for path in sorted((run / "answers" / args.system).glob("*.json")):
        ans = json.loads(path.read_text())
        if str(ans["id"]) not in gold or not gold[str(ans["id"])]:
            continue
        bucket = out["routed" if ans.get("routing", {}).get("routed_docs") else "unrouted"]
        ctx = ans.get("contexts") or []
        bucket[0] += 1
        bucket[1] += sum(c["doc_id"] not in gold[str(ans["id"])] for c in ctx)
        bucket[2] += len(ctx)
    report = {k: {"questions": q, "wrong_chunks": w, "chunks": n, "wrong_share": round(w / n, 4) if n else None}
              for k, (q, w, n) in out.items()}
    print(json.dumps({"system": args.system, **report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
