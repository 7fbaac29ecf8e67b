"""Typed seams (issue 32): statuses and kinds are `Literal`s with one list each, the routers' return types are
their edges, and the contract refuses a value its `Literal` does not list (the dumps stay as they were)."""
from __future__ import annotations

import typing

import pytest
from typing_extensions import is_typeddict

from finrag.graphs import SYSTEMS, get_graph
from finrag.state import contract, graph_state
from finrag.state.contract import ROUTING_STATUSES, Answer, Reader, Routing, RoutingStatus


def test_the_routing_status_literal_is_the_tables_keys():
    assert typing.get_args(RoutingStatus) == tuple(ROUTING_STATUSES)
    assert typing.get_type_hints(graph_state.FinragState)["routing_status"] is RoutingStatus
    assert typing.get_type_hints(graph_state.OutputState)["routing_status"] is RoutingStatus


def test_the_schema_lists_each_literals_values():
    props = Answer.model_json_schema()["$defs"]
    assert props["Routing"]["properties"]["status"]["enum"] == list(ROUTING_STATUSES)
    assert props["Reader"]["properties"]["kind"]["enum"] == ["item", "metric", "none", "error"]
    assert props["Retrieval"]["properties"]["vectors"]["enum"] == ["complete", "embedded_on_demand", "partial", "none"]
    assert props["ContextPlan"]["properties"]["section_rule"]["enum"] == ["prefer", "require", "off"]
    assert props["Conversation"]["properties"]["strategy"]["enum"] == ["none", "offline", "llm"]


def test_a_value_outside_the_literal_is_refused_and_dumps_are_unchanged():
    with pytest.raises(ValueError, match="status"):
        Routing(status="somewhere", routed_docs=[], reason="", extracted={})
    with pytest.raises(ValueError, match="kind"):
        Reader(kind="other", confident=False, fast_path=False)
    routing = Routing(status="exact_path", routed_docs=["ACME_2023_10K"], reason="r", extracted={})
    assert routing.model_dump_json() == '{"status":"exact_path","routed_docs":["ACME_2023_10K"],"reason":"r","extracted":{}}'


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_router_returns_exactly_its_edges(system):
    branches = get_graph(system).builder.branches
    for source, by_name in branches.items():
        for name, branch in by_name.items():
            router = getattr(branch.path, "func", None)
            returns = typing.get_type_hints(router)["return"]
            assert typing.get_origin(returns) is typing.Literal, (source, name, returns)
            assert set(typing.get_args(returns)) == set(branch.ends or {}), (source, name)


def test_the_state_records_are_typed():
    hints = typing.get_type_hints(graph_state.FinragState, include_extras=False)
    for key in ("extracted", "vector_status", "context_plan", "verification", "reader", "conversation"):
        assert is_typeddict(hints[key]), key
    for key in ("fts_results", "vector_results", "fused", "reranked", "contexts", "llm_calls", "turns"):
        (item,) = typing.get_args(typing.get_type_hints(graph_state.FinragState, include_extras=False)[key])
        assert is_typeddict(item), key
    assert set(typing.get_type_hints(graph_state.ContextPlanRecord)) == set(contract.ContextPlan.model_fields)
    assert set(contract.Reader.model_fields) <= set(typing.get_type_hints(graph_state.ReaderRecord))
    # a context in the state carries the filing's printed page numbers; the contract shows them for people, beside
    # the viewer's page numbers, both derived at the boundary (`page_labels.display_fields`, issue 51)
    display = {"viewer_page_start", "viewer_page_end", "printed_page_start", "printed_page_end", "pages"}
    state_only = {"printed_start", "printed_end"}
    assert set(contract.Context.model_fields) == set(typing.get_type_hints(graph_state.ContextRecord)) - state_only | display
