"""HDRR: SFR's routing, then CBR restricted to the routed document(s).

When routing finds no document (status `fallback_*`), the scoped nodes see no
routed ids and search the full corpus: the graceful fallback.
"""
from langgraph.graph import END, START

from finrag.graphs.builder import add_retrieval, new_graph
from finrag.nodes import extract_metadata, generate, resolve_docs


def build():
    """The compiled HDRR graph: extract_metadata -> resolve_docs -> scoped retrieval -> generate."""
    g = new_graph()
    g.add_node("extract_metadata", extract_metadata)
    g.add_node("resolve_docs", resolve_docs)
    add_retrieval(g, scoped=True)
    g.add_node("generate", generate)
    g.add_edge(START, "extract_metadata")
    g.add_edge("extract_metadata", "resolve_docs")
    g.add_edge("resolve_docs", "rewrite")
    g.add_edge("rerank", "generate")
    g.add_edge("generate", END)
    return g.compile(name="hdrr")


graph = build()
