"""rerank: score the fused candidates and keep the top with the adaptive cutoff.

For a multi-document route, candidates are reranked and cut per routed document
(each gets an equal share of `max_chunks`), so every company keeps its chunks.
"""
from __future__ import annotations

from finrag.nodes.common import config_of, timed
from finrag.tools.rerankers import adaptive_cutoff, get_reranker
from finrag.tools.runtime import get_store


@timed("rerank")
def rerank(state: dict, config=None, *, variant: str = "base", scoped: bool = False) -> dict:
    cfg = config_of(config)
    candidates = list(state.get("fused") or [])
    if not candidates:
        return {"reranked": []}
    store = get_store(cfg)
    reranker = get_reranker(cfg.reranker, store, variant)
    scores = reranker.score(state.get("query") or state.get("question", ""), state.get("keywords") or [], candidates)
    for c, s in zip(candidates, scores):
        c["rerank_score"] = float(s)
        c["score"] = float(s)
    routed = state.get("routed_docs") or []
    cut = dict(cumulative=float(cfg.rerank_cumulative), cliff=float(cfg.rerank_cliff))
    if scoped and len(routed) > 1:
        share = max(1, int(cfg.max_chunks) // len(routed))
        kept = []
        for doc in routed:
            kept += adaptive_cutoff([c for c in candidates if c["doc_id"] == doc], max_chunks=share, **cut)
        kept.sort(key=lambda c: -c["rerank_score"])
    else:
        kept = adaptive_cutoff(candidates, max_chunks=int(cfg.max_chunks), **cut)
    return {"reranked": kept}
