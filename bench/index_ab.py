"""Two indexes of the same filings asked the same questions, interleaved, warm: latency per system and whether any
answer differs (a storage change, e.g. issue 51's SQLite page size, must change neither).

    python -m bench.index_ab .finrag-fb runs/size/fb8k --questions 20 --systems hdrr cbr

The first index of each pair alternates between passes, so neither is always asked second (its pages warmer).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "financebench" / "questions_dev.jsonl"


def main(argv: list[str] | None = None) -> int:
    from finrag import run_query

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a"), ap.add_argument("b")
    ap.add_argument("--questions", type=int, default=20, help="the first N FinanceBench dev questions")
    ap.add_argument("--dataset", default=str(DEV))
    ap.add_argument("--systems", nargs="+", default=["hdrr", "cbr"])
    ap.add_argument("--passes", type=int, default=2)
    args = ap.parse_args(argv)
    qs = [json.loads(line)["question"] for line in open(args.dataset, encoding="utf-8")][:args.questions]
    indexes = [("a", args.a), ("b", args.b)]
    for _, d in indexes:  # warm: open the index, load the registry, answer once
        for s in args.systems:
            run_query(qs[0], system=s, index_dir=d)
    times: dict[tuple[str, str], list[float]] = {(n, s): [] for n, _ in indexes for s in args.systems}
    answers: dict[tuple[str, str], set[str]] = {}
    for p in range(args.passes):
        for q in qs:
            for s in args.systems:
                for n, d in (indexes if p % 2 == 0 else indexes[::-1]):
                    t0 = time.perf_counter()
                    res = run_query(q, system=s, index_dir=d)
                    times[(n, s)].append(time.perf_counter() - t0)
                    answers.setdefault((q, s), set()).add(res["answer"])
    out = {f"{n}:{s}": {"median_ms": round(1000 * statistics.median(v)), "mean_ms": round(1000 * statistics.mean(v)),
                        "runs": len(v)} for (n, s), v in times.items()}
    out["answers_differing"] = sum(len(a) > 1 for a in answers.values())
    out["answers_compared"] = len(answers)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
