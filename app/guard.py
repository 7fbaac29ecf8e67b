"""The server's guard: one pure-ASGI middleware in front of every route of `finrag serve` (app/server.py).

It checks what a request is, never which route will answer it, so no route LangServe adds can slip past:
the API key (one of the server's keys, when it has several) on every path but `/health` (401), the body limit (413), every body read and checked before
LangServe parses it (422 for a body that is not UTF-8, a lone surrogate, JSON nested deeper than
`MAX_JSON_DEPTH`, an integer longer than Python converts), the batch cap on any `/{system}/.../batch` (413),
the request timeout (504, or an SSE `error` event once a stream has started) under a request deadline that the
run's LLM calls keep (`finrag.tools.llm.deadline`), and a last resort that turns any unexpected exception into a
one-line 500 plus one log line. A stream that fails ends with the status and detail `/invoke` would give
(`describe_error`, the server's `_describe_failure`).
"""
from __future__ import annotations

import asyncio
import hmac
import json
import logging
import sys
from typing import Any, Callable, Optional, Sequence

from finrag.graphs import SYSTEMS
from finrag.tools.llm.deadline import request_deadline

log = logging.getLogger("finrag.server")

DEFAULT_MAX_BATCH = 32
"""Most inputs one `/{system}/batch` request may carry (each answer costs ~40 ms of CPU offline, far more with
an LLM); more is a 413 that says so. FINRAG_SERVE_MAX_BATCH or `finrag serve --max-batch` change it."""
API_KEY_HEADER = "X-API-Key"
OPEN_PATHS = frozenset({"/health"})
RUN_ENDPOINTS = frozenset({"invoke", "batch", "stream", "stream_log", "stream_events"})
MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a request body may have (an input is 3 or 4 levels deep); deeper is a 422,
before Python's JSON reader runs out of stack on it."""


def api_keys(api_key: Optional[str | Sequence[str]]) -> tuple[str, ...]:
    """The keys a server accepts: none (no key required), one, or several (each caller its own; the server keeps
    conversation threads per key). Empty strings are no keys."""
    keys = [api_key] if isinstance(api_key, str) else list(api_key or ())
    return tuple(dict.fromkeys(str(k) for k in keys if k))


def _json_body(status: int, payload: dict) -> tuple[dict, dict]:
    body = json.dumps(payload).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    return start, {"type": "http.response.body", "body": body, "more_body": False}


def _sse_error(status: int, message: str) -> dict:
    """The last message of a stream that fails: an SSE `error` event that LangServe's client raises with `status`."""
    event = json.dumps({"status_code": status, "message": message})
    return {"type": "http.response.body", "body": f"event: error\r\ndata: {event}\r\n\r\n".encode(),
            "more_body": False}


def _generic_stream_error(message: dict) -> bool:
    """Whether a response message is LangServe's `error` event for a stream whose run raised (always a 500)."""
    body = message.get("body", b"")
    return message.get("more_body", False) and body.startswith(b"event: error") and b'"status_code": 500' in body


def _run_endpoint(path: str) -> Optional[str]:
    """The run endpoint (invoke, batch, stream, ...) a path asks for: `/{system}/.../{endpoint}` whatever lies
    between (so a LangServe variant such as `/{system}/c/{config_hash}/invoke` could not slip past), else None."""
    parts = path.strip("/").split("/")
    if len(parts) >= 2 and parts[0] in SYSTEMS and parts[-1] in RUN_ENDPOINTS:
        return parts[-1]
    return None


class _HugeNumber(ValueError):
    """A JSON integer with more digits than Python converts (`sys.get_int_max_str_digits()`)."""


def _json_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _HugeNumber(f"a number in the request body has {len(text.lstrip('-')):,} digits; the limit is "
                          f"{sys.get_int_max_str_digits():,}") from None


_NOT_JSON = object()


def _read_json(text: str) -> tuple[Any, Optional[str]]:
    """(the body's JSON, None), or (None, the one-line reason to refuse it) for JSON that Python cannot handle
    safely: nesting deeper than MAX_JSON_DEPTH, a number too long to convert, a string with a lone surrogate
    (`"\\ud800"`: valid JSON syntax, but no Unicode text, so encoding it anywhere fails); (_NOT_JSON, None) for
    text that is not JSON at all (LangServe's own 422 says so)."""
    too_deep = f"request body is nested more than {MAX_JSON_DEPTH} levels deep"
    try:
        payload = json.loads(text, parse_int=_json_int)
    except RecursionError:
        return None, too_deep
    except _HugeNumber as exc:
        return None, str(exc)
    except ValueError:
        return _NOT_JSON, None
    stack = [(payload, 1)]
    while stack:  # iteratively: a recursive walk would fail where json.loads did not
        value, depth = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
            stack.extend((k, depth) for k in value)
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                return None, (f"request body has a lone surrogate (\\u{ord(value[exc.start]):04x}) in a string, which is "
                              "not text; send characters as UTF-8 or as complete surrogate pairs")
            continue
        else:
            continue
        if depth > MAX_JSON_DEPTH:
            return None, too_deep
    return payload, None


class _Guard:
    """API key, body limit, body checks, timeout and error handling, as one ASGI middleware in front of every route.

    What it checks depends on the request, never on which route will answer it: every path but /health needs the
    API key and is timed; every body is read (up to the limit) and checked; the batch cap applies to any path whose
    first segment is a system and whose last is `batch`. `describe_error` maps an exception to the (status,
    detail) that `/invoke` answers for it, so a stream that fails ends with the same; `on_request` runs first on
    every request (the server's check for a replaced index)."""

    def __init__(self, app, *, api_key: Optional[str | Sequence[str]], max_body_bytes: int, timeout_s: float,
                 max_batch: int = DEFAULT_MAX_BATCH,
                 describe_error: Optional[Callable[[BaseException], Optional[tuple[int, str]]]] = None,
                 on_request: Optional[Callable[[], None]] = None):
        self.app = app
        self.api_keys = api_keys(api_key)
        self.max_body_bytes = int(max_body_bytes)
        self.timeout_s = float(timeout_s) if timeout_s else 0.0
        self.max_batch = int(max_batch)
        self.describe_error = describe_error
        self.on_request = on_request

    def _body_problem(self, path: str, body: bytes) -> Optional[tuple[int, str]]:
        """(status, detail) for a body to refuse before LangServe parses it: not UTF-8 (JSON is UTF-8; Starlette
        would fail with a 500), JSON that Python cannot handle safely (`_read_json`), or a `/batch` with more
        inputs than `max_batch`. Malformed JSON is left to LangServe's own 422."""
        if not body:
            return None
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return 422, (f"request body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start}); "
                         "send JSON encoded as UTF-8")
        payload, problem = _read_json(text)
        if problem is not None:
            return 422, problem
        if _run_endpoint(path) == "batch" and self.max_batch > 0:
            inputs = payload.get("inputs") if isinstance(payload, dict) else None
            if isinstance(inputs, list) and len(inputs) > self.max_batch:
                return 413, (f"batch of {len(inputs):,} inputs is larger than the limit of {self.max_batch} inputs "
                             "per request; send them in several requests")
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        ex = _Exchange(send)
        try:
            if self.on_request is not None:
                self.on_request()
            refused = self._key_refused(scope, path)
            if refused is not None:
                return await ex.reply(401, {"detail": refused})
            if scope.get("method") in ("POST", "PUT", "PATCH"):
                receive_ = await self._read_body(scope, path, receive, ex)
                if receive_ is None:  # answered (413, 422), or the client went away
                    return
            else:
                receive_ = receive
            await self._run(scope, path, receive_, ex)
        except Exception as exc:  # noqa: BLE001 - one log line, one JSON line (or error event), no traceback
            await self._answer_failure(scope, path, exc, ex)

    def _key_refused(self, scope, path: str) -> Optional[str]:
        """The 401 detail for a request without one of the API keys (every path but /health), else None."""
        if self.api_keys and path not in OPEN_PATHS:
            given = dict(scope.get("headers") or []).get(API_KEY_HEADER.lower().encode(), b"")
            matches = [hmac.compare_digest(given, key.encode()) for key in self.api_keys]  # each compared, always
            if not any(matches):
                why = "missing" if not given else "wrong"
                return f"{why} API key: send the header {API_KEY_HEADER}"
        return None

    async def _read_body(self, scope, path: str, receive, ex: _Exchange):
        """Read the whole body (up to the limit) and check it (`_body_problem`): the `receive` that replays it to
        the app, or None when the request has been answered (413, 422) or the client went away."""
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await ex.reply(413, {"detail": f"request body of {int(declared):,} bytes is larger than the "
                                           f"limit of {self.max_body_bytes:,} bytes"})
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await ex.reply(413, {"detail": f"request body is larger than the limit of "
                                               f"{self.max_body_bytes:,} bytes"})
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body, replayed = b"".join(chunks), False
        problem = self._body_problem(path, body)
        if problem is not None:
            await ex.reply(problem[0], {"detail": problem[1]})
            return None

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay

    async def _run(self, scope, path: str, receive, ex: _Exchange) -> None:
        """Run the app; on every path but /health under the request timeout: a 504, or an SSE `error` event
        carrying 504 when a stream is under way."""
        if self.timeout_s <= 0 or path in OPEN_PATHS:
            await self.app(scope, receive, ex.tracking_send)
            return await ex.flush_held()
        with request_deadline(self.timeout_s):  # the task's context keeps it: its LLM calls end by then
            task = asyncio.ensure_future(self.app(scope, receive, ex.tracking_send))
        try:
            done, _ = await asyncio.wait({task}, timeout=self.timeout_s)
        except asyncio.CancelledError:  # the server is shutting down or the client went away
            task.cancel()
            raise
        if task in done:
            task.result()
            return await ex.flush_held()
        ex.timed_out = True
        task.cancel()
        try:
            await task
        except BaseException:  # noqa: BLE001 - CancelledError, or whatever the app raised on the way out
            pass
        if ex.completed:  # the answer went out just as the clock ran out
            return
        message = f"request timed out after {self.timeout_s:g} s"
        log.warning("%s %s: %s", scope.get("method"), path, message)
        if not ex.started:
            return await ex.reply(504, {"detail": message})
        # a stream is under way: end it with an SSE error event that LangServe's client raises as a 504
        await ex.send(_sse_error(504, message))

    async def _answer_failure(self, scope, path: str, exc: Exception, ex: _Exchange) -> None:
        """An exception from the app: what /invoke answers for it (`describe_error`), else a one-line 500; in a
        stream under way, an SSE `error` event; one log line either way."""
        try:
            known = self.describe_error(exc) if self.describe_error is not None else None
        except Exception:  # noqa: BLE001 - a bug in the mapping: answer as for any unexpected error
            known = None
        if known is not None:  # what /invoke answers for it (an exception handler's answer), also in a stream
            log.warning("%s %s: %s", scope.get("method"), path, known[1])
        else:  # the last resort
            log.error("unhandled %s on %s %s: %s", type(exc).__name__, scope.get("method"), path,
                      _one_line(exc))
            log.debug("traceback", exc_info=True)
        try:
            if not ex.started and known is not None:
                await ex.reply(known[0], {"detail": known[1]})
            elif not ex.started:
                await ex.reply(500, {"detail": f"internal error ({type(exc).__name__}); see the server log"})
            elif not ex.completed and known is not None:  # a run failed in a stream: its status, its detail
                await ex.send(_sse_error(*known))
            elif ex.held:  # a stream broke: LangServe's own `error` event, and the stream closed properly
                await ex.flush_held()
            elif not ex.completed:
                await ex.send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception:  # noqa: BLE001 - the client is gone
            pass


class _Exchange:
    """One request's response as it goes out: whether it has started and completed, whether the request timed
    out (what the cancelled app still sends is dropped), and LangServe's 500 `error` event of a failed stream,
    held until the cause is known. `send` is the server's; the app gets `tracking_send`."""

    def __init__(self, send):
        self.send = send
        self.started = self.completed = self.timed_out = False
        self.held: list[dict] = []

    async def tracking_send(self, message) -> None:
        if self.timed_out:  # the request has been answered with a 504: drop what the cancelled app still sends
            return
        if message["type"] == "http.response.start":
            self.started = True
        elif message["type"] == "http.response.body":
            if self.started and _generic_stream_error(message):
                self.held.append(message)  # replaced by the real status when the run's exception arrives
                return
            while self.held:  # the stream went on after all: pass the event on, in order
                await self.send(self.held.pop(0))
            if not message.get("more_body", False):
                self.completed = True
        await self.send(message)

    async def reply(self, status: int, payload: dict) -> None:
        start, body = _json_body(status, payload)
        await self.send(start)
        await self.send(body)

    async def flush_held(self) -> None:
        """Send a held `error` event as LangServe wrote it (no exception came to say more) and end the stream."""
        if self.held and not self.completed:
            while self.held:
                await self.send(self.held.pop(0))
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})
            self.completed = True


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):  # anyio task groups (streaming) wrap the real error
        return "; ".join(_one_line(e) for e in exc.exceptions)
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__
