"""Issue 36: follow-ups made standalone offline (tools/conversation) over the demo index's registry, and the
condenser LLM's question checked against the linker."""
from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from finrag.nodes.common import registry_of
from finrag.state.configuration import Configuration
from finrag.tools.conversation.resolve import resolve_offline

# (typed, expected standalone question, expected inherited slots {slot: turn})
CONVERSATION = [
    ("What was Acme Widgets' total revenue in FY2022?", "What was Acme Widgets' total revenue in FY2022?", {}),
    ("And in FY2023?", "What was Acme Widgets' total revenue in FY2023?", {"company": 1, "measure": 1}),
    ("What about Cobalt?", "What was Cobalt Software's total revenue in FY2023?", {"period": 2, "measure": 1}),
    ("how about 2022?", "What was Cobalt Software's total revenue in FY2022?", {"company": 3, "measure": 1}),
    ("same for Borealis", "What was Borealis Energy's total revenue in FY2022?", {"period": 4, "measure": 1}),
    ("What was their net income?", "What was Borealis Energy's net income in FY2022?", {"company": 5, "period": 4}),
    ("How does that compare with the year before?",
     "How does Borealis Energy's net income in FY2022 compare with FY2021?", {"company": 5, "measure": 6}),
    ("What was CBLT's net income for fiscal year 2022?", "What was CBLT's net income for fiscal year 2022?", {}),
    ("and the prior year?", "What was CBLT's net income for FY2021?", {"company": 8, "measure": 8}),
    ("How many full-time employees did Acme Widgets, Inc. have at the end of fiscal 2023?",
     "How many full-time employees did Acme Widgets, Inc. have at the end of fiscal 2023?", {}),
    ("And Borealis?", "How many full-time employees did Borealis Energy have at the end of fiscal 2023?",
     {"period": 10, "measure": 10}),
    ("What about Zorblax Corp?",
     "How many full-time employees did Zorblax Corp have at the end of fiscal 2023?", {"period": 10, "measure": 10}),
]


@pytest.fixture(scope="module")
def registry(demo_index):
    return registry_of(Configuration(index_dir=str(demo_index)))


def test_offline_resolution_of_a_conversation(registry):
    """Issue 36 case 9: pronouns ("their", "that"), ellipsis ("And in FY2023?", "What about Cobalt?", "same for
    Borealis"), relative periods ("the year before", "the prior year"), a new company or period replacing the
    old one, a company the index lacks, and questions that name everything kept as typed."""
    previous = None
    for n, (typed, resolved, inherited) in enumerate(CONVERSATION, 1):
        res = resolve_offline(typed, registry, previous, n)
        assert (res.resolved, res.inherited) == (resolved, inherited), typed
        previous = res.record("t")


def _fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))


def test_condenser_output_is_checked(demo_index):
    """Issue 36 case 10: with an LLM for the `condenser` role there is one condense call per follow-up; its
    question is kept when it names only companies of the turns, and refused (the offline resolution stands,
    with a note) when it names a company of no turn."""
    from finrag import run_query
    from finrag.threads import ThreadStore

    store = ThreadStore.in_memory()
    good = "What was the total revenue of Acme Widgets in fiscal 2023?"
    cfg = Configuration(index_dir=str(demo_index)).with_models(
        condenser=_fake(good, "What was Cobalt Software's total revenue in FY2023?"))
    ask = lambda q: run_query(q, "hdrr", configurable=cfg, thread_id="c", threads=store)  # noqa: E731
    first = ask("What was Acme Widgets' total revenue in FY2022?")
    assert first.cost.llm_calls == 0  # a first turn needs no call
    second = ask("And in FY2023?")
    assert second.resolved_question == good and second.conversation.strategy == "llm"
    assert [c.role for c in second.cost.calls] == ["condenser"]
    assert second.routing.routed_docs == ["ACMEWIDGETS_2023_10K"]
    third = ask("And in FY2022?")  # the model names Cobalt, which no turn named
    assert third.conversation.strategy == "offline"
    assert third.resolved_question == "What was the total revenue of Acme Widgets in FY2022?"
    assert any("COBALTSOFTWARE" in n for n in third.conversation.notes)


def test_benchmark_conversations_resolve(registry):
    """Issue 36 case 14: the conversation benchmark's data (bench/data/conversations_demo.jsonl, >= 60 turns)
    resolves offline to standalone questions naming each turn's gold company, year and measure."""
    import json

    from bench import conversations as bench

    conversations = [json.loads(line) for line in bench.DATA.read_text().splitlines() if line.strip()]
    assert sum(len(c["turns"]) for c in conversations) >= 60
    misses = []
    for conv in conversations:
        previous = None
        for n, gold in enumerate(conv["turns"], 1):
            res = resolve_offline(gold["question"], registry, previous, n)
            previous = res.record(conv["id"])
            if not bench.resolved_ok(res.resolved, gold, registry)["all"]:
                misses.append((conv["id"], n, gold["question"], res.resolved))
    assert not misses, misses
