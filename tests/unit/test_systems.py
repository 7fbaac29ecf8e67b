"""The list of systems has one definition (`finrag.graphs.SYSTEMS`); langgraph.json (which cannot import
it) must list exactly those graphs, each path pointing at the module that defines that system's `graph`."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from finrag.graphs import SYSTEMS, get_graph

REPO = Path(__file__).resolve().parents[2]


def test_langgraph_json_lists_exactly_the_systems():
    spec = json.loads((REPO / "langgraph.json").read_text())
    graphs = spec["graphs"]
    assert list(graphs) == list(SYSTEMS)
    for system, target in graphs.items():
        path, _, attr = target.partition(":")
        assert attr == "graph", target
        file = (REPO / path).resolve()
        assert file.is_file(), target
        module = importlib.import_module(f"finrag.graphs.{system}")
        assert Path(module.__file__).resolve() == file, (system, module.__file__)
        graph = getattr(module, attr)
        assert isinstance(graph, CompiledStateGraph) and graph.name == system
        assert get_graph(system) is graph
