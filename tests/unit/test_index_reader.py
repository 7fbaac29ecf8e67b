"""`IndexReader`: both backends offer every member the nodes use, a reader handed in through the run context is
the one the nodes read (`finrag.nodes.common.reader_of` / `registry_of`)."""
from __future__ import annotations

import inspect

import pytest
from support.protocols import assert_member_like
from support.readers import MemoryReader

from finrag.nodes.common import reader_of, registry_of
from finrag.state.configuration import Configuration
from finrag.state.index_reader import IndexReader, VectorView
from finrag.tools.indexing import open_index
from finrag.tools.indexing.milvus.store import MilvusStore
from finrag.tools.indexing.store import Store

ATTRIBUTES = {"index_dir", "embedder"}  # set by each backend's __init__, not on the class


def members(protocol) -> set[str]:
    return {n for n, v in vars(protocol).items()
            if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, property))}


def test_the_protocol_lists_what_the_nodes_read():
    assert members(IndexReader) == {
        "index_dir", "generation", "embedder", "get_meta", "count_documents", "documents", "search_fts",
        "search_vectors", "vector_coverage", "embed_missing", "faiss_index", "chunk_ids_of", "get_chunks", "pages_of",
        "content_hash_of"}
    for name in members(IndexReader) | members(VectorView):
        member = vars(IndexReader).get(name) or vars(VectorView)[name]
        doc = member.fget.__doc__ if isinstance(member, property) else member.__doc__
        assert (doc or "").strip(), name


@pytest.mark.parametrize("backend", [Store, MilvusStore])
def test_both_backends_have_every_member_with_the_same_parameters(backend):
    for name in members(IndexReader) - ATTRIBUTES:
        assert hasattr(backend, name), (backend.__name__, name)
        assert_member_like(getattr(IndexReader, name), getattr(backend, name), (backend.__name__, name))
    init = inspect.getsource(backend.__init__)
    assert all(f"self.{a} =" in init for a in ATTRIBUTES), backend.__name__


def test_an_open_store_and_the_memory_reader_are_index_readers(tmp_path):
    store = Store(tmp_path / "index", create=True)
    try:
        assert isinstance(store, IndexReader)
    finally:
        store.close()
    reader = MemoryReader(tmp_path, {"/c/2023/ACME.pdf": ["Acme Corp annual report"]})
    assert isinstance(reader, IndexReader) and isinstance(reader.faiss_index(), VectorView)

    class PagesOnly:
        def pages_of(self, doc_id):
            return []

    assert not isinstance(PagesOnly(), IndexReader)


def test_the_nodes_read_the_reader_the_run_context_carries(tmp_path):
    reader = MemoryReader(tmp_path, {"/c/2023/ACME.pdf": ["Acme Corp annual report"], "/c/2022/ACME.pdf": []})
    cfg = Configuration(index_reader=reader)
    opened = dict(open_index._STORES)
    assert reader_of(cfg) is reader
    registry = registry_of(cfg)
    assert registry.doc_ids() == ["ACME_2022", "ACME_2023"]
    assert registry_of(cfg, reader) is registry  # built once per generation, and stored next to the index
    assert (tmp_path / open_index.REGISTRY_FILE).exists()
    assert open_index._STORES == opened  # nothing opened for the process

