"""The quality guard: all six systems measured in one run and compared with a committed baseline (issue 46).

    python -m finrag.eval.guard                    # build the scratch indexes, measure, compare (exit 1 on a move)
    python -m finrag.eval.guard --update           # measure and write the baseline (commit it, say why)
    python -m finrag.eval.guard --work runs/guard  # where the scratch indexes and the runs live (reused if there)

What is measured, offline (offline strategies for every LLM role, the offline judge):

* FinanceBench dev (`../shared/data/financebench`: 168 filings, 86 questions), each of the six systems: exact
  routing (routing systems), evidence page in context, wrong-document share of the context chunks, mean context
  tokens, LLM calls per question, offline judge P(s>=8), answers that quote page furniture. The index is built the way a user builds it
  (`finrag index PDFS --variant meta --variant llmctx`, the default embedder for 168 files).
* Real EDGAR filings (`../shared/data/edgar`, 15 inline-XBRL filings, static embedder), HDRR: per class (the
  line item asked, `finrag.eval.edgar_gold`) exact filing / fact's page in context / value stated.
* Latency as a ratio: HDRR's and CBR's p50 per question over the dev questions, each divided by the p50 of a fixed
  reference computation (`reference_work`) timed in the same process between the questions, so the machine's
  speed cancels out.

`compare` says what moved: a rate by more than `RATE_POINTS` (1 point), mean context tokens by more than
`TOKEN_SHARE` (5%), LLM calls at all. Those fail the guard (`tests/integration/test_quality_guard.py`, in CI).
A latency ratio that moves by more than `LATENCY_SHARE` (30%) is flagged (printed, and a warning in the test),
not failed: a shared CI machine's load changes during a run, and the tests hold no wall-clock asserts.
A deliberate change of quality updates the baseline (`--update`) in the same commit, and its message says why.
The README's headline table is generated from the same file (`finrag.eval.readme_tables`).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from finrag.api import run_query
from finrag.eval.datasets import load_dataset
from finrag.eval.edgar_gold import ask, generate
from finrag.eval.report import build_records, compute_tables
from finrag.eval.runner import EvalConfig, run_eval
from finrag.graphs import SYSTEMS
from finrag.tools.answering.furniture import furniture_in
from finrag.tools.indexing import open_index
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import build_variant, index_paths
from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.store import Store

__all__ = ["BASELINE", "FB_METRICS", "EDGAR_METRICS", "compare", "load_baseline", "measure", "reference_work",
           "write_baseline"]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
BASELINE = REPO / "docs" / "results" / "quality_baseline.json"

RATE_POINTS = 0.01     # a rate (share of questions or chunks) may move this much
TOKEN_SHARE = 0.05     # mean context tokens may move this share
LATENCY_SHARE = 0.30   # a latency ratio moving more than this share is flagged

# per system, from the evaluation's tables: (baseline key, table, column, kind)
FB_METRICS: tuple[tuple[str, str, str, str], ...] = (
    ("exact_routing", "retrieval", "exact_routing_acc", "rate"),
    ("evidence_hit", "retrieval", "evidence_hit_rate", "rate"),
    ("wrong_doc_share", "retrieval", "wrong_doc_chunk_share", "rate"),
    ("context_tokens", "retrieval", "mean_context_tokens", "tokens"),
    ("llm_calls", "cost", "llm_calls_per_query", "count"),
    ("judge_p8", "quality", "correct_rate", "rate"),
    ("furniture", "answers", "furniture_share", "rate"),
)
EDGAR_METRICS = ("exact", "evidence", "value")


def reference_work() -> float:
    """A fixed computation (pure Python and NumPy, like a query's own mix), timed; milliseconds."""
    import numpy as np

    t0 = time.perf_counter()
    rng = np.random.default_rng(7)
    m = rng.standard_normal((2000, 256)).astype(np.float32)
    q = rng.standard_normal(256).astype(np.float32)
    for _ in range(2):
        np.argsort(m @ q)[:50]
    counts: dict[str, int] = {}
    for i in range(5000):
        key = f"w{i % 997}"
        counts[key] = counts.get(key, 0) + 1
    sorted(counts.items(), key=lambda kv: -kv[1])
    return (time.perf_counter() - t0) * 1000.0


# --------------------------------------------------------------------------------------------------
# indexes
# --------------------------------------------------------------------------------------------------
def _index(paths: list[Path], index_dir: Path, variants: tuple[str, ...], log: Callable[[str], None]) -> None:
    """What `finrag index PATHS --index DIR --embedder static [--variant ...]` does (incremental: a built index is
    reused). The static embedder is the default; it is named so that a changed default never changes the guard's
    numbers unnoticed (MiniLM would take ~7 minutes of CI for the 15 EDGAR filings)."""
    t0 = time.perf_counter()
    index_dir.mkdir(parents=True, exist_ok=True)
    with writer_lock(index_dir):
        store = Store(index_dir, create=True)
        try:
            store.check_embedder(get_embedder("static"))
            report = index_paths(paths, store, progress=False, log=lambda _msg: None)
            if report.failed:
                raise RuntimeError(f"indexing {paths[0]} failed for {len(report.failed)} file(s): {report.failed[:3]}")
            for variant in variants:
                build_variant(store, variant, progress=False, log=lambda _msg: None)
        finally:
            store.close()
    open_index.reset()
    log(f"index {index_dir}: ready ({time.perf_counter() - t0:.0f} s)")


# --------------------------------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------------------------------
def _rounded(v: Any, kind: str) -> Any:
    if v is None:
        return None
    return round(float(v), 1) if kind == "tokens" else round(float(v), 4)


def financebench(index_dir: Path, dataset: Path, out: Path, log: Callable[[str], None]) -> dict[str, dict]:
    """The six systems over the dev questions (`finrag eval run`, offline judge): per system, `FB_METRICS`."""
    cfg = EvalConfig(out=str(out), dataset=str(dataset), systems=list(SYSTEMS), index_dir=str(index_dir),
                     judge="offline", concurrency=2, progress=False, report=False, plots=False)
    t0 = time.perf_counter()
    run_eval(cfg, log=lambda s: None)
    records = build_records(out)
    tables = compute_tables(records)
    log(f"financebench dev: {len(SYSTEMS)} systems answered and judged ({time.perf_counter() - t0:.0f} s)")
    rows = {table: {row["system"]: row for row in tables[table]} for table in ("retrieval", "cost", "quality")}
    rows["answers"] = {s: {"furniture_share": sum(furniture_in(r["answer"]) for r in rs) / max(1, len(rs))}
                       for s in SYSTEMS for rs in [[r for r in records if r["system"] == s]]}
    return {system: {key: _rounded(rows[table][system].get(col), kind) for key, table, col, kind in FB_METRICS}
            for system in SYSTEMS}


def edgar(index_dir: Path, edgar_dir: Path, log: Callable[[str], None]) -> dict[str, dict]:
    """HDRR over the EDGAR filings' generated questions: per class (line item) and overall, `EDGAR_METRICS`."""
    t0 = time.perf_counter()
    rows = ask(generate(edgar_dir), index_dir)
    log(f"edgar: {len(rows)} questions ({time.perf_counter() - t0:.0f} s)")
    classes: dict[str, list[dict]] = {}
    for r in rows:
        classes.setdefault(r["concept"], []).append(r)
    classes["all"] = rows
    return {name: {"n": len(rs), **{m: round(sum(bool(r[m]) for r in rs) / len(rs), 4) for m in EDGAR_METRICS}}
            for name, rs in sorted(classes.items())}


def latency(index_dir: Path, dataset: Path, log: Callable[[str], None]) -> dict[str, Any]:
    """HDRR's and CBR's p50 per question (warm, one at a time) over their p50 of `reference_work`, timed between
    the questions."""
    questions = [q["question"] for q in load_dataset(str(dataset))]
    for system in ("hdrr", "cbr"):  # warm: the index opened, caches filled, as a serving process is
        for question in questions[:5]:
            run_query(question, system, index=str(index_dir))
    times: dict[str, list[float]] = {"hdrr": [], "cbr": [], "reference": []}
    for question in questions:
        for system in ("hdrr", "cbr"):
            times["reference"].append(reference_work())
            t0 = time.perf_counter()
            run_query(question, system, index=str(index_dir))
            times[system].append((time.perf_counter() - t0) * 1000.0)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    log(f"latency p50: hdrr {p50['hdrr']:.1f} ms, cbr {p50['cbr']:.1f} ms, reference {p50['reference']:.1f} ms")
    return {"reference_p50_ms": round(p50["reference"], 2),
            **{f"{s}_p50_ms": round(p50[s], 2) for s in ("hdrr", "cbr")},
            **{f"{s}_ratio": round(p50[s] / p50["reference"], 3) for s in ("hdrr", "cbr")}}


def measure(work: Path, shared: Path = SHARED, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build (or reuse) the scratch indexes under `work` and measure everything the baseline holds."""
    fb, edgar_dir = shared / "financebench", shared / "edgar"
    dataset = fb / "questions_dev.jsonl"
    work.mkdir(parents=True, exist_ok=True)
    _index([fb / "pdfs"], work / "fb-index", ("meta", "llmctx"), log)
    _index([edgar_dir], work / "edgar-index", (), log)
    run_dir = work / "fb-run"
    if run_dir.exists():  # answers are cached by the evaluation: a new measurement starts from none
        import shutil

        shutil.rmtree(run_dir)
    return {"financebench_dev": financebench(work / "fb-index", dataset, run_dir, log),
            "edgar": edgar(work / "edgar-index", edgar_dir, log),
            "latency": latency(work / "fb-index", dataset, log)}


# --------------------------------------------------------------------------------------------------
# the baseline and the comparison
# --------------------------------------------------------------------------------------------------
def load_baseline(path: Path = BASELINE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def write_baseline(measured: dict[str, Any], path: Path = BASELINE) -> None:
    doc = {"about": "finrag's quality guard (python -m finrag.eval.guard): six systems on the 86 FinanceBench dev "
                    "questions over the 168-filing index (default embedder, offline, offline judge), HDRR on the "
                    "15 real EDGAR filings by line item, latency p50 as a ratio to a fixed reference computation. "
                    "Update with --update in the commit that changes quality, and say why in its message.",
           "tolerances": {"rate_points": RATE_POINTS, "token_share": TOKEN_SHARE, "latency_share": LATENCY_SHARE},
           **measured}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def _moved(kind: str, old: Any, new: Any) -> bool:
    if old is None or new is None:
        return old is not new
    if kind == "rate":
        return abs(new - old) > RATE_POINTS + 1e-9
    if kind == "tokens":
        return abs(new - old) > TOKEN_SHARE * max(abs(old), 1.0)
    return abs(new - old) > 1e-9  # counts: LLM calls per question offline are exact


def _fmt(kind: str, old: Any, new: Any) -> str:
    if old is None or new is None:
        return f"{old} -> {new}"
    if kind == "rate":
        return f"{old:.3f} -> {new:.3f} ({(new - old) * 100:+.1f} points)"
    if kind == "tokens":
        return f"{old:.0f} -> {new:.0f} ({(new - old) / max(abs(old), 1.0) * 100:+.1f}%)"
    return f"{old} -> {new}"


def compare(measured: dict[str, Any], baseline: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(failures, flags): each a line naming the system or class, the metric and the move."""
    failures: list[str] = []
    for system in SYSTEMS:
        old_row = (baseline.get("financebench_dev") or {}).get(system)
        new_row = (measured.get("financebench_dev") or {}).get(system)
        if old_row is None or new_row is None:
            failures.append(f"financebench_dev {system}: missing from the {'baseline' if old_row is None else 'run'}")
            continue
        for key, _table, _col, kind in FB_METRICS:
            if _moved(kind, old_row.get(key), new_row.get(key)):
                failures.append(f"financebench_dev {system} {key}: {_fmt(kind, old_row.get(key), new_row.get(key))}")
    old_edgar, new_edgar = baseline.get("edgar") or {}, measured.get("edgar") or {}
    for name in sorted(set(old_edgar) | set(new_edgar)):
        old_row, new_row = old_edgar.get(name), new_edgar.get(name)
        if old_row is None or new_row is None:
            failures.append(f"edgar {name}: missing from the {'baseline' if old_row is None else 'run'}")
            continue
        if old_row.get("n") != new_row.get("n"):
            failures.append(f"edgar {name}: {old_row.get('n')} -> {new_row.get('n')} questions")
        for m in EDGAR_METRICS:
            if _moved("rate", old_row.get(m), new_row.get(m)):
                failures.append(f"edgar {name} {m}: {_fmt('rate', old_row.get(m), new_row.get(m))}")
    flags: list[str] = []
    old_lat, new_lat = baseline.get("latency") or {}, measured.get("latency") or {}
    for system in ("hdrr", "cbr"):
        old, new = old_lat.get(f"{system}_ratio"), new_lat.get(f"{system}_ratio")
        if old and new and abs(new - old) > LATENCY_SHARE * old:
            flags.append(f"latency {system}: p50 / reference {old:.2f} -> {new:.2f} ({(new - old) / old * 100:+.0f}%; "
                         f"{new_lat.get(f'{system}_p50_ms')} ms against {new_lat.get('reference_p50_ms')} ms)")
    return failures, flags


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m finrag.eval.guard", description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=str(REPO / "runs" / "guard"), help="scratch indexes and runs (reused)")
    ap.add_argument("--shared", default=str(SHARED), help="the shared data folder (financebench/, edgar/)")
    ap.add_argument("--baseline", default=str(BASELINE))
    ap.add_argument("--update", action="store_true", help="write the measurement as the new baseline")
    ap.add_argument("--out", help="also write the measurement here (JSON)")
    args = ap.parse_args(argv)
    shared = Path(args.shared)
    if not (shared / "financebench" / "pdfs").is_dir() or not (shared / "edgar").is_dir():
        print(f"error: the shared data is not at {shared} (financebench/pdfs and edgar/)", file=sys.stderr)
        return 2
    measured = measure(Path(args.work), shared)
    if args.out:
        Path(args.out).write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")
    if args.update:
        write_baseline(measured, Path(args.baseline))
        print(f"baseline written: {args.baseline}")
        return 0
    failures, flags = compare(measured, load_baseline(Path(args.baseline)))
    for line in flags:
        print(f"flag: {line}")
    for line in failures:
        print(f"moved: {line}")
    print("quality guard: " + ("unchanged" if not failures else f"{len(failures)} moves beyond tolerance"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
