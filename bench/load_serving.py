"""The serving load test of this code against an older checkout, on one machine and one index, alternated.

    python -m bench.load_serving --old /path/to/old/checkout --index .finrag-fb --out runs/load-serving \
        [--old-index <a copy of the index for the old code>] [--rounds 2] [--json-out docs/results/bench_load_serving.json]

Each round runs `bench/load_test.py` (HDRR, 200 requests, 8 concurrent, 64 unmeasured warm-up requests, the
written load questions `eval/data/load_questions.jsonl`) once per configuration, in this order:

* `old_paper`: the old checkout's server with `routed_context=paper` (the context plan before issue 23: what
  the issue's 33 requests/s were measured with), one process (an old checkout has no `--workers`);
* `new_default`: this code as `finrag serve` starts it (the default context plan, `routed_context=budget`,
  and the default worker processes, one per core, at most 4);
* `new_budget_1`: this code, one worker process (what one process does with the default plan);
* `new_paper_default`: this code with `routed_context=paper` and the default workers.

The old checkout's server runs with its own `.venv/bin/python` when it has one, else with this Python and
`PYTHONPATH=<old>/typings` (a worktree of this repository without a virtual environment: `typings/finrag`
maps the package onto its folders). Prints one Markdown row per configuration (median and range of the
rounds' throughput, median p50/p95) and writes every run's JSON with `--json-out`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

CONFIGS = {  # name -> (side, environment, serve arguments)
    "old_paper": ("old", {"FINRAG_ROUTED_CONTEXT": "paper"}, []),
    "new_default": ("new", {}, []),
    "new_budget_1": ("new", {}, ["--serve-arg=--workers", "--serve-arg=1"]),
    "new_paper_default": ("new", {"FINRAG_ROUTED_CONTEXT": "paper"}, []),
}


def side_python(side: str, old: Path) -> tuple[str, dict]:
    """The Python that starts a side's server, and the environment it needs."""
    if side == "new":
        return sys.executable, {}
    own = old / ".venv" / "bin" / "python"
    if own.exists():
        return str(own), {}
    return sys.executable, {"PYTHONPATH": str(old / "typings")}


def run_one(name: str, old: Path, indexes: dict[str, str], out: Path, requests: int) -> dict:
    side, env_extra, serve_args = CONFIGS[name]
    index = indexes[side]
    python, side_env = side_python(side, old)
    env = {**os.environ, **side_env, **env_extra}
    for key in ("FINRAG_ROUTED_CONTEXT", "FINRAG_SERVE_WORKERS"):
        if key not in env_extra:
            env.pop(key, None)
    path = out / f"{name}_{int(time.time())}.json"
    # by path, in either checkout (this tree's load test, that checkout's server): load_test imports no bench module
    cmd = [python, str(HERE / "load_test.py"), "--index", index, "--system", "hdrr", "--requests", str(requests),
           "--concurrency", "8", "--warmup", "64", "--questions", str(REPO / "eval/data/load_questions.jsonl"),
           "--json-out", str(path), *serve_args]
    cwd = str(old) if side == "old" else str(REPO)
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not path.exists():
        raise SystemExit(f"{name} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    result = json.loads(path.read_text())
    result["config"] = name
    result["load_at_start"] = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True, help="the older checkout")
    ap.add_argument("--index", required=True)
    ap.add_argument("--old-index", default=None,
                    help="the old code's own copy of the index (default --index; give a copy when the new code "
                         "would upgrade the index in place, or the old one would not read it)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--json-out", default=None)
    a = ap.parse_args()
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    indexes = {"new": str(Path(a.index).resolve()), "old": str(Path(a.old_index or a.index).resolve())}
    runs: list[dict] = []
    for r in range(1, a.rounds + 1):
        for name in a.configs:
            res = run_one(name, Path(a.old).resolve(), indexes, out, a.requests)
            res["round"] = r
            runs.append(res)
            print(f"round {r} {name}: {res['throughput_rps']} req/s, p50 {res['p50_ms']} ms, p95 {res['p95_ms']} ms, "
                  f"errors {res['errors']}", file=sys.stderr, flush=True)
    print("| configuration | requests/s (median, range) | p50 ms | p95 ms | errors |")
    print("|---|---|---|---|---|")
    summary = {}
    for name in a.configs:
        mine = [x for x in runs if x["config"] == name]
        rps = [x["throughput_rps"] for x in mine]
        summary[name] = {"rps_median": statistics.median(rps), "rps": rps,
                         "p50_ms": statistics.median(x["p50_ms"] for x in mine),
                         "p95_ms": statistics.median(x["p95_ms"] for x in mine),
                         "errors": sum(x["errors"] for x in mine)}
        s = summary[name]
        print(f"| {name} | {s['rps_median']:.1f} ({min(rps):.1f}-{max(rps):.1f}) | {s['p50_ms']:.0f} | "
              f"{s['p95_ms']:.0f} | {s['errors']} |")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"command": " ".join(sys.argv), "cpus": os.cpu_count(),
                                                "summary": summary, "runs": runs}, indent=1))
    return 0 if all(s["errors"] == 0 for s in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
