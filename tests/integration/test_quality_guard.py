"""The quality guard (issue 46): all six systems on the 86 FinanceBench dev questions over the 168-filing index,
HDRR on the 15 real EDGAR filings by line item, compared with the committed baseline
(docs/results/quality_baseline.json). A move beyond the tolerance (1 point on a rate, 5% of context tokens, any
change of LLM calls) fails, naming the systems and numbers that moved; a deliberate change updates the baseline
(`python -m finrag.eval.guard --update`) in the same commit and says why in its message. Not marked slow: CI has
../shared. The indexes are built once per test session (~2-4 minutes here); `FINRAG_GUARD_WORK=DIR` reuses a
folder's indexes between runs while developing."""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from finrag.eval.guard import BASELINE, SHARED, compare, load_baseline, measure

pytestmark = pytest.mark.skipif(not (SHARED / "financebench" / "pdfs").is_dir() or not (SHARED / "edgar").is_dir(),
                                reason=f"shared data not found at {SHARED}")


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict:
    work = Path(os.environ.get("FINRAG_GUARD_WORK") or tmp_path_factory.mktemp("guard"))
    return measure(work, SHARED, log=print)


def test_six_systems_keep_their_quality(measured):
    failures, flags = compare(measured, load_baseline(BASELINE))
    for line in flags:
        warnings.warn(f"quality guard: {line}", stacklevel=1)
    assert not failures, ("quality moved beyond tolerance against docs/results/quality_baseline.json (a deliberate "
                          "change: python -m finrag.eval.guard --update, and say why in the commit):\n  "
                          + "\n  ".join(failures))


def test_every_system_and_class_was_measured(measured):
    fb = measured["financebench_dev"]
    assert set(fb) == {"cbr", "sfr", "hdrr", "cbr_meta", "cbr_llm_ctx", "agentic"}
    assert all(row["evidence_hit"] is not None and row["judge_p8"] is not None for row in fb.values())
    assert fb["hdrr"]["exact_routing"] is not None and fb["cbr"]["exact_routing"] is None  # CBR does not route
    assert measured["edgar"]["all"]["n"] >= 600
    assert measured["latency"]["reference_p50_ms"] > 0
