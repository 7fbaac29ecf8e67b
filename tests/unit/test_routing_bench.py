"""The routing benchmark's development set (bench/routing_bench.py, issue 9): reproducible from its generator,
large enough, and (slow) the offline router's numbers on it stay at the issue's targets."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from finrag.eval.routing_corpus import DATA, YEARS, corpus_documents, dev_questions, load_companies

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_dev_set_is_what_the_generator_writes():
    companies = load_companies()
    assert sum(c.indexed for c in companies) >= 300 and len(YEARS) == 4
    committed = [json.loads(line) for line in (DATA / "routing_dev.jsonl").read_text(encoding="utf-8").splitlines()]
    assert committed == dev_questions(companies) and len(committed) >= 400
    cats = {q["category"] for q in committed}
    assert {"not_indexed", "forward", "historical", "range", "multi", "trap", "ambiguous_ticker"} <= cats


def test_generated_cover_pages_identify_their_filings():
    docs = corpus_documents(load_companies()[:40])
    assert all(d.registrant and d.tickers and d.fiscal_year_end and d.form == "10K" for d in docs)
    assert len({d.doc_id for d in docs}) == len(docs) == 160


@pytest.mark.slow
def test_benchmark_meets_the_issue_targets(tmp_path):
    out = tmp_path / "bench.json"
    subprocess.run([sys.executable, "-m", "bench.routing_bench", "--out", str(out)], check=True, cwd=str(REPO),
                   capture_output=True)
    s = json.loads(out.read_text())["summary"]
    assert s["exact_company_pct"] >= 97 and s["exact_filing_pct"] >= 95
    assert s["stray_company_pct"] <= 1 and s["unknown_recognised_pct"] >= 95
