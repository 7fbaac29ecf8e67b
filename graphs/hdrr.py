"""HDRR: SFR's routing, then CBR restricted to the routed document(s).

When routing finds no document (status `fallback_*`), the scoped nodes see no
routed ids and search the full corpus: the graceful fallback. A question about a
company the index does not hold (`company_not_indexed`) skips retrieval: `generate`
says which company is missing, with no other company's chunks.
"""
from typing import Any

from langgraph.graph import END

from finrag.graphs.builder import add_retrieval, begin, bound, new_graph
from finrag.nodes import extract_metadata, generate, resolve_docs, route_after_resolve


def build(checkpointer: Any = None):
    """The compiled HDRR graph: extract_metadata -> resolve_docs -> scoped retrieval -> generate
    (with `checkpointer`, runs on a thread are persisted)."""
    g = new_graph()
    g.add_node("extract_metadata", extract_metadata)
    g.add_node("resolve_docs", resolve_docs)
    add_retrieval(g, scoped=True)
    g.add_node("generate", bound(generate, fast_path_default=True))  # fast_path=auto is on for HDRR
    begin(g, "extract_metadata")
    g.add_edge("extract_metadata", "resolve_docs")
    g.add_conditional_edges("resolve_docs", route_after_resolve, {"rewrite": "rewrite", "generate": "generate"})
    g.add_edge("rerank", "generate")
    g.add_edge("generate", END)
    return g.compile(name="hdrr", checkpointer=checkpointer)


graph = build()
