"""The offline reranker: cosine + keyword coverage (+ statement table match) + fusion evidence.

No model download: the chunk vector is read back from the index's vector file (`faiss_index(variant)`, a
`VectorView` over the memory-mapped NumPy rows, or Milvus's vectors), so nothing is re-embedded. Keyword
coverage counts numbers and years double (filings differ mostly in them); for questions whose metric
lives in a primary statement (capex -> cash flows, revenue -> income statement, inventories ->
balance sheet) a chunk that is that statement's table (title + digit density) scores higher.
"""
from __future__ import annotations

from typing import Sequence

from finrag.tools.retrieval.statements import DIGITS, statement_intent, statements_in
from finrag.tools.retrieval.text_memo import TextMemo
from finrag.tools.retrieval.vocabulary import KeywordCoverage, word_stems


def _table_features(text: str) -> tuple[frozenset[str], float]:
    found = frozenset(statements_in(text))
    return found, (min(1.0, len(DIGITS.findall(text)) / max(len(text), 1) / 0.08) if found else 0.0)


_TABLES = TextMemo(_table_features, max_units=200_000)  # entries, about 40 MB
_STEMS = TextMemo(word_stems, max_units=32_000_000, size=len)  # characters, about 20,000 chunks' stems


def table_features(chunk_id: int, text: str) -> tuple[frozenset[str], float]:
    """(the primary statements whose titles `text` mentions, its digit density score in [0, 1] when it mentions
    any, else 0), remembered per chunk: an open question inside a routed filing scores its ~400 chunks, and a
    server meets the same filing's chunks again. Keyed by chunk id, length and hash of the text, so a chunk id
    with another text (another index) is computed anew."""
    return _TABLES(text, chunk_id)


def chunk_stems(chunk_id: int, text: str) -> str:
    """`word_stems(text)`, remembered per chunk (keyed as `table_features`): the keyword coverage of the next
    question over the same filing is then a few substring tests per chunk instead of a scan of its text."""
    return _STEMS(text, chunk_id)


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
        cosines = index.reconstruct_many([int(c["chunk_id"]) for c in chunks]) @ qv  # 0 without a vector
        out = []
        for c, cos in zip(chunks, cosines):
            text = c.get("text", "")
            st = 0.0
            if w_st:  # that statement's table: the denser in digits, the better
                found, density = table_features(int(c["chunk_id"]), text)
                st = density if found & wanted else 0.0
            out.append(w_cos * max(0.0, float(cos)) + w_kw * coverage.of_stems(chunk_stems(int(c["chunk_id"]), text), text)
                       + w_st * st
                       + w_fu * (c.get("rrf_score") or 0.0) / best_rrf)
        return out
