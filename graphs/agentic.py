"""Agentic: CBR, then verify that the top chunks belong to the target company; on "no", retry
CBR with the prefix "In {ticker}'s 10-K annual report: " (at most `max_retries`, default 2). A question
about a company the index does not hold skips retrieval: `verify` fails it and `generate` says so."""
from typing import Any

from langgraph.graph import END

from finrag.graphs.builder import add_retrieval, begin, new_graph
from finrag.nodes import extract_metadata, generate, route_after_extract, route_after_verify, verify


def build(checkpointer: Any = None):
    """The compiled Agentic graph: extract_metadata -> retrieval -> verify (-> rewrite again) -> generate
    (with `checkpointer`, runs on a thread are persisted)."""
    g = new_graph()
    g.add_node("extract_metadata", extract_metadata)
    add_retrieval(g)
    g.add_node("verify", verify)
    g.add_node("generate", generate)
    begin(g, "extract_metadata")
    g.add_conditional_edges("extract_metadata", route_after_extract, {"rewrite": "rewrite", "verify": "verify"})
    g.add_edge("rerank", "verify")
    g.add_conditional_edges("verify", route_after_verify, {"rewrite": "rewrite", "generate": "generate"})
    g.add_edge("generate", END)
    return g.compile(name="agentic", checkpointer=checkpointer)


graph = build()
