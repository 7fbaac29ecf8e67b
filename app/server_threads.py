"""Conversations over HTTP (issue 36): the server's thread routes, and turns of `/{system}/invoke` and `/stream` on a
LangGraph thread (app/server.py mounts both; docs/serving.md, "Conversations").

    POST   /threads                 {"thread_id": "name"} or no body (a generated id)  -> 201 {"thread_id": ...}
    GET    /threads                 the caller's threads, the most recently used first
    GET    /threads/{thread_id}     its turns (question, resolved question, routing, answer, citations)
    DELETE /threads/{thread_id}
    POST   /{system}/invoke | /stream   with "config": {"configurable": {"thread_id": ...}}, as LangServe's
                                        RemoteRunnable sends `config={"configurable": {"thread_id": ...}}`

The thread id is the one configurable key the routes take (`THREAD_SPEC`, so LangServe's config schema lets it
through and drops every other); `Threads.config_modifier`, LangServe's per-request config modifier, checks it before
the run starts: a malformed id is a 422, an id the caller's store does not hold a 404, a thread id sent to /batch,
/stream_log or /stream_events a 422 (a conversation's turns run one at a time). The turn runs the system's graph
compiled with the store's SQLite checkpointer (`ThreadStore.graph`) in a worker thread, holding the thread (other
turns of it wait, in this process and in the other workers, as long as the request has time left, then 409), and
its answer carries `resolved_question` and `conversation` as `finrag.run_query(thread_id=...)` does.

Stores are per index and per API key (`finrag.threads.owner_of`): a server with keys keeps one store per key,
`threads-<16 hex digits of the key's SHA-256>.sqlite`, and a thread of another key is a 404 like an unknown one
(its existence does not leak); a server without a key uses the index's own store, the one `finrag chat` and the
Python API use. Read-only routes never create a store. A store SQLite cannot read is a 503 naming it (never reset).
"""
from __future__ import annotations

import asyncio
import collections
import contextvars
import re
import sqlite3
import threading
import time
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Optional

from fastapi import FastAPI, Request
from langchain_core.runnables import ConfigurableFieldSpec, RunnableLambda
from pydantic import BaseModel, ConfigDict, Field

from finrag.guard import API_KEY_HEADER
from finrag.state.configuration import Configuration
from finrag.state.settings import ThreadSettings
from finrag.threads import (
    ThreadBusy,
    ThreadError,
    ThreadExists,
    ThreadNotFound,
    ThreadQuota,
    ThreadStore,
    ThreadStoreDamaged,
    check_thread_id,
    damaged,
    owned_store,
    owner_of,
)
from finrag.tools.llm.deadline import remaining

THREAD_ENDPOINTS = ("invoke", "stream")
"""The run endpoints that take a thread id."""

OWNER_KEY = "finrag_owner"
"""The `configurable` key the config modifier adds for the run: the caller's store (`owner_of`; never a client's)."""

DEFAULT_TURN_WAIT_S = 120.0
"""How long a turn waits for another turn of its thread when the request has no deadline (then 409)."""

THREAD_SPEC = ConfigurableFieldSpec(
    id="thread_id", annotation=str, name="Thread ID", default="",
    description="A conversation thread (POST /threads creates one): the question is answered as its next turn, a "
                "follow-up resolved from the turns before. /invoke and /stream only. Empty: no thread.")
"""The one configurable key of the routes (LangServe's config schema keeps it and drops any other key)."""


class ThreadRoutesLambda(RunnableLambda):
    """A route's runnable: a `RunnableLambda` whose config schema has `configurable.thread_id` (`THREAD_SPEC`)."""

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The lambda's own specs and the thread id."""
        return [*super().config_specs, THREAD_SPEC]


class ThreadCreate(BaseModel):
    """The body of `POST /threads` (optional)."""

    model_config = ConfigDict(extra="forbid", title="ThreadCreate")

    thread_id: Optional[str] = Field(None, description="The new thread's id (one line, at most 200 characters). "
                                                       "None: a generated one.")


def thread_of(config: Any) -> Optional[tuple[str, str]]:
    """(thread id, owner) of a run the config modifier put on a thread, else None."""
    conf = (config or {}).get("configurable") or {}
    tid = conf.get("thread_id")
    return (str(tid), str(conf.get(OWNER_KEY) or "")) if tid else None


def _public(text: str) -> str:
    """A message with every thread store's folder left out (only its file name)."""
    return re.sub(r"[^\s'\"()]*/([^/\s'\"()]+\.sqlite(?:\.lock)?)", r"\1", text)


def describe(exc: BaseException) -> Optional[tuple[int, str]]:
    """(status, one-line detail) of a thread error: 404 unknown thread, 409 busy or taken, 503 damaged store, 422
    a malformed id or a thread id where none is taken; None for other errors."""
    if isinstance(exc, ThreadNotFound):
        return 404, f"unknown thread {exc.thread_id!r}: POST /threads creates one" if exc.thread_id else _public(str(exc))
    if isinstance(exc, ThreadQuota):
        return 429, _public(str(exc))
    if isinstance(exc, (ThreadBusy, ThreadExists)):
        return 409, _public(str(exc))
    if isinstance(exc, ThreadStoreDamaged):
        return 503, _public(str(exc))
    if isinstance(exc, ThreadError):
        return 422, _public(str(exc))
    return None


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class CreateQuota:
    """How many threads each owner (API key) may create a minute (`ThreadSettings.create_per_minute`; 0: no
    limit), counted in this process over the last 60 seconds."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._made: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, owner: str) -> None:
        """Count one creation by `owner`, or ThreadQuota when it made `per_minute` in the last minute."""
        if not self.per_minute:
            return
        now = time.monotonic()
        with self._lock:
            made = self._made.setdefault(owner, collections.deque())
            while made and made[0] <= now - 60.0:
                made.popleft()
            if len(made) >= self.per_minute:
                wait = max(1, int(made[0] + 60.0 - now + 0.999))
                raise ThreadQuota(f"at most {self.per_minute} threads a minute per API key "
                                  f"(FINRAG_THREADS_CREATE_PER_MINUTE); try again in {wait} s")
            made.append(now)


class Threads:
    """The server's thread stores (per index and API key), its thread routes and its turns on threads."""

    def __init__(self, server_conf: Mapping[str, Any], api_keys: tuple[str, ...]) -> None:
        """`server_conf`: the Configuration values of every request (the index); `api_keys`: the server's keys."""
        self.server_conf = dict(server_conf)
        self.api_keys = api_keys
        self.quota = CreateQuota(int(ThreadSettings().create_per_minute))

    def owner(self, given_key: Optional[str]) -> str:
        """The caller's store: '' on a server without keys, else its key's (the guard let only the keys in)."""
        return owner_of(given_key) if self.api_keys else ""

    def store(self, owner: str, *, create: bool = True, context: Optional[Configuration] = None
              ) -> Optional[ThreadStore]:
        """The owner's store of the server's index (None: `create` false and no store yet)."""
        cfg = context if context is not None else Configuration(**self.server_conf)
        return owned_store(cfg, owner, create=create)

    # ---------------------------------------------------------------- runs on a thread
    def config_modifier(self, system: str) -> Callable[[dict, Request], Any]:
        """LangServe's per-request config modifier of `/{system}`: a client's `configurable.thread_id` checked before
        the run starts (422 malformed or on another endpoint, 404 not in the caller's store) and the caller's store
        added; nothing else of a client's `configurable` is kept."""
        async def modify(config: dict, request: Request) -> dict:
            return await asyncio.to_thread(self._on_thread, system, config, request.url.path,
                                           request.headers.get(API_KEY_HEADER))

        return modify

    def _on_thread(self, system: str, config: dict, path: str, given_key: Optional[str]) -> dict:
        config = dict(config)
        conf = config.pop("configurable", None) or {}
        tid = conf.get("thread_id") if isinstance(conf, Mapping) else None
        if tid is None or tid == "":
            return config
        endpoint = path.rstrip("/").rsplit("/", 1)[-1]
        if endpoint not in THREAD_ENDPOINTS:
            raise ThreadError(f"/{system}/{endpoint} takes no thread_id: the turns of a conversation run one at a "
                              f"time, through /{system}/invoke or /{system}/stream")
        tid = check_thread_id(tid)
        owner = self.owner(given_key)
        store = self.store(owner, create=False)
        if store is None or not store.exists(tid):
            raise ThreadNotFound("unknown thread", tid)
        config["configurable"] = {"thread_id": tid, OWNER_KEY: owner}
        return config

    def turn(self, system: str, context: Configuration, thread: tuple[str, str], inp: dict, config: Any,
             stream_mode: list[str]) -> Iterator[tuple[str, Any]]:
        """One turn on the thread: the graph's (mode, chunk) stream, the thread held throughout (waiting for another
        turn of it at most the time the request has left; ThreadBusy then), the store's bookkeeping after it."""
        tid, owner = thread
        store = self.store(owner, context=context)
        assert store is not None  # created when absent
        graph = store.graph(system)
        left = remaining()
        with store.turn(tid, wait=DEFAULT_TURN_WAIT_S if left is None else max(0.0, left - 0.5)):
            if not store.exists(tid):  # deleted (or dropped by the bounds) since the request was checked
                raise ThreadNotFound("unknown thread", tid)
            try:
                yield from graph.stream(inp, store.config(tid, config), context=context, stream_mode=stream_mode,
                                        durability=store.durability)
                store.after_turn(tid, graph)
            except sqlite3.DatabaseError as exc:
                raise damaged(store.path, exc) from None

    async def aturn(self, *args: Any) -> AsyncIterator[tuple[str, Any]]:
        """`turn` from a worker thread (the SQLite checkpointer is synchronous), with the request's context (its
        deadline); the turn runs to its end even when the client has gone, so the thread stays whole."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()

        def put(item: tuple[bool, Any]) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                pass

        def produce() -> None:
            try:
                for item in self.turn(*args):
                    put((True, item))
                put((False, None))
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
                put((False, exc))

        ctx = contextvars.copy_context()
        worker = loop.run_in_executor(None, ctx.run, produce)
        while True:
            more, item = await queue.get()
            if not more:
                await worker
                if item is not None:
                    raise item
                return
            yield item

    # ---------------------------------------------------------------- routes
    def add_routes(self, app: FastAPI) -> None:
        """`POST /threads`, `GET /threads`, `GET /threads/{thread_id}`, `DELETE /threads/{thread_id}`."""

        def owner(request: Request) -> str:
            return self.owner(request.headers.get(API_KEY_HEADER))

        @app.post("/threads", status_code=201, tags=["threads"])
        async def create_thread(request: Request, body: Optional[ThreadCreate] = None) -> dict:
            """Create a thread (`thread_id`, else a generated id); 409 when the caller has one of that id."""
            who = owner(request)

            def create() -> str:
                self.quota.take(who)  # 429 past the key's threads a minute
                store = self.store(who)
                assert store is not None
                return store.create(body.thread_id if body is not None else None, keep_conversations=True)

            return {"thread_id": await asyncio.to_thread(create)}

        @app.get("/threads", tags=["threads"])
        async def list_threads(request: Request) -> dict:
            """The caller's threads, the most recently used first (the store's bounds applied first)."""
            who = owner(request)

            def listing() -> list[dict]:
                store = self.store(who, create=False)
                if store is None:
                    return []
                store.prune()
                return [{"thread_id": t.thread_id, "turns": t.turns, "last_question": t.last_question,
                         "created": _iso(t.created), "updated": _iso(t.updated)}
                        for t in reversed(store.list_threads())]

            return {"threads": await asyncio.to_thread(listing)}

        @app.get("/threads/{thread_id:path}", tags=["threads"])
        async def read_thread(request: Request, thread_id: str) -> dict:
            """A thread's turns, oldest first; 404 for an id the caller's store does not hold."""
            who = owner(request)

            def read() -> list[dict]:
                tid = check_thread_id(thread_id)
                store = self.store(who, create=False)
                if store is None:
                    raise ThreadNotFound("unknown thread", tid)
                try:
                    return store.read(tid)
                except ThreadNotFound:
                    raise ThreadNotFound("unknown thread", tid) from None

            turns = await asyncio.to_thread(read)
            return {"thread_id": thread_id.strip(), "turns": turns}

        @app.delete("/threads/{thread_id:path}", tags=["threads"])
        async def delete_thread(request: Request, thread_id: str) -> dict:
            """Delete a thread (its turns and checkpoints); 404 unknown, 409 while it answers a turn past the time
            the request has."""
            who = owner(request)
            left = remaining()

            def delete() -> str:
                tid = check_thread_id(thread_id)
                store = self.store(who, create=False)
                if store is None:
                    raise ThreadNotFound("unknown thread", tid)
                try:
                    store.delete(tid, wait=DEFAULT_TURN_WAIT_S if left is None else max(0.0, left - 0.5))
                except ThreadNotFound:
                    raise ThreadNotFound("unknown thread", tid) from None
                return tid

            return {"thread_id": await asyncio.to_thread(delete), "deleted": True}


__all__ = ["OWNER_KEY", "THREAD_ENDPOINTS", "THREAD_SPEC", "ThreadCreate", "ThreadRoutesLambda", "Threads", "describe",
           "thread_of"]
