"""The query's vector, embedded once per request: `vector_search` and the offline reranker embed the same text.

`vector_search` embeds the rewrite's query (and the question's own offline query) and the offline reranker
embeds the rewrite's query again for its cosine; `query_vector(embedder, text)` returns the vector the
embedder gave for that text a moment ago. The memory is a few entries only (`RECENT`): enough for the
requests a server runs at once, not a cache across the question mix (a benchmark that cycles through its
questions finds none of the previous round's vectors). The vectors are read-only copies.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["query_vector", "RECENT"]

RECENT = 32
_VECTORS: OrderedDict[tuple[int, str], tuple[Any, np.ndarray]] = OrderedDict()
_LOCK = threading.Lock()


def query_vector(embedder: Any, text: str) -> np.ndarray:
    """`embedder.embed_query(text)`, shared with the other node of the same request (see the module docstring)."""
    key = (id(embedder), text)
    with _LOCK:
        got = _VECTORS.get(key)
        if got is not None and got[0] is embedder:  # the same object, not a new one at a reused address
            _VECTORS.move_to_end(key)
            return got[1]
    vec = np.array(embedder.embed_query(text), copy=True)
    vec.flags.writeable = False
    with _LOCK:
        _VECTORS[key] = (embedder, vec)
        _VECTORS.move_to_end(key)
        while len(_VECTORS) > RECENT:
            _VECTORS.popitem(last=False)
    return vec
