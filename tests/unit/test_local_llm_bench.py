"""bench/local_llm.py's report (issue 51): each answer's finish reason is recorded, per answer and per system, and
a plain-text answer cut at its limit counts as an answer (finish_reason 'length'), not as a stopped run."""
from __future__ import annotations

from bench.local_llm import summarise_answers, summary_of


def _answer(qid: str, finish: str | None, text: str, completion: int) -> dict:
    calls = [{"role": "generator", "model": "gemma-3-270m", "prompt_tokens": 900, "completion_tokens": completion}]
    if finish:
        calls[0]["finish_reason"] = finish
    a = {"id": qid, "system": "cbr", "answer": text, "cost": {"calls": calls}}
    if finish:
        a["finish_reason"] = finish
    return a


def test_each_answer_has_its_finish_reason_and_cut_answers_count_as_answers():
    long = "Revenue was $1 " * 200 + "(cut at 1,024 tokens)"
    lines = [_answer("q1", "stop", "Revenue was $12.3 million [1].", 12), _answer("q2", "length", long, 1024),
             {"id": "q3", "system": "cbr", "answer": "offline answer", "cost": {"calls": []}}]
    row = summarise_answers(lines, {})
    assert row["finish_reasons"] == {"stop": 1, "length": 1, "none": 1}
    assert [(a["id"], a["finish_reason"], a["generator_completion_tokens"]) for a in row["per_answer"]] == [
        ("q1", "stop", 12), ("q2", "length", 1024), ("q3", "none", 0)]
    assert row["per_answer"][0]["answer"] == "Revenue was $12.3 million [1]."
    cut = row["per_answer"][1]["answer"]
    assert len(cut) < 400 and cut.endswith("(cut at 1,024 tokens)")  # its start and its end, where it says so
    assert row["roles"]["generator"]["calls_above_limit"] == 0  # 1024 is the generator's limit, not above it
    summary = summary_of({"demo": {"cbr": {"exit": 0, **row}}})
    assert summary["answers_cut_at_the_limit"] == 1 and summary["systems_answering"] == 1
    assert summary["llm_errors"] == 0 and summary["runs_stopped_by_an_llm_error"] == 0
