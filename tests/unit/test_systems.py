"""The systems are listed once, in the registry (`finrag.state.systems.REGISTRY`): the graph modules, langgraph.json
(which cannot import it) and every consumer (CLI, server, page, demo, retriever, eval, plots, contract) list
exactly the registry, and each entry's flags and description are true to its graph's nodes."""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from langgraph.graph.state import CompiledStateGraph

from finrag.graphs import SYSTEMS, build_graph, get_graph, graph_builder
from finrag.state.systems import BY_NAME, DEFAULT_SYSTEM, REGISTRY, names, system

REPO = Path(__file__).resolve().parents[2]


def test_langgraph_json_lists_exactly_the_systems():
    spec = json.loads((REPO / "langgraph.json").read_text())
    graphs = spec["graphs"]
    assert list(graphs) == list(SYSTEMS)
    for name, target in graphs.items():
        path, _, attr = target.partition(":")
        assert attr == "graph", target
        file = (REPO / path).resolve()
        assert file.is_file(), target
        module = importlib.import_module(f"finrag.graphs.{name}")
        assert Path(module.__file__).resolve() == file, (name, module.__file__)
        graph = getattr(module, attr)
        assert isinstance(graph, CompiledStateGraph) and graph.name == name
        assert get_graph(name) is graph


def test_the_registry_and_the_graph_modules_agree():
    """Every graph module of graphs/ (but the shared builder) is a registry entry and the other way round; each
    entry's builder is its module's `build` and compiles a graph of its name."""
    modules = {p.stem for p in (REPO / "graphs").glob("*.py")} - {"__init__", "builder"}
    assert modules == set(SYSTEMS)
    assert SYSTEMS == tuple(s.name for s in REGISTRY) and len(set(SYSTEMS)) == len(SYSTEMS)
    for name in SYSTEMS:
        assert graph_builder(name) is importlib.import_module(f"finrag.graphs.{name}").build
        assert build_graph(name, None).name == name
    assert DEFAULT_SYSTEM in SYSTEMS


def test_an_unknown_system_is_one_clear_error():
    for call in (lambda: system("nope"), lambda: get_graph("nope"), lambda: graph_builder("nope")):
        with pytest.raises(ValueError, match=r"unknown system 'nope'; choose one of: cbr, sfr"):
            call()


def _variant(graph) -> str:
    """The index variant the graph's chunk search is bound to ('base' when it has none)."""
    return graph.builder.nodes["fts_search"].runnable.func.keywords["variant"]


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda s: s.name)
def test_each_entry_is_true_to_its_graph(entry):
    """The flags follow the graph's nodes (routing = resolve_docs, metadata = extract_metadata, a retriever's context
    ends at rerank with no verifier after it), the variant is the one its search nodes are bound to, and the
    description names what the nodes do."""
    graph = get_graph(entry.name)
    nodes = set(graph.nodes)
    assert entry.routes == ("resolve_docs" in nodes)
    assert entry.extracts_metadata == ("extract_metadata" in nodes)
    assert entry.retriever == ("rerank" in nodes and "verify" not in nodes)
    if "fts_search" in nodes:
        assert _variant(graph) == (entry.variant or "base")
    else:
        assert entry.variant is None
    assert not entry.variant_llm_calls or entry.variant
    words = entry.description.lower()
    assert ("route" in words) == entry.routes, entry.description
    assert ("verif" in words) == ("verify" in nodes), entry.description
    assert ("search" in words or "cbr" in words) == ("fts_search" in nodes), entry.description
    assert "\n" not in entry.description and entry.label


def _subparser(parser, command):
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices[command]


def test_the_cli_offers_exactly_the_registry():
    from finrag.cli import build_parser

    parser = build_parser()
    for command in ("ask", "chat", "batch"):
        option = next(a for a in _subparser(parser, command)._actions if a.dest == "system")
        assert tuple(option.choices) == SYSTEMS and option.default == DEFAULT_SYSTEM, command
    demo = next(a for a in _subparser(parser, "demo")._actions if a.dest == "systems")
    assert tuple(demo.choices) == SYSTEMS
    from finrag.eval.cli import _systems

    assert tuple(_systems("all")) == SYSTEMS


def test_the_server_routes_exactly_the_registry(tmp_path):
    from finrag.server import create_app

    app = create_app(tmp_path / "no-index", warm_up=False)
    paths = {getattr(r, "path", "") for r in app.routes}
    routed = {p.split("/")[1] for p in paths if re.fullmatch(r"/[a-z_]+/invoke", p)}
    assert routed == set(SYSTEMS)


def test_the_page_lists_exactly_the_registry():
    from finrag import web

    html, _ = web._page()
    settings = json.loads(re.search(rb"window\.FINRAG = (\{.*?\});\n", html).group(1))
    assert settings["systems"] == list(SYSTEMS) and settings["default"] == DEFAULT_SYSTEM
    assert settings["notes"] == {s.name: s.description for s in REGISTRY}


def test_the_retriever_demo_eval_and_contract_read_the_registry():
    from finrag import demo, langchain_retriever
    from finrag.eval import metrics, plots, readme_tables, runner
    from finrag.state import contract

    assert langchain_retriever.RETRIEVER_SYSTEMS == names(retriever=True) == ("cbr", "hdrr", "cbr_meta", "cbr_llm_ctx")
    with pytest.raises(ValueError, match="supports the systems cbr, hdrr, cbr_meta, cbr_llm_ctx, not 'sfr'"):
        langchain_retriever.FinragRetriever(system="sfr")
    assert metrics.SYSTEM_ORDER == SYSTEMS
    assert metrics.systems_of([{"system": s} for s in reversed(SYSTEMS)]) == list(SYSTEMS)
    assert metrics.INDEX_COST_SYSTEMS == {"cbr_llm_ctx": "llmctx"}
    assert tuple(runner.EvalConfig(out="o", dataset="d").systems) == SYSTEMS
    assert {s: plots._color(s) for s in SYSTEMS} == {s.name: s.color for s in REGISTRY}
    assert len({s.color for s in REGISTRY}) == len(REGISTRY)
    assert list(readme_tables._LABELS) == list(SYSTEMS) and readme_tables._LABELS[DEFAULT_SYSTEM].startswith("**")
    assert contract.Answer.model_fields["system"].description == "cbr, sfr, hdrr, cbr_meta, cbr_llm_ctx or agentic"
    assert contract.ROUTING_STATUSES["not_routed"].endswith("(" + ", ".join(names(routes=False)) + ")")
    assert "(" + ", ".join(names(extracts_metadata=False)) + ")" in contract.Routing.model_fields["extracted"].description
    lines: list[str] = []
    demo.show([], list(SYSTEMS), ask=lambda q, s: {}, out=lines.append)
    assert lines[1:1 + len(SYSTEMS)] == [f"  {s.name:11s} {s.description}" for s in REGISTRY]
    assert BY_NAME["agentic"].description.startswith("CBR, then a verifier")  # not "HDRR with a verifier"
