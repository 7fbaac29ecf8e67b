"""finrag.graphs = the folder `graphs/`: the six systems as compiled LangGraph graphs.

    from finrag.graphs import hdrr
    hdrr.graph.invoke({"question": "..."}, context={"index_dir": ".finrag"})

`SYSTEMS` is the one list of the systems (the CLI, the server, the API and the evaluation use it;
langgraph.json lists the same graphs, which a test checks). Each module holds only edges.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any

SYSTEMS = ("cbr", "sfr", "hdrr", "cbr_meta", "cbr_llm_ctx", "agentic")

# langgraph-api (`langgraph dev`, Studio) hands every run a `durability`; a run without a thread has no
# checkpointer, so LangGraph warned once per run that durability has no effect there. It has nothing to persist:
# the warning says nothing a user can act on (issue 51). Only this message is silenced.
warnings.filterwarnings("ignore", message="`durability` has no effect when no checkpointer is present",
                        category=UserWarning)


def get_graph(system: str):
    """The compiled graph of a system, by name (no checkpointer: each run stands alone)."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    return importlib.import_module(f"finrag.graphs.{system}").graph


def build_graph(system: str, checkpointer: Any):
    """A system's graph compiled with `checkpointer` (LangGraph persistence: runs with a `thread_id` keep their
    state between invocations). Callers cache it (`finrag.threads`); `get_graph` is the plain graph."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    return importlib.import_module(f"finrag.graphs.{system}").build(checkpointer=checkpointer)


__all__ = ["SYSTEMS", "build_graph", "get_graph"]
