"""A tiny OpenAI-compatible HTTP server for tests (loopback only, standard library only).

    with OpenAIStub() as stub:            # or stub.start() / stub.stop()
        ChatOpenAI(model="stub-model", base_url=stub.base_url, api_key="x").invoke("hi")
        stub.requests                       # every request: path, model, body, usage, status, at

Endpoints
* `GET  /v1/models`: the models seen so far plus "stub-model".
* `POST /v1/chat/completions`: deterministic replies built from the request:
  - `response_format: {"type": "json_schema", ...}` (langchain-openai's default
    `with_structured_output`) -> `message.content` is a JSON object valid for the schema;
  - `tools` (function calling) -> one `tool_calls` entry for the chosen (or first) function
    whose `arguments` are valid for its parameters;
  - `response_format: {"type": "json_object"}` -> a JSON object guessed from the prompt;
  - otherwise text: for a generation prompt (context passages labelled `[DOC, p. N]`) the first
    context line with its citation, for a judge prompt a `{"score", "justification"}` JSON,
    else a short deterministic sentence.
  Objects are filled by property name: router (`companies`, `tickers`, `years`, `periods`,
  `forms`, `dates` from capitalised words / upper-case tickers / four-digit years of the last
  user message), verifier (`belongs: true`, `reason: "stub"`), rewriter (`query` = the
  question, `keywords`), judge (`score: 8`, `justification: "stub"`), anything else by type.
  `stream: true` is answered with server-sent events (a chunk per word, then usage when
  `stream_options.include_usage` asks for it, as OpenAI does).
* `POST /v1/embeddings`: hash-based unit vectors (bag of hashed words, so texts sharing words
  are close) of the requested `dimensions` (default 1024), as float lists or, with
  `encoding_format: "base64"`, base64 little-endian float32 (what the openai client asks for).

Every reply carries `usage` computed from the request size (`stub_tokens`: ~4 characters a
token), so token accounting can be checked exactly against `stub.usage_totals()`.

Failure modes for chat (`stub.mode = ...`, or `stub.mode_for[model] = ...`):
`"ok"`, `"http500"` (a JSON error with `retry-after-ms: 1`, so client retries are instant),
`"garbage"` (HTTP 200 with a non-JSON body), `"bad_json"` (a well-formed completion whose
content is not JSON, so structured output fails to parse), `"hang"` (the request is read and never
answered: the handler holds the connection until the client closes it or the stub stops; `stub.hanging`
is how many are held now, and each entry's `at` / `released_at` (time.monotonic()) say when the request came
and when its client gave up). Embeddings always answer.

Modes that behave like real servers (issue 38); several may be combined with commas
(`"no_json_schema,no_tools"`):
`"no_json_schema"` (llama-cpp-python's server: HTTP 500 with its validation message, "Input should be 'text' or
'json_object'", for `response_format: {"type": "json_schema"}`; tools and `json_object`, with or without a
`schema`, are answered), `"no_tools"` (HTTP 400 for a request with `tools`, as Ollama answers for a model
without tool support), `"no_json_object"` (HTTP 400 for `response_format: {"type": "json_object"}`) and
`"endless"` (a model that never stops by itself: with a completion limit, `max_completion_tokens` or
`max_tokens`, a reply of exactly that many stub tokens with `finish_reason: "length"`; without one, a reply of
`ENDLESS_TOKENS` tokens, also cut with "length"), `"endless_text"` (the same for plain-text replies only, a
base model that never ends its turn: structured replies end as in "ok"), `"drops_system"` (llama-cpp-python's `--chat_format gemma`:
system messages are removed before anything else, so the reply and its usage count only the other messages;
each request's entry has `saw_system`: whether it carried one).
Each request's entry has `max_tokens`: the completion limit it carried (`max_completion_tokens`, else
`max_tokens`), None when it set none.

A prompt that carries a JSON schema in its text (`JSON schema: {...}`, what finrag's `json_object` and `prompt`
methods send) is answered with an object valid for that schema, in `json_object` and in text mode alike.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import select
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STUB_MODES = ("ok", "http500", "garbage", "bad_json", "hang", "no_json_schema", "no_tools", "no_json_object",
              "endless", "endless_text", "drops_system")
ENDLESS_TOKENS = 20_000
"""The length of an "endless" reply to a request without a completion limit, in stub tokens."""
LLAMA_CPP_PYTHON_JSON_SCHEMA_ERROR = (
    "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or "
    "'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]")
"""The message of llama-cpp-python's server (HTTP 500) for `response_format: {"type": "json_schema"}`."""


def modes_of(mode: str) -> frozenset[str]:
    """The modes of a (comma-separated) mode string."""
    return frozenset(m.strip() for m in str(mode or "ok").split(",") if m.strip())


def completion_limit(body: dict) -> int | None:
    """The completion limit a chat request carried (`max_completion_tokens`, else `max_tokens`), or None."""
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


_SCHEMA_IN_PROMPT = re.compile(r"JSON schema:\s*")


def schema_in_prompt(text: str) -> dict | None:
    """A JSON schema written into a prompt after `JSON schema:`, or None."""
    m = _SCHEMA_IN_PROMPT.search(text or "")
    if not m:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, m.end())
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def stub_tokens(text: str) -> int:
    """The stub's token count: one token per ~4 characters, at least 1."""
    return max(1, (len(text) + 3) // 4)


# ----------------------------------------------------------------------------- text rules
_STOP = frozenset("""a an and are as at be by did do does for from had has have how in is it its of on or that
the this to was were what when where which who why will with compare during end fiscal year total""".split())
_LEAD_STOP = frozenset("""What How Which Who When Where Why In The Did Does Do Is Was Were Compare For Of And
Inc Inc. Corp Corp. Co Co. Ltd FY Q1 Q2 Q3 Q4 USD GAAP I A An""".split())
_NOT_TICKERS = frozenset("FY USD GAAP EPS EBIT EBITDA CEO CFO SEC US USA LLC INC PP&E FCF COGS ROA ROE YOY".split())
_CAP_RUN = re.compile(r"[A-Z][A-Za-z&\-]*(?:\.(?=\s|$))?(?:\s+(?:&\s+)?[A-Z][A-Za-z&\-]*)*")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_FY2 = re.compile(r"\bFY\s?(\d{2})\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z&\-]+|\d{4}")


def message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def last_user_text(body: dict) -> str:
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user":
            return message_text(m)
    return ""


def router_fields(text: str) -> dict:
    """Companies (capitalised word runs), tickers (upper-case words), years, periods, forms."""
    companies: list[str] = []
    tickers: list[str] = []
    for run in _CAP_RUN.findall(text):
        words = [w.rstrip(".") for w in run.split()]
        while words and (words[0] in _LEAD_STOP or words[0] + "." in _LEAD_STOP):
            words.pop(0)
        while words and (words[-1] in _LEAD_STOP or words[-1] + "." in _LEAD_STOP):
            words.pop()
        if not words:
            continue
        if len(words) == 1 and words[0].isupper() and 2 <= len(words[0]) <= 5:
            if words[0] not in _NOT_TICKERS and words[0] not in tickers:
                tickers.append(words[0])
            continue
        name = " ".join(words)
        if name not in companies:
            companies.append(name)
    years = sorted({int(y) for y in _YEAR.findall(text)} | {2000 + int(y) for y in _FY2.findall(text)})
    fiscal = bool(re.search(r"\bfiscal\b|\bFY", text, re.I))
    periods = [f"FY{y}" for y in years] if fiscal else []
    forms = ["10K"] if re.search(r"10-?K|annual report", text, re.I) else []
    dates = re.findall(r"\b\d{4}-\d{2}-\d{2}\b", text)
    return {"companies": companies, "tickers": tickers, "years": years, "periods": periods, "forms": forms,
            "dates": dates}


def keywords_of(text: str, n: int = 8) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text):
        w = w.lower()
        if w not in _STOP and w not in out:
            out.append(w)
    return out[:n]


def _resolve(schema: dict, root: dict) -> dict:
    """Follow a local `$ref` (and unwrap single `allOf`/`anyOf` without null)."""
    seen = 0
    while isinstance(schema, dict) and seen < 10:
        seen += 1
        if "$ref" in schema:
            ref = schema["$ref"]
            node: Any = root
            for part in ref.lstrip("#/").split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            schema = node
            continue
        for key in ("allOf", "anyOf", "oneOf"):
            if key in schema:
                options = [s for s in schema[key] if not (isinstance(s, dict) and s.get("type") == "null")]
                schema = options[0] if options else {"type": "null"}
                break
        else:
            return schema
    return schema if isinstance(schema, dict) else {}


def fill_schema(schema: dict, text: str, root: dict | None = None, name: str = "") -> Any:
    """A value valid for `schema`, chosen by property name from rules over `text`."""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "null")
    if typ == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        router = router_fields(text) if set(props) & {"companies", "tickers", "years"} else {}
        out = {}
        for key, sub in props.items():
            if key in router:
                out[key] = router[key]
            elif key == "belongs":
                out[key] = True
            elif key in ("reason", "justification"):
                out[key] = "stub"
            elif key == "query":
                out[key] = " ".join(text.split())[:500] or "stub query"
            elif key == "keywords":
                out[key] = keywords_of(text)
            elif key == "score":
                out[key] = 8
            else:
                out[key] = fill_schema(sub, text, root, key)
        return out
    if typ == "array":
        return []
    if typ == "string":
        return "stub"
    if typ == "integer":
        return int(schema.get("minimum", 0))
    if typ == "number":
        return float(schema.get("minimum", 0))
    if typ == "boolean":
        return True
    return None


_LABEL = re.compile(r"\[[^\[\]\n]+?, pp?\. [^\[\]\n]+?\]")


def text_answer(body: dict) -> str:
    """Plain-text reply: quote the first context line with its citation, a judge JSON, or a sentence."""
    text = last_user_text(body)
    m = _LABEL.search(text)
    if m:
        rest = [ln.strip() for ln in text[m.end():].splitlines() if ln.strip()]
        first = rest[0] if rest else ""
        if first.startswith("Question:") or _LABEL.fullmatch(first):
            first = ""
        return f"Stub answer: {first[:300]} {m.group(0)}".replace("  ", " ")
    if '"score"' in text and '"justification"' in text:
        return json.dumps({"score": 8, "justification": "stub"})
    if "<chunk>" in text:  # contextual-retrieval prompt: situate the chunk
        chunk = text.split("<chunk>", 1)[1].split("</chunk>", 1)[0]
        return "Stub context for the chunk: " + " ".join(chunk.split()[:12])
    return "Stub reply: " + " ".join(text.split()[:12])


def embed_text(text: str, dim: int) -> list[float]:
    """Unit vector: words hashed into `dim` buckets with a hashed sign (plus a text-hash component)."""
    vec = [0.0] * dim
    tokens = [w.lower() for w in _WORD.findall(text)] or [text]
    for tok in tokens:
        h = hashlib.blake2b(tok.encode("utf-8", "replace"), digest_size=8).digest()
        idx = int.from_bytes(h[:4], "little") % dim
        vec[idx] += 1.0 if h[4] & 1 else -1.0
    h = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest()
    vec[int.from_bytes(h[:4], "little") % dim] += 0.5
    norm = sum(v * v for v in vec) ** 0.5 or 1.0
    return [v / norm for v in vec]


def _without_schema(text: str) -> str:
    """A prompt without the JSON schema finrag appended to it (so the router's rules read the question only)."""
    m = re.search(r"\n*(?:Reply with|Answer with)[^\n]*JSON[^\n]*(?:\n|$)", text or "")
    return text[:m.start()] if m else text


def _endless(start: str, tokens: int) -> str:
    """A reply of exactly `tokens` stub tokens that begins like `start` (what a model that never stops emits)."""
    text = (start + " " + "and so on " * (tokens * 4 // 10 + 1))[:tokens * 4]
    return text if len(text) == tokens * 4 else text.ljust(tokens * 4, ".")


# ----------------------------------------------------------------------------- server
class OpenAIStub:
    """The server: `start()` on a free loopback port, `base_url`, `requests`, `mode`, `stop()`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host, self._port = host, port
        self.mode = "ok"
        self.mode_for: dict[str, str] = {}  # per requested model
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.hanging = 0  # "hang" requests held now (their clients have not closed the connection)

    # lifecycle
    def start(self) -> "OpenAIStub":
        stub = self

        class Handler(_Handler):
            server_stub = stub

        self._stopping.clear()
        self._server = ThreadingHTTPServer((self.host, self._port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # hung handlers return
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def configurable(self, **extra) -> dict:
        """A run's `configurable` whose LLM calls come here (model "stub-model", at `base_url`), plus `extra`."""
        return {"llm": "openai/stub-model", "llm_base_url": self.base_url, **extra}

    def __enter__(self) -> "OpenAIStub":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # inspection
    def reset(self, mode: str = "ok") -> None:
        with self._lock:
            self.requests.clear()
            self.mode = mode
            self.mode_for.clear()

    def chat_requests(self) -> list[dict]:
        return [r for r in list(self.requests) if r["path"].endswith("/chat/completions")]

    def embedding_requests(self) -> list[dict]:
        return [r for r in list(self.requests) if r["path"].endswith("/embeddings")]

    def usage_totals(self, path_suffix: str = "/chat/completions") -> dict:
        """Summed usage of the successful requests to one endpoint."""
        out = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        for r in list(self.requests):
            if r["path"].endswith(path_suffix) and r.get("usage") and r["status"] == 200:
                out["requests"] += 1
                for k in ("prompt_tokens", "completion_tokens", "total_tokens"):
                    out[k] += int(r["usage"].get(k, 0))
        return out

    def wait_hanging(self, n: int, timeout: float) -> bool:
        """Wait until exactly `n` "hang" requests are held (e.g. 0: every client gave up); False on timeout."""
        deadline = time.monotonic() + timeout
        while self.hanging != n:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    def _hold(self, conn, entry: dict) -> None:
        """A "hang" request: answer nothing until the client closes the connection (`entry["released_at"]`) or
        the stub stops."""
        with self._lock:
            self.hanging += 1
        try:
            while not self._stopping.is_set():
                readable, _, _ = select.select([conn], [], [], 0.05)
                if readable:
                    try:
                        if not conn.recv(1024):  # the client closed it
                            entry["released_at"] = time.monotonic()
                            return
                    except OSError:
                        entry["released_at"] = time.monotonic()
                        return
        finally:
            with self._lock:
                self.hanging -= 1

    def _record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)

    # replies
    def chat_reply(self, body: dict) -> tuple[int, dict, Any]:
        """(status, extra headers, payload: dict for JSON or str for a raw body); also the usage."""
        model = str(body.get("model", ""))
        modes = modes_of(self.mode_for.get(model, self.mode))
        if "drops_system" in modes:  # the chat format formats user and assistant turns only
            body = {**body, "messages": [m for m in body.get("messages") or [] if m.get("role") != "system"]}
        prompt_text = "\n".join(message_text(m) for m in body.get("messages") or [])
        rejected = self._rejection(body, modes)
        if rejected is not None:
            return rejected
        if "http500" in modes:
            return 500, {"retry-after-ms": "1"}, {"error": {"message": "stub server error", "type": "server_error",
                                                           "code": "stub_500"}}
        if "garbage" in modes:
            return 200, {"content-type": "text/html"}, "<html>definitely not an OpenAI response"
        user = last_user_text(body)
        tool_calls = None
        content: str | None
        if "bad_json" in modes:
            content = "I am not JSON at all."
        else:
            rf = body.get("response_format") or {}
            tools = body.get("tools") or []
            if rf.get("type") == "json_schema":
                js = rf.get("json_schema") or {}
                schema = js.get("schema") or {}
                content = json.dumps(fill_schema(schema, user, schema))
            elif tools:
                choice = body.get("tool_choice")
                fname = None
                if isinstance(choice, dict):
                    fname = (choice.get("function") or {}).get("name")
                fn = next((t["function"] for t in tools if t.get("function", {}).get("name") == fname),
                          tools[0].get("function") or {})
                params = fn.get("parameters") or {"type": "object", "properties": {}}
                tool_calls = [{"id": f"call_stub_{len(self.requests)}", "type": "function",
                               "function": {"name": fn.get("name", "tool"),
                                            "arguments": json.dumps(fill_schema(params, user, params))}}]
                content = None
            elif rf.get("type") == "json_object":
                schema = rf.get("schema") or schema_in_prompt(prompt_text) or {"type": "object", "properties": {
                    k: {"type": "string"} for k in ("answer",)}}
                content = json.dumps(fill_schema(schema, _without_schema(user), schema))
            elif schema_in_prompt(prompt_text) is not None:  # finrag's `prompt` method: JSON asked for in words
                schema = schema_in_prompt(prompt_text) or {}
                content = "Here is the JSON:\n```json\n" + json.dumps(fill_schema(schema, _without_schema(user),
                                                                                 schema)) + "\n```"
            else:
                content = text_answer(body)
        finish = "tool_calls" if tool_calls else "stop"
        plain = not tool_calls and not body.get("response_format") and schema_in_prompt(prompt_text) is None
        if "endless" in modes or ("endless_text" in modes and plain):  # generates until the limit (or long)
            limit = completion_limit(body)
            content, tool_calls, finish = _endless(content or "", limit or ENDLESS_TOKENS), None, "length"
        completion_text = (content or "") + (json.dumps(tool_calls) if tool_calls else "")
        pt, ct = stub_tokens(prompt_text), stub_tokens(completion_text)
        usage = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        message: dict = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        payload = {"id": f"chatcmpl-stub-{len(self.requests)}", "object": "chat.completion",
                   "created": int(time.time()), "model": model, "system_fingerprint": "stub",
                   "choices": [{"index": 0, "message": message, "logprobs": None,
                                "finish_reason": finish}],
                   "usage": usage}
        return 200, {}, payload

    @staticmethod
    def _rejection(body: dict, modes: frozenset[str]) -> tuple[int, dict, Any] | None:
        """The error a server of the given modes answers this request with (what it does not support), or None."""
        rf_type = (body.get("response_format") or {}).get("type")
        if "no_json_schema" in modes and rf_type == "json_schema":
            return 500, {}, {"error": {"message": LLAMA_CPP_PYTHON_JSON_SCHEMA_ERROR, "type": "internal_server_error",
                                       "param": None, "code": None}}
        if "no_tools" in modes and body.get("tools"):
            return 400, {}, {"error": {"message": f"registry.ollama.ai/library/{body.get('model')} does not "
                                                  "support tools", "type": "api_error", "param": None, "code": None}}
        if "no_json_object" in modes and rf_type == "json_object":
            return 400, {}, {"error": {"message": "response_format type json_object is not supported",
                                       "type": "invalid_request_error", "param": "response_format", "code": None}}
        return None

    def embeddings_reply(self, body: dict) -> dict:
        inputs = body.get("input")
        if isinstance(inputs, str) or (isinstance(inputs, list) and inputs and isinstance(inputs[0], int)):
            inputs = [inputs]
        inputs = list(inputs or [])
        dim = int(body.get("dimensions") or 1024)
        b64 = body.get("encoding_format") == "base64"
        data, n_tokens = [], 0
        for i, item in enumerate(inputs):
            text = item if isinstance(item, str) else " ".join(f"t{t}" for t in item)  # token ids
            n_tokens += stub_tokens(text) if isinstance(item, str) else len(item)
            vec = embed_text(text, dim)
            emb: Any = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode() if b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        return {"object": "list", "data": data, "model": body.get("model", ""),
                "usage": {"prompt_tokens": n_tokens, "total_tokens": n_tokens}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_stub: OpenAIStub

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload: Any, headers: dict | None = None) -> None:
        headers = dict(headers or {})
        if isinstance(payload, (dict, list)):
            raw = json.dumps(payload).encode()
            headers.setdefault("content-type", "application/json")
        else:
            raw = str(payload).encode()
            headers.setdefault("content-type", "text/plain")
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _send_sse(self, payload: dict, body: dict) -> None:
        """A non-streaming completion re-encoded as chat.completion.chunk events: text content a word per
        chunk (tool calls in the first), then the finish reason, then, as OpenAI does, the usage chunk only when
        the request asked for it (`stream_options: {"include_usage": true}`)."""
        msg = payload["choices"][0]["message"]
        base = {k: payload[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
        words = re.findall(r"\S+\s*|\s+", msg.get("content") or "") or [""]
        deltas: list[dict] = [{"content": w} for w in words]
        deltas[0]["role"] = "assistant"
        if msg.get("tool_calls"):
            deltas[0]["tool_calls"] = [dict(tc, index=i) for i, tc in enumerate(msg["tool_calls"])]
        events = [base | {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        finish = payload["choices"][0]["finish_reason"]
        events.append(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(base | {"choices": [], "usage": payload["usage"]})
        raw = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode() + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        stub = self.server_stub
        path = self.path.split("?")[0].rstrip("/")
        stub._record({"path": path, "method": "GET", "model": None, "body": None, "usage": None, "status": 200})
        if path.endswith("/models"):
            models = ["stub-model"] + sorted({r["model"] for r in stub.requests if r.get("model")} - {"stub-model"})
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                          "owned_by": "stub"} for m in models]})
        else:
            self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_POST(self) -> None:
        stub = self.server_stub
        path = self.path.split("?")[0].rstrip("/")
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            stub._record({"path": path, "method": "POST", "model": None, "body": raw.decode("utf-8", "replace"),
                          "usage": None, "status": 400})
            self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
            return
        entry = {"path": path, "method": "POST", "model": body.get("model"), "body": body, "usage": None,
                 "status": 200, "headers": dict(self.headers), "at": time.monotonic(),
                 "max_tokens": completion_limit(body),
                 "saw_system": any(isinstance(m, dict) and m.get("role") == "system" for m in body.get("messages") or [])}
        if path.endswith("/chat/completions"):
            if "hang" in modes_of(stub.mode_for.get(str(body.get("model", "")), stub.mode)):
                entry["status"] = "hang"
                stub._record(entry)
                stub._hold(self.connection, entry)
                self.close_connection = True
                return
            status, headers, payload = stub.chat_reply(body)
            entry["status"] = status
            if isinstance(payload, dict):
                entry["usage"] = payload.get("usage")
                entry["response"] = payload
            stub._record(entry)
            if status == 200 and isinstance(payload, dict) and body.get("stream"):
                self._send_sse(payload, body)
            else:
                self._send(status, payload, headers)
        elif path.endswith("/embeddings"):
            payload = stub.embeddings_reply(body)
            entry["usage"] = payload["usage"]
            stub._record(entry)
            self._send(200, payload)
        else:
            entry["status"] = 404
            stub._record(entry)
            self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})


if __name__ == "__main__":  # manual use: python tests/openai_stub.py [port]
    import sys

    s = OpenAIStub(port=int(sys.argv[1]) if len(sys.argv) > 1 else 0).start()
    print(f"OpenAI stub at {s.base_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        s.stop()
