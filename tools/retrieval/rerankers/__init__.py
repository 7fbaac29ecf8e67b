"""finrag.tools.retrieval.rerankers = `tools/retrieval/rerankers/`: one file per implementation over `base.Reranker`.

* `offline` (default, offline.py): no model download.
* `cross-encoder:<path>` (cross_encoder.py): a local CrossEncoder, sigmoid scores.
* `jina` (jina.py): Jina's rerank API.
"""
from __future__ import annotations

import threading

from finrag.state.index_reader import IndexReader
from finrag.tools.retrieval.rerankers.base import Reranker
from finrag.tools.retrieval.rerankers.cross_encoder import CrossEncoderReranker
from finrag.tools.retrieval.rerankers.jina import JinaReranker
from finrag.tools.retrieval.rerankers.offline import OfflineReranker

__all__ = ["CrossEncoderReranker", "JinaReranker", "OfflineReranker", "Reranker", "get_reranker"]

_CACHE: dict[str, Reranker] = {}
_LOCK = threading.Lock()


def get_reranker(spec: str, store: IndexReader, variant: str = "base") -> Reranker:
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
