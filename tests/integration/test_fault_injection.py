"""The fault-injection bench's quick mode as a (slow) test: `pytest -m slow tests/integration/test_fault_injection.py`.

`python -m bench.fault_injection --quick` kills `finrag index` 3 times (random moment, during variant building,
at a vector-file save) and `finrag batch` twice, runs a reader loop during a write, two writers, a full disk
and three damaged databases, and exits non-zero if any fault left an inconsistency, a stray process or a lost
answer. The full run (>= 20 index kills) is `python -m bench.fault_injection --out docs/results/bench_faults.json`.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_fault_injection_finds_no_inconsistency(tmp_path):
    out = tmp_path / "faults.json"
    r = subprocess.run([sys.executable, "-m", "bench.fault_injection", "--quick", "--out", str(out)],
                       cwd=str(REPO), capture_output=True, text=True, timeout=3600)
    assert out.exists(), r.stdout[-3000:] + r.stderr[-3000:]
    summary = json.loads(out.read_text())["summary"]
    assert summary["index_kill_trials"] >= 2, summary
    assert summary["inconsistencies"] == 0 and summary["answers_lost"] == 0, r.stdout[-5000:]
    assert summary["stray_worker_processes"] == 0 and summary["reader_errors_during_writes"] == 0, summary
    assert r.returncode == 0, r.stdout[-3000:]
