"""The offline reranker: cosine + keyword coverage (+ statement table match) + fusion evidence.

No model download: the chunk vector is read back from the index's vector file (`faiss_index(variant)`, a
`VectorView` over the memory-mapped NumPy rows, or Milvus's vectors), so nothing is re-embedded. Keyword
coverage counts numbers and years double (filings differ mostly in them); for questions whose metric
lives in a primary statement (capex -> cash flows, revenue -> income statement, inventories ->
balance sheet) a chunk that is that statement's table (title + digit density) scores higher.
"""
from __future__ import annotations

from typing import Sequence

from finrag.state.index_reader import IndexReader
from finrag.tools.retrieval.query_vectors import query_vector
from finrag.tools.retrieval.text_memo import TextMemo
from finrag.tools.retrieval.vocabulary import STEM_FILTER_BYTES, KeywordCoverage, stem_filter, word_stems
from finrag.tools.vocabulary.statements import DIGITS, statement_intent, statements_in


def _table_features(text: str) -> tuple[frozenset[str], float]:
    found = frozenset(statements_in(text))
    return found, (min(1.0, len(DIGITS.findall(text)) / max(len(text), 1) / 0.08) if found else 0.0)


def _stem_features(text: str) -> tuple[str, bytes]:
    stems = word_stems(text)
    return stems, stem_filter(stems)


_TABLES = TextMemo(_table_features, max_units=200_000)  # entries, about 40 MB
# characters of stems plus the filter's bytes: about 20,000 chunks
_STEMS = TextMemo(_stem_features, max_units=40_000_000, size=lambda v: len(v[0]) + STEM_FILTER_BYTES)


def table_features(chunk_id: int, text: str) -> tuple[frozenset[str], float]:
    """(the primary statements whose titles `text` mentions, its digit density score in [0, 1] when it mentions
    any, else 0), remembered per chunk: an open question inside a routed filing scores its ~400 chunks, and a
    server meets the same filing's chunks again. Keyed by chunk id, length and hash of the text, so a chunk id
    with another text (another index) is computed anew."""
    return _TABLES(text, chunk_id)


def chunk_stems(chunk_id: int, text: str) -> str:
    """`word_stems(text)`, remembered per chunk (keyed as `table_features`): the keyword coverage of the next
    question over the same filing is then a few substring tests per chunk instead of a scan of its text."""
    return _STEMS(text, chunk_id)[0]


def chunk_stem_features(chunk_id: int, text: str) -> tuple[str, bytes]:
    """(`chunk_stems`, its `stem_filter`), remembered together: most keywords are absent from most of an open
    question's ~400 candidates, and the filter says so in two bit tests."""
    return _STEMS(text, chunk_id)


def chunk_coverage(coverage: KeywordCoverage, chunk_id: int, text: str) -> float:
    """`coverage(text)` of one candidate chunk from its remembered stems and their filter (a few bit tests per
    keyword; the stems are read once per chunk, `chunk_stem_features`)."""
    stems, bits = _STEMS(text, chunk_id)
    return coverage.of_stems(stems, text, bits)


class ScoreParts:
    """The offline scores of some candidates, in parts: the cosine, statement and fusion terms of every candidate
    at once, the keyword coverage (the costly term: a reading of the chunk's words) one candidate at a time.

    `exact(i)` is candidate i's score, the same float as `OfflineReranker.score` (the same terms added in the
    same order); `bound(i)` is the score it would have with every keyword present (coverage 1), never below
    `exact(i)`: a caller that needs only the best candidates (`context_budget.LazyRanking`) reads the words of
    those whose bound can still beat them, not of all ~400 candidates of an open question.
    """

    def __init__(self, reranker: "OfflineReranker", query: str, keywords: Sequence[str], chunks: Sequence[dict]):
        w_cos, w_kw, w_st, w_fu = reranker.weights
        self.chunks = chunks
        self.ids = [int(c["chunk_id"]) for c in chunks]
        if not chunks:
            self.head: list[float] = []
            self.st: list[float] = []
            self.fusion: list[float] = []
            self.w_kw = w_kw
            self.coverage = KeywordCoverage(keywords)
            return
        qv = query_vector(reranker.store.embedder, query)  # the vector vector_search embedded for the same text
        index = reranker.store.faiss_index(reranker.variant)
        wanted = statement_intent(query)
        if not wanted:
            w_cos, w_kw, w_fu = (w / (1.0 - w_st) for w in (w_cos, w_kw, w_fu))
            w_st = 0.0
        best_rrf = max((c.get("rrf_score") or 0.0) for c in chunks) or 1.0
        self.w_kw = w_kw
        self.coverage = KeywordCoverage(keywords)
        cosines = (index.reconstruct_many(self.ids) @ qv).tolist()  # 0 without a vector; Python floats, as float()
        self.head = [w_cos * max(0.0, cos) for cos in cosines]
        self.st = [0.0] * len(chunks)
        if w_st:  # that statement's table: the denser in digits, the better
            for k, (c, cid) in enumerate(zip(chunks, self.ids)):
                found, density = table_features(cid, c.get("text", ""))
                self.st[k] = w_st * (density if found & wanted else 0.0)
        self.fusion = [w_fu * (c.get("rrf_score") or 0.0) / best_rrf for c in chunks]

    def __len__(self) -> int:
        return len(self.chunks)

    def exact(self, i: int) -> float:
        cov = chunk_coverage(self.coverage, self.ids[i], self.chunks[i].get("text", ""))
        return self.head[i] + self.w_kw * cov + self.st[i] + self.fusion[i]

    def bound(self, i: int) -> float:
        return self.head[i] + self.w_kw * 1.0 + self.st[i] + self.fusion[i]


class OfflineReranker:
    """cosine + keyword coverage (+ statement match for statement questions) + fusion evidence, in [0, 1]."""

    name = "offline"

    def __init__(self, store: IndexReader, variant: str = "base", w_cos: float = 0.35, w_kw: float = 0.3,
                 w_statement: float = 0.2, w_fusion: float = 0.15):
        self.store = store
        self.variant = variant
        self.weights = (w_cos, w_kw, w_statement, w_fusion)

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]:
        parts = self.parts(query, keywords, chunks)
        return [parts.exact(i) for i in range(len(parts))]

    def parts(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> ScoreParts:
        """The scores of `chunks` in parts, each on demand (`ScoreParts`; `score` is every `exact` in order)."""
        return ScoreParts(self, query, keywords, chunks)
