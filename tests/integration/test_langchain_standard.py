"""LangChain's own standard tests (langchain-tests' `RetrieversIntegrationTests`) against `finrag.retriever`,
on the embedded demo index and on the same index in Milvus Lite, plus what the suite does not check: unknown
arguments are one clear error and the graph's node runs nest under the retriever run."""
from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_tests")

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler  # noqa: E402
from langchain_tests.integration_tests import RetrieversIntegrationTests  # noqa: E402

from finrag.langchain_retriever import FinragRetriever  # noqa: E402
from finrag.tools.indexing import open_index  # noqa: E402

HDRR_RETRIEVAL = ["resolve_question", "extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank"]


@pytest.fixture(scope="module")
def milvus_demo_index(tmp_path_factory, demo_index) -> str:
    """The demo index copied into Milvus Lite with `finrag copy` (skips without the `milvus` extra)."""
    pytest.importorskip("pymilvus")
    pytest.importorskip("milvus_lite")
    from finrag.cli import main

    loc = f"milvus:{tmp_path_factory.mktemp('milvus') / 'standard.db'}"
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    return loc


def _question(demo_qas) -> str:
    return next(q for q in demo_qas if q["question_type"] == "metric_lookup")["question"]


class TestEmbeddedRetrieverStandard(RetrieversIntegrationTests):
    """The standard suite on the embedded (directory) demo index."""

    @pytest.fixture(autouse=True)
    def _index(self, demo_index, demo_qas):
        self.where, self.query = str(demo_index), _question(demo_qas)
        yield
        open_index.reset()

    @property
    def retriever_constructor(self) -> type[FinragRetriever]:
        return FinragRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"system": "hdrr", "index": self.where}

    @property
    def retriever_query_example(self) -> str:
        return self.query


class TestMilvusRetrieverStandard(TestEmbeddedRetrieverStandard):
    """The standard suite on the demo index in Milvus Lite."""

    @pytest.fixture(autouse=True)
    def _index(self, milvus_demo_index, demo_qas):
        self.where, self.query = milvus_demo_index, _question(demo_qas)
        yield
        open_index.reset()


class _Runs(BaseCallbackHandler):
    """Records (name, run_id, parent_run_id) of every chain and retriever run."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, Any, Any]] = []

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kw):
        self.runs.append(("<retriever>", run_id, parent_run_id))

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
        self.runs.append((kw.get("name") or "", run_id, parent_run_id))


class _AsyncRuns(_Runs, AsyncCallbackHandler):
    """The same, as an async handler (the async path's callbacks)."""

    async def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kw):
        _Runs.on_retriever_start(self, serialized, query, run_id=run_id, parent_run_id=parent_run_id)

    async def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
        _Runs.on_chain_start(self, serialized, inputs, run_id=run_id, parent_run_id=parent_run_id, **kw)


def _nested_nodes(runs) -> tuple[list[str], list[str]]:
    """The node runs directly under the graph run that is directly under the retriever run."""
    retriever_id = next(rid for name, rid, _ in runs if name == "<retriever>")
    graph = [(name, rid) for name, rid, parent in runs if parent == retriever_id]
    nodes = [name for name, _, parent in runs if graph and parent == graph[0][1]]
    return [name for name, _ in graph], [n for n in nodes if not n.startswith("route_")]


def test_node_runs_nest_under_the_retriever_run(demo_index, demo_qas):
    r = FinragRetriever(index=str(demo_index), tags=["mine"])
    handler = _Runs()
    docs = r.invoke(_question(demo_qas), {"callbacks": [handler], "tags": ["t"]})
    assert docs
    graph, nodes = _nested_nodes(handler.runs)
    assert graph == ["hdrr"] and nodes == HDRR_RETRIEVAL  # stops after rerank: no generate run


async def test_async_path_is_native_and_nests(demo_index, demo_qas, monkeypatch):
    r = FinragRetriever(index=str(demo_index), k=2)

    def no_sync(*a, **kw):
        raise AssertionError("ainvoke ran the synchronous path")

    monkeypatch.setattr(FinragRetriever, "_get_relevant_documents", no_sync)
    handler = _AsyncRuns()
    docs = await r.ainvoke(_question(demo_qas), {"callbacks": [handler]})
    assert len(docs) == 2
    assert _nested_nodes(handler.runs) == (["hdrr"], HDRR_RETRIEVAL)


def test_k_default_is_the_adaptive_cutoff_and_k_is_exact(demo_index, demo_qas):
    q = _question(demo_qas)
    default = FinragRetriever(index=str(demo_index)).invoke(q)
    assert 1 <= len(default) <= 10
    for k in (1, 3, 7):
        docs = FinragRetriever(index=str(demo_index), k=k).invoke(q)
        assert len(docs) == k
        assert [d.metadata["score"] for d in docs] == sorted((d.metadata["score"] for d in docs), reverse=True)
    assert FinragRetriever(index=str(demo_index), k=7).invoke(q, k=2) == \
        FinragRetriever(index=str(demo_index)).invoke(q, k=2)


def test_unknown_arguments_are_one_clear_error(demo_index, demo_qas):
    import finrag

    r = finrag.retriever(index=str(demo_index))
    cases = [(lambda: r.invoke(_question(demo_qas), bogus=True), "unknown argument(s): bogus; it takes k"),
             (lambda: FinragRetriever(foo="bar"), "unknown argument(s): foo;"),
             (lambda: finrag.retriever(index=str(demo_index), foo=1), "unknown argument(s): foo;"),
             (lambda: FinragRetriever(k=0), "k must be a positive integer"),
             (lambda: r.invoke(_question(demo_qas), k="3"), "k must be a positive integer"),
             (lambda: FinragRetriever(system="sfr"), "supports the systems")]
    for call, message in cases:
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        assert message in str(info.value) and len(str(info.value).splitlines()) == 1
