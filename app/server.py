"""HTTP serving: the six systems as LangServe routes on one FastAPI app.

    finrag serve --index .finrag --port 8000            # or: python -m finrag.server
    curl -s localhost:8000/hdrr/invoke -H 'content-type: application/json' \
         -d '{"input": {"question": "What was Acme Widgets revenue in FY2023?"}}'

Routes (see docs/serving.md):

- ``GET  /health`` opens the index once per process (`finrag.tools.indexing.open_index.open_index`) and reports it:
  ``status``, ``index`` (the index folder's name, never its absolute path: this route needs no API key),
  ``documents``, ``systems``; 503 with a one-line reason (the path again reduced to the name) when the index
  is missing or unusable. Never needs the API key. It runs on two threads of its own, so it answers while every
  worker of the graphs is busy (e.g. waiting on an LLM that does not answer).
- ``GET  /`` lists the systems and endpoints; a browser gets the answer page instead (``finrag.web``: ``/documents``,
  cited pages and their images, offline ``/docs`` and ``/redoc``).
- ``POST /{system}/invoke | /batch | /stream | /stream_events | /stream_log``, ``GET /{system}/playground/``
  and the ``input_schema`` / ``output_schema`` / ``config_schema`` endpoints, for system in
  ``finrag.graphs.SYSTEMS``. LangServe's ``/{system}/c/{config_hash}/...`` copies (the playground's share
  links, with a client-chosen configuration) and ``/{system}/token_feedback`` are not mounted
  (``UNMOUNTED_LANGSERVE_ENDPOINTS``).

Each route's runnable (``finrag.server_runnable.make_runnable``, app/server_runnable.py) validates the question,
runs the system's compiled graph with the server's ``Configuration`` as its run context (``context=``, built once
per request from the server's index directory and the FINRAG_* environment) and maps the final state through
``finrag.api.to_contract``. ``/stream`` emits the contract in pieces that add up (``+``) to the ``/invoke``
output (first ``{id, system, question}``, then ``{routing}`` as soon as routing is known, then the generator's
tokens as ``{answer}`` pieces, then the rest) and ``/stream_events`` carries the graph's own events (one
``on_chain_start``/``on_chain_end`` pair per node); ``/invoke`` and ``/batch`` run the graph once for the whole
answer, without the streams.

Clients cannot change the server's configuration: of the ``configurable`` a client sends only ``thread_id`` is
kept (the graphs read only their run context), so a request cannot point the server at another directory or model.

Conversations (``finrag.server_threads``, app/server_threads.py): ``POST /threads``, ``GET /threads``,
``GET|DELETE /threads/{thread_id}``, and ``/invoke`` / ``/stream`` with ``config.configurable.thread_id`` (as
LangServe's ``RemoteRunnable`` sends it) answer the question as the thread's next turn, on the system's graph
compiled with the thread store's checkpointer; one store per index and API key (a thread of another key is a 404).

Guards (`finrag.guard._Guard`, app/guard.py: one pure-ASGI middleware in front of every route, so they hold for streaming responses and for any
route a library adds; what applies depends on the request, not on the route that will answer it):
optional ``X-API-Key`` on every path but /health (401), request body limit (413), a body that is not UTF-8
(422), JSON that Python cannot handle safely (422: nesting deeper than ``MAX_JSON_DEPTH``, a number with more
digits than Python converts, a lone surrogate such as ``"\\ud800"``), a cap on the inputs of a request to
any ``/{system}/.../batch`` (413, ``DEFAULT_MAX_BATCH``), a timeout on every path but /health (504; a stream
that has already started ends with an SSE ``error`` event carrying status 504), and a catch-all that turns
any unexpected exception into a one-line 500 JSON message plus one log line. Known failures map to one status
and detail (``_describe_failure``) both for a JSON answer and for the ``error`` event that ends a stream whose
run failed: 502 when the configured LLM failed (504 when it did not answer in time), 503 when it cannot be built
or the index is unusable, 422 for a bad question. The server's LLM calls wait at most its request timeout per
attempt, with only the retries that fit inside it (``_llm_budget``), and within a request the time it has left
(the guard's request deadline, ``finrag.tools.llm.deadline``; no call starts after it): a worker thread cannot be
cancelled, so the call behind a 504 gives up by itself by then and frees its thread. Validation problems (empty or whitespace-only question, malformed JSON, wrong fields) are 422
with a one-line ``detail``; unknown paths are 404 with the list of systems. No response ever carries a
traceback.

An index replaced on disk while the server runs (deleted and built again, or another one moved into its
place) is noticed before the next request (one ``stat`` of the database file,
``finrag.tools.indexing.open_index.forget_if_replaced``) and opened anew; filings added to or removed from the index in
place are seen without it (SQLite readers see each commit; the registry follows the index generation).
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from finrag import __version__, server_threads, web
from finrag.api import QuestionError
from finrag.graphs import SYSTEMS
from finrag.guard import (  # noqa: F401 - the guard's names, re-exported where they always were
    API_KEY_HEADER,
    DEFAULT_MAX_BATCH,
    MAX_JSON_DEPTH,
    OPEN_PATHS,
    RUN_ENDPOINTS,
    _Guard,
    _one_line,
    api_keys,
)
from finrag.server_runnable import AnswerContract, QuestionInput, make_runnable  # noqa: F401 - re-exported
from finrag.state.configuration import Configuration, resolve_index_dir
from finrag.state.settings import ProcessSettings, ServeSettings
from finrag.tools.indexing import open_index
from finrag.tools.indexing.backend import is_milvus
from finrag.tools.indexing.store import probe
from finrag.tools.indexing.store_schema import DB_NAME, IndexError_
from finrag.tools.llm.calls import LLMError
from finrag.tools.llm.chat import LLMConfigError, llm_limits
from finrag.tools.llm.deadline import fit

log = logging.getLogger("finrag.server")

DEFAULT_MAX_BODY_BYTES = 64_000
DEFAULT_TIMEOUT_S = 120.0
UNMOUNTED_LANGSERVE_ENDPOINTS = ("config_hashes", "token_feedback")
"""LangServe routes the server does not mount: `/{system}/c/{config_hash}/...` (the playground's share links, each
with a client-chosen configuration; this server takes none but a thread id) and `/{system}/token_feedback`
(LangSmith feedback, which needs LangSmith)."""


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then what it wraps, breadth first: the members of an exception group (anyio's task groups, which
    streams run in) and the cause it was raised from (Starlette's "response already started")."""
    queue: list[BaseException] = [exc]
    seen: set[int] = set()
    while queue and len(seen) < 32:
        e = queue.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        if isinstance(e, BaseExceptionGroup):
            queue.extend(e.exceptions)
        if e.__cause__ is not None:
            queue.append(e.__cause__)


def _describe_failure(exc: BaseException, index: Any) -> Optional[tuple[int, str]]:
    """(status, one-line detail) for an error a request can run into that is not a server bug, else None: the one
    mapping behind both the JSON answers (the app's exception handlers) and the `error` event that ends a stream
    whose run failed, so `/stream` says what `/invoke` says."""
    import sqlite3

    from pydantic import ValidationError

    for e in _causes(exc):
        if (thread_failure := server_threads.describe(e)) is not None:  # 404 unknown thread, 409 busy, 503 damaged
            return thread_failure
        if isinstance(e, QuestionError):
            return 422, str(e)
        if isinstance(e, ValidationError) and e.title == QuestionInput.__name__:
            return 422, _validation_detail(list(e.errors()))
        if isinstance(e, LLMError):  # the configured LLM failed, policy on_llm_error=fail: a bad gateway
            return (504 if e.timed_out else 502), _one_line(e)  # it did not answer in time: a gateway timeout
        if isinstance(e, (LLMConfigError, IndexError_)):  # an LLM that cannot be built, no usable index
            return 503, _one_line(e)
        if isinstance(e, sqlite3.DatabaseError):
            return 503, f"index database {os.path.join(str(index), 'finrag.sqlite')} cannot be used ({_one_line(e)})"
    return None


def _index_name(index: Any) -> str:
    """What `/health` shows of the index: its folder's name (`milvus:NAME` for Milvus), never the absolute path."""
    text = str(index)
    if is_milvus(text):
        return "milvus:" + text.split(":", 1)[1].rstrip("/").rsplit("/", 1)[-1]
    return Path(text).name


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
    index_dir = index_dir or ProcessSettings().home or None
    if is_milvus(index_dir):  # a Milvus index (issue 10): the location itself
        return index_dir  # type: ignore[return-value]
    return resolve_index_dir(index_dir).resolve()


def _llm_budget(cfg: Configuration, timeout_s: float) -> dict:
    """The server's limits on its LLM calls: one attempt waits at most the request timeout, and only as many
    retries as fit inside it. A graph's sync node runs in a worker thread, and a thread blocked in an HTTP read
    cannot be cancelled: with these limits, the call behind a request that got its 504 gives up by itself right
    after, and frees its thread (the client's backoff between retries, under 1 s, comes on top)."""
    timeout, retries = llm_limits(cfg)
    if timeout_s and timeout_s > 0:
        timeout, retries = fit(timeout, retries, timeout_s)
    return {"llm_timeout_s": timeout, "llm_max_retries": retries}


def create_app(index_dir: Optional[str | os.PathLike] = None, api_key: Optional[str | Sequence[str]] = None,
               max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
               *, warm_up: bool = True, max_batch: int = DEFAULT_MAX_BATCH,
               configurable: Optional[Mapping[str, Any]] = None) -> FastAPI:
    """The FastAPI app serving the six systems (see the module docstring). `api_key`: the key every request but
    /health must carry, or several (each caller its own conversation threads). `configurable`: `Configuration`
    values every request starts from (`finrag serve --llm`, `--llm-base-url`), above FINRAG_*."""
    from langserve import add_routes

    _quiet_langserve_warnings()
    index = _resolve_index(index_dir)
    server_conf = {**(configurable or {}), "index_dir": str(index)}
    cfg = Configuration(**server_conf)  # the server's configuration at start-up (health, warm-up)
    server_conf.update(_llm_budget(cfg, timeout_s))  # every request's LLM calls end soon after its timeout
    health_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="finrag-health")

    def open_store():
        return open_index.open_index(cfg)

    def notice_replaced_index() -> None:
        """Before each request: an index replaced on disk (deleted and built again, or another one moved into its
        place) is let go of, and the request opens the new one (`open_index.forget_if_replaced`: one `stat`)."""
        if open_index.forget_if_replaced(cfg) is not None:
            log.info("index %s was replaced on disk; opening the new one", index)

    app = FastAPI(title="finrag", version=_version(), lifespan=_lifespan(open_store, cfg, index, health_pool, warm_up),
                  description="Question answering over SEC filings: six retrieval systems as LangGraph graphs. "
                              "POST /{system}/invoke with {\"input\": {\"question\": \"...\"}}.")
    _add_service_routes(app, open_store, index, health_pool)
    keys = api_keys(api_key)
    threads = server_threads.Threads(server_conf, keys)
    threads.add_routes(app)  # POST/GET /threads, GET/DELETE /threads/{thread_id}
    web.mount(app, open_store)  # /documents, cited pages and their images, offline /docs and /redoc

    for system in SYSTEMS:
        add_routes(app, make_runnable(system, server_conf),  # of a client's configurable only thread_id is kept
                   path=f"/{system}", config_keys=("configurable",), per_req_config_modifier=threads.config_modifier(system),
                   enable_feedback_endpoint=False,
                   enable_public_trace_link_endpoint=False, disabled_endpoints=cast(Any, list(UNMOUNTED_LANGSERVE_ENDPOINTS)))  # LangServe types the names as a Literal

    _add_error_handlers(app, index)
    app.add_middleware(_Guard, api_key=keys, max_body_bytes=max_body_bytes, timeout_s=timeout_s,
                       max_batch=max_batch, describe_error=lambda exc: _describe_failure(exc, index),
                       on_request=notice_replaced_index)
    app.add_middleware(web.PageOn401)  # outside the guard: a browser's 401 on a page is the page, asking for the key
    app.state.index_dir = index
    app.state.run_conf = dict(server_conf)  # the Configuration values every request starts from
    return app


def _lifespan(open_store: Callable[[], Any], cfg: Configuration, index: Any, health_pool: ThreadPoolExecutor,
              warm_up: bool) -> Callable[[FastAPI], Any]:
    """The app's lifespan: with `warm_up`, open the index, load the embedder, the registry and the vector file's
    mapping before the first request (a failure is logged: /health reports it, requests get 503); at shutdown,
    let go of /health's threads."""
    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        if warm_up:
            def _warm():
                store = open_store()
                vector = store.embedder.embed_query("warm up")  # load the model once, before concurrent requests
                try:  # and the registry and the vector file's mapping (an empty index has neither yet)
                    open_index.registry_for(store, cfg.alias_file)
                    store.search_vectors(vector, k=1)
                except Exception:  # noqa: BLE001 - requests report what is missing
                    pass
                return store.count_documents()

            try:
                n = await asyncio.to_thread(_warm)
                log.info("index %s: %d documents; serving %s", index, n, ", ".join(SYSTEMS))
            except Exception as exc:  # noqa: BLE001 - /health reports it; requests get 503
                log.warning("index %s is not usable yet: %s", index, _one_line(exc))
        yield
        health_pool.shutdown(wait=False)

    return lifespan


def _add_service_routes(app: FastAPI, open_store: Callable[[], Any], index: Any,
                        health_pool: ThreadPoolExecutor) -> None:
    """`GET /health` (on `health_pool`'s threads; the index named, never its path) and `GET /`."""
    name = _index_name(index)

    def count_documents() -> int:
        store = open_store()
        if is_milvus(str(index)):
            return store.count_documents()
        return probe(Path(index) / DB_NAME)  # through a connection opened for it: can the server open it now?

    @app.get("/health", tags=["service"])
    async def health():
        try:  # on its own threads: the default pool runs the graphs' nodes, and may be full of stuck LLM calls
            n = await asyncio.get_running_loop().run_in_executor(health_pool, count_documents)
        except Exception as exc:  # noqa: BLE001
            return JSONResponse(status_code=503, content={
                "status": "unavailable", "index": name, "documents": 0, "systems": list(SYSTEMS),
                "detail": _one_line(exc).replace(str(index), name)})
        return {"status": "ok", "index": name, "documents": n, "systems": list(SYSTEMS)}

    @app.get("/", tags=["service"])
    async def root(request: Request):
        if web.wants_html(request):  # a browser: the answer page (app/web.py); API clients keep the JSON
            return web.page()
        return {"service": "finrag", "page": "/", "documents": "/documents", "systems": list(SYSTEMS), "health": "/health",
                "threads": "/threads",
                "endpoints": [f"/{s}/{e}" for s in SYSTEMS for e in ("invoke", "batch", "stream", "stream_events")],
                "playground": [f"/{s}/playground/" for s in SYSTEMS], "docs": "/docs"}


def _add_error_handlers(app: FastAPI, index: Any) -> None:
    """422 for request validation, the known failures' status and detail (`_describe_failure`), and 404 with the
    list of systems for an unknown path."""
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = list(exc.errors())
        return JSONResponse(status_code=422, content={"detail": _validation_detail(errors),
                                                      "errors": _plain_errors(errors)})

    import sqlite3

    from pydantic import ValidationError

    async def _known_failure(request: Request, exc: Exception):
        # a bad question (LangServe's /batch validates each input outside its own error translation), no usable
        # index, an LLM that failed or cannot be built: the status and detail of `_describe_failure`
        known = _describe_failure(exc, index)
        if known is None:
            raise exc  # a server bug: the guard logs one line and answers 500
        if known[0] != 422:
            log.warning("%s %s: %s", request.method, request.url.path, known[1])
        content: dict = {"detail": known[1]}
        if isinstance(exc, ValidationError):
            content["errors"] = _plain_errors(list(exc.errors()))
        return JSONResponse(status_code=known[0], content=content)

    for failure in (ValidationError, QuestionError, IndexError_, LLMError, LLMConfigError, sqlite3.DatabaseError,
                    server_threads.ThreadError):
        app.add_exception_handler(failure, _known_failure)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404 and exc.detail in (None, "", "Not Found"):
            return JSONResponse(status_code=404, content={
                "detail": f"no such endpoint: {request.url.path}; the systems are {', '.join(SYSTEMS)} "
                          f"(POST /{{system}}/invoke, /batch, /stream, /stream_events; GET /health)",
                "systems": list(SYSTEMS)})
        return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail},
                            headers=getattr(exc, "headers", None))


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
        return __version__
    except Exception:  # pragma: no cover
        return "0"


if __name__ == "__main__":  # python -m finrag.server [--host H] [--port P] [--index DIR]
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m finrag.server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--index", default=None)
    p.add_argument("--api-key", default=None)  # default: $FINRAG_API_KEY, read after parsing (as `finrag serve`)
    a = p.parse_args()
    from finrag.serve_process import serve

    sys.exit(serve(a.host, a.port, a.index, a.api_key if a.api_key is not None else ServeSettings().api_key or None))
