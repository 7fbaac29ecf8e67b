"""The latency budget: does HDRR retrieval on the FinanceBench dev questions stay within 20% of its baseline?

A benchmark, not a timed unit test: it fails loudly (exit 1, one line on stderr) when the p50 of HDRR
retrieval (`run_query`'s wall time without the `generate` node, warm, `bench/request_cpu.py --dev`) grows by
more than `--budget` (20%) against the baseline. Two ways to get the baseline:

* `--against <commit or checkout>` (the default way): the baseline code is measured in the same run, on the
  same machine, interleaved with this tree (baseline, current, baseline, current, ... `--repeats` times each,
  medians compared), so a busy machine slows both sides alike. A commit is checked out as a git worktree in
  a temporary folder (removed afterwards); a folder is used as it is. The baseline runs with this Python and
  `PYTHONPATH=<checkout>/typings` (`typings/finrag` maps the package onto the checkout's folders), the
  current tree the same way with its own `typings`.
* `--baseline docs/results/bench_latency_baseline.json`: a stored baseline (written by `--write-baseline` from an
  `--against` run: the current tree's median p50 of that run is the budget's baseline). Only this tree is
  measured; the comparison is only fair on the machine that stored it (its `machine` record is compared and a
  different one is said on stderr).

    python -m bench.latency_budget --index <index> --against 09f36bf [--repeats 3] [--rounds 2] \
        [--write-baseline docs/results/bench_latency_baseline.json]
    python -m bench.latency_budget --index <index> --baseline docs/results/bench_latency_baseline.json

Each side gets its own copy of the index in a temporary folder (`--no-copy` to use `--index` itself): the
code stamp of the routing registry differs between checkouts, so each would rewrite `registry.pickle` in the
index folder; nothing is embedded on demand (`FINRAG_EMBED_ON_DEMAND=false`). Prints one JSON object (both
sides' runs, medians, the ratio) and, on success, one line `latency budget ok: ...`.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REQUEST_CPU = REPO / "bench" / "request_cpu.py"  # run by path in the checkout measured (so it imports no bench module)


def machine() -> dict:
    """What the budget's numbers depend on: the processor, its cores and the Python."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor()
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version()}


def checkout_of(ref: str, scratch: Path) -> tuple[Path, bool]:
    """(a checkout of `ref`, whether it is a worktree made here): a folder as it is, else a git worktree."""
    if Path(ref).is_dir():
        return Path(ref).resolve(), False
    where = scratch / "baseline"
    done = subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(where), ref],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"latency budget: cannot check out {ref!r}: {done.stderr.strip().splitlines()[-1:]}")
    return where, True


def index_copy(index: Path, scratch: Path, name: str) -> Path:
    """A copy of the index folder for one side (see the module docstring)."""
    dest = scratch / f"index-{name}"
    shutil.copytree(index, dest, ignore=shutil.ignore_patterns("*.lock"))
    return dest


def measure(checkout: Path, index: Path, rounds: int, timeout: float, questions: Path | None = None) -> dict:
    """One `bench/request_cpu.py --dev` run (`--questions` when given) of `checkout`'s code (this tree's
    script) on `index`."""
    env = {**os.environ, "PYTHONPATH": str(checkout / "typings"), "FINRAG_EMBED_ON_DEMAND": "false"}
    which = ["--questions", str(questions.resolve())] if questions else ["--dev"]
    done = subprocess.run([sys.executable, str(REQUEST_CPU), "--index", str(index), *which, "--rounds", str(rounds)],
                          cwd=str(checkout), env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"latency budget: the run of {checkout} failed: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def side_summary(runs: list[dict]) -> dict:
    """Medians over one side's runs of the numbers the budget reports."""
    def med(path: tuple[str, ...]) -> float:
        vals = []
        for r in runs:
            v = r
            for k in path:
                v = v.get(k) or {}
            if isinstance(v, (int, float)):
                vals.append(float(v))
        return round(statistics.median(vals), 2) if vals else float("nan")

    return {"retrieval_p50_ms": med(("retrieval_ms", "p50")), "retrieval_p95_ms": med(("retrieval_ms", "p95")),
            "end_to_end_p50_ms": med(("end_to_end_ms", "p50")), "cpu_ms_per_request": med(("cpu_ms_per_request",)),
            "runs_retrieval_p50_ms": [r["retrieval_ms"]["p50"] for r in runs]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True, type=Path)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--against", metavar="COMMIT_OR_CHECKOUT", help="measure this baseline in the same run")
    src.add_argument("--baseline", type=Path, metavar="JSON", help="compare to a stored baseline")
    ap.add_argument("--current", type=Path, default=REPO, metavar="CHECKOUT",
                    help="the code measured against the baseline (default: this tree)")
    ap.add_argument("--questions", type=Path, default=None,
                    help="another question file (JSONL with 'question'; default: the FinanceBench dev questions)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per side, interleaved (default 3)")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes over the questions per run (default 3)")
    ap.add_argument("--budget", type=float, default=0.20, help="allowed growth of the p50 (default 0.20)")
    ap.add_argument("--write-baseline", type=Path, metavar="JSON", help="store this run (with --against)")
    ap.add_argument("--no-copy", action="store_true", help="run both sides on --index itself")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take")
    args = ap.parse_args(argv)
    if not (args.index / "finrag.sqlite").is_file():
        ap.error(f"no finrag index at {args.index}")
    if args.questions and not args.questions.is_file():
        ap.error(f"no question file at {args.questions}")
    if args.write_baseline and not args.against:
        ap.error("--write-baseline needs --against (a baseline measured in the same run)")
    stored = None
    if args.baseline:
        try:
            stored = json.loads(args.baseline.read_text(encoding="utf-8"))
            base_p50 = float(stored["current"]["retrieval_p50_ms"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ap.error(f"cannot read the stored baseline {args.baseline}: {exc}")
    scratch = Path(tempfile.mkdtemp(prefix="finrag-latency-"))
    made_worktree = False
    base_checkout = None
    try:
        if args.against:
            base_checkout, made_worktree = checkout_of(args.against, scratch)
        sides = {"current": args.current.resolve(), **({"baseline": base_checkout} if base_checkout else {})}
        indexes = {s: (args.index if args.no_copy else index_copy(args.index, scratch, s)) for s in sides}
        runs: dict[str, list[dict]] = {s: [] for s in sides}
        for i in range(max(1, args.repeats)):
            for s in (["baseline", "current"] if base_checkout else ["current"]):
                r = measure(sides[s], indexes[s], args.rounds, args.timeout, args.questions)
                runs[s].append(r)
                print(f"run {i + 1} {s}: retrieval p50 {r['retrieval_ms']['p50']} ms, end to end p50 "
                      f"{r['end_to_end_ms']['p50']} ms, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        if made_worktree and base_checkout is not None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_checkout)],
                           capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
    out: dict = {"machine": machine(), "budget": args.budget, "repeats": args.repeats, "rounds": args.rounds,
                 "questions": str(args.questions) if args.questions else "FinanceBench dev (bench/request_cpu.py --dev)",
                 "current": side_summary(runs["current"])}
    if base_checkout:
        out["baseline_ref"] = args.against
        out["baseline"] = side_summary(runs["baseline"])
        base_p50 = out["baseline"]["retrieval_p50_ms"]
    else:
        out["baseline_ref"] = f"stored: {args.baseline}"
        out["baseline"] = stored.get("current") if stored else None
        if stored and stored.get("machine") != out["machine"]:
            print(f"latency budget: the stored baseline is from another machine ({stored.get('machine')}); "
                  "the comparison is not fair", file=sys.stderr)
    out["runs"] = runs  # every run's bench/request_cpu.py object: per scope, kind and node
    now = out["current"]["retrieval_p50_ms"]
    out["ratio"] = round(now / base_p50, 3) if base_p50 else None
    print(json.dumps(out))
    if args.write_baseline:
        args.write_baseline.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    if not base_p50 or now > base_p50 * (1.0 + args.budget):
        print(f"LATENCY BUDGET EXCEEDED: HDRR retrieval p50 on the dev questions {now} ms against the baseline's "
              f"{base_p50} ms ({out['baseline_ref']}): +{(now / base_p50 - 1) * 100 if base_p50 else float('inf'):.0f}% "
              f"> {args.budget * 100:.0f}%", file=sys.stderr)
        return 1
    print(f"latency budget ok: HDRR retrieval p50 {now} ms against {base_p50} ms ({out['baseline_ref']}), "
          f"{(now / base_p50 - 1) * 100:+.0f}% (budget +{args.budget * 100:.0f}%)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
