"""CBR+LLM-Ctx (V-B): CBR over chunks prefixed with a generated situating context (index variant `llmctx`)."""
from typing import Any

from finrag.graphs.builder import chunk_rag


def build(checkpointer: Any = None):
    """The compiled graph (with `checkpointer`: persisted per thread)."""
    return chunk_rag("cbr_llm_ctx", variant="llmctx", checkpointer=checkpointer)


graph = build()
