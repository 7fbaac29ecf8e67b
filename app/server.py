"""HTTP serving: the six systems as LangServe routes on one FastAPI app.

    finrag serve --index .finrag --port 8000            # or: python -m finrag.server
    curl -s localhost:8000/hdrr/invoke -H 'content-type: application/json' \
         -d '{"input": {"question": "What was Acme Widgets revenue in FY2023?"}}'

Routes (see docs/serving.md):

- ``GET  /health`` opens the index once per process (`finrag.tools.runtime.get_store`) and reports it;
  503 with a one-line reason when the index is missing or unusable. Never needs the API key.
- ``GET  /`` lists the systems and endpoints.
- ``POST /{system}/invoke | /batch | /stream | /stream_events | /stream_log``, ``GET /{system}/playground/``
  and the ``input_schema`` / ``output_schema`` / ``config_schema`` endpoints, for system in
  ``finrag.graphs.SYSTEMS``.

Each route's runnable is an async-generator ``RunnableLambda`` that validates the question, runs the
system's compiled graph with the server's ``Configuration`` as its run context (``context=``, built once
per request from the server's index directory and the FINRAG_* environment) and maps the final state
through ``finrag.api.to_contract``. The graph runs *inside* the lambda with the lambda's child config,
so ``/stream_events`` carries the graph's own events (one ``on_chain_start``/``on_chain_end`` pair per
node: extract_metadata, resolve_docs, rewrite, fts_search, ...), and ``/stream`` emits the contract in
pieces that add up (``+``) to the ``/invoke`` output: first ``{id, system, question}``, then
``{routing}`` as soon as routing is known, then the rest (answer, contexts, cost, timings_ms).

Clients cannot change the server's configuration: the ``configurable`` a client sends is dropped (the
graphs read only their run context), so a request cannot point the server at another directory or model.

Guards (one pure-ASGI middleware, so they hold for streaming responses too):
optional ``X-API-Key`` (401), request body limit (413), a cap on the inputs of one ``/batch`` request
(413, ``DEFAULT_MAX_BATCH``), a body that is not UTF-8 (422), per-request timeout (504; a stream that has
already started ends with an SSE ``error`` event carrying status 504), and a catch-all that turns any
unexpected exception into a one-line 500 JSON message plus one log line. Validation problems (empty or
whitespace-only question, malformed JSON, wrong fields) are 422 with a one-line ``detail``; unknown
paths are 404 with the list of systems. No response ever carries a traceback.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator, Mapping, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.utils import AddableDict
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from finrag.api import QuestionError, to_contract, validate_question
from finrag.graphs import SYSTEMS, get_graph
from finrag.state.configuration import Configuration, resolve_index_dir
from finrag.state.contract import Answer

log = logging.getLogger("finrag.server")

DEFAULT_MAX_BODY_BYTES = 64_000
DEFAULT_MAX_BATCH = 32
"""Most inputs one `/{system}/batch` request may carry (each answer costs ~40 ms of CPU offline, far more with
an LLM); more is a 413 that says so. FINRAG_SERVE_MAX_BATCH or `finrag serve --max-batch` change it."""
DEFAULT_TIMEOUT_S = 120.0
API_KEY_HEADER = "X-API-Key"
OPEN_PATHS = frozenset({"/health"})
RUN_ENDPOINTS = frozenset({"invoke", "batch", "stream", "stream_log", "stream_events"})


# ------------------------------------------------------------------ schemas
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


def _routing_of(system: str, state: dict, update: dict) -> dict:
    """The contract's `routing` as soon as `resolve_docs` has run: built by `to_contract` itself from the state
    so far plus the node's update, so it equals the final answer's `routing` (which then is not sent again;
    two pieces with a `routing` would not add up)."""
    return to_contract({**state, **update}, system=system, qid="-", question="-", total_ms=0.0)["routing"]


def make_runnable(system: str, server_conf: Optional[Mapping[str, Any]] = None):
    """The runnable served at `/{system}`: question -> graph -> JSON contract, streaming in pieces.

    `server_conf` holds the server's `Configuration` values (its index directory); each request builds
    its Configuration from them once and runs the graph with it as the run context."""
    graph = get_graph(system)
    server_conf = dict(server_conf or {})

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
            self.context = Configuration(**server_conf)
            self.question, self.qid = _prepare(inp, int(self.context.max_question_chars))
            self.state: dict = {}
            self.routing_sent: Optional[dict] = None
            self.t0 = time.perf_counter()

        def head(self) -> AddableDict:
            return AddableDict(id=self.qid, system=system, question=self.question)

        def feed(self, mode: str, chunk: Any) -> Optional[AddableDict]:
            if mode == "values":
                self.state = chunk
            elif (self.routing_sent is None and mode == "updates" and isinstance(chunk, dict)
                  and isinstance(chunk.get("resolve_docs"), dict)):
                self.routing_sent = _routing_of(system, self.state, chunk["resolve_docs"])
                return AddableDict(routing=self.routing_sent)
            return None

        def rest(self) -> AddableDict:
            total = (time.perf_counter() - self.t0) * 1000.0
            return AddableDict(_pieces(system, self.state, qid=self.qid, question=self.question, total_ms=total,
                                       routing_sent=self.routing_sent))

    async def astream_answer(inp: Any, config: RunnableConfig) -> AsyncIterator[dict]:
        pieces = _Pieces(inp)
        yield pieces.head()
        async for mode, chunk in graph.astream({"question": pieces.question}, _run_config(config),
                                               context=pieces.context, stream_mode=["updates", "values"]):
            if (piece := pieces.feed(mode, chunk)) is not None:
                yield piece
        yield pieces.rest()

    def stream_answer(inp: Any, config: RunnableConfig) -> Iterator[dict]:
        pieces = _Pieces(inp)
        yield pieces.head()
        for mode, chunk in graph.stream({"question": pieces.question}, _run_config(config),
                                        context=pieces.context, stream_mode=["updates", "values"]):
            if (piece := pieces.feed(mode, chunk)) is not None:
                yield piece
        yield pieces.rest()

    return RunnableLambda(stream_answer, afunc=astream_answer, name=system).with_types(
        input_type=QuestionInput, output_type=AnswerContract)


# ------------------------------------------------------------------- guards
def _json_body(status: int, payload: dict) -> tuple[dict, dict]:
    body = json.dumps(payload).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    return start, {"type": "http.response.body", "body": body, "more_body": False}


class _Guard:
    """API key, body limit, timeout and a last-resort error handler, as one ASGI middleware."""

    def __init__(self, app, *, api_key: Optional[str], max_body_bytes: int, timeout_s: float,
                 max_batch: int = DEFAULT_MAX_BATCH):
        self.app = app
        self.api_key = api_key or None
        self.max_body_bytes = int(max_body_bytes)
        self.timeout_s = float(timeout_s) if timeout_s else 0.0
        self.max_batch = int(max_batch)

    def _body_problem(self, path: str, body: bytes) -> Optional[tuple[int, str]]:
        """(status, detail) for a body a run endpoint must refuse before LangServe parses it: not UTF-8 (JSON
        is UTF-8; Starlette would fail with a 500), or a `/batch` with more inputs than `max_batch`."""
        parts = path.strip("/").split("/")
        if not body or len(parts) != 2 or parts[0] not in SYSTEMS or parts[1] not in RUN_ENDPOINTS:
            return None
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return 422, (f"request body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start}); "
                         "send JSON encoded as UTF-8")
        if parts[1] == "batch" and self.max_batch > 0:
            try:
                payload = json.loads(text)
            except ValueError:
                return None  # malformed JSON: LangServe's own 422
            inputs = payload.get("inputs") if isinstance(payload, dict) else None
            if isinstance(inputs, list) and len(inputs) > self.max_batch:
                return 413, (f"batch of {len(inputs):,} inputs is larger than the limit of {self.max_batch} inputs "
                             "per request; send them in several requests")
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        started = completed = timed_out = False

        async def tracking_send(message):
            nonlocal started, completed
            if timed_out:  # the request has been answered with a 504: drop what the cancelled app still sends
                return
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                completed = True
            await send(message)

        async def reply(status: int, payload: dict):
            start, body = _json_body(status, payload)
            await send(start)
            await send(body)

        try:
            if self.api_key and path not in OPEN_PATHS:
                given = dict(scope.get("headers") or []).get(API_KEY_HEADER.lower().encode(), b"")
                if not hmac.compare_digest(given, self.api_key.encode()):
                    why = "missing" if not given else "wrong"
                    return await reply(401, {"detail": f"{why} API key: send the header {API_KEY_HEADER}"})

            if scope.get("method") in ("POST", "PUT", "PATCH"):
                headers = dict(scope.get("headers") or [])
                declared = headers.get(b"content-length")
                if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
                    return await reply(413, {"detail": f"request body of {int(declared):,} bytes is larger than the "
                                                       f"limit of {self.max_body_bytes:,} bytes"})
                chunks, size = [], 0
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body_bytes:
                        return await reply(413, {"detail": f"request body is larger than the limit of "
                                                           f"{self.max_body_bytes:,} bytes"})
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
                body, replayed = b"".join(chunks), False
                problem = self._body_problem(path, body)
                if problem is not None:
                    return await reply(problem[0], {"detail": problem[1]})

                async def replay():
                    nonlocal replayed
                    if not replayed:
                        replayed = True
                        return {"type": "http.request", "body": body, "more_body": False}
                    return await receive()

                receive_ = replay
            else:
                receive_ = receive

            parts = path.strip("/").split("/")
            timed = (self.timeout_s > 0 and len(parts) == 2 and parts[0] in SYSTEMS and parts[1] in RUN_ENDPOINTS)
            if not timed:
                return await self.app(scope, receive_, tracking_send)
            task = asyncio.ensure_future(self.app(scope, receive_, tracking_send))
            try:
                done, _ = await asyncio.wait({task}, timeout=self.timeout_s)
            except asyncio.CancelledError:  # the server is shutting down or the client went away
                task.cancel()
                raise
            if task in done:
                return task.result()
            timed_out = True
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - CancelledError, or whatever the app raised on the way out
                pass
            if completed:  # the answer went out just as the clock ran out
                return
            message = f"request timed out after {self.timeout_s:g} s"
            log.warning("%s %s: %s", scope.get("method"), path, message)
            if not started:
                return await reply(504, {"detail": message})
            # a stream is under way: end it with an SSE error event that LangServe's client raises as a 504
            event = json.dumps({"status_code": 504, "message": message})
            await send({"type": "http.response.body", "body": f"event: error\r\ndata: {event}\r\n\r\n".encode(),
                        "more_body": False})
        except Exception as exc:  # noqa: BLE001 - the last resort: one log line, one JSON line, no traceback
            log.error("unhandled %s on %s %s: %s", type(exc).__name__, scope.get("method"), path,
                      _one_line(exc))
            log.debug("traceback", exc_info=True)
            try:
                if not started:
                    await reply(500, {"detail": f"internal error ({type(exc).__name__}); see the server log"})
                elif not completed:  # a stream broke (LangServe has sent its `error` event): close it properly
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
            except Exception:  # noqa: BLE001 - the client is gone
                pass


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):  # anyio task groups (streaming) wrap the real error
        return "; ".join(_one_line(e) for e in exc.exceptions)
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__


# ---------------------------------------------------------------------- app
def _validation_detail(errors: list) -> str:
    parts = []
    for e in errors:
        if isinstance(e, str):
            parts.append("malformed JSON body" if "json" in e.lower() else e)
            continue
        if not isinstance(e, dict):
            parts.append(str(e))
            continue
        loc = ".".join(str(x) for x in e.get("loc", ()) if x not in ("body",))
        msg = str(e.get("msg", "invalid value"))
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        if e.get("type") == "json_invalid":
            msg = "malformed JSON body"
            loc = ""
        parts.append(f"{loc}: {msg}" if loc and not msg.startswith(loc.split(".")[-1]) else msg)
    return "; ".join(dict.fromkeys(parts)) or "invalid request"


def _plain_errors(errors: list) -> list:
    out = []
    for e in errors:
        if isinstance(e, dict):
            out.append({"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", "")),
                        "type": str(e.get("type", ""))})
        else:
            out.append({"loc": [], "msg": str(e), "type": "value_error"})
    return out


def _resolve_index(index_dir: Optional[str | os.PathLike]) -> Path:
    from finrag.tools.indexing.backend import is_milvus

    index_dir = index_dir or os.environ.get("FINRAG_HOME")
    if is_milvus(index_dir):  # a Milvus index (issue 10): the location itself
        return index_dir  # type: ignore[return-value]
    return resolve_index_dir(index_dir).resolve()


def create_app(index_dir: Optional[str | os.PathLike] = None, api_key: Optional[str] = None,
               max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
               *, warm_up: bool = True, max_batch: int = DEFAULT_MAX_BATCH) -> FastAPI:
    """The FastAPI app serving the six systems (see the module docstring)."""
    from langserve import add_routes

    from finrag.tools import runtime

    _quiet_langserve_warnings()
    index = _resolve_index(index_dir)
    server_conf = {"index_dir": str(index)}
    cfg = Configuration(**server_conf)  # the server's configuration at start-up (health, warm-up)

    def open_store():
        return runtime.get_store(cfg)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        if warm_up:
            def _warm():
                store = open_store()
                embedder = getattr(store, "embedder", None)
                if embedder is not None and hasattr(embedder, "embed_query"):
                    embedder.embed_query("warm up")  # load the model once, before concurrent requests
                try:  # and the registry and the vector file's mapping (an empty index has neither yet)
                    runtime.get_registry(store, cfg.alias_file)
                    store.search_vectors(embedder.embed_query("warm up"), k=1)
                except Exception:  # noqa: BLE001 - requests report what is missing
                    pass
                return store.count_documents()

            try:
                n = await asyncio.to_thread(_warm)
                log.info("index %s: %d documents; serving %s", index, n, ", ".join(SYSTEMS))
            except Exception as exc:  # noqa: BLE001 - /health reports it; requests get 503
                log.warning("index %s is not usable yet: %s", index, _one_line(exc))
        yield

    app = FastAPI(title="finrag", version=_version(), lifespan=lifespan,
                  description="Question answering over SEC filings: six retrieval systems as LangGraph graphs. "
                              "POST /{system}/invoke with {\"input\": {\"question\": \"...\"}}.")

    @app.get("/health", tags=["service"])
    async def health():
        try:
            store = await asyncio.to_thread(open_store)
            n = await asyncio.to_thread(store.count_documents)
        except Exception as exc:  # noqa: BLE001
            return JSONResponse(status_code=503, content={
                "status": "unavailable", "index": str(index), "documents": 0, "systems": list(SYSTEMS),
                "detail": _one_line(exc)})
        return {"status": "ok", "index": str(index), "documents": n, "systems": list(SYSTEMS)}

    @app.get("/", tags=["service"])
    async def root():
        return {"service": "finrag", "systems": list(SYSTEMS), "health": "/health",
                "endpoints": [f"/{s}/{e}" for s in SYSTEMS for e in ("invoke", "batch", "stream", "stream_events")],
                "playground": [f"/{s}/playground/" for s in SYSTEMS], "docs": "/docs"}

    for system in SYSTEMS:
        add_routes(app, make_runnable(system, server_conf),
                   path=f"/{system}", config_keys=(), enable_feedback_endpoint=False,
                   enable_public_trace_link_endpoint=False)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = list(exc.errors())
        return JSONResponse(status_code=422, content={"detail": _validation_detail(errors),
                                                      "errors": _plain_errors(errors)})

    from pydantic import ValidationError

    @app.exception_handler(ValidationError)
    async def _invalid_model(request: Request, exc: ValidationError):
        # LangServe's /batch validates each input outside its own error translation
        if exc.title == QuestionInput.__name__:
            errors = list(exc.errors())
            return JSONResponse(status_code=422, content={"detail": _validation_detail(errors),
                                                          "errors": _plain_errors(errors)})
        raise exc  # anything else is a server bug: the guard logs one line and answers 500

    @app.exception_handler(QuestionError)
    async def _bad_question(request: Request, exc: QuestionError):
        return JSONResponse(status_code=422, content={"detail": str(exc)})

    from finrag.tools.indexing.store import IndexError_

    @app.exception_handler(IndexError_)
    async def _no_index(request: Request, exc: IndexError_):
        log.warning("%s %s: %s", request.method, request.url.path, _one_line(exc))
        return JSONResponse(status_code=503, content={"detail": _one_line(exc)})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404 and exc.detail in (None, "", "Not Found"):
            return JSONResponse(status_code=404, content={
                "detail": f"no such endpoint: {request.url.path}; the systems are {', '.join(SYSTEMS)} "
                          f"(POST /{{system}}/invoke, /batch, /stream, /stream_events; GET /health)",
                "systems": list(SYSTEMS)})
        return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail},
                            headers=getattr(exc, "headers", None))

    from finrag.tools.llm.calls import LLMError
    from finrag.tools.llm.chat import LLMConfigError

    @app.exception_handler(LLMError)
    async def _llm_failed(request: Request, exc: LLMError):
        # the configured LLM failed and the policy is on_llm_error=fail: a bad gateway, not a silent offline answer
        log.warning("%s %s: %s", request.method, request.url.path, _one_line(exc))
        return JSONResponse(status_code=502, content={"detail": _one_line(exc)})

    @app.exception_handler(LLMConfigError)
    async def _llm_misconfigured(request: Request, exc: LLMConfigError):
        log.warning("%s %s: %s", request.method, request.url.path, _one_line(exc))
        return JSONResponse(status_code=503, content={"detail": _one_line(exc)})

    import sqlite3

    @app.exception_handler(sqlite3.DatabaseError)
    async def _database(request: Request, exc: sqlite3.DatabaseError):
        detail = f"index database {index / 'finrag.sqlite'} cannot be used ({_one_line(exc)})"
        log.warning("%s %s: %s", request.method, request.url.path, detail)
        return JSONResponse(status_code=503, content={"detail": detail})

    app.add_middleware(_Guard, api_key=api_key, max_body_bytes=max_body_bytes, timeout_s=timeout_s,
                       max_batch=max_batch)
    app.state.index_dir = index
    return app


def _quiet_langserve_warnings() -> None:
    """LangServe 0.3 reads `model.model_fields` on instances (deprecated in pydantic 2.11) on every request."""
    import warnings

    try:
        from pydantic.warnings import PydanticDeprecatedSince211
    except ImportError:  # pragma: no cover - older pydantic
        return
    warnings.filterwarnings("ignore", category=PydanticDeprecatedSince211, module=r"langserve(\.|$)")


def _version() -> str:
    try:
        from finrag import __version__

        return __version__
    except Exception:  # pragma: no cover
        return "0"


def serve(host: str = "127.0.0.1", port: int = 8000, index_dir: Optional[str] = None,
          api_key: Optional[str] = None, *, max_body_bytes: Optional[int] = None,
          timeout_s: Optional[float] = None, log_level: str = "info", max_batch: Optional[int] = None) -> int:
    """Run the app with uvicorn until interrupted; 0 on a clean stop, 1 if the server could not start.

    Limits also come from the environment: FINRAG_SERVE_MAX_BODY (bytes), FINRAG_SERVE_TIMEOUT (seconds),
    FINRAG_SERVE_MAX_BATCH (inputs per /batch request).
    """
    import uvicorn

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    max_body = max_body_bytes or int(os.environ.get("FINRAG_SERVE_MAX_BODY") or DEFAULT_MAX_BODY_BYTES)
    timeout = timeout_s or float(os.environ.get("FINRAG_SERVE_TIMEOUT") or DEFAULT_TIMEOUT_S)
    batch = max_batch or int(os.environ.get("FINRAG_SERVE_MAX_BATCH") or DEFAULT_MAX_BATCH)
    app = create_app(index_dir, api_key=api_key, max_body_bytes=max_body, timeout_s=timeout, max_batch=batch)
    config = uvicorn.Config(app, host=host, port=int(port), log_level=log_level, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    log.info("finrag serving on http://%s:%d (index %s, API key %s)", host, int(port), app.state.index_dir,
             "required" if api_key else "off")
    try:
        server.run()
    except KeyboardInterrupt:
        return 0
    except SystemExit:  # uvicorn exits when it cannot bind (it has logged why)
        return 1
    return 0 if server.started else 1


if __name__ == "__main__":  # python -m finrag.server [--host H] [--port P] [--index DIR]
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m finrag.server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--index", default=None)
    p.add_argument("--api-key", default=os.environ.get("FINRAG_API_KEY"))
    a = p.parse_args()
    sys.exit(serve(a.host, a.port, a.index, a.api_key))
