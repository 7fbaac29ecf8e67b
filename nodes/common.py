"""Small helpers the nodes share: timing, configuration, chunk dicts."""
from __future__ import annotations

import functools
import time
from typing import Callable

from langchain_core.runnables import RunnableConfig

from finrag.state.configuration import Configuration
from finrag.tools.answering.extractive import context_label  # noqa: F401  (nodes cite contexts the same way)


def config_of(config: RunnableConfig | None) -> Configuration:
    """The run's Configuration from `configurable`, merged with LangGraph's run context if one is given."""
    context = _runtime_context()
    if context:
        merged = dict(context)
        merged.update({k: v for k, v in ((config or {}).get("configurable") or {}).items() if v not in (None, "")})
        config = {**(config or {}), "configurable": merged}
    return Configuration.from_runnable_config(config)


def _runtime_context() -> dict:
    try:
        from langgraph.runtime import get_runtime

        ctx = get_runtime().context
    except Exception:
        return {}
    if ctx is None:
        return {}
    if isinstance(ctx, dict):
        return {k: v for k, v in ctx.items() if v not in (None, "")}
    from dataclasses import fields, is_dataclass

    if is_dataclass(ctx):
        defaults = Configuration()
        return {f.name: getattr(ctx, f.name) for f in fields(ctx)
                if getattr(ctx, f.name) != getattr(defaults, f.name, None)}
    return {}


def timed(name: str) -> Callable:
    """Add the node's wall time to `timings_ms[name]` in its update."""

    def wrap(fn):
        @functools.wraps(fn)
        def node(state, config: RunnableConfig | None = None, **kwargs):
            t0 = time.perf_counter()
            update = fn(state, config, **kwargs) or {}
            update = dict(update)
            update["timings_ms"] = {name: (time.perf_counter() - t0) * 1000.0}
            return update

        return node

    return wrap


def scope_of(state: dict, scoped: bool) -> list[str] | None:
    """The documents a scoped search may look at, or None for the whole corpus."""
    if not scoped:
        return None
    docs = state.get("routed_docs") or []
    return list(docs) if docs else None
