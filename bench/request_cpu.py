"""CPU time of one HDRR request, by question scope: what a server's throughput is bound by.

    python bench/request_cpu.py --index <index> [--questions eval/data/load_questions.jsonl] [--rounds 3] \
        [--configurable routed_context=paper]

Answers every question once untimed (the index's pages in the OS cache, the process warm), then `--rounds`
times with `time.process_time()` around `finrag.run_query` (all threads of the process: the parallel BM25
and vector branches count), and prints one JSON object: the mean CPU milliseconds per request, overall and
per question scope (`retrieval.context.scope`: `line_item` or `open`; `none` for questions without a plan).
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--questions", default=str(REPO / "eval/data/load_questions.jsonl"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--configurable", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    from finrag.api import run_query

    conf = dict(kv.split("=", 1) for kv in args.configurable)
    conf["index_dir"] = args.index
    questions = [json.loads(line)["question"] for line in Path(args.questions).read_text().splitlines() if line.strip()]
    for q in questions:
        run_query(q, system="hdrr", configurable=conf)
    cpu: dict[str, float] = collections.defaultdict(float)
    n: collections.Counter = collections.Counter()
    for _ in range(args.rounds):
        for q in questions:
            start = time.process_time()
            answer = run_query(q, system="hdrr", configurable=conf)
            scope = ((answer.get("retrieval") or {}).get("context") or {}).get("scope") or "none"
            cpu[scope] += time.process_time() - start
            n[scope] += 1
    out = {"index": args.index, "configurable": {k: v for k, v in conf.items() if k != "index_dir"},
           "requests": sum(n.values()), "cpu_ms_per_request": round(1000 * sum(cpu.values()) / sum(n.values()), 1),
           "by_scope": {s: {"requests": n[s], "cpu_ms": round(1000 * cpu[s] / n[s], 1)} for s in sorted(n)}}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
