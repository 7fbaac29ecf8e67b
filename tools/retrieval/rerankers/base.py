"""The reranker interface every implementation follows."""
from __future__ import annotations

from typing import Protocol, Sequence


class Reranker(Protocol):
    """Scores candidate chunks for a query; higher is better, one score per chunk, in the chunks' order."""

    name: str

    def score(self, query: str, keywords: Sequence[str], chunks: Sequence[dict]) -> list[float]: ...
