"""Rerankers and the paper's adaptive cutoff.

* `offline` (default): no model download needed. Each candidate gets a weighted
  sum, in [0, 1], of: cosine(query, chunk) (the chunk vector comes back out of
  FAISS, no re-embedding); keyword coverage (numbers and years count double,
  since filings differ mostly in them); for questions whose metric lives in a
  primary statement (capex -> cash flows, revenue -> income statement,
  inventories -> balance sheet), whether the chunk is that statement's table
  (title + digit density); and its fused RRF score relative to the best.
* `cross-encoder:<path>`: a sentence-transformers CrossEncoder from a local
  path (e.g. the paper's jina-reranker-v2-base-multilingual downloaded
  beforehand), sigmoid scores.
* `jina`: Jina's rerank API (`JINA_API_KEY`, `jina-reranker-v2-base-multilingual`).

`adaptive_cutoff` keeps chunks in score order until the cumulative normalised
score reaches 55%, stops at a drop of more than 0.15 from the top score, and
keeps at most 10 (all three configurable).
"""
from __future__ import annotations

import math
import os
import re
import threading
from typing import Protocol, Sequence

import numpy as np

_WORD = re.compile(r"[a-z0-9][a-z0-9&.%-]*[a-z0-9%]|[a-z0-9]")


class Reranker(Protocol):
    name: str

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]: ...


def _stem(tok: str) -> str:
    """Crude suffix folding so that inflections meet: expenditure(s) -> expenditur, operat(ing|ed) -> operat."""
    for suf in ("ies", "es", "s", "ing", "ed"):
        if tok.endswith(suf) and len(tok) - len(suf) >= 3:
            tok = tok[: -len(suf)]
            break
    return tok[:-1] if len(tok) > 4 and tok.endswith("e") else tok


def keyword_coverage(keywords: Sequence[str], text: str) -> float:
    words = {_stem(w) for w in _WORD.findall(text.lower().replace(",", ""))}
    total = got = 0.0
    for kw in dict.fromkeys(k.lower() for k in keywords):
        w = 2.0 if any(ch.isdigit() for ch in kw) else 1.0
        total += w
        if _stem(kw.replace(",", "")) in words:
            got += w
    return got / total if total else 0.0


STATEMENT_TITLES = {
    "cash_flow": re.compile(r"statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?|cash\s+flows?\s+statements?", re.I),
    "income": re.compile(r"statements?\s+of\s+(?:consolidated\s+)?(?:income|operations|earnings|comprehensive\s+income)"
                         r"|income\s+statements?", re.I),
    "balance": re.compile(r"balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+position", re.I),
}
STATEMENT_CUES = {
    "cash_flow": re.compile(r"cash\s*flow|capex|capital\s+expenditure|purchases?\s+of\s+property|dividends?\s+paid"
                            r"|cash\s+from\s+operations|operating\s+activities|investing|financing|repurchase|d&a"
                            r"|depreciation", re.I),
    "income": re.compile(r"income\s+statement|statement\s+of\s+(?:income|operations)|p&l|revenue|net\s+sales|net\s+income"
                         r"|operating\s+income|cogs|cost\s+of\s+(?:goods|sales|revenue)|gross\s+(?:margin|profit)"
                         r"|operating\s+margin|ebitda?|interest\s+expense|earnings\s+per\s+share|\beps\b|sg&a"
                         r"|effective\s+tax\s+rate|dpo|days\s+payable|inventory\s+turnover", re.I),
    "balance": re.compile(r"balance\s+sheet|financial\s+position|total\s+assets|current\s+assets|current\s+liabilities"
                          r"|inventor(?:y|ies)|accounts\s+payable|receivables?|pp&?n?e|property,?\s+plant|working\s+capital"
                          r"|quick\s+ratio|total\s+debt|shareholders.?\s+equity|return\s+on\s+assets|\broa\b|dpo"
                          r"|days\s+payable", re.I),
}
_DIGITS = re.compile(r"\d")


def statement_intent(question: str) -> set[str]:
    """Which primary financial statements a question needs (by its metric words)."""
    return {name for name, rx in STATEMENT_CUES.items() if rx.search(question)}


def statements_in(text: str) -> set[str]:
    return {name for name, rx in STATEMENT_TITLES.items() if rx.search(text)}


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
        out = []
        for c in chunks:
            text = c.get("text", "")
            try:
                cos = float(np.dot(qv, index.reconstruct(int(c["chunk_id"]))))
            except Exception:
                cos = 0.0
            st = 0.0
            if w_st:
                found = statements_in(text)
                digits = len(_DIGITS.findall(text)) / max(len(text), 1)
                st = (1.0 if found & wanted else 0.0) * min(1.0, digits / 0.08)
            out.append(w_cos * max(0.0, cos) + w_kw * keyword_coverage(keywords, text) + w_st * st
                       + w_fu * (c.get("rrf_score") or 0.0) / best_rrf)
        return out


class CrossEncoderReranker:
    def __init__(self, model: str):
        from sentence_transformers import CrossEncoder

        self.name = f"cross-encoder:{model}"
        self._model = CrossEncoder(model, device="cpu", trust_remote_code=True)
        self._lock = threading.Lock()

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]:
        if not chunks:
            return []
        with self._lock:
            raw = self._model.predict([(query, c.get("text", "")) for c in chunks])
        return [1.0 / (1.0 + math.exp(-float(x))) if not 0.0 <= float(x) <= 1.0 else float(x) for x in raw]


class JinaReranker:
    name = "jina"

    def __init__(self, api_key: str | None = None, model: str = "jina-reranker-v2-base-multilingual",
                 url: str | None = None, timeout: float = 60.0):
        self.api_key = api_key or os.environ.get("JINA_API_KEY", "")
        self.model = model
        self.url = url or os.environ.get("FINRAG_JINA_URL", "https://api.jina.ai/v1/rerank")
        self.timeout = timeout
        if not self.api_key:
            raise ValueError("the jina reranker needs JINA_API_KEY")

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]:
        import httpx

        if not chunks:
            return []
        resp = httpx.post(self.url, timeout=self.timeout, headers={"Authorization": f"Bearer {self.api_key}"},
                          json={"model": self.model, "query": query,
                                "documents": [c.get("text", "") for c in chunks], "top_n": len(chunks)})
        resp.raise_for_status()
        scores = [0.0] * len(chunks)
        for item in resp.json().get("results", []):
            scores[int(item["index"])] = float(item["relevance_score"])
        return scores


_CACHE: dict[str, Reranker] = {}
_LOCK = threading.Lock()


def get_reranker(spec: str, store, variant: str = "base") -> Reranker:
    spec = (spec or "offline").strip()
    if spec == "offline":
        return OfflineReranker(store, variant)
    with _LOCK:
        if spec not in _CACHE:
            if spec.startswith("cross-encoder:"):
                _CACHE[spec] = CrossEncoderReranker(spec.split(":", 1)[1])
            elif spec == "jina":
                _CACHE[spec] = JinaReranker()
            else:
                raise ValueError(f"unknown reranker {spec!r}; use offline, cross-encoder:<model path> or jina")
        return _CACHE[spec]


def adaptive_cutoff(scored: list[dict], cumulative: float = 0.55, cliff: float = 0.15,
                    max_chunks: int = 10) -> list[dict]:
    """Keep the top of `scored` (sorted by `rerank_score` desc) per the paper's rule."""
    if not scored:
        return []
    ranked = sorted(scored, key=lambda c: -c["rerank_score"])
    total = sum(max(0.0, c["rerank_score"]) for c in ranked) or 1.0
    top = ranked[0]["rerank_score"]
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
