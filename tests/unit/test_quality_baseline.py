"""The guard's comparison and the README's generated numbers (issue 46): a move beyond tolerance is named, a move
inside it is not, and the README's headline block is exactly what the committed baseline renders."""
from __future__ import annotations

import copy

from finrag.eval.guard import BASELINE, compare, load_baseline
from finrag.eval.readme_tables import stale


def test_the_readme_and_docs_numbers_are_the_baseline_s():
    assert stale() == [], "run: python -m finrag.eval.readme_tables"


def test_a_move_beyond_tolerance_is_named_and_one_inside_is_not():
    base = load_baseline(BASELINE)
    assert compare(copy.deepcopy(base), base) == ([], [])
    moved = copy.deepcopy(base)
    moved["financebench_dev"]["cbr"]["evidence_hit"] -= 0.19
    moved["financebench_dev"]["hdrr"]["context_tokens"] *= 1.02  # inside 5%
    moved["edgar"]["all"]["value"] -= 0.005                      # inside 1 point
    moved["latency"]["hdrr_ratio"] *= 1.5
    failures, flags = compare(moved, base)
    assert len(failures) == 1 and failures[0].startswith("financebench_dev cbr evidence_hit:") and "-19.0 points" in failures[0]
    assert len(flags) == 1 and flags[0].startswith("latency hdrr")


def test_a_system_missing_from_the_run_fails():
    base = load_baseline(BASELINE)
    run = copy.deepcopy(base)
    del run["financebench_dev"]["agentic"]
    assert compare(run, base)[0] == ["financebench_dev agentic: missing from the run"]
