"""Diff two `finrag batch` outputs: did routing and contexts (and, optionally, answers) stay the same?

Used to show that a refactoring changed no behaviour: run the same questions through the old and the
new code, then

    python -m bench.diff_batches before/hdrr.jsonl after/hdrr.jsonl [--answers]
    python -m bench.diff_batches runs/before runs/after            # every <system>.jsonl in both folders
    python -m bench.diff_batches before/hdrr.jsonl after/hdrr.jsonl --contract   # the whole contract but times

Compared per question id: routing status, routed documents, extracted metadata, and the ordered
contexts (chunk id, document, pages, score to 4 decimals); with --answers, the answer text too; with
--contract, every field of the answer contract as written (context texts and full scores, cost and token
counts, the retrieval record with its context plan, the reader's record), only times left out (any key
ending in `_ms`). Exit code 0 when identical, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def load(path: Path) -> dict[str, dict]:
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise SystemExit(f"{path}:{n}: not JSON ({exc})") from None
            out[str(obj.get("id"))] = obj
    return out


def without_times(obj):
    """`obj` without the keys that hold times (`timings_ms`, a call's `latency_ms`, ...)."""
    if isinstance(obj, dict):
        return {k: without_times(v) for k, v in obj.items() if not str(k).endswith("_ms")}
    if isinstance(obj, list):
        return [without_times(v) for v in obj]
    return obj


def view(ans: dict, answers: bool, contract: bool = False) -> dict:
    routing = ans.get("routing") or {}
    v = {
        "status": routing.get("status"),
        "routed_docs": routing.get("routed_docs"),
        "extracted": routing.get("extracted"),
        "contexts": [(c.get("chunk_id"), c.get("doc_id"), c.get("page_start"), c.get("page_end"),
                      round(float(c.get("score") or 0.0), 4)) for c in ans.get("contexts") or []],
        "error": ans.get("error"),
    }
    if answers or contract:
        v["answer"] = ans.get("answer")
    if contract:
        v.update({f"contract.{k}": val for k, val in without_times(ans).items()})
    return v


def diff_files(a: Path, b: Path, answers: bool, contract: bool = False) -> tuple[int, int, list[str]]:
    left, right = load(a), load(b)
    notes = []
    for qid in sorted(set(left) ^ set(right)):
        notes.append(f"{qid}: only in {'before' if qid in left else 'after'}")
    same = 0
    for qid in sorted(set(left) & set(right)):
        va, vb = view(left[qid], answers, contract), view(right[qid], answers, contract)
        if va == vb:
            same += 1
            continue
        fields = [k for k in va if va[k] != vb[k]]
        notes.append(f"{qid}: differs in {', '.join(fields)}")
    return same, len(set(left) | set(right)), notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="a batch output file, or a folder of <system>.jsonl files")
    ap.add_argument("after", type=Path)
    ap.add_argument("--answers", action="store_true", help="compare answer texts too")
    ap.add_argument("--contract", action="store_true",
                    help="compare every field of the answer contract except times (implies --answers)")
    args = ap.parse_args(argv)
    if args.before.is_dir():
        pairs = [(p, args.after / p.name) for p in sorted(args.before.glob("*.jsonl"))]
    else:
        pairs = [(args.before, args.after)]
    identical = True
    for a, b in pairs:
        if not b.exists():
            print(f"{a.name}: missing in {args.after}")
            identical = False
            continue
        same, total, notes = diff_files(a, b, args.answers, args.contract)
        print(f"{a.stem}: {same}/{total} questions identical")
        for note in notes:
            print(f"  {note}")
        identical &= same == total
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
