"""The six systems as compiled LangGraph graphs: `from finrag.graphs import hdrr; hdrr.graph.invoke(...)`."""
from __future__ import annotations

import importlib

SYSTEMS = ("cbr", "sfr", "hdrr", "cbr_meta", "cbr_llm_ctx", "agentic")


def get_graph(system: str):
    """The compiled graph of a system, by name."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    return importlib.import_module(f"finrag.graphs.{system}").graph


__all__ = ["SYSTEMS", "get_graph"]
