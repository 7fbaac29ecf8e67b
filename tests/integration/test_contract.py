"""Real answers on the demo index validate against the contract model (`finrag.state.contract.Answer`),
and the model reproduces them exactly; every routing status they carry is a documented one."""
from __future__ import annotations

import json

import pytest

from finrag import SYSTEMS, run_query
from finrag.state.contract import ROUTED_STATUSES, ROUTING_STATUSES, Answer

pytestmark = pytest.mark.usefixtures("fresh_index")


def check(res: Answer | dict) -> Answer:
    if not isinstance(res, dict):  # run_query returns the model itself, readable as the dict it replaces
        assert isinstance(res, Answer)
        assert json.dumps(res.model_dump()) == json.dumps(dict(res.items())) == json.dumps({k: res[k] for k in res})
        res = res.model_dump()
    answer = Answer.model_validate(res)
    assert json.dumps(answer.to_dict()) == json.dumps(res)  # same keys, order and values
    assert answer.routing.status in ROUTING_STATUSES, answer.routing.status
    assert bool(answer.routing.routed_docs) == (answer.routing.status in ROUTED_STATUSES), answer.routing
    for c in answer.contexts:
        assert c.page_start is not None and c.page_end is not None and 0 <= c.page_start <= c.page_end
    assert answer.timings_ms["total"] > 0
    assert answer.cost.llm_calls == len([c for c in answer.cost.calls if c.model != "error"])
    return answer


@pytest.mark.parametrize("system", SYSTEMS)
def test_run_query_answers_validate(demo_index, demo_qas, system):
    q = demo_qas[0]
    answer = check(run_query(q["question"], system=system, index_dir=str(demo_index), qid=q["id"]))
    assert answer.id == q["id"] and answer.system == system and answer.answer.strip()
    assert (answer.verification is not None) == (system == "agentic")
    if system == "sfr":  # whole pages: no chunk ids, one page each
        assert answer.contexts and all(c.chunk_id is None and c.page_start == c.page_end for c in answer.contexts)
    else:
        assert all(isinstance(c.chunk_id, int) for c in answer.contexts)
    if system in ("sfr", "hdrr"):
        assert answer.routing.status == "exact_path" and answer.routing.routed_docs == [q["doc_id"]]
        assert q["evidence_pages"][0] in {p for c in answer.contexts for p in range(c.page_start, c.page_end + 1)}
    else:
        assert answer.routing.status == "not_routed" and answer.routing.routed_docs == []
    assert answer.routing.extracted or system in ("cbr", "cbr_meta", "cbr_llm_ctx")


@pytest.mark.parametrize("question,status", [
    ("What was the total revenue of Acme Widgets and Cobalt Software in FY2023?", "multi_doc"),
    ("What was Acme Widgets' total revenue?", "default_year"),
    ("What was total revenue in FY2022?", "which_company"),
    ("What was Acme Widgets' total revenue in FY2015?", "period_not_in_index"),
    ("What was Acme Widgets' total revenue in FY2021?", "comparative_period"),
    ("What was Globex Corporation's total revenue in FY2023?", "company_not_indexed"),
])
def test_routing_statuses_on_the_demo(demo_index, question, status):
    answer = check(run_query(question, system="hdrr", index_dir=str(demo_index)))
    assert answer.routing.status == status, answer.routing


def test_batch_lines_validate(demo_index, demo_qas, tmp_path, capsys):
    from finrag.cli import main

    src, out = tmp_path / "questions.jsonl", tmp_path / "answers.jsonl"
    src.write_text("\n".join(json.dumps({"id": i, "question": q["question"]})
                             for i, q in [("a", demo_qas[0]), (2, demo_qas[1])]) + "\n", encoding="utf-8")
    assert main(["batch", "--index", str(demo_index), "--system", "hdrr", "--in", str(src), "--out", str(out), "-q"]) == 0
    answers = [check(json.loads(line)) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [a.id for a in answers] == ["a", "2"]
