"""vector_search: FAISS top-30 with a distance threshold, scoped by an IDSelector when the graph says so."""
from __future__ import annotations

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, scope_of, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.runtime import get_store


@timed("vector_search")
def vector_search(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
                  scoped: bool = False) -> dict:
    """Nearest chunks to the embedded query (else the question) within the distance cut, into `vector_results`."""
    cfg = configuration(runtime)
    store = get_store(cfg)
    query = state.get("query") or state.get("question", "")
    vec = store.embedder.embed_query(query)
    hits = store.search_vectors(vec, k=int(cfg.vector_k), doc_ids=scope_of(state, scoped), variant=variant,
                                max_distance=float(cfg.vector_max_distance))
    return {"vector_results": [h.model_dump() for h in hits]}
