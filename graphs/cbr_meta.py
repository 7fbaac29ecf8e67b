"""CBR+Meta (V-A): CBR over chunks prefixed `[Company: X, Fiscal Year: Y]` (index variant `meta`)."""
from typing import Any

from finrag.graphs.builder import chunk_rag


def build(checkpointer: Any = None):
    """The compiled graph (with `checkpointer`: persisted per thread)."""
    return chunk_rag("cbr_meta", variant="meta", checkpointer=checkpointer)


graph = build()
