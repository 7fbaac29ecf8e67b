"""CPU and wall time of one HDRR request, per node and per question kind: what a server's throughput and a
user's wait are bound by.

    python -m bench.request_cpu --index <index> [--questions eval/data/load_questions.jsonl | --dev] \
        [--rounds 3] [--configurable routed_context=paper] [--profile runs/request.prof] [--json-out FILE]

Answers every question once untimed (the index's pages in the OS cache, the process warm), then `--rounds`
times, around `finrag.run_query`: `time.process_time()` (all threads of the process: the parallel BM25 and
vector branches count) and the wall clock, with the answer's own per-node wall times (`timings_ms`).
`--dev` reads the FinanceBench dev questions (../shared/data/financebench/questions_dev.jsonl); a question file
is JSONL with `question` (and `id` or `financebench_id`).

Prints one JSON object:

* `cpu_ms_per_request`: mean CPU milliseconds per request;
* `retrieval_ms` / `end_to_end_ms`: p50, p95 and mean of the wall time of `run_query` without the `generate`
  node ("HDRR retrieval", as in `bench/scale.py`) and with it (end to end with the offline reader);
* `nodes`: per node, the mean and p50 of its wall milliseconds;
* `by_scope`: the same per question scope (`retrieval.context.scope`: `line_item` or `open`; `none` for questions
  without a plan), and `by_kind` per scope and the reader's kind (`open/none`, `line_item/item`, ...).

`--cold` leaves the warm pass out (the process is started with one question about no company): each question's
first answer in the process is timed, with what it reads and computes for the first time, as in `finrag batch`
(use `--rounds 1`). `--max-concurrency 1` runs the two searches one after the other (each node's wall time is then its own work, not
shared with the other branch under the interpreter lock). `--profile FILE` runs the timed rounds under cProfile (slower; the times printed are then the profiled ones)
and writes the pstats file; the 25 functions with the most own time are printed to stderr.
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEV_QUESTIONS = REPO.parent / "shared/data/financebench/questions_dev.jsonl"


def load_questions(path: Path) -> list[str]:
    """The `question` of every JSONL line of `path` (a FinanceBench file or a `finrag batch` input)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(str(json.loads(line)["question"]))
            except (ValueError, KeyError, TypeError) as exc:
                raise SystemExit(f"{path}:{n}: not a JSON object with a 'question' ({exc})") from None
    return out


def percentile(values: list[float], q: float) -> float:
    """The `q`-th percentile (linear between ranks) of a non-empty list."""
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(values: list[float]) -> dict:
    if not values:
        return {}
    return {"p50": round(statistics.median(values), 2), "p95": round(percentile(values, 95), 2),
            "mean": round(statistics.fmean(values), 2)}


class Tally:
    """CPU, retrieval, end-to-end and per-node milliseconds of a group of requests."""

    def __init__(self) -> None:
        self.cpu: list[float] = []
        self.retrieval: list[float] = []
        self.total: list[float] = []
        self.nodes: dict[str, list[float]] = collections.defaultdict(list)

    def add(self, cpu_ms: float, wall_ms: float, timings: dict) -> None:
        self.cpu.append(cpu_ms)
        self.total.append(wall_ms)
        self.retrieval.append(wall_ms - float(timings.get("generate", 0.0)))
        for k, v in timings.items():
            if k != "total":
                self.nodes[k].append(float(v))

    def report(self) -> dict:
        return {"requests": len(self.cpu), "cpu_ms": round(statistics.fmean(self.cpu), 2) if self.cpu else None,
                "retrieval_ms": summary(self.retrieval), "end_to_end_ms": summary(self.total),
                "nodes": {k: {"mean": round(statistics.fmean(v), 2), "p50": round(statistics.median(v), 2)}
                          for k, v in sorted(self.nodes.items())}}


def profile_worker_threads() -> list:
    """cProfile every task the graph runs in a worker thread (the parallel BM25 and vector branches: cProfile
    sees only its own thread); returns the list the tasks' profiles are appended to."""
    import cProfile
    from concurrent.futures import thread

    profiles: list = []
    run = thread._WorkItem.run

    def profiled(self):  # type: ignore[no-untyped-def]
        p = cProfile.Profile()
        p.enable()
        try:
            return run(self)
        finally:
            p.disable()
            profiles.append(p)

    thread._WorkItem.run = profiled  # type: ignore[method-assign]
    return profiles


def measure(questions: list[str], conf: dict, rounds: int, profile: str | None = None,
            max_concurrency: int | None = None, warm: bool = True) -> dict:
    """Warm pass (unless `warm` is False), then `rounds` timed passes over `questions` (see the module
    docstring)."""
    from finrag.api import run_query

    config = {"max_concurrency": int(max_concurrency)} if max_concurrency else None
    if not warm:  # the process itself started (imports, the open index, its registry), nothing of the questions
        run_query("What was the total revenue of the company in 2020?", system="hdrr", configurable=conf, config=config)
    for q in questions if warm else []:
        run_query(q, system="hdrr", configurable=conf, config=config)
    overall = Tally()
    groups: dict[str, dict[str, Tally]] = {"by_scope": collections.defaultdict(Tally),
                                           "by_kind": collections.defaultdict(Tally)}
    profiler = None
    worker_profiles: list = []
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        worker_profiles = profile_worker_threads()
    per_round: list[list[float]] = []
    for _ in range(rounds):
        per_round.append([])
        for q in questions:
            if profiler is not None:
                profiler.enable()
            start, wall = time.process_time(), time.perf_counter()
            answer = run_query(q, system="hdrr", configurable=conf, config=config)
            cpu_ms, wall_ms = 1000 * (time.process_time() - start), 1000 * (time.perf_counter() - wall)
            if profiler is not None:
                profiler.disable()
            ans = answer.model_dump() if hasattr(answer, "model_dump") else dict(answer)
            scope = ((ans.get("retrieval") or {}).get("context") or {}).get("scope") or "none"
            kind = f"{scope}/{(ans.get('reader') or {}).get('kind') or 'none'}"
            timings = dict(ans.get("timings_ms") or {})
            for tally in (overall, groups["by_scope"][scope], groups["by_kind"][kind]):
                tally.add(cpu_ms, wall_ms, timings)
            per_round[-1].append(wall_ms - float(timings.get("generate", 0.0)))
    out = overall.report()
    out = {"requests": out["requests"], "cpu_ms_per_request": round(statistics.fmean(overall.cpu), 1),
           "retrieval_ms": out["retrieval_ms"], "end_to_end_ms": out["end_to_end_ms"],
           "retrieval_p50_ms_per_round": [round(statistics.median(r), 2) for r in per_round], "nodes": out["nodes"]}
    for name, by in groups.items():
        out[name] = {k: by[k].report() for k in sorted(by)}
    if profiler is not None:
        import pstats

        stats = pstats.Stats(profiler, *worker_profiles, stream=sys.stderr)
        stats.dump_stats(str(profile))
        stats.sort_stats("tottime").print_stats(25)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--questions", default=None, help="JSONL with 'question' (default: eval/data/load_questions.jsonl)")
    ap.add_argument("--dev", action="store_true", help=f"the FinanceBench dev questions ({DEV_QUESTIONS})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--configurable", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--profile", default=None, metavar="FILE", help="cProfile the timed rounds into FILE")
    ap.add_argument("--max-concurrency", type=int, default=None, metavar="N",
                    help="LangGraph's max_concurrency for the run (1: the parallel searches one after the other, so "
                         "each node's wall time is its own work)")
    ap.add_argument("--cold", action="store_true",
                    help="no warm pass: every question's first answer in this process is timed (what `finrag "
                         "batch` sees; one warm-up question about no company starts the process)")
    ap.add_argument("--json-out", default=None, metavar="FILE", help="also write the JSON object to FILE")
    args = ap.parse_args(argv)
    if args.dev and args.questions:
        ap.error("give --dev or --questions, not both")
    path = DEV_QUESTIONS if args.dev else Path(args.questions or REPO / "eval/data/load_questions.jsonl")
    if not path.is_file():
        ap.error(f"no question file at {path}")
    conf = dict(kv.split("=", 1) for kv in args.configurable)
    conf["index_dir"] = args.index
    questions = load_questions(path)
    if not questions:
        ap.error(f"{path} holds no questions")
    out = {"index": args.index, "questions": str(path),
           "configurable": {k: v for k, v in conf.items() if k != "index_dir"}, "rounds": args.rounds,
           "warm": not args.cold, **measure(questions, conf, max(1, args.rounds), args.profile, args.max_concurrency,
                                          warm=not args.cold)}
    text = json.dumps(out)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
