"""The runnable behind each `/{system}` route of `finrag serve` (app/server.py mounts one per system with LangServe).

A route's runnable (`make_runnable`) validates the question, runs the system's compiled graph with the server's
`Configuration` as its run context (`context=`, built once per request from the server's index directory and the
FINRAG_* environment when the app is created) and maps the final state through `finrag.api.to_contract`.

* `/stream` (and `/stream_events`, `/stream_log`) run the graph *inside* the lambda with the lambda's child
  config, so `/stream_events` carries the graph's own events (one `on_chain_start`/`on_chain_end` pair per node)
  and `/stream` emits the contract in pieces that add up (`+`) to the `/invoke` output: first `{id, system,
  question}`, then `{routing}` as soon as routing is known, then the generator's tokens as `{answer}` pieces
  (`finrag.api.AnswerTokens`), then the rest (contexts, cost, timings_ms; answer when no token streamed).
* `/invoke` and `/batch` (`_Route.ainvoke`) need one whole answer, not pieces: the graph runs once, streaming
  only its final state (no node updates, no message tokens: LangGraph's message handler on every node cost ~5 ms
  a request), without LangServe's callback-event recorder (which this server never returns: `include_callback_events`
  is off), and the answer is built from the state with the same keys in the same order as the pieces' sum. A turn
  on a thread and the playground keep the streaming path.
"""
from __future__ import annotations

import time
import uuid
from typing import Any, AsyncIterator, Iterator, Mapping, Optional

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from langchain_core.runnables.utils import AddableDict
from langserve.callbacks import AsyncEventAggregatorCallback
from pydantic import BaseModel, ConfigDict, Field, field_validator

from finrag import server_threads, web
from finrag.api import AnswerTokens, QuestionError, to_contract, validate_question
from finrag.graphs import get_graph
from finrag.state.configuration import Configuration
from finrag.state.contract import Answer

__all__ = ["AnswerContract", "QuestionInput", "STREAM_MODES", "make_runnable"]


class QuestionInput(BaseModel):
    """The input of every system: one question (and optionally the id to echo back)."""

    model_config = ConfigDict(extra="forbid", title="QuestionInput")

    question: str = Field(..., description="The question, e.g. \"What was 3M's FY2018 capital expenditure?\"")
    # a plain string with a default, not Optional[str]: the LangServe playground's form cannot render the
    # `anyOf: [string, null]` schema that Optional produces (the page stays blank); null is still accepted
    id: str = Field("", description="Optional id echoed in the answer (empty: a random id)")

    @field_validator("question")
    @classmethod
    def _question_ok(cls, v: str) -> str:
        return validate_question(v)  # QuestionError is a ValueError: pydantic reports it as a 422

    @field_validator("id", mode="before")
    @classmethod
    def _id_str(cls, v: Any) -> Any:
        if v is None:
            return ""
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


# The output of every route: the JSON contract (state/contract.py), so /output_schema and the playground
# show its fields with their descriptions.
AnswerContract = Answer


# ----------------------------------------------------------------- runnable
def _run_config(config: RunnableConfig | None) -> RunnableConfig:
    """The lambda's child config (callbacks, tags) without any `configurable` a client sent."""
    cfg = dict(config or {})
    cfg.pop("configurable", None)
    cfg.pop("run_name", None)
    cfg.pop("run_id", None)
    return cfg  # type: ignore[return-value]


def _pieces(system: str, state: dict, *, qid: str, question: str, total_ms: float,
            routing_sent: Optional[dict]) -> dict:
    contract = to_contract(state, system=system, qid=qid, question=question, total_ms=total_ms)
    rest = {k: v for k, v in contract.items() if k not in ("id", "system", "question")}
    if routing_sent is not None and rest.get("routing") == routing_sent:
        rest.pop("routing")
    return rest


STREAM_MODES = ["updates", "values", "messages"]
"""What `/stream` asks the graph for: node updates (routing as soon as it is known), the state, and the
generator's message chunks (the answer's tokens)."""


def _routing_of(system: str, state: dict, update: dict) -> dict:
    """The contract's `routing` as soon as `resolve_docs` has run: built by `to_contract` itself from the state
    so far plus the node's update, so it equals the final answer's `routing` (which then is not sent again;
    two pieces with a `routing` would not add up)."""
    return to_contract({**state, **update}, system=system, qid="-", question="-", total_ms=0.0)["routing"]


def _without_event_recorder(config: RunnableConfig) -> RunnableConfig:
    """`config` without LangServe's `AsyncEventAggregatorCallback`: it records every node's events for a response
    field this server does not send (`include_callback_events` is off), and an async handler called from the
    nodes' worker threads costs a hop to the event loop per event."""
    handlers = config.get("callbacks")
    if isinstance(handlers, list):
        kept = [h for h in handlers if not isinstance(h, AsyncEventAggregatorCallback)]
        config["callbacks"] = kept or None
    return config


class _Route(server_threads.ThreadRoutesLambda):
    """A route's runnable: the lambda (streaming, threads, the playground) with an `ainvoke` that answers in one
    run when `whole(input, config)` can (it returns None for a turn on a thread or the playground)."""

    def __init__(self, func: Any, afunc: Any, name: str, whole: Any):
        super().__init__(func, afunc=afunc, name=name)
        self._whole = whole

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """`/invoke` and each input of `/batch`: the whole answer, as the streamed pieces would add up to."""
        out = await self._whole(input, ensure_config(config))
        if out is None:
            return await super().ainvoke(input, config, **kwargs)
        return out


def make_runnable(system: str, server_conf: Optional[Mapping[str, Any]] = None):
    """The runnable served at `/{system}`: question -> graph -> JSON contract, streaming in pieces.

    `server_conf` holds the server's `Configuration` values (its index directory); each request builds
    its Configuration from them once and runs the graph with it as the run context."""
    graph = get_graph(system)
    server_conf = dict(server_conf or {})
    threads = server_threads.Threads(server_conf, ())  # the turns on a thread (the caller's store: the run's config)

    def _prepare(inp: Any, max_question_chars: int) -> tuple[str, str]:
        if isinstance(inp, str):
            inp = {"question": inp}
        if isinstance(inp, BaseModel):
            inp = inp.model_dump()
        if not isinstance(inp, dict):
            raise QuestionError("input must be an object with a 'question' field")
        q = validate_question(inp.get("question"), max_question_chars)
        return q, str(inp.get("id") or uuid.uuid4().hex[:12])

    class _Pieces:
        """Turns the graph's stream into the contract's pieces: head, routing (once known), the rest."""

        def __init__(self, inp: Any):
            self.context = Configuration(**(server_conf or {}))  # already a dict (above); `or` for the type checker
            self.question, self.qid = _prepare(inp, self.context.max_question_chars)
            self.state: dict = {}
            self.routing_sent: Optional[dict] = None
            self.tokens = AnswerTokens(self.question, self.context)  # on a thread: "Answering: ..." first
            self.t0 = time.perf_counter()

        def head(self) -> AddableDict:
            return AddableDict(id=self.qid, system=system, question=self.question)

        def feed(self, mode: str, chunk: Any) -> Optional[AddableDict]:
            if mode == "values":
                self.state = chunk
            elif mode == "messages":  # the generator's tokens, as `answer` pieces that add up to the answer
                text = self.tokens.feed(chunk, self.state)
                return AddableDict(answer=text) if text else None
            elif (self.routing_sent is None and mode == "updates" and isinstance(chunk, dict)
                  and isinstance(chunk.get("resolve_docs"), dict)):
                self.routing_sent = _routing_of(system, self.state, chunk["resolve_docs"])
                return AddableDict(routing=self.routing_sent)
            return None

        def rest(self) -> AddableDict:
            total = (time.perf_counter() - self.t0) * 1000.0
            rest = _pieces(system, self.state, qid=self.qid, question=self.question, total_ms=total,
                           routing_sent=self.routing_sent)
            if self.tokens.sent and "answer" in rest:  # what the streamed pieces lack of the final answer
                remainder = self.tokens.rest(rest["answer"])
                if remainder is None:  # a generator call failed mid-stream and the offline strategy answered
                    rest["answer_replaced"] = rest.pop("answer")
                elif remainder:
                    rest["answer"] = remainder
                else:
                    rest.pop("answer")
            return AddableDict(rest)

    async def astream_answer(inp: Any, config: RunnableConfig) -> AsyncIterator[dict]:
        pieces = _Pieces(inp)
        thread = server_threads.thread_of(config)
        if thread is not None:  # a turn of a conversation (`finrag.server_threads`: /invoke and /stream only)
            yield pieces.head()
            async for mode, chunk in threads.aturn(system, pieces.context, thread, {"question": pieces.question},
                                                   _run_config(config), STREAM_MODES):
                if (piece := pieces.feed(mode, chunk)) is not None:
                    yield piece
            yield pieces.rest()
            return
        if web.is_playground(config):  # the playground prints each piece as JSON: one piece, the answer first
            async for mode, chunk in graph.astream({"question": pieces.question}, _run_config(config),
                                                   context=pieces.context, stream_mode=["updates", "values"]):
                pieces.feed(mode, chunk)
            pieces.routing_sent = None  # nothing was sent: the one piece carries the routing too
            yield AddableDict(web.answer_first({**pieces.head(), **pieces.rest()}))
            return
        yield pieces.head()
        async for mode, chunk in graph.astream({"question": pieces.question}, _run_config(config),
                                               context=pieces.context, stream_mode=STREAM_MODES):
            if (piece := pieces.feed(mode, chunk)) is not None:
                yield piece
        yield pieces.rest()

    def stream_answer(inp: Any, config: RunnableConfig) -> Iterator[dict]:
        pieces = _Pieces(inp)
        yield pieces.head()
        thread = server_threads.thread_of(config)
        chunks = graph.stream({"question": pieces.question}, _run_config(config), context=pieces.context,
                              stream_mode=STREAM_MODES) if thread is None else \
            threads.turn(system, pieces.context, thread, {"question": pieces.question}, _run_config(config), STREAM_MODES)
        for mode, chunk in chunks:
            if (piece := pieces.feed(mode, chunk)) is not None:
                yield piece
        yield pieces.rest()

    async def whole_answer(inp: Any, config: RunnableConfig) -> Optional[AddableDict]:
        """The answer of one run (`_Route.ainvoke`); None on a thread or in the playground (the lambda answers)."""
        if server_threads.thread_of(config) is not None or web.is_playground(config):
            return None
        pieces = _Pieces(inp)
        async for _mode, state in graph.astream({"question": pieces.question}, _without_event_recorder(_run_config(config)),
                                                context=pieces.context, stream_mode=["values"]):
            pieces.state = state
        return pieces.head() + pieces.rest()  # routing in the rest: no piece sent it (the route's output model orders the keys)

    # LangChain's overloads do not model a generator function that takes the run's config: ignored, not cast
    return _Route(stream_answer, afunc=astream_answer, name=system, whole=whole_answer).with_types(  # type: ignore[arg-type]
        input_type=QuestionInput, output_type=AnswerContract)  # type: ignore[arg-type]

