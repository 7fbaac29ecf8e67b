"""fts_search: BM25 over SQLite FTS5 (top-20 by default), scoped to routed documents when the graph says so."""
from __future__ import annotations

from finrag.nodes.common import config_of, scope_of, timed
from finrag.tools.runtime import get_store


@timed("fts_search")
def fts_search(state: dict, config=None, *, variant: str = "base", scoped: bool = False) -> dict:
    cfg = config_of(config)
    store = get_store(cfg)
    text = " ".join(state.get("keywords") or []) or state.get("query") or state.get("question", "")
    hits = store.search_fts(text, k=int(cfg.fts_k), doc_ids=scope_of(state, scoped), variant=variant)
    return {"fts_results": [h.model_dump() for h in hits]}
