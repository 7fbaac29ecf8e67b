"""rerank: score the fused candidates and keep the top with the adaptive cutoff.

For a multi-document route, candidates are reranked and cut per routed document
(each gets an equal share of `max_chunks`), so every company keeps its chunks.
When a scoped graph (HDRR) found no route, `fallback_scope="top_document"` keeps
only the chunks of the filing with the highest total score among the top ten
instead of a mixture of filings (`corpus` is the paper's). Inside routed filings the keywords that only
name the routed company are left out of the keyword coverage (`without_company_words`), and the cutoff's
cliff is `routed_rerank_cliff` (0.25) instead of `rerank_cliff` (0.15): every candidate there comes from a
routed filing, so a wider cut lets in no other company's chunks.
"""
from __future__ import annotations

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.retrieval.cutoff import adaptive_cutoff
from finrag.tools.retrieval.query_rewrite import without_company_words
from finrag.tools.retrieval.rerankers import get_reranker
from finrag.tools.runtime import get_store


def only_top_document(candidates: list[dict], top: int = 10) -> list[dict]:
    """The candidates of the one document with the largest score mass among the top `top`."""
    mass: dict[str, float] = {}
    for c in sorted(candidates, key=lambda c: -c["rerank_score"])[:top]:
        mass[c["doc_id"]] = mass.get(c["doc_id"], 0.0) + c["rerank_score"]
    best = max(mass, key=mass.get)
    return [c for c in candidates if c["doc_id"] == best]


@timed("rerank")
def rerank(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
           scoped: bool = False) -> dict:
    """Score `fused` with the configured reranker and keep the adaptive cutoff's chunks in `reranked`."""
    cfg = configuration(runtime)
    candidates = list(state.get("fused") or [])
    if not candidates:
        return {"reranked": []}
    store = get_store(cfg)
    reranker = get_reranker(cfg.reranker, store, variant)
    routed = state.get("routed_docs") or []
    keywords = list(state.get("keywords") or [])
    if scoped and routed:  # as in fts_search: the company's own name says nothing inside its filings
        keywords = without_company_words(keywords, state.get("question", ""), state.get("extracted"))
    scores = reranker.score(state.get("query") or state.get("question", ""), keywords, candidates)
    for c, s in zip(candidates, scores):
        c["rerank_score"] = float(s)
        c["score"] = float(s)
    cliff = cfg.routed_rerank_cliff if scoped and routed else cfg.rerank_cliff  # only routed filings' chunks here
    cut = dict(cumulative=float(cfg.rerank_cumulative), cliff=float(cliff))
    if scoped and len(routed) > 1:
        share = max(1, int(cfg.max_chunks) // len(routed))
        kept = []
        for doc in routed:
            kept += adaptive_cutoff([c for c in candidates if c["doc_id"] == doc], max_chunks=share, **cut)
        kept.sort(key=lambda c: -c["rerank_score"])
    else:
        if scoped and not routed and cfg.fallback_scope == "top_document":
            candidates = only_top_document(candidates)
        kept = adaptive_cutoff(candidates, max_chunks=int(cfg.max_chunks), **cut)
    return {"reranked": kept}
