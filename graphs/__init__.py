"""finrag.graphs = the folder `graphs/`: the six systems as compiled LangGraph graphs.

    from finrag.graphs import hdrr
    hdrr.graph.invoke({"question": "..."}, context={"index_dir": ".finrag"})

The systems are listed once, in the registry `finrag.state.systems.REGISTRY` (name, label, description, flags);
`SYSTEMS` is its names. Each registry entry's graph is the module `finrag.graphs.<name>` and its builder that
module's `build` (`graph_builder(name)`); tests/unit/test_systems.py checks that the registry, the graph modules and
langgraph.json agree. Each module holds only edges.
"""
from __future__ import annotations

import importlib
import warnings
from types import ModuleType
from typing import Any, Callable

from finrag.state import systems as registry
from finrag.state.systems import REGISTRY, SYSTEMS

# langgraph-api (`langgraph dev`, Studio) hands every run a `durability`; a run without a thread has no
# checkpointer, so LangGraph warned once per run that durability has no effect there. It has nothing to persist:
# the warning says nothing a user can act on (issue 51). Only this message is silenced.
warnings.filterwarnings("ignore", message="`durability` has no effect when no checkpointer is present",
                        category=UserWarning)


def _module(system: str) -> ModuleType:
    """A registered system's graph module (`graphs/<name>.py`), imported on first use: naming the systems (the
    CLI's --help) must not compile all six graphs."""
    return importlib.import_module(f"{__name__}.{registry.system(system).name}")


def graph_builder(system: str) -> Callable[..., Any]:
    """A registered system's builder: its graph module's `build(checkpointer=None)`."""
    return _module(system).build


def get_graph(system: str):
    """The compiled graph of a system, by name (no checkpointer: each run stands alone)."""
    return _module(system).graph


def build_graph(system: str, checkpointer: Any):
    """A system's graph compiled with `checkpointer` (LangGraph persistence: runs with a `thread_id` keep their
    state between invocations). Callers cache it (`finrag.threads`); `get_graph` is the plain graph."""
    return graph_builder(system)(checkpointer=checkpointer)


__all__ = ["REGISTRY", "SYSTEMS", "build_graph", "get_graph", "graph_builder"]
