"""Jina's rerank API (`JINA_API_KEY`, `jina-reranker-v2-base-multilingual`; `FINRAG_JINA_URL` for tests)."""
from __future__ import annotations

from typing import Sequence

from finrag.state.settings import ProcessSettings, process_settings


class JinaReranker:
    name = "jina"

    def __init__(self, api_key: str | None = None, model: str = "jina-reranker-v2-base-multilingual",
                 url: str | None = None, timeout: float = 60.0, settings: ProcessSettings | None = None):
        """`api_key` and `url`, else the caller's `settings` (JINA_API_KEY, FINRAG_JINA_URL; None: the
        environment's)."""
        env = process_settings(settings)
        self.api_key = api_key or env.jina_api_key
        self.model = model
        self.url = url or env.jina_url or "https://api.jina.ai/v1/rerank"
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
