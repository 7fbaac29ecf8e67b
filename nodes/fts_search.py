"""fts_search: BM25 over SQLite FTS5 (top-20 by default; inside routed filings `routed_candidates`, see
`candidates_k`), scoped to routed documents when the graph says so.

A scoped search leaves out the keywords that only name the routed company (`without_company_words`)."""
from __future__ import annotations

from langgraph.runtime import Runtime

from finrag.nodes.common import candidates_k, configuration, scope_of, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.retrieval.query_rewrite import without_company_words
from finrag.tools.runtime import get_store


@timed("fts_search")
def fts_search(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
               scoped: bool = False) -> dict:
    """BM25 candidates for the keywords (else the query, else the question) into `fts_results`."""
    cfg = configuration(runtime)
    store = get_store(cfg)
    scope = scope_of(state, scoped)
    keywords = list(state.get("keywords") or [])
    if scope:  # inside the routed filings the company's own name is no search term
        keywords = without_company_words(keywords, state.get("question", ""), state.get("extracted"))
    text = " ".join(keywords) or state.get("query") or state.get("question", "")
    k = candidates_k(cfg, scope, cfg.fts_k, state.get("question", ""))
    hits = store.search_fts(text, k=k, doc_ids=scope, variant=variant)
    return {"fts_results": [h.model_dump() for h in hits]}
