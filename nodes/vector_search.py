"""vector_search: FAISS top-30 with a distance threshold, scoped by an IDSelector when the graph says so."""
from __future__ import annotations

from finrag.nodes.common import config_of, scope_of, timed
from finrag.tools.runtime import get_store


@timed("vector_search")
def vector_search(state: dict, config=None, *, variant: str = "base", scoped: bool = False) -> dict:
    cfg = config_of(config)
    store = get_store(cfg)
    query = state.get("query") or state.get("question", "")
    vec = store.embedder.embed_query(query)
    hits = store.search_vectors(vec, k=int(cfg.vector_k), doc_ids=scope_of(state, scoped), variant=variant,
                                max_distance=float(cfg.vector_max_distance))
    return {"vector_results": [h.model_dump() for h in hits]}
