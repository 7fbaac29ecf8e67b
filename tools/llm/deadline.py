"""The deadline of the request a run serves, so that its LLM calls end with it.

`finrag serve` answers a request that runs past its timeout with a 504, but the graph's sync nodes run in
worker threads, and a thread blocked in an HTTP read cannot be cancelled. So the server opens each run
under `request_deadline(seconds)`; the deadline travels with the run's context (a `ContextVar`: LangGraph
and LangChain copy the context into the threads that run sync nodes), and:

* `get_chat_model` hands out a model whose attempt timeout and retries fit in the time left
  (`fit_limits`), so a call started before the deadline gives up by it;
* `try_structured` / `try_text` do not start a call once the deadline has passed (`check`), so a node that
  reaches its LLM call after the 504 frees its thread at once instead of waiting on the LLM.

Outside a server (CLI, Python API, eval) no deadline is set and nothing changes.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

__all__ = ["DeadlinePassed", "check", "fit", "fit_limits", "remaining", "request_deadline"]

_DEADLINE: ContextVar[float | None] = ContextVar("finrag_request_deadline", default=None)


class DeadlinePassed(TimeoutError):
    """The request this run serves has run out of time: no LLM call is started."""


@contextmanager
def request_deadline(seconds: float | None) -> Iterator[None]:
    """Run the body under a deadline `seconds` from now (none for None, 0 or a negative value)."""
    token = _DEADLINE.set(time.monotonic() + float(seconds) if seconds and seconds > 0 else None)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (negative once it has passed); None when there is none."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


def check(role: str) -> None:
    """Raise `DeadlinePassed` when the request has run out of time (nothing to do without a deadline)."""
    left = remaining()
    if left is not None and left <= 0:
        raise DeadlinePassed(f"the request ran out of time ({-left:.1f} s ago) before the {role} LLM call started")


def fit(timeout: float, retries: int, budget: float) -> tuple[float, int]:
    """(attempt timeout, retries) within `budget` seconds: each attempt waits at most the budget, and only the
    retries that fit after the first."""
    timeout = min(timeout, float(budget))
    return timeout, max(0, min(retries, int(float(budget) // timeout) - 1))


def fit_limits(timeout: float, retries: int) -> tuple[float, int]:
    """(attempt timeout, retries) fitted into the time left (`fit`; the time left in whole seconds, at least 1, so
    few distinct models are built); unchanged without a deadline."""
    left = remaining()
    if left is None:
        return timeout, retries
    return fit(timeout, retries, max(1.0, float(math.ceil(left))))
