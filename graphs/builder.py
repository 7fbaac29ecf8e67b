"""Shared wiring for the six graphs: edges only, no retrieval logic.

`begin` makes `resolve_question` every graph's first node (a follow-up on a LangGraph thread made standalone;
without a thread it changes nothing). `add_retrieval` wires rewrite -> (fts_search || vector_search) -> rrf -> rerank,
with the index variant and document scoping bound into the nodes.
"""
from __future__ import annotations

from functools import partial, update_wrapper
from typing import Any, TypeAlias

from langgraph.graph import END, START, StateGraph

from finrag.nodes import fts_search, generate, rerank, resolve_question, rewrite, rrf, vector_search
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState, InputState, OutputState

# the graphs' type: state, run context, input and output schemas (a string: nothing is subscripted at runtime)
FinragGraph: TypeAlias = "StateGraph[FinragState, Configuration, InputState, OutputState]"


def bound(fn, **kwargs):
    """A node with some keyword arguments fixed (keeps the function's name for Studio)."""
    return update_wrapper(partial(fn, **kwargs), fn)


def new_graph() -> FinragGraph:
    """An empty graph over the shared state; its run context (LangGraph's `context=`) is a `Configuration`."""
    return StateGraph(FinragState, input_schema=InputState, output_schema=OutputState, context_schema=Configuration)


def begin(g: FinragGraph, first: str) -> None:
    """START -> resolve_question -> `first`: every graph resolves a thread's follow-up before anything else."""
    g.add_node("resolve_question", resolve_question)
    g.add_edge(START, "resolve_question")
    g.add_edge("resolve_question", first)


def add_retrieval(g: FinragGraph, *, variant: str = "base", scoped: bool = False) -> None:
    g.add_node("rewrite", rewrite)
    g.add_node("fts_search", bound(fts_search, variant=variant, scoped=scoped))
    g.add_node("vector_search", bound(vector_search, variant=variant, scoped=scoped))
    g.add_node("rrf", rrf)
    g.add_node("rerank", bound(rerank, variant=variant, scoped=scoped))
    g.add_edge("rewrite", "fts_search")
    g.add_edge("rewrite", "vector_search")
    # fan-in by two plain edges, not a join edge (`add_edge(["fts_search", "vector_search"], "rrf")`): both
    # searches always run in the same step (after rewrite), so rrf runs once, after both, either way (answers
    # unchanged). With the join, a run stepped over langgraph-api (`langgraph dev`, Studio) with interrupt_before
    # stopped after the two searches with next=[] and no answer; with plain edges it pauses before rrf and resumes
    # like any other step (tests/integration/test_studio.py).
    g.add_edge("fts_search", "rrf")
    g.add_edge("vector_search", "rrf")
    g.add_edge("rrf", "rerank")


def chunk_rag(name: str, *, variant: str = "base", checkpointer: Any = None):
    """CBR and its index variants: retrieval over the whole corpus, then generation (compiled with
    `checkpointer` for runs on threads; None: no persistence)."""
    g = new_graph()
    add_retrieval(g, variant=variant)
    g.add_node("generate", generate)
    begin(g, "rewrite")
    g.add_edge("rerank", "generate")
    g.add_edge("generate", END)
    return g.compile(name=name, checkpointer=checkpointer)
