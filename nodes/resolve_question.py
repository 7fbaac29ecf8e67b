"""resolve_question: on a LangGraph thread, a follow-up made a standalone question before anything else runs.

The first node of every graph. Without a thread (no `thread_id` in the run's config) it changes nothing. On a
thread it (1) records the previous turn (still in the checkpointed state) in `turns` and resets the per-turn
keys, so nothing of one turn leaks into the next (`finrag.tools.conversation.turns`); (2) resolves the new
question against the previous turn: offline, it inherits the company, period, measure and form it does not set
itself (`finrag.tools.conversation.resolve`); with an LLM for the `condenser` role, one condense call, checked
(`finrag.tools.conversation.condense`). `question` becomes the resolved text (the rest of the graph answers
it); `typed_question`, `resolved_question` and `conversation` (turn, slots, inherited) record the resolution.
"""
from __future__ import annotations

import time
from typing import Any, Optional, cast

from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from finrag.nodes.common import configuration, registry_of
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState, TurnRecord
from finrag.tools.conversation.condense import condense
from finrag.tools.conversation.resolve import resolve_offline
from finrag.tools.conversation.turns import reset_update, turn_record
from finrag.tools.llm.chat import get_chat_model


def thread_of_run() -> str:
    """The run's LangGraph thread id ('' when the run has none, or runs outside a graph)."""
    try:
        return str(((get_config() or {}).get("configurable") or {}).get("thread_id") or "")
    except RuntimeError:
        return ""


def resolve_question(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """On a thread: record the previous turn, reset the per-turn keys and make the question standalone
    (`question`, `typed_question`, `resolved_question`, `conversation`); without one: nothing."""
    t0 = time.perf_counter()
    thread_id = thread_of_run()
    if not thread_id:
        return {"timings_ms": {"resolve_question": (time.perf_counter() - t0) * 1000.0}}
    cfg = configuration(runtime)
    registry = registry_of(cfg)
    previous = state.get("conversation")
    update: dict[str, Any] = {}
    history = list(state.get("turns") or [])
    if previous:
        done = cast(TurnRecord, turn_record(state))
        history.append(done)
        update["turns"] = [done]
        update.update(reset_update())
    typed = state.get("question", "")
    # the turn number from the previous turn's own (the turns bound may have trimmed the history)
    res = resolve_offline(typed, registry, cast(Optional[dict], previous), int((previous or {}).get("turn") or len(history)) + 1)
    calls: list[dict] = []
    model = get_chat_model("condenser", cfg) if previous and (res.resolved != typed or res.inherited) else None
    if model is not None:  # a question that names everything itself needs no call
        res, record = condense(model, typed, [t["resolved_question"] for t in history], res, registry,
                               cfg.max_question_chars)
        calls.append(record)
    update.update({"question": res.resolved, "typed_question": typed, "resolved_question": res.resolved,
                   "conversation": res.record(thread_id)})
    ms = {"resolve_question": (time.perf_counter() - t0) * 1000.0}
    # the reducer keys restart with each turn (a checkpointed thread keeps them otherwise)
    update["llm_calls"] = Overwrite(calls) if previous else calls
    update["timings_ms"] = Overwrite(ms) if previous else ms
    return update
