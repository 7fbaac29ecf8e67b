"""rrf: reciprocal rank fusion of the BM25 and vector lists, score = sum 1 / (k + rank), k = 60."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, timed
from finrag.state.configuration import RRF_K, Configuration
from finrag.state.graph_state import FinragState


def reciprocal_rank_fusion(lists: Sequence[Sequence[Mapping[str, Any]]], k: int = RRF_K) -> list[dict[str, Any]]:
    """Merge ranked hit lists by chunk id; each hit adds 1 / (k + rank); best first, ties by chunk id."""
    fused: dict[int, dict[str, Any]] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, 1):
            cid = hit["chunk_id"]
            entry = fused.get(cid)
            if entry is None:  # a chunk's first list: a copy of its hit (0.0 + x is x)
                entry = fused[cid] = dict(hit)
                entry["rrf_score"] = 1.0 / (k + rank)
                continue
            entry["rrf_score"] += 1.0 / (k + rank)
            for key in _RANK_KEYS:  # a later list's ranks join the entry
                value = hit.get(key)
                if value is not None:
                    entry[key] = value
    out = sorted(fused.values(), key=lambda h: (-h["rrf_score"], h["chunk_id"]))
    for h in out:
        h["score"] = h["rrf_score"]
    return out


_RANK_KEYS = ("fts_rank", "vector_rank", "vector_distance")


@timed("rrf")
def rrf(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Fuse `fts_results` and `vector_results` into `fused` (constant `rrf_k`)."""
    cfg = configuration(runtime)
    return {"fused": reciprocal_rank_fusion([state.get("fts_results") or [], state.get("vector_results") or []],
                                            k=cfg.rrf_k)}
