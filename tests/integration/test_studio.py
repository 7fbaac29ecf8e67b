"""LangGraph Studio / langgraph-api: `langgraph dev` serves the six graphs of langgraph.json.

Starts `langgraph dev --no-browser --no-reload --port N` (in-memory runtime, loopback only) with
FINRAG_HOME pointing at the demo index, then drives it with `langgraph_sdk`. Skips only when the
`langgraph` CLI (langgraph-cli[inmem]) is not installed.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from finrag.graphs import SYSTEMS

REPO = Path(__file__).resolve().parents[2]
from support.servers import HOST, free_port, stop_process, wait_http  # noqa: E402

ALL_NODES = {"resolve_question", "extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
             "verify", "generate"}
HDRR_NODES = ALL_NODES - {"verify"}
LOGS: dict[str, Path] = {}
"""The `langgraph dev` log of the module's server (the `studio` fixture)."""


def _langgraph_cli() -> str | None:
    exe = Path(sys.executable).with_name("langgraph")
    return str(exe) if exe.exists() else shutil.which("langgraph")


@pytest.fixture(scope="module")
def studio(demo_index, tmp_path_factory):
    cli = _langgraph_cli()
    if cli is None:
        pytest.skip("the `langgraph` CLI is not installed (pip install 'langgraph-cli[inmem]')")
    try:
        import langgraph_sdk  # noqa: F401
    except ImportError:
        pytest.skip("langgraph_sdk is not installed")
    port = free_port()
    log = tmp_path_factory.mktemp("studio") / "langgraph-dev.log"
    state_dir = REPO / ".langgraph_api"  # the in-memory runtime persists here (relative to cwd)
    had_state = state_dir.exists()
    env = {**os.environ, "FINRAG_HOME": str(demo_index), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
    for key in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "OPENAI_API_KEY"):
        env.pop(key, None)
    with log.open("w") as fh:
        proc = subprocess.Popen([cli, "dev", "--no-browser", "--no-reload", "--host", HOST, "--port", str(port)],
                                cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://{HOST}:{port}"
    try:
        try:
            wait_http(f"{url}/ok", timeout=60, proc=proc, log=log)
        except RuntimeError as exc:
            pytest.fail(f"langgraph dev did not become ready: {exc}")
        LOGS["studio"] = log
        yield url
    finally:
        stop_process(proc)
        if not had_state:
            shutil.rmtree(state_dir, ignore_errors=True)


def test_studio_lists_graphs_and_nodes(studio):
    from langgraph_sdk import get_client

    async def main():
        client = get_client(url=studio)
        assistants = await client.assistants.search(limit=50)
        by_graph = {a["graph_id"]: a for a in assistants}
        assert set(by_graph) == set(SYSTEMS)
        nodes = {}
        for gid, a in by_graph.items():
            g = await client.assistants.get_graph(a["assistant_id"])
            nodes[gid] = {n["id"] for n in g["nodes"]} - {"__start__", "__end__"}
        return nodes

    nodes = asyncio.run(main())
    assert set().union(*nodes.values()) == ALL_NODES
    assert nodes["hdrr"] == HDRR_NODES
    assert nodes["agentic"] == ALL_NODES - {"resolve_docs"}
    assert nodes["sfr"] == {"resolve_question", "extract_metadata", "resolve_docs", "generate"}


def test_studio_runs_hdrr_thread(studio, demo_qas):
    from langgraph_sdk import get_client

    qa = next(q for q in demo_qas if q["question_type"] == "metric_lookup")

    async def main():
        client = get_client(url=studio)
        thread = await client.threads.create()
        visited, final = [], None
        async for part in client.runs.stream(thread["thread_id"], "hdrr", input={"question": qa["question"]},
                                             stream_mode=["updates", "values"]):
            if part.event == "updates":
                visited.extend(part.data.keys())
            elif part.event == "values":
                final = part.data
            elif part.event == "error":
                raise AssertionError(f"run failed: {part.data}")
        state = await client.threads.get_state(thread["thread_id"])
        waited = await client.runs.wait(None, "hdrr", input={"question": qa["question"]})
        return visited, final, state, waited

    visited, final, state, waited = asyncio.run(main())
    assert set(visited) == HDRR_NODES, visited
    assert visited[:3] == ["resolve_question", "extract_metadata", "resolve_docs"] and visited[-1] == "generate"
    assert final["answer"].strip()
    assert final["routed_docs"] == [qa["doc_id"]]
    assert final["contexts"] and {c["doc_id"] for c in final["contexts"]} == {qa["doc_id"]}
    assert state["values"]["answer"] == final["answer"]
    assert waited["answer"] == final["answer"]  # stateless run, same deterministic answer


def test_studio_assistant_context_reaches_the_nodes(studio, demo_qas):
    """The assistant's context (Studio's form, whose fields carry descriptions) and a run's own context become
    the run's Configuration; the FINRAG_HOME of the server process still applies to what is not set."""
    from langgraph_sdk import get_client

    qa = next(q for q in demo_qas if q["question_type"] == "metric_lookup")

    async def main():
        client = get_client(url=studio)
        assistant = await client.assistants.create(graph_id="hdrr", context={"max_chunks": 2})
        schemas = await client.assistants.get_schemas(assistant["assistant_id"])
        narrow = await client.runs.wait(None, assistant["assistant_id"], input={"question": qa["question"]})
        per_run = await client.runs.wait(None, "hdrr", input={"question": qa["question"]}, context={"max_chunks": 1})
        # langgraph-api turns a run's `configurable` into its context when no context is given
        via_config = await client.runs.wait(None, "hdrr", input={"question": qa["question"]},
                                            config={"configurable": {"max_chunks": 1}})
        return schemas, narrow, per_run, via_config

    schemas, narrow, per_run, via_config = asyncio.run(main())
    props = schemas["context_schema"]["properties"]
    assert props["max_chunks"]["description"] and props["generate_prompt"]["description"]
    assert 1 <= len(narrow["contexts"]) <= 2 and narrow["routed_docs"] == [qa["doc_id"]]
    assert len(per_run["contexts"]) == 1 and len(via_config["contexts"]) == 1


def test_studio_steps_hdrr_through_every_node_with_interrupt_before(studio, demo_qas):
    """Studio's step-through: `interrupt_before="*"`, then resume (input None) until `next` is empty; the run
    pauses before every node of HDRR, past the fts_search/vector_search fan-in, and ends with the answer (the
    same as an uninterrupted run); each step's `updates` shows what the node produced, retrieval keys included."""
    from langgraph_sdk import get_client

    qa = next(q for q in demo_qas if q["question_type"] == "metric_lookup")

    async def main():
        client = get_client(url=studio)
        thread = await client.threads.create()
        paused, updates, inp = [], {}, {"question": qa["question"]}
        for _ in range(len(HDRR_NODES) + 2):
            async for part in client.runs.stream(thread["thread_id"], "hdrr", input=inp, interrupt_before="*",
                                                 stream_mode="updates"):
                if part.event == "error":
                    raise AssertionError(f"run failed: {part.data}")
                if part.event == "updates":
                    for node, update in part.data.items():
                        updates.setdefault(node, set()).update(update or {})
            inp = None
            state = await client.threads.get_state(thread["thread_id"])
            if not state["next"]:
                break
            paused.append(tuple(state["next"]))
        waited = await client.runs.wait(None, "hdrr", input={"question": qa["question"]})
        return paused, updates, state, waited

    paused, updates, state, waited = asyncio.run(main())
    assert paused == [("resolve_question",), ("extract_metadata",), ("resolve_docs",), ("rewrite",), ("fts_search", "vector_search"),
                      ("rrf",), ("rerank",), ("generate",)], paused
    assert state["values"]["answer"].strip() and state["values"]["answer"] == waited["answer"]
    assert state["values"]["routed_docs"] == [qa["doc_id"]]
    assert {"query", "keywords"} <= updates["rewrite"] and "fts_results" in updates["fts_search"]
    assert "vector_results" in updates["vector_search"] and "fused" in updates["rrf"]
    assert "reranked" in updates["rerank"] and "answer" in updates["generate"]


def test_studio_thread_resolves_a_follow_up(studio):
    """Issue 36 (Studio): two runs on one Studio thread; the second, "And in FY2023?", is resolved from the first
    by `resolve_question` (the thread's checkpointed state carries the previous turn), routed to Acme's FY2023
    filing, and the thread's state shows the earlier turn in `turns`; stepping through the follow-up
    (`interrupt_before`) shows the resolution as `resolve_question`'s update."""
    from langgraph_sdk import get_client

    async def run(client, thread_id, question, **kw):
        final, updates = None, {}
        async for part in client.runs.stream(thread_id, "hdrr", input={"question": question},
                                             stream_mode=["updates", "values"], **kw):
            if part.event == "error":
                raise AssertionError(f"run failed: {part.data}")
            if part.event == "updates":
                updates.update(part.data)
            elif part.event == "values":
                final = part.data
        return final, updates

    async def main():
        client = get_client(url=studio)
        thread = await client.threads.create()
        tid = thread["thread_id"]
        first, _ = await run(client, tid, "What was Acme Widgets' revenue in FY2022?")
        # step into the follow-up: pause before extract_metadata, so the resolution is visible on its own
        _, paused_updates = await run(client, tid, "And in FY2023?", interrupt_after=["resolve_question"])
        paused = await client.threads.get_state(tid)
        resumed = None
        async for part in client.runs.stream(tid, "hdrr", input=None, stream_mode="values"):
            if part.event == "values":
                resumed = part.data
        history = await client.threads.get_state(tid)
        return first, paused_updates, paused, resumed, history

    first, paused_updates, paused, resumed, history = asyncio.run(main())
    assert first["routed_docs"] == ["ACMEWIDGETS_2022_10K"]
    step = paused_updates["resolve_question"]
    assert step["typed_question"] == "And in FY2023?" and "Acme" in step["resolved_question"]
    assert "2023" in step["resolved_question"]
    assert paused["next"] == ["extract_metadata"]
    assert resumed["routed_docs"] == ["ACMEWIDGETS_2023_10K"], resumed["routed_docs"]
    turns = history["values"]["turns"]
    assert [t["question"] for t in turns] == ["What was Acme Widgets' revenue in FY2022?"]
    assert history["values"]["conversation"]["turn"] == 2


def test_studio_runs_without_a_thread_log_no_warning(studio, demo_qas):
    """Issue 51: a run without a thread (`runs.wait(None, ...)`, what Studio's quick runs send) answers and leaves
    no warning in the server's log (LangGraph said "`durability` has no effect when no checkpointer is present"
    once per run)."""
    from langgraph_sdk import get_client

    async def main():
        client = get_client(url=studio)
        return [await client.runs.wait(None, "hdrr", input={"question": q["question"]}) for q in demo_qas[:2]]

    outs = asyncio.run(main())
    assert all(o["answer"] and o["routed_docs"] for o in outs)
    text = LOGS["studio"].read_text(errors="replace")
    assert "durability" not in text and "Traceback" not in text, text[-3000:]
