"""SFR: route the question to its filing(s) and send the whole document as context."""
from langgraph.graph import END, START

from finrag.graphs.builder import bound, new_graph
from finrag.nodes import extract_metadata, generate, resolve_docs


def build():
    """The compiled SFR graph: extract_metadata -> resolve_docs -> whole-document generate."""
    g = new_graph()
    g.add_node("extract_metadata", extract_metadata)
    g.add_node("resolve_docs", resolve_docs)
    g.add_node("generate", bound(generate, whole_document=True))
    g.add_edge(START, "extract_metadata")
    g.add_edge("extract_metadata", "resolve_docs")
    g.add_edge("resolve_docs", "generate")
    g.add_edge("generate", END)
    return g.compile(name="sfr")


graph = build()
