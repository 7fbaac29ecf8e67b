"""CBR+LLM-Ctx (V-B): CBR over chunks prefixed with a generated situating context (index variant `llmctx`)."""
from finrag.graphs.builder import chunk_rag

graph = chunk_rag("cbr_llm_ctx", variant="llmctx")
