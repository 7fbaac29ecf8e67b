"""The searches' hits as the graph state's dicts (issue 37): `Store.search_fts_dicts` / `search_vectors_dicts`
are `[h.model_dump() for h in search_fts(...)]` / `search_vectors(...)` exactly, and `fts_hits` / `vector_hits`
use them only for the Store's own searches."""
from __future__ import annotations

import numpy as np
import pytest

from finrag.state.schema import RetrievedChunk
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_search import hit_dict, with_fields
from finrag.tools.retrieval.question_search import fts_hits, hit_dicts, vector_hits


@pytest.fixture
def store(demo_index):
    s = Store(demo_index)
    s.check_embedder(get_embedder())
    yield s
    s.close()


def same(dicts: list[dict], hits: list[RetrievedChunk]) -> bool:
    """Equal values, equal key order, equal float bits (a distance is compared as it is, not approximately)."""
    want = [h.model_dump() for h in hits]
    return dicts == want and [list(d) for d in dicts] == [list(d) for d in want] and all(
        repr(a[k]) == repr(b[k]) for a, b in zip(dicts, want) for k in a)


@pytest.mark.parametrize("variant", ["base", "meta"])
def test_the_dict_searches_are_the_model_searches_dumped(store, variant):
    docs = [d.doc_id for d in store.documents()]
    vec = store.embedder.embed_query("total revenue and net income")
    for scope in (None, docs[:1], docs):
        for query, k in (("revenue", 20), ("total net income operating cash flow 2022", 300), ("zebracorn", 5)):
            assert same(store.search_fts_dicts(query, k=k, doc_ids=scope, variant=variant),
                        store.search_fts(query, k=k, doc_ids=scope, variant=variant))
        for k, cut in ((30, None), (400, 1.2), (10, 0.0)):
            assert same(store.search_vectors_dicts(vec, k=k, doc_ids=scope, variant=variant, max_distance=cut),
                        store.search_vectors(vec, k=k, doc_ids=scope, variant=variant, max_distance=cut))
    assert store.search_fts_dicts("revenue", k=5, doc_ids=[]) == [] == store.search_vectors_dicts(vec, k=5, doc_ids=[])


def test_with_fields_is_model_copy():
    chunk = RetrievedChunk(chunk_id=7, doc_id="ACME_2023", page_start=1, page_end=2, text="Revenue was $5 million.")
    update = {"score": 0.5, "vector_rank": 3, "vector_distance": float(np.sqrt(0.25))}
    want, got = chunk.model_copy(update=update), with_fields(chunk, update)
    assert got == want and got.model_fields_set == want.model_fields_set and got.__dict__ == want.__dict__
    assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
    assert hit_dict(chunk, update) == want.model_dump() and chunk.score == 0.0  # the shared chunk is not changed
    got.score = 1.0
    assert want.score == 0.5 and chunk.score == 0.0


def test_the_nodes_helpers_use_the_dict_search_only_for_the_stores_own(store, monkeypatch):
    docs = [d.doc_id for d in store.documents()]
    vec = store.embedder.embed_query("revenue")
    assert fts_hits(store, "revenue", 20, docs, "base") == hit_dicts(store.search_fts("revenue", 20, docs))
    assert vector_hits(store, vec, 20, docs, "base", None) == hit_dicts(store.search_vectors(vec, 20, docs))
    own = store.search_fts

    def replaced(*args, **kwargs):  # a search replaced on the object: the helpers call it, not the dict search
        return own(*args, **kwargs)[:1]

    monkeypatch.setattr(store, "search_fts", replaced)
    assert len(fts_hits(store, "revenue", 20, docs, "base")) == 1

    class Counting(Store):
        def search_vectors(self, *args, **kwargs):
            return super().search_vectors(*args, **kwargs)[:2]

    other = Counting(store.index_dir)
    try:
        other.check_embedder(get_embedder())
        assert len(vector_hits(other, vec, 20, docs, "base", None)) == 2
    finally:
        other.close()
