"""A sentence-transformers CrossEncoder from a local path (e.g. a downloaded jina-reranker-v2-base-multilingual)."""
from __future__ import annotations

import math
import threading
from typing import Sequence


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
