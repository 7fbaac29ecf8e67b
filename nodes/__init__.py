"""The nine nodes every system is built from. Each is a function `(state, config) -> partial update`."""
from finrag.nodes.extract_metadata import extract_metadata
from finrag.nodes.fts_search import fts_search
from finrag.nodes.generate import generate
from finrag.nodes.rerank import rerank
from finrag.nodes.resolve_docs import resolve_docs
from finrag.nodes.rewrite import rewrite
from finrag.nodes.rrf import rrf
from finrag.nodes.vector_search import vector_search
from finrag.nodes.verify import route_after_verify, verify

NODE_NAMES = ("extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
              "verify", "generate")

__all__ = ["extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
           "verify", "generate", "route_after_verify", "NODE_NAMES"]
