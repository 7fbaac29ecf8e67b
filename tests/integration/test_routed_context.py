"""HDRR inside a routed filing (issue 23): section labels stored at index time, the question's context plan
in the answer's `retrieval.context`, and `routed_context="paper"` for the paper's adaptive cutoff."""
from __future__ import annotations

import sqlite3

import pytest

from finrag import run_query

pytestmark = pytest.mark.usefixtures("fresh_index")


def test_the_index_stores_a_section_label_for_every_chunk(demo_index):
    db = sqlite3.connect(demo_index / "finrag.sqlite")
    chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    labelled = db.execute("SELECT COUNT(*) FROM chunk_sections s JOIN documents d ON d.doc_id = s.doc_id "
                          "AND d.content_hash = s.content_hash").fetchone()[0]
    assert chunks and labelled == chunks


def test_an_open_question_gets_the_budget_and_says_why(demo_index, demo_qas):
    q = demo_qas[0]
    company = q["company"] if "company" in q else q["question"].split("'")[0]
    question = f"What drove the change in {company}'s operating margin and what are its main risks?"
    res = run_query(question, system="hdrr", index_dir=str(demo_index)).model_dump()
    plan = res["retrieval"]["context"]
    assert plan["rule"] == "budget" and plan["scope"] == "open" and plan["budget_tokens"] == 15000
    assert "mdna" in plan["sections"] and "risk_factors" in plan["sections"] and "drove" in plan["cues"]
    assert plan["chunks"] == len(res["contexts"]) and plan["reason"]
    assert {c["doc_id"] for c in res["contexts"]} <= set(res["routing"]["routed_docs"])
    assert res["cost"]["context_tokens"] <= 15000 + 1000  # the budget, plus at most the first chunk's overshoot


def test_a_line_item_question_keeps_the_cutoff_and_paper_mode_leaves_the_record_out(demo_index, demo_qas):
    q = demo_qas[0]["question"]
    budget = run_query(q, system="hdrr", index_dir=str(demo_index)).model_dump()
    paper = run_query(q, system="hdrr", index_dir=str(demo_index),
                      configurable={"routed_context": "paper"}).model_dump()
    assert "context" not in paper["retrieval"]
    assert budget["routing"] == paper["routing"]
    if budget["retrieval"]["context"]["scope"] == "line_item":
        assert len(budget["contexts"]) <= 10


def test_an_unknown_routed_context_is_a_clear_error(demo_index, demo_qas):
    with pytest.raises(ValueError, match="routed_context"):
        run_query(demo_qas[0]["question"], system="hdrr", index_dir=str(demo_index),
                  configurable={"routed_context": "everything"})


def test_require_keeps_only_the_pointed_sections_and_off_gives_no_bonus(demo_index, demo_qas):
    from finrag.tools.indexing.sections_store import sections_of
    from finrag.tools.indexing.store import Store

    q = demo_qas[0]
    company = q["company"] if "company" in q else q["question"].split("'")[0]
    question = f"What are the main risks {company} describes?"
    res = run_query(question, system="hdrr", index_dir=str(demo_index),
                    configurable={"section_rule": "require"}).model_dump()
    plan = res["retrieval"]["context"]
    assert plan["section_rule"] == "require" and "risk_factors" in plan["sections"]
    store = Store(demo_index)
    labels = {}
    for doc in res["routing"]["routed_docs"]:
        labels.update(sections_of(store, doc))
    if plan["boosted"]:  # the filing has such sections: every hit is inside one (expansion may add neighbours)
        hits = [c for c in res["contexts"] if c["chunk_id"] in labels]
        assert any(set(labels[c["chunk_id"]]) & set(plan["sections"]) for c in hits)
    off = run_query(question, system="hdrr", index_dir=str(demo_index),
                    configurable={"section_rule": "off"}).model_dump()["retrieval"]["context"]
    assert off["section_rule"] == "off" and off["boosted"] == 0
    with pytest.raises(ValueError, match="section_rule"):
        run_query(question, system="hdrr", index_dir=str(demo_index), configurable={"section_rule": "must"})
