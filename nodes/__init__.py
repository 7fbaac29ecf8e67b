"""finrag.nodes = the folder `nodes/`: the ten nodes every system is built from.

Each node is a function `(state: FinragState, runtime: Runtime[Configuration]) -> partial update`: it reads
the run's configuration from `runtime.context` (see `finrag.nodes.common.configuration`), its index through
`finrag.nodes.common.reader_of` / `registry_of` (the `IndexReader` the context carries, else the process's
cached one), and returns only the state keys it sets. Node modules share helpers through
`finrag.nodes.common` and never import each other.
"""
from finrag.nodes.extract_metadata import extract_metadata, route_after_extract
from finrag.nodes.fts_search import fts_search
from finrag.nodes.generate import generate
from finrag.nodes.rerank import rerank
from finrag.nodes.resolve_docs import resolve_docs, route_after_resolve
from finrag.nodes.resolve_question import resolve_question
from finrag.nodes.rewrite import rewrite
from finrag.nodes.rrf import rrf
from finrag.nodes.vector_search import vector_search
from finrag.nodes.verify import route_after_verify, verify

NODE_NAMES = ("resolve_question", "extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
              "verify", "generate")

__all__ = ["resolve_question", "extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
           "verify", "generate", "route_after_extract", "route_after_resolve", "route_after_verify", "NODE_NAMES"]
