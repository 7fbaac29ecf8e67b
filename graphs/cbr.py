"""CBR: chunk retrieval over the whole corpus (rewrite, BM25 + vectors, RRF, rerank, generate)."""
from finrag.graphs.builder import chunk_rag

graph = chunk_rag("cbr")
