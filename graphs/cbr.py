"""CBR: chunk retrieval over the whole corpus (rewrite, BM25 + vectors, RRF, rerank, generate)."""
from typing import Any

from finrag.graphs.builder import chunk_rag


def build(checkpointer: Any = None):
    """The compiled graph (with `checkpointer`: persisted per thread)."""
    return chunk_rag("cbr", checkpointer=checkpointer)


graph = build()
