"""vector_search: nearest chunks (top-30 within a distance cut), scoped to the routed filings when the graph says so.

Filings whose vectors are not stored yet (`finrag index` stores text first and embeds after) are
BM25-only: a scoped search (HDRR) embeds its routed filings on demand when `embed_on_demand` is on
(stored, so the next question finds them), a corpus-wide one searches the filings that have vectors.
`vector_status` says which case the run was in; the answer carries it as `retrieval`.
The question is always searched: an LLM rewrite's query and the question's own offline query are two
vector searches fused by RRF (`finrag.tools.retrieval.question_search`), so a bad rewrite can only add.
"""
from __future__ import annotations

from typing import cast

from langgraph.runtime import Runtime

from finrag.nodes.common import candidates_k, configuration, reader_of, scope_of, timed
from finrag.state.configuration import Configuration
from finrag.state.contract import Retrieval, VectorCoverage
from finrag.state.graph_state import FinragState, VectorStatusRecord
from finrag.tools.retrieval.query_vectors import query_vector
from finrag.tools.retrieval.question_search import fuse_hit_lists, query_texts, vector_hits

LISTED = 20  # at most this many filings without vectors are named in the status


def coverage_status(missing: list[str], total: int, embedded: list[str], scoped: bool,
                    error: str = "") -> VectorStatusRecord:
    """The `retrieval` record of an answer: were the searched filings' vectors there?"""
    vectors: VectorCoverage
    if not missing:
        vectors = "embedded_on_demand" if embedded else "complete"
        note = (f"embedded {len(embedded)} filing(s) on demand: {', '.join(embedded)}" if embedded else "")
    else:
        vectors = "none" if len(missing) >= total else "partial"
        where = "the routed filing(s)" if scoped else f"{len(missing)} of {total} filings"
        note = (f"no vectors yet for {where}: retrieval for them was BM25 only; "
                "`finrag index --embed` (or the running index) adds them")
        if error:
            note += f" (embedding on demand failed: {error})"
    return cast(VectorStatusRecord, Retrieval(vectors=vectors, missing_vectors=missing[:LISTED],
                                              missing_count=len(missing), embedded_on_demand=embedded,
                                              note=note).model_dump())


@timed("vector_search")
def vector_search(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
                  scoped: bool = False) -> dict:
    """Nearest chunks to the embedded query (else the question) and to the question's own offline query,
    within the distance cut, fused, into `vector_results`."""
    cfg = configuration(runtime)
    store = reader_of(cfg)
    scope = scope_of(state, scoped)
    missing, total = store.vector_coverage(scope)
    embedded: list[str] = []
    error = ""
    if missing and scope is not None and cfg.embed_on_demand:
        try:
            embedded = store.embed_missing(missing)
        except Exception as exc:  # the BM25 half still answers; the status says what happened
            error = f"{type(exc).__name__}: {str(exc)[:120]}"
        missing = [d for d in missing if d not in embedded]
    hits: list[dict] = []
    if len(missing) < total:
        k = candidates_k(cfg, scope, cfg.vector_k, state)
        cut = cfg.vector_max_distance
        lists = [vector_hits(store, query_vector(store.embedder, text), k=k, doc_ids=scope, variant=variant,
                             max_distance=cut)
                 for text in query_texts(state, cfg.retry_prefix)]
        hits = fuse_hit_lists(lists, "vector_rank", k=cfg.rrf_k)
    return {"vector_results": hits,
            "vector_status": coverage_status(missing, total, embedded, scope is not None, error)}
