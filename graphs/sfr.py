"""SFR: route the question to its filing(s) and send the whole document as context."""
from typing import Any

from langgraph.graph import END

from finrag.graphs.builder import begin, bound, new_graph
from finrag.nodes import extract_metadata, generate, resolve_docs


def build(checkpointer: Any = None):
    """The compiled SFR graph: extract_metadata -> resolve_docs -> whole-document generate
    (with `checkpointer`, runs on a thread are persisted)."""
    g = new_graph()
    g.add_node("extract_metadata", extract_metadata)
    g.add_node("resolve_docs", resolve_docs)
    g.add_node("generate", bound(generate, whole_document=True))
    begin(g, "extract_metadata")
    g.add_edge("extract_metadata", "resolve_docs")
    g.add_edge("resolve_docs", "generate")
    g.add_edge("generate", END)
    return g.compile(name="sfr", checkpointer=checkpointer)


graph = build()
