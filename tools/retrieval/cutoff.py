"""The paper's adaptive cutoff over reranked chunks.

Keeps chunks in score order until the cumulative normalised score reaches 55%, stops at a drop of
more than 0.15 from the top score, and keeps at most 10 (all three configurable).
"""
from __future__ import annotations

from finrag.state.configuration import MAX_CHUNKS, RERANK_CLIFF, RERANK_CUMULATIVE


def adaptive_cutoff(scored: list[dict], cumulative: float = RERANK_CUMULATIVE, cliff: float = RERANK_CLIFF,
                    max_chunks: int = MAX_CHUNKS) -> list[dict]:
    """Keep the top of `scored` (sorted by `rerank_score` desc) per the paper's rule."""
    if not scored:
        return []
    ranked = sorted(scored, key=lambda c: -c["rerank_score"])
    total = sum(max(0.0, c["rerank_score"]) for c in ranked) or 1.0
    top = ranked[0]["rerank_score"]
    kept: list[dict]
    kept, acc = [], 0.0
    for c in ranked:
        if len(kept) >= max_chunks:
            break
        if kept and top - c["rerank_score"] > cliff:
            break
        if kept and acc >= cumulative - 1e-9:
            break
        kept.append(c)
        acc += max(0.0, c["rerank_score"]) / total
    return kept
