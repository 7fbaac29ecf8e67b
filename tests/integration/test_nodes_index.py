"""The nodes that need an index, one at a time on hand-made states over the demo index: extract_metadata,
resolve_docs, fts_search, vector_search (whole corpus and scoped) and verify's offline verdict. The index is
opened once here (`open_reader`) and handed to every run as `Configuration(index_reader=...)`; only the last
test reads the process's own cache (`open_index`), as a run without a reader does."""
from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from finrag.nodes import extract_metadata, fts_search, resolve_docs, vector_search, verify
from finrag.nodes.common import reader_of
from finrag.state.configuration import Configuration
from finrag.tools.indexing import open_index

QUESTION = "What was Acme Widgets' total revenue in FY2022?"
GOLD = "ACMEWIDGETS_2022_10K"


@pytest.fixture(scope="module")
def reader(demo_index):
    store = open_index.open_reader(Configuration(index_dir=str(demo_index)))
    yield store
    store.close()


@pytest.fixture
def run(demo_index, reader):
    def make(**values) -> Runtime[Configuration]:
        return Runtime(context=Configuration(index_dir=str(demo_index), index_reader=reader, **values))

    return make


def test_extract_metadata_and_resolve_docs_route_to_the_filing(run):
    extracted = extract_metadata({"question": QUESTION}, run())
    assert 2022 in extracted["extracted"]["years"] and extracted["llm_calls"] == []
    routed = resolve_docs({"question": QUESTION, **extracted}, run())
    assert routed["routed_docs"] == [GOLD] and routed["routing_status"] == "exact_path"
    assert routed["routing_reason"]


def test_resolve_docs_uses_the_configured_default_year(run):
    state = {"question": "What was Acme Widgets' total revenue?"}
    state.update(extract_metadata(state, run()))
    assert resolve_docs(state, run())["routed_docs"] == ["ACMEWIDGETS_2023_10K"]
    assert resolve_docs(state, run(default_year=2022))["routed_docs"] == [GOLD]


def test_fts_search_takes_the_configured_k_and_respects_the_scope(run):
    from finrag.tools.retrieval.query_rewrite import offline_rewrite

    own = offline_rewrite(QUESTION).keywords  # the offline rewrite: one search, as before issue 38
    state = {"question": QUESTION, "keywords": own, "routed_docs": [GOLD]}
    hits = fts_search(state, run(fts_k=5))["fts_results"]
    assert 0 < len(hits) <= 5 and len({h["doc_id"] for h in hits}) > 1
    assert [h["fts_rank"] for h in hits] == list(range(1, len(hits) + 1))
    # another rewrite: its top k and the question's own top k, fused (issue 38: a rewrite only adds)
    both = fts_search({**state, "keywords": ["total", "revenue"]}, run(fts_k=5))["fts_results"]
    assert len(both) <= 10 and {h["chunk_id"] for h in hits} <= {h["chunk_id"] for h in both}
    scoped = fts_search(state, run(), scoped=True)["fts_results"]
    assert scoped and {h["doc_id"] for h in scoped} == {GOLD}


def test_vector_search_takes_the_configured_k_and_respects_the_scope(run):
    from finrag.tools.retrieval.query_rewrite import offline_rewrite

    state = {"question": QUESTION, "query": offline_rewrite(QUESTION).query, "routed_docs": [GOLD]}
    hits = vector_search(state, run(vector_k=4))["vector_results"]
    assert 0 < len(hits) <= 4
    both = vector_search({**state, "query": "Acme Widgets total revenue fiscal 2022"}, run(vector_k=4))["vector_results"]
    assert len(both) <= 8 and {h["chunk_id"] for h in hits} <= {h["chunk_id"] for h in both}
    assert all(h["vector_distance"] <= 1.25 for h in hits)
    scoped = vector_search(state, run(), scoped=True)["vector_results"]
    assert scoped and {h["doc_id"] for h in scoped} == {GOLD}
    assert vector_search(state, run(vector_max_distance=0.0))["vector_results"] == []


def test_verify_offline_checks_the_owner_of_the_top_chunks(run):
    state = {"question": QUESTION, "keywords": ["total", "revenue"]}
    state.update(extract_metadata(state, run()))
    right = [{"chunk_id": 1, "doc_id": GOLD, "page_start": 0, "page_end": 0, "text": "revenue"}]
    wrong = [{**right[0], "doc_id": "BOREALISENERGY_2022_10K"}]
    ok = verify({**state, "reranked": right}, run())
    assert ok["verification"]["belongs"] is True and ok["verification"]["retry"] is False and ok["retries"] == 0
    bad = verify({**state, "reranked": wrong}, run())
    assert bad["verification"]["belongs"] is False and bad["verification"]["retry"] is True and bad["retries"] == 1
    capped = verify({**state, "reranked": wrong, "retries": 2}, run())
    assert capped["verification"]["retry"] is False and capped["retries"] == 2
    assert verify({**state, "reranked": wrong}, run(max_retries=0))["verification"]["retry"] is False


def test_a_run_without_a_reader_opens_the_index_once_per_process(demo_index, reader):
    cfg = Configuration(index_dir=str(demo_index))
    try:
        shared = reader_of(cfg)
        assert shared is not reader and reader_of(Configuration(index_dir=str(demo_index))) is shared
        state = {"question": QUESTION, "keywords": ["total", "revenue"], "routed_docs": [GOLD]}
        own = fts_search(state, Runtime(context=Configuration(index_dir=str(demo_index), index_reader=reader)),
                         scoped=True)
        assert fts_search(state, Runtime(context=cfg), scoped=True)["fts_results"] == own["fts_results"]
    finally:
        open_index.reset()
