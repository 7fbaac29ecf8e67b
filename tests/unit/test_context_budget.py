"""The routed filing's context plan (tools/question/section_intent.py, context_budget.py) and the
per-question-type retrieval table of `finrag eval`."""
from __future__ import annotations

from finrag.tools.question.section_intent import question_scope, sections_for
from finrag.tools.retrieval.context_budget import expansion_ids, fill_budget, plan_context, prefer_sections


def chunk(cid: int, score: float, chars: int = 400, doc: str = "D") -> dict:
    return {"chunk_id": cid, "doc_id": doc, "rerank_score": score, "score": score, "text": "word " * (chars // 5)}


def test_questions_point_to_the_sections_where_their_answers_sit():
    assert [k for k, _ in sections_for("What drove operating margin change as of FY2022 for 3M?")] == ["mdna"]
    keys = [k for k, _ in sections_for("Has CVS reported any materially important ongoing legal battles?")]
    assert keys[:2] == ["legal_proceedings", "contingencies"]
    assert "acquisitions" in [k for k, _ in sections_for("What are major acquisitions Best Buy has done in FY2023?")]
    assert "business" in [k for k, _ in sections_for("Who are the primary customers of Boeing as of FY2022?")]
    assert sections_for("What is the FY2018 capital expenditure amount for 3M?") == []


def test_line_item_questions_keep_the_cutoff_and_open_ones_get_the_budget():
    assert question_scope("What is the FY2018 capital expenditure amount for 3M?", True) == "line_item"
    assert question_scope("What is the FY2019 - FY2020 total revenue growth rate for Block?", True) == "line_item"
    assert question_scope("What drove gross margin change as of FY2022 for JnJ?", True) == "open"
    assert question_scope("Who are the primary customers of Boeing?", False) == "open"
    plan = plan_context("What drove operating margin change for 3M?", budget_tokens=15000, floor=0.5,
                        section_weight=0.1, expand_top=3)
    assert plan["scope"] == "open" and plan["budget_tokens"] == 15000 and plan["sections"] == ["mdna"]
    assert "drove" in plan["reason"] and "15000" in plan["reason"]
    line = plan_context("What is 3M's FY2018 capex?", budget_tokens=15000, floor=0.5, section_weight=0.1,
                        expand_top=3)
    assert line["scope"] == "line_item" and line["budget_tokens"] is None and line["expand_top"] == 0


def test_the_budget_is_spent_in_score_order_down_to_the_floor():
    ranked = [chunk(1, 1.0), chunk(2, 0.9), chunk(3, 0.8), chunk(4, 0.4), chunk(5, 0.35)]
    ids = [c["chunk_id"] for c in fill_budget(ranked, budget_tokens=10_000, floor=0.5)]
    assert ids == [1, 2, 3]  # chunk 4 is below half the top score
    ids = [c["chunk_id"] for c in fill_budget(ranked, budget_tokens=10_000, floor=0.5, always={5})]
    assert ids == [1, 2, 3]  # the floor stops at 4 before 5 is reached
    ranked2 = [chunk(1, 1.0), chunk(5, 0.1), chunk(2, 0.9)]
    assert [c["chunk_id"] for c in fill_budget(ranked2, 10_000, 0.5, always={5})] == [1, 5, 2]
    small = fill_budget([chunk(i, 1.0, chars=2000) for i in range(10)], budget_tokens=450, floor=0.0)
    assert 1 <= len(small) < 10  # each chunk costs ~400 tokens
    assert [c["chunk_id"] for c in fill_budget([chunk(7, 1.0, chars=90_000)], 10, 0.0)] == [7]  # never empty


def test_expansion_brings_the_neighbours_and_the_section_heading_once():
    labels = {10: ("business", None), 11: ("financial_statements", "debt"), 12: ("financial_statements", "debt"),
              13: ("financial_statements", "debt"), 14: ("financial_statements", "debt")}
    order = [10, 11, 12, 13, 14]
    assert expansion_ids({"chunk_id": 14}, labels, order) == [11, 13]  # heading of the debt note, then before
    assert expansion_ids({"chunk_id": 12}, labels, order) == [11, 13]  # heading is also the previous chunk
    assert expansion_ids({"chunk_id": 99}, labels, order) == []
    by_id = {i: chunk(i, 0.0) for i in order}
    ranked = [chunk(14, 1.0), chunk(10, 0.9)]
    kept = fill_budget(ranked, 10_000, 0.5, extra=lambda c, pos: [by_id[i] for i in expansion_ids(c, labels, order)]
                       if pos == 0 else [])
    assert [c["chunk_id"] for c in kept] == [14, 11, 13, 10]


def test_chunks_inside_the_preferred_sections_get_the_bonus():
    cands = [chunk(1, 0.5), chunk(2, 0.55)]
    n = prefer_sections(cands, {1: ("mdna", None), 2: ("risk_factors", None)}, ["mdna"], 0.1)
    assert n == 1 and abs(cands[0]["rerank_score"] - 0.6) < 1e-9 and cands[1]["rerank_score"] == 0.55
    assert cands[0]["section"] == {"item": "mdna", "note": None}
    assert prefer_sections([chunk(3, 0.5)], {}, ["mdna"], 0.1) == 0


def test_the_evaluation_reports_retrieval_per_question_type():
    from finrag.eval import metrics as M

    def rec(i, qtype, hit, tokens):
        return {"system": "hdrr", "id": str(i), "question_type": qtype, "gold_docs": ["D"], "routed_docs": ["D"],
                "routing_status": "exact_path", "evidence": [{"doc_id": "D", "page": 3}], "context_tokens": tokens,
                "contexts": [{"doc_id": "D", "page_start": 3 if hit else 9, "page_end": 3 if hit else 9}]}
    rows = M.retrieval_by_type_table([rec(0, "metrics-generated", True, 5000), rec(1, "domain-relevant", False, 14000),
                                      rec(2, "domain-relevant", True, 12000)])
    by = {r["question_type"]: r for r in rows}
    assert by["metrics-generated"]["evidence_hit_rate"] == 1.0 and by["domain-relevant"]["evidence_hit_rate"] == 0.5
    assert by["domain-relevant"]["mean_context_tokens"] == 13000
    assert M.retrieval_by_type_table([{**rec(0, "x", True, 1), "question_type": None}]) == []
