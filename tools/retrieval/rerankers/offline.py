"""The offline reranker: cosine + keyword coverage (+ statement table match) + fusion evidence.

No model download: the chunk vector comes back out of FAISS, so nothing is re-embedded. Keyword
coverage counts numbers and years double (filings differ mostly in them); for questions whose metric
lives in a primary statement (capex -> cash flows, revenue -> income statement, inventories ->
balance sheet) a chunk that is that statement's table (title + digit density) scores higher.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from finrag.tools.retrieval.statements import DIGITS, statement_intent, statements_in
from finrag.tools.retrieval.vocabulary import KeywordCoverage


class OfflineReranker:
    """cosine + keyword coverage (+ statement match for statement questions) + fusion evidence, in [0, 1]."""

    name = "offline"

    def __init__(self, store, variant: str = "base", w_cos: float = 0.35, w_kw: float = 0.3,
                 w_statement: float = 0.2, w_fusion: float = 0.15):
        self.store = store
        self.variant = variant
        self.weights = (w_cos, w_kw, w_statement, w_fusion)

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]:
        if not chunks:
            return []
        w_cos, w_kw, w_st, w_fu = self.weights
        qv = self.store.embedder.embed_query(query)
        index = self.store.faiss_index(self.variant)
        wanted = statement_intent(query)
        if not wanted:
            w_cos, w_kw, w_fu = (w / (1.0 - w_st) for w in (w_cos, w_kw, w_fu))
            w_st = 0.0
        best_rrf = max((c.get("rrf_score") or 0.0) for c in chunks) or 1.0
        coverage = KeywordCoverage(keywords)
        cosines = candidate_vectors(index, [int(c["chunk_id"]) for c in chunks]) @ qv
        out = []
        for c, cos in zip(chunks, cosines):
            text = c.get("text", "")
            st = 0.0
            if w_st:
                found = statements_in(text)
                digits = len(DIGITS.findall(text)) / max(len(text), 1) if found & wanted else 0.0
                st = (1.0 if found & wanted else 0.0) * min(1.0, digits / 0.08)
            out.append(w_cos * max(0.0, float(cos)) + w_kw * coverage(text) + w_st * st
                       + w_fu * (c.get("rrf_score") or 0.0) / best_rrf)
        return out


def candidate_vectors(index, ids: list[int]) -> np.ndarray:
    """The stored vectors of the candidates, one read for all when the index can (zeros where one is missing)."""
    many = getattr(index, "reconstruct_many", None)
    if many is not None:
        return np.asarray(many(ids), dtype=np.float32)
    rows = []
    for cid in ids:
        try:
            rows.append(index.reconstruct(cid))
        except Exception:  # no vector for this chunk: its cosine counts 0
            rows.append(None)
    dim = next((len(r) for r in rows if r is not None), 1)
    return np.stack([r if r is not None else np.zeros(dim, dtype=np.float32) for r in rows]) if rows \
        else np.zeros((0, dim), dtype=np.float32)
