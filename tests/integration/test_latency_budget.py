"""bench/request_cpu.py, bench/latency_budget.py and bench/diff_batches.py --contract on the demo index.

No time is asserted (the budget's numbers come from the benchmark itself, on the FinanceBench dev questions): these
tests check what the scripts report and that the budget's verdict follows its baseline, a stored one far above or
far below any real p50, or a baseline measured in the same run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def questions(tmp_path_factory, demo_qas) -> Path:
    path = tmp_path_factory.mktemp("latency") / "q.jsonl"
    path.write_text("".join(json.dumps({"id": q["id"], "question": q["question"]}) + "\n" for q in demo_qas[:4]))
    return path


def _run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "typings"), "FINRAG_EMBED_ON_DEMAND": "false"}
    return subprocess.run([sys.executable, *args], cwd=str(cwd), capture_output=True, text=True, timeout=600, env=env)


def test_request_cpu_reports_per_node_scope_and_kind(demo_index, questions, tmp_path):
    out = tmp_path / "cpu.json"
    r = _run("-m", "bench.request_cpu", "--index", str(demo_index), "--questions", str(questions), "--rounds", "2",
             "--max-concurrency", "1", "--json-out", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(out.read_text())
    assert got == json.loads(r.stdout.strip().splitlines()[-1])
    assert got["requests"] == 8 and got["warm"] is True
    assert set(got["retrieval_ms"]) == {"p50", "p95", "mean"}
    assert got["end_to_end_ms"]["p50"] >= got["retrieval_ms"]["p50"] - 1e-6
    assert len(got["retrieval_p50_ms_per_round"]) == 2
    assert {"rerank", "generate", "fts_search"} <= set(got["nodes"])
    assert sum(v["requests"] for v in got["by_scope"].values()) == 8
    assert all("/" in kind for kind in got["by_kind"])
    cold = _run("-m", "bench.request_cpu", "--index", str(demo_index), "--questions", str(questions), "--cold",
                "--rounds", "1")
    assert cold.returncode == 0, cold.stderr[-2000:]
    assert json.loads(cold.stdout.strip().splitlines()[-1])["warm"] is False


def _stored(tmp_path: Path, p50: float) -> Path:
    from bench import latency_budget as module
    path = tmp_path / f"baseline-{p50}.json"
    path.write_text(json.dumps({"machine": module.machine(), "current": {"retrieval_p50_ms": p50}}))
    return path


def test_the_budget_follows_a_stored_baseline(demo_index, questions, tmp_path):
    common = ["bench/latency_budget.py", "--index", str(demo_index), "--questions", str(questions), "--repeats", "1",
              "--rounds", "1"]
    ok = _run(*common, "--baseline", str(_stored(tmp_path, 1e6)))
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stderr.strip().splitlines()[-1].startswith("latency budget ok: HDRR retrieval p50")
    over = _run(*common, "--baseline", str(_stored(tmp_path, 0.001)))
    assert over.returncode == 1
    last = over.stderr.strip().splitlines()[-1]
    assert last.startswith("LATENCY BUDGET EXCEEDED: HDRR retrieval p50 on the dev questions") and "> 20%" in last
    bad = _run(*common, "--baseline", str(tmp_path / "missing.json"))
    assert bad.returncode == 2 and "cannot read the stored baseline" in bad.stderr


def test_the_budget_measures_a_baseline_checkout_in_the_same_run(demo_index, questions, tmp_path):
    stored = tmp_path / "measured.json"
    r = _run("-m", "bench.latency_budget", "--index", str(demo_index), "--questions", str(questions), "--repeats", "1",
             "--rounds", "1", "--against", str(REPO), "--budget", "10", "--write-baseline", str(stored))
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(stored.read_text())
    assert got["baseline_ref"] == str(REPO)
    assert len(got["baseline"]["runs_retrieval_p50_ms"]) == len(got["current"]["runs_retrieval_p50_ms"]) == 1
    assert got["ratio"] == pytest.approx(got["current"]["retrieval_p50_ms"] / got["baseline"]["retrieval_p50_ms"],
                                         abs=1e-3)
    again = _run("-m", "bench.latency_budget", "--index", str(demo_index), "--questions", str(questions), "--repeats", "1",
                 "--rounds", "1", "--baseline", str(stored), "--budget", "10")
    assert again.returncode == 0, again.stderr[-2000:]


def test_diff_batches_contract_compares_every_field_but_times(tmp_path):
    base = {"id": "q1", "answer": "A", "routing": {"status": "exact_path", "routed_docs": ["D"]},
            "contexts": [{"chunk_id": 1, "doc_id": "D", "page_start": 1, "page_end": 1, "score": 0.5, "text": "t"}],
            "cost": {"context_tokens": 10, "calls": [{"role": "generator", "latency_ms": 5.0}]},
            "timings_ms": {"total": 3.0}, "reader": {"kind": "item"}}
    slower = {**base, "timings_ms": {"total": 30.0}, "cost": {"context_tokens": 10,
                                                              "calls": [{"role": "generator", "latency_ms": 50.0}]}}
    other = {**base, "cost": {"context_tokens": 11, "calls": []}}
    (tmp_path / "a.jsonl").write_text(json.dumps(base) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(slower) + "\n")
    (tmp_path / "c.jsonl").write_text(json.dumps(other) + "\n")
    same = _run("-m", "bench.diff_batches", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--contract")
    assert same.returncode == 0 and "1/1 questions identical" in same.stdout
    assert _run("-m", "bench.diff_batches", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl"), "--answers").returncode == 0
    differs = _run("-m", "bench.diff_batches", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl"), "--contract")
    assert differs.returncode == 1 and "contract.cost" in differs.stdout
