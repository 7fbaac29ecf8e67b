"""Every answer of the analyst blind sets 1-5 (bench/data/analyst_blind*.jsonl, 367 questions), HDRR offline, to
compare two versions of finrag answer by answer (issue 47: the existing answer sets identical except where a
definition changes the answer).

    python -m bench.analyst_answers --index <EDGAR index> --out runs/new.json
    python -m bench.analyst_answers --compare runs/old.json runs/new.json     # the changed answers, each printed

(The old side is the same command run on the older commit's checkout.)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.analyst_fresh import load_set

SETS = ("analyst_blind", "analyst_blind2", "analyst_blind3", "analyst_blind4", "analyst_blind5")


def answers(index: str) -> dict[str, dict]:
    """{set:row number: {question, answer}} of every question of `SETS`."""
    from finrag.api import run_query

    out: dict[str, dict] = {}
    for name in SETS:
        for i, row in enumerate(load_set(name)):
            out[f"{name}:{i}"] = {"q": row[2], "a": run_query(row[2], system="hdrr", index_dir=index)["answer"]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--index", help="an index of ../shared/data/edgar")
    ap.add_argument("--out", help="write {id: {q, a}} here")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="two --out files: the answers that changed")
    args = ap.parse_args(argv)
    if args.compare:
        old, new = (json.loads(Path(p).read_text(encoding="utf-8")) for p in args.compare)
        changed = [k for k in old if old[k]["a"] != new.get(k, {}).get("a")]
        print(f"{len(old)} answers, {len(changed)} changed")
        for k in changed:
            print(f"\n{k}: {old[k]['q']}\n  old: {old[k]['a']}\n  new: {new.get(k, {}).get('a')}")
        return 0
    if not args.index or not args.out:
        ap.error("--index and --out are needed (or --compare OLD NEW)")
    got = answers(args.index)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(got, indent=1), encoding="utf-8")
    print(f"{len(got)} answers -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
