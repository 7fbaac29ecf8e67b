"""Evaluation harness: dataset loaders, stratified groups, every metric on hand-made records, the
`finrag eval` command end to end on the demo index (offline judge, resumability), and the LLM-judge
path with a fake chat model."""
from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import pytest

from finrag.eval import metrics as M
from finrag.eval import runfiles, runner
from finrag.eval.datasets import CROSS_COMPANY, detect_format, load_answers, load_dataset, stratified_groups


# ----------------------------------------------------------------------------------------------
# loaders
# ----------------------------------------------------------------------------------------------
def _write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_load_financebench_jsonl(tmp_path):
    p = _write_jsonl(tmp_path / "fb.jsonl", [{
        "financebench_id": "financebench_id_00001", "company": "3M", "doc_name": "3M_2018_10K",
        "question_type": "metrics-generated", "question_reasoning": "Information extraction",
        "question": "What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
        "answer": "$1577.00", "justification": "PP&E purchases",
        "evidence": [{"evidence_text": "...", "doc_name": "3M_2018_10K", "evidence_page_num": 59,
                      "evidence_text_full_page": "..."},
                     {"evidence_text": "...", "doc_name": "3M_2018_10K", "evidence_page_num": 60}]}])
    assert detect_format(p) == "financebench"
    [q] = load_dataset(p)
    assert q["id"] == "financebench_id_00001"
    assert q["answer"] == "$1577.00"
    assert q["doc_ids"] == ["3M_2018_10K"]
    assert q["evidence"] == [{"doc_id": "3M_2018_10K", "page": 59}, {"doc_id": "3M_2018_10K", "page": 60}]
    assert q["meta"]["question_type"] == "metrics-generated"
    assert q["meta"]["justification"] == "PP&E purchases"
    assert q["meta"]["companies"] == ["3M"]


def test_load_finder_csv_with_separate_answers(tmp_path):
    qs = tmp_path / "finder.csv"
    qs.write_text('query_id,query,category\nq1,"What was AAPL revenue in 2023, in total?",Financials\n'
                  "q2,Who audits MSFT?,Governance\nq3,Any risk?,Risk\n", encoding="utf-8")
    ans_jsonl = _write_jsonl(tmp_path / "answers.jsonl", [{"query_id": "q1", "answer": "$383.3 billion"},
                                                          {"query_id": "q2", "answer": "Deloitte"}])
    assert detect_format(qs) == "finder_csv"
    rows = load_dataset(qs, answers=ans_jsonl)
    assert [r["id"] for r in rows] == ["q1", "q2", "q3"]
    assert rows[0]["question"] == "What was AAPL revenue in 2023, in total?"  # quoted comma kept
    assert rows[0]["answer"] == "$383.3 billion" and rows[1]["answer"] == "Deloitte" and rows[2]["answer"] == ""
    assert rows[0]["meta"]["category"] == "Financials"
    assert rows[0]["doc_ids"] == [] and rows[0]["evidence"] == []
    ans_csv = tmp_path / "gt.csv"
    ans_csv.write_text("id,ground_truth\nq3,None disclosed\n", encoding="utf-8")
    assert load_answers(ans_csv) == {"q3": "None disclosed"}
    assert load_dataset(qs, answers=ans_csv)[2]["answer"] == "None disclosed"


def test_load_plain_jsonl_and_errors(tmp_path):
    p = _write_jsonl(tmp_path / "plain.jsonl", [
        {"id": 1, "question": "Q one?", "answer": 42, "doc_id": "ACME_2023_10K.pdf", "evidence_pages": [3, 4],
         "question_type": "lookup"},
        {"id": "x2", "question": "Compare A and B", "answer": "", "doc_ids": ["A_2022_10K", "B_2022_10K"],
         "companies": ["A Corp", "B Inc"], "evidence": [{"doc_id": "B_2022_10K", "page": 7}]},
        {"id": "x3", "question": "Plain?", "answer": "yes"}])
    assert detect_format(p) == "jsonl"
    a, b, c = load_dataset(p)
    assert a["id"] == "1" and a["answer"] == "42" and a["doc_ids"] == ["ACME_2023_10K"]
    assert a["evidence"] == [{"doc_id": "ACME_2023_10K", "page": 3}, {"doc_id": "ACME_2023_10K", "page": 4}]
    assert a["meta"]["question_type"] == "lookup"
    assert b["doc_ids"] == ["A_2022_10K", "B_2022_10K"] and b["meta"]["companies"] == ["A Corp", "B Inc"]
    assert b["evidence"] == [{"doc_id": "B_2022_10K", "page": 7}]
    assert c["doc_ids"] == [] and c["evidence"] == []
    dup = _write_jsonl(tmp_path / "dup.jsonl", [{"id": 1, "question": "a"}, {"id": 1, "question": "b"}])
    with pytest.raises(ValueError, match="duplicate"):
        load_dataset(dup)
    with pytest.raises(FileNotFoundError):
        load_dataset(tmp_path / "missing.jsonl")


def test_shared_financebench_and_cross_company(shared_data):
    rows = load_dataset(shared_data / "questions_dev.jsonl")
    assert len(rows) == 86 and all(r["doc_ids"] and r["evidence"] and r["answer"] for r in rows)
    assert all(e["page"] >= 0 for r in rows for e in r["evidence"])
    docs = {json.loads(line)["doc_name"] for line in (shared_data / "documents.jsonl").read_text().splitlines()}
    cc = load_dataset(CROSS_COMPANY)
    assert len(cc) == 25
    assert {r["meta"]["template"] for r in cc} == {"pairwise", "which_of_n", "risk_factor"}
    for r in cc:
        assert len(r["doc_ids"]) >= 2 and set(r["doc_ids"]) <= docs, r["id"]
        assert len(r["meta"]["companies"]) == len(r["doc_ids"])
        assert {e["doc_id"] for e in r["evidence"]} <= set(r["doc_ids"])
        if r["answer"]:  # a verified answer names every company of the question
            assert all(M.company_named(c, r["answer"], r["meta"]["company_aliases"][c]) for c in r["meta"]["companies"])
    assert sum(bool(r["answer"]) for r in cc) == 19


# ----------------------------------------------------------------------------------------------
# stratified groups
# ----------------------------------------------------------------------------------------------
def _queries(n: int, types=("a", "b", "c")) -> list[dict]:
    # uneven strata: a 50%, b 30%, c 20%
    out = []
    for i in range(n):
        t = types[0] if i % 10 < 5 else types[1] if i % 10 < 8 else types[2]
        out.append({"id": f"q{i:03d}", "question": f"question {i}", "answer": "", "meta": {"question_type": t}})
    return out


def test_stratified_groups_deterministic_disjoint_and_balanced():
    qs = _queries(200)
    s1 = stratified_groups(qs, groups=5, per_group=20, seed=7)
    s2 = stratified_groups(list(reversed(qs)), groups=5, per_group=20, seed=7)  # input order does not matter
    s3 = stratified_groups(qs, groups=5, per_group=20, seed=8)
    assert s1["groups"] == s2["groups"]
    assert s1["groups"] != s3["groups"]
    assert s1["stratify"] == "question_type" and not s1["used_all"]
    assert [len(g) for g in s1["groups"]] == [20] * 5
    flat = [i for g in s1["groups"] for i in g]
    assert len(flat) == len(set(flat)) == 100
    by = {q["id"]: q["meta"]["question_type"] for q in qs}
    for g in s1["groups"]:  # proportional mix in every group: 10 a, 6 b, 4 c
        assert sorted(by[i] for i in g).count("a") == 10
        assert sorted(by[i] for i in g).count("b") == 6
        assert sorted(by[i] for i in g).count("c") == 4


def test_stratified_groups_use_everything_when_too_few():
    qs = _queries(12)
    s = stratified_groups(qs, groups=5, per_group=300, seed=1)
    assert s["used_all"] and "exceeds" in s["note"]
    assert sorted(len(g) for g in s["groups"]) == [2, 2, 2, 3, 3]
    assert sorted(i for g in s["groups"] for i in g) == sorted(q["id"] for q in qs)
    with pytest.raises(ValueError):
        stratified_groups(qs[:3], groups=5, per_group=None)
    assert stratified_groups(qs, 3, None, stratify="none")["stratify"] is None


# ----------------------------------------------------------------------------------------------
# metrics on hand-made records
# ----------------------------------------------------------------------------------------------
def rec(system, qid, group, score, **kw):
    base = dict(system=system, id=qid, group=group, score=score, score2=None, error=None, question="q", gold="g",
                answer="", gold_docs=[], evidence=[], companies=[], company_aliases={}, routing_status="exact_path",
                routed_docs=[], contexts=[], llm_calls=0, prompt_tokens=0, completion_tokens=0, context_tokens=0,
                latency_ms=0.0)
    base.update(kw)
    return base


def test_score_stats():
    st = M.score_stats([1, 4, 8, 10, 10])
    assert st["n"] == 5 and st["mean"] == pytest.approx(6.6)
    assert st["std"] == pytest.approx(math.sqrt(63.2 / 4))
    assert (st["failure_rate"], st["correct_rate"], st["perfect_rate"]) == (0.2, 0.6, 0.4)
    assert (st["band_low"], st["band_mid"], st["band_high"]) == (0.2, 0.2, 0.6)
    empty = M.score_stats([])
    assert empty["n"] == 0 and empty["mean"] is None and empty["correct_rate"] is None


@pytest.fixture
def grouped_records():
    hd = [(0, 10), (0, 8), (1, 6), (1, 4), (2, 10), (2, 10)]
    cb = [(0, 5), (0, 7), (1, 4), (1, 4), (2, 9), (2, 1)]
    recs = [rec("hdrr", f"q{i}", g, s, llm_calls=2, context_tokens=1000, latency_ms=100.0,
                routing_status="fallback_no_tickers" if g == 1 else "exact_path") for i, (g, s) in enumerate(hd)]
    recs += [rec("cbr", f"q{i}", g, s, llm_calls=1, context_tokens=3000, latency_ms=50.0, routing_status="not_routed")
             for i, (g, s) in enumerate(cb)]
    return recs


def test_quality_group_and_paired_tables(grouped_records):
    q = {r["system"]: r for r in M.quality_table(grouped_records)}
    assert list(q) == ["cbr", "hdrr"]  # the paper's system order
    assert q["hdrr"]["mean"] == pytest.approx(8.0) and q["cbr"]["mean"] == pytest.approx(5.0)
    assert q["cbr"]["failure_rate"] == pytest.approx(1 / 6)
    g = {r["system"]: r for r in M.group_table(grouped_records)}
    assert (g["hdrr"]["g1"], g["hdrr"]["g2"], g["hdrr"]["g3"]) == (9.0, 5.0, 10.0)
    assert g["hdrr"]["mean_over_groups"] == pytest.approx(8.0)
    assert g["hdrr"]["std_over_groups"] == pytest.approx(math.sqrt(7.0))
    gc = {r["system"]: r for r in M.group_table(grouped_records, stat="correct_rate")}
    assert (gc["cbr"]["g1"], gc["cbr"]["g2"], gc["cbr"]["g3"]) == (0.0, 0.0, 0.5)
    [pd] = M.paired_differences(grouped_records, "hdrr")
    assert pd["comparison"] == "hdrr - cbr"
    assert (pd["d_g1"], pd["d_g2"], pd["d_g3"]) == (3.0, 1.0, 5.0)
    assert pd["mean_diff"] == pytest.approx(3.0) and pd["std_diff"] == pytest.approx(2.0)
    assert pd["groups_reference_ahead"] == 3 and pd["n_groups"] == 3
    [pc] = M.paired_differences(grouped_records, "hdrr", stat="correct_rate")
    assert pc["mean_diff"] == pytest.approx(0.5)
    assert M.paired_differences(grouped_records, "agentic") == []


def test_routing_breakdown_and_cost(grouped_records):
    rows = {(r["system"], r["routing_status"]): r for r in M.routing_breakdown(grouped_records)}
    ex = rows[("hdrr", "exact_path")]
    assert ex["count"] == 4 and ex["share"] == pytest.approx(4 / 6) and ex["mean_score"] == pytest.approx(9.5)
    assert ex["correct_rate"] == 1.0 and ex["failure_rate"] == 0.0
    fb = rows[("hdrr", "fallback_no_tickers")]
    assert fb["count"] == 2 and fb["mean_score"] == pytest.approx(5.0) and fb["correct_rate"] == 0.0
    assert rows[("cbr", "not_routed")]["share"] == 1.0
    recs = grouped_records + [rec("cbr_llm_ctx", "q0", 0, 7, llm_calls=1, prompt_tokens=900, completion_tokens=50,
                                  context_tokens=2000, latency_ms=30.0)]
    meta = {"variant_llmctx_llm_calls": "120", "variant_llmctx_prompt_tokens": "480000",
            "variant_llmctx_completion_tokens": "6000"}
    cost = {r["system"]: r for r in M.cost_table(recs, meta)}
    assert cost["hdrr"]["llm_calls_per_query"] == 2.0 and cost["cbr"]["context_tokens_per_query"] == 3000.0
    assert cost["hdrr"]["total_llm_calls"] == 12 and cost["hdrr"]["latency_ms_mean"] == 100.0
    assert cost["cbr_llm_ctx"]["index_llm_calls"] == 120 and cost["cbr_llm_ctx"]["index_prompt_tokens"] == 480000
    assert cost["cbr_llm_ctx"]["prompt_tokens_per_query"] == 900.0
    assert cost["hdrr"]["index_llm_calls"] is None


def _ctx(doc, a, b=None):
    return {"doc_id": doc, "page_start": a, "page_end": a if b is None else b}


def test_retrieval_and_coverage():
    r1 = rec("hdrr", "q1", 0, 9, gold_docs=["A"], routed_docs=["A"], context_tokens=100, latency_ms=10.0,
             contexts=[_ctx("A", 3, 4), _ctx("A", 10), _ctx("B", 3)],
             evidence=[{"doc_id": "A", "page": 4}, {"doc_id": "A", "page": 7}])
    r2 = rec("hdrr", "q2", 0, 5, gold_docs=["A", "B"], routed_docs=["A"], context_tokens=300, latency_ms=30.0,
             contexts=[_ctx("A", 1), _ctx("A", 2)], evidence=[{"doc_id": "B", "page": 5}],
             companies=["Acme Widgets", "Borealis Energy"], company_aliases={"Borealis Energy": ["Borealis"]},
             answer="Acme Widgets earned more than Borealis.")
    c1 = rec("cbr", "q1", 0, 3, gold_docs=["A"], contexts=[_ctx("B", 4), _ctx("A", 0, 5)],
             evidence=[{"doc_id": "A", "page": 4}, {"doc_id": "A", "page": 7}], routing_status="not_routed")
    assert M.evidence_page_recall(r1["evidence"], r1["contexts"]) == 0.5
    assert M.evidence_page_recall([], r1["contexts"]) is None
    p2 = M.per_query_retrieval(r2)
    assert p2["exact_routing"] is False and p2["gold_in_routed"] is False
    assert p2["routing_coverage"] == 0.5 and p2["retrieval_coverage"] == 0.5 and p2["evidence_recall"] == 0.0
    assert p2["answer_coverage"] == 1.0
    assert M.per_query_retrieval({**r2, "company_aliases": {}})["answer_coverage"] == 0.5
    t = {r["system"]: r for r in M.retrieval_table([r1, r2, c1])}
    h = t["hdrr"]
    assert h["exact_routing_acc"] == 0.5 and h["gold_in_routed"] == 0.5
    assert h["evidence_recall"] == pytest.approx(0.25) and h["evidence_hit_rate"] == 0.5
    assert h["wrong_doc_chunk_share"] == pytest.approx(1 / 5) and h["mean_contexts"] == 2.5
    assert h["mean_context_tokens"] == 200.0 and h["mean_latency_ms"] == 20.0
    c = t["cbr"]
    assert c["exact_routing_acc"] is None and c["gold_in_routed"] is None  # CBR does not route
    assert c["evidence_recall"] == 0.5 and c["wrong_doc_chunk_share"] == 0.5
    fb = rec("hdrr", "q3", 0, 1, gold_docs=["C"], routing_status="fallback_no_tickers")  # routes, but found nothing
    assert M.retrieval_table([fb])[0]["exact_routing_acc"] == 0.0
    [cov] = M.coverage_table([r1, r2, c1])
    assert cov["system"] == "hdrr" and cov["queries"] == 1
    assert (cov["routing_coverage"], cov["retrieval_coverage"], cov["answer_coverage"]) == (0.5, 0.5, 1.0)
    assert cov["all_routed"] == 0.0 and cov["all_named"] == 1.0 and cov["mean_score"] == 5.0


def test_company_named():
    assert M.company_named("Johnson & Johnson", "Johnson and Johnson spent more")
    assert M.company_named("3M", "3M's capex was higher")
    assert not M.company_named("3M", "13M units were sold")
    assert M.company_named("Corning Incorporated", "Corning had higher sales")
    assert not M.company_named("Nike", "Nikelab is a brand")
    assert M.company_named("Walmart", "WMT led", aliases=["WMT"])


def test_agreement_table():
    pairs = {"hdrr": [(10, 9), (8, 8), (4, 5)], "cbr": [(2, 1), (6, 6), (9, 10)], "sfr": [(3, 2), (3, 3), (5, 4)]}
    recs = [rec(s, f"q{i}", 0, a, score2=b) for s, ps in pairs.items() for i, (a, b) in enumerate(ps)]
    recs.append(rec("hdrr", "q9", 0, 1, score2=1, error="boom"))  # system errors are excluded
    recs.append(rec("hdrr", "q8", 0, 7, score2=None))  # only one judge: excluded
    agr = M.agreement_table(recs)
    per = {r["system"]: r for r in agr["per_system"]}
    assert per["hdrr"]["n"] == 3 and per["hdrr"]["mean_abs_delta"] == pytest.approx(2 / 3)
    assert per["cbr"]["exact_agreement"] == pytest.approx(1 / 3)
    assert agr["overall"]["n"] == 9 and agr["overall"]["within_1"] == 1.0
    assert agr["system_level"]["spearman"] == pytest.approx(1.0)
    assert agr["system_level"]["rank_a"] == ["hdrr", "cbr", "sfr"]
    assert M.agreement_table([rec("hdrr", "q", 0, 5)]) == {}


# ----------------------------------------------------------------------------------------------
# runner pieces with a fake run_query (no index needed)
# ----------------------------------------------------------------------------------------------
def test_runner_utilities(tmp_path):
    assert runfiles.safe_name("plain-id_1.x") == "plain-id_1.x"
    s = runfiles.safe_name("a/b c")
    assert "/" not in s and s.startswith("a_b_c-") and s != runfiles.safe_name("a_b c")
    assert runner.parse_configurable(["llm=openai/gpt-4.1", "fts_k=30", "sfr_pdf_input=true"]) == {
        "llm": "openai/gpt-4.1", "fts_k": 30, "sfr_pdf_input": True}
    with pytest.raises(ValueError):
        runner.parse_configurable(["novalue"])
    p = tmp_path / "x" / "y.json"
    runfiles.atomic_write_json(p, {"a": 1})
    assert json.loads(p.read_text()) == {"a": 1} and list(p.parent.iterdir()) == [p]


class FakeRunQuery:
    """Stands in for finrag.run_query: counts calls, fails on questions containing 'boom'."""

    def __init__(self):
        self.calls = 0
        self.lock = threading.Lock()
        self.fail = True

    def __call__(self, question, system, *, index_dir=None, qid=None, configurable=None):
        with self.lock:
            self.calls += 1
        if self.fail and "boom" in question:
            raise RuntimeError("kaput")
        return {"id": qid, "system": system, "question": question, "answer": "Revenue was $5.0 million.",
                "routing": {"status": "exact_path", "routed_docs": ["A_2022_10K"]},
                "contexts": [{"chunk_id": 1, "doc_id": "A_2022_10K", "page_start": 2, "page_end": 3, "score": 1.0,
                              "text": "..."}],
                "cost": {"llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10, "context_tokens": 50},
                "timings_ms": {"total": 5.0}}


def _tiny_dataset(tmp_path: Path) -> Path:
    rows = [{"id": f"t{i}", "question": f"What was revenue {i}?" + (" boom" if i == 3 else ""),
             "answer": "$5.0 million", "doc_id": "A_2022_10K", "evidence_pages": [2]} for i in range(6)]
    return _write_jsonl(tmp_path / "tiny.jsonl", rows)


def test_run_records_errors_and_retries_only_them(tmp_path, monkeypatch):
    fake = FakeRunQuery()
    monkeypatch.setattr(runner, "run_query", fake)
    cfg = runner.EvalConfig(out=str(tmp_path / "run"), dataset=str(_tiny_dataset(tmp_path)), systems=["cbr", "hdrr"],
                            groups=2, per_group=3, progress=False, plots=False, concurrency=2)
    res = runner.run_eval(cfg, log=lambda m: None)
    assert fake.calls == 12 and res["answers"]["errors"] == 2
    bad = json.loads(runfiles.answer_path(cfg.out, "hdrr", "t3").read_text())
    assert "kaput" in bad["error"] and bad["answer"] == ""
    summary = json.loads((Path(cfg.out) / "summary.json").read_text())
    q = {r["system"]: r for r in summary["tables"]["quality"]}
    assert q["hdrr"]["errors"] == 1 and q["hdrr"]["failure_rate"] == pytest.approx(1 / 6)  # error = score 1
    assert q["hdrr"]["perfect_rate"] == pytest.approx(5 / 6)
    fake.fail = False
    res = runner.run_eval(cfg, log=lambda m: None)  # rerun: only the two failed answers again
    assert fake.calls == 14 and res["answers"]["skipped"] == 10 and res["answers"]["errors"] == 0
    assert res["judges"]["offline"]["judged"] == 2 and res["judges"]["offline"]["cached"] == 10


def test_llm_judge_path_with_fake_chat_model(tmp_path, monkeypatch):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from finrag.tools.llm import chat as llm_mod

    fake = FakeRunQuery()
    fake.fail = False
    monkeypatch.setattr(runner, "run_query", fake)
    chat = FakeListChatModel(responses=['{"score": 9, "justification": "matches the gold figure"}'])
    seen = []

    def fake_get_chat_model(role, cfg):
        seen.append((role, cfg.llm))
        return chat

    monkeypatch.setattr(llm_mod, "get_chat_model", fake_get_chat_model)
    cfg = runner.EvalConfig(out=str(tmp_path / "run"), dataset=str(_tiny_dataset(tmp_path)), systems=["hdrr", "cbr"],
                            groups=2, per_group=None, judge="openai/gpt-4.1", judge2="offline", progress=False)
    res = runner.run_eval(cfg, log=lambda m: None)
    assert seen and seen[0] == ("judge", "openai/gpt-4.1")
    j = json.loads(runfiles.judgement_path(cfg.out, "openai/gpt-4.1", "hdrr", "t0").read_text())
    assert j["score"] == 9 and j["justification"] == "matches the gold figure"
    assert res["judges"]["openai/gpt-4.1"]["judged"] == 12 and res["judges"]["offline"]["judged"] == 12
    summary = json.loads((Path(cfg.out) / "summary.json").read_text())
    assert {r["system"] for r in summary["tables"]["agreement"]} == {"hdrr", "cbr", "(all answers)"}
    assert all(r["mean_a"] == 9.0 for r in summary["tables"]["agreement"])
    assert "Cross-evaluator agreement" in (Path(cfg.out) / "report.md").read_text()
    # a rejudge reuses the cache: the fake model is not asked again
    res = runner.run_eval(cfg, log=lambda m: None)
    assert res["judges"]["openai/gpt-4.1"] == {"judged": 0, "cached": 12, "no_gold": 0, "judge_errors": 0}


# ----------------------------------------------------------------------------------------------
# end to end: `finrag eval run` on the demo index
# ----------------------------------------------------------------------------------------------
def test_finrag_eval_run_end_to_end_and_resume(demo_index, demo_qas, tmp_path, monkeypatch, capsys):
    from finrag.cli import main as finrag_main

    data = _write_jsonl(tmp_path / "demo.jsonl", [
        {k: q[k] for k in ("id", "question", "answer", "doc_id", "evidence_pages")} for q in demo_qas])
    out = tmp_path / "run"
    argv = ["eval", "run", "--systems", "cbr,hdrr", "--dataset", str(data), "--groups", "2", "--per-group", "3",
            "--index", str(demo_index), "--out", str(out), "--judge", "offline", "--concurrency", "2", "-q"]
    assert finrag_main(argv) == 0
    groups = json.loads((out / "groups.json").read_text())
    assert [len(g) for g in groups["groups"]] == [3, 3]
    ids = [i for g in groups["groups"] for i in g]
    for system in ("cbr", "hdrr"):
        files = sorted((out / "answers" / system).glob("*.json"))
        assert len(files) == 6
        for f in files:
            a = json.loads(f.read_text())
            assert a["id"] in ids and a["system"] == system and "error" not in a
            assert {"routing", "contexts", "cost", "timings_ms"} <= set(a)
        assert len(list((out / "judgements" / "offline" / system).glob("*.json"))) == 6
    for name in ("report.md", "summary.json", "per_query.csv", "per_query.jsonl", "run.json", "queries.jsonl",
                 "tables/quality.csv", "tables/retrieval.csv", "tables/paired_mean.csv", "tables/cost.json",
                 "plots/score_distributions.png", "plots/cost_vs_quality.png", "plots/paired_differences_mean.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    for heading in ("Answer quality", "Mean score per group", "Paired per-group differences", "Routing status",
                    "Retrieval", "Cost"):
        assert heading in report
    summary = json.loads((out / "summary.json").read_text())
    ret = {r["system"]: r for r in summary["tables"]["retrieval"]}
    assert ret["hdrr"]["exact_routing_acc"] is not None and ret["hdrr"]["evidence_recall"] is not None
    assert len((out / "per_query.csv").read_text().splitlines()) == 13

    # resumable: a second run answers nothing new and rewrites no answer file
    mtimes = {p: p.stat().st_mtime_ns for p in out.glob("answers/*/*.json")}
    counter = {"n": 0}
    real = runner.run_query

    def counting(*a, **k):
        counter["n"] += 1
        return real(*a, **k)

    monkeypatch.setattr(runner, "run_query", counting)
    capsys.readouterr()
    assert finrag_main(argv) == 0
    assert counter["n"] == 0
    assert {p: p.stat().st_mtime_ns for p in out.glob("answers/*/*.json")} == mtimes
    assert "0 new" in capsys.readouterr().out

    # the report can be rebuilt from the files alone
    (out / "report.md").unlink()
    assert finrag_main(["eval", "report", "--out", str(out), "--no-plots"]) == 0
    assert (out / "report.md").is_file()


def test_eval_cli_usage_errors(tmp_path, capsys):
    from finrag.eval.cli import main

    assert main([]) == 2
    assert main(["run", "--systems", "nope", "--dataset", "x", "--out", str(tmp_path)]) == 2
    assert main(["report", "--out", str(tmp_path / "nothing")]) == 2
    data = _write_jsonl(tmp_path / "q.jsonl", _queries(12))
    capsys.readouterr()
    assert main(["groups", "--dataset", str(data), "--groups", "3", "--per-group", "2"]) == 0
    assert "stratified sample of 3 x 2 = 6 of 12" in capsys.readouterr().out
    assert main(["calibrate", "--help"]) == 0
