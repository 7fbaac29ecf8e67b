"""Every answer of the analyst blind sets 1-5 (`bench/analyst_blind*.py`, 367 questions), HDRR offline, to compare two
versions of finrag answer by answer (issue 47: the existing answer sets identical except where a definition changes
the answer).

    python bench/analyst_answers.py --index <EDGAR index> --out runs/new.json
    PYTHONPATH=<worktree of the old commit>/typings python bench/analyst_answers.py --index <same> --out runs/old.json
    python bench/analyst_answers.py --compare runs/old.json runs/new.json     # the changed answers, each printed
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

SETS = ("analyst_blind", "analyst_blind2", "analyst_blind3", "analyst_blind4", "analyst_blind5")


def answers(index: str) -> dict[str, dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from finrag.api import run_query

    out: dict[str, dict] = {}
    for name in SETS:
        for i, row in enumerate(importlib.import_module(name).QUESTIONS):
            out[f"{name}:{i}"] = {"q": row[2], "a": run_query(row[2], system="hdrr", index_dir=index)["answer"]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index")
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    args = ap.parse_args(argv)
    if args.compare:
        old, new = (json.loads(Path(p).read_text()) for p in args.compare)
        changed = [k for k in old if old[k]["a"] != new.get(k, {}).get("a")]
        print(f"{len(old)} answers, {len(changed)} changed")
        for k in changed:
            print(f"\n{k} {old[k]['q']}\n  OLD: {old[k]['a'][:400]}\n  NEW: {new[k]['a'][:400]}")
        return 0
    if not (args.index and args.out):
        ap.error("--index and --out (or --compare OLD NEW)")
    Path(args.out).write_text(json.dumps(answers(args.index), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
