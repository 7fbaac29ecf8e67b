"""Structured output negotiated per server (issue 38): which way a chat model is asked for a JSON object.

OpenAI-compatible servers differ in what they take: OpenAI and vLLM take strict `json_schema`; llama-cpp-python's
server answers it with HTTP 500 ("Input should be 'text' or 'json_object'") but takes tool calls and `json_object`
with a schema; Ollama's models may not support tools. The methods, in the order `auto` tries them:

* `json_schema`: `response_format: {"type": "json_schema", ...}` (langchain-openai's `with_structured_output`);
* `tools`: a function call whose parameters are the schema;
* `json_object`: `response_format: {"type": "json_object", "schema": ...}` with the schema in the prompt too (a
  server that ignores `schema` still sees it);
* `prompt`: a plain call whose prompt asks for JSON valid for the schema, checked, with ONE repair call when the
  reply does not validate.

`Configuration.structured_output` picks one (or `auto`); the setting travels with the model
(`finrag.tools.llm.chat.get_chat_model` tags it, `setting_of`). With `auto` a deterministic rejection of a method
(HTTP 4xx other than 401/403/404/408/409/429, or a 5xx whose body says the response format, schema or tools are not
supported) moves to the next method AT ONCE: the first try of a method not known to work is sent without client
retries (ChatOpenAI retries 5xx); a failure that is not a rejection gets the remaining retries. The method that
worked is remembered per (base URL, model) for the process (`remembered`, a bounded dict; `forget` clears it), so
later calls go straight to it. A reply that does not parse is not a rejection: it fails the call, as before.

Models that are not OpenAI-compatible clients (LangChain fakes in tests) have `json_schema` (their own
`with_structured_output`) and `prompt`; one that cannot bind a schema (NotImplementedError) gets the prompt.
"""
from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, cast

from finrag.tools.llm.replies import json_objects, message_text, model_name

METHODS = ("json_schema", "tools", "json_object", "prompt")
"""The structured-output methods, in the order `auto` tries them."""
STRUCTURED_OUTPUT = ("auto", *METHODS)
"""The values of `Configuration.structured_output`."""
SETTING_KEY = "finrag_structured_output"
"""The metadata key of a chat model that carries its structured-output setting (`setting_of`)."""
MEMORY_SIZE = 64
"""How many (base URL, model) pairs `auto` remembers the working method of."""
OPENAI_BASE = "https://api.openai.com/v1"

_NOT_RETRIED = frozenset({401, 403, 404, 408, 409, 429})
"""4xx statuses that say nothing about the method (auth, unknown model, timeout, conflict, rate limit)."""
_ABOUT_FORMAT = re.compile(r"response_format|json_schema|json_object|schema|tool_choice|\btools?\b|grammar", re.I)
_UNSUPPORTED = re.compile(r"not supported|unsupported|does not support|input should be|not implemented|"
                          r"unknown|invalid|not allowed|unrecognized", re.I)
INSTRUCTION = ("Reply with only a JSON object (no prose, no code fence) valid for this JSON schema: {schema}")
"""What the `json_object` and `prompt` methods append to the last user message (some chat templates, e.g.
llama-cpp-python's `gemma`, drop system messages)."""
REPAIR = ("Your reply was not a valid JSON object for the schema ({error}). Reply with only the corrected JSON "
          "object valid for this JSON schema: {schema}")


@dataclass
class Outcome:
    """What a structured call returned: the parsed object (or None), the last raw reply, the parsing error (or
    None), the method used, and every (messages, reply) sent, for token accounting (the `prompt` method's repair
    is a second request)."""

    parsed: Any
    raw: Any
    error: Any
    method: str
    exchanges: list[tuple[list, Any]] = field(default_factory=list)


# ------------------------------------------------------------------------------------------ the setting
def setting_of(model: Any) -> str:
    """The structured-output setting a model was handed out with (`auto` unless tagged)."""
    meta = getattr(model, "metadata", None) or {}
    value = str(meta.get(SETTING_KEY) or "auto")
    return value if value in STRUCTURED_OUTPUT else "auto"


def _openai_like(model: Any) -> bool:
    """Whether the model is an OpenAI-compatible client (ChatOpenAI: it has `root_client`)."""
    return getattr(model, "root_client", None) is not None


def server_key(model: Any) -> tuple[str, str]:
    """(base URL, model name): what `auto` remembers a method for."""

    base = str(getattr(model, "openai_api_base", None) or OPENAI_BASE).rstrip("/")
    return base, model_name(model)


class ServerMemory:
    """What this process learnt about each (base URL, model) server (`server_key`), bounded: the least recently
    written entry goes when `size` are held; thread-safe. Used for the structured-output method that worked and
    for servers that drop system messages (`finrag.tools.llm.system_role`)."""

    def __init__(self, size: int = MEMORY_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, model: Any, default: Any = None) -> Any:
        """What is remembered for this model's server, else `default`."""
        with self._lock:
            return self._items.get(server_key(model), default)

    def put(self, model: Any, value: Any) -> None:
        """Remember `value` for this model's server."""
        key = server_key(model)
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def forget(self, model: Any = None) -> None:
        """Forget one model's server, or (no model) every server."""
        with self._lock:
            if model is None:
                self._items.clear()
            else:
                self._items.pop(server_key(model), None)


_MEMORY = ServerMemory()


def remembered(model: Any) -> str | None:
    """The method that worked for this model's server in this process, if any."""
    return _MEMORY.get(model)


def remember(model: Any, method: str) -> None:
    """Remember the method that worked (the oldest entry goes when `MEMORY_SIZE` are held)."""
    _MEMORY.put(model, method)


def forget(model: Any = None) -> None:
    """Forget the method remembered for one model's server, or (no model) for all."""
    _MEMORY.forget(model)


def methods_for(model: Any) -> list[str]:
    """The methods to try, in order: the fixed setting alone; for `auto`, the remembered method first and then
    those after it. A model that is not an OpenAI-compatible client has `json_schema` and `prompt` only."""
    setting = setting_of(model)
    order = list(METHODS) if _openai_like(model) else ["json_schema", "prompt"]
    if setting != "auto":
        return [setting]
    known = remembered(model) if _openai_like(model) else None
    return order[order.index(known):] if known in order else order


# ------------------------------------------------------------------------------------------ rejections
def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def is_rejection(exc: BaseException) -> bool:
    """Whether a failed call is the server's deterministic refusal of the method (retrying cannot help): a model
    that cannot bind a schema, an HTTP 4xx about the request, or a 5xx whose body says the format is unsupported."""
    if isinstance(exc, NotImplementedError):
        return True
    status = _status(exc)
    if status is None:
        return False
    if 400 <= status < 500:
        return status not in _NOT_RETRIED
    text = f"{getattr(exc, 'body', '') or ''} {exc}"
    return status >= 500 and bool(_ABOUT_FORMAT.search(text)) and bool(_UNSUPPORTED.search(text))


def _with_retries(model: Any, retries: int) -> Any:
    """A copy of an OpenAI-compatible chat model whose client retries `retries` times (the same connection pool)."""
    root = model.root_client.with_options(max_retries=retries)
    update: dict[str, Any] = {"root_client": root, "client": root.chat.completions, "max_retries": retries}
    if getattr(model, "root_async_client", None) is not None:
        aroot = model.root_async_client.with_options(max_retries=retries)
        update.update(root_async_client=aroot, async_client=aroot.chat.completions)
    return model.model_copy(update=update)


# ------------------------------------------------------------------------------------------ the methods
def json_schema_of(schema: Any) -> dict:
    """The JSON schema of a pydantic model class (or a dict schema as it is)."""
    return schema if isinstance(schema, dict) else schema.model_json_schema()


def _schema_text(schema: Any) -> str:
    return json.dumps(json_schema_of(schema), separators=(",", ":"))


def with_instruction(messages: list, text: str) -> list:
    """The messages with `text` appended to the last user message (a user message added when there is none)."""
    from langchain_core.messages import HumanMessage

    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        msg = out[i]
        if getattr(msg, "type", None) == "human":
            content = msg.content
            if isinstance(content, str):
                new: Any = f"{content}\n\n{text}"
            else:
                new = [*content, {"type": "text", "text": text}]
            out[i] = msg.model_copy(update={"content": new})
            return out
    return [*out, HumanMessage(text)]


def _reply_text(reply: Any) -> str:
    return message_text(getattr(reply, "content", reply))


def parse_reply(schema: Any, text: str) -> tuple[Any, Exception | None]:
    """(the first JSON object in `text` valid for `schema`, None), else (None, the reason)."""

    error: Exception | None = None
    for obj in json_objects(text):
        try:
            return (schema.model_validate(obj) if hasattr(schema, "model_validate") else obj), None
        except ValueError as exc:
            error = exc
    return None, error or ValueError("no JSON object in the model's reply")


def _runnable(model: Any, schema: Any, method: str) -> Any:
    """The `with_structured_output` runnable of the json_schema and tools methods; None for the others."""
    if method not in ("json_schema", "tools"):
        return None
    if _openai_like(model):
        kind = "json_schema" if method == "json_schema" else "function_calling"
        runnable = model.with_structured_output(schema, method=kind, include_raw=True)
    else:
        if method != "json_schema":
            raise NotImplementedError(f"{method} needs an OpenAI-compatible chat model")
        runnable = model.with_structured_output(schema, include_raw=True)
    return runnable


def _invoke_here(runnable: Any, messages: list) -> Any:
    """`runnable.invoke(messages)` with the model's request made in this thread. `with_structured_output(...,
    include_raw=True)` is `RunnableParallel(raw=model) | parser`, and a RunnableParallel sends its step to a
    worker thread and joins it: a Ctrl-C while the server hangs then waited for the request's timeout and retries
    (minutes) before the batch stopped. Any other shape is invoked as it is."""
    steps = getattr(getattr(runnable, "first", None), "steps__", None)
    if isinstance(steps, dict) and list(steps) == ["raw"] and not getattr(runnable, "middle", None):
        return runnable.last.invoke({"raw": steps["raw"].invoke(messages)})
    return runnable.invoke(messages)


def _once(model: Any, schema: Any, messages: list, method: str) -> Outcome:
    """One request (two for `prompt` when the repair is needed) by one method."""
    runnable = _runnable(model, schema, method)
    if runnable is not None:
        out = cast("dict[str, Any]", _invoke_here(runnable, messages))
        if not isinstance(out, dict):  # some fakes return the parsed object itself
            out = {"parsed": out, "raw": None, "parsing_error": None}
        raw = out.get("raw")
        return Outcome(out.get("parsed"), raw, out.get("parsing_error"), method, [(messages, raw)])
    schema_text = _schema_text(schema)
    sent = with_instruction(messages, INSTRUCTION.format(schema=schema_text))
    if method == "json_object":
        reply = model.invoke(sent, response_format={"type": "json_object", "schema": json_schema_of(schema)})
        parsed, error = parse_reply(schema, _reply_text(reply))
        return Outcome(parsed, reply, error, method, [(sent, reply)])
    reply = model.invoke(sent)
    parsed, error = parse_reply(schema, _reply_text(reply))
    outcome = Outcome(parsed, reply, error, method, [(sent, reply)])
    if parsed is None and not _cut(reply):  # one repair attempt: the reply and what was wrong with it
        from langchain_core.messages import AIMessage, HumanMessage

        detail = " ".join(str(error).split())[:300]
        again = [*sent, AIMessage(_reply_text(reply)), HumanMessage(REPAIR.format(error=detail, schema=schema_text))]
        reply = model.invoke(again)
        outcome.parsed, outcome.error = parse_reply(schema, _reply_text(reply))
        outcome.raw = reply
        outcome.exchanges.append((again, reply))
    return outcome


def _cut(reply: Any) -> bool:
    """Whether a reply stopped at its completion limit (`finish_reason == "length"`)."""
    meta = getattr(reply, "response_metadata", None) or {}
    return meta.get("finish_reason") == "length"


def _attempt(model: Any, schema: Any, messages: list, method: str, probe: bool) -> Outcome:
    """One method: a probe (no client retries) first when asked, so that a rejection is not retried; a failure
    that is not a rejection gets the model's remaining retries."""
    if not (probe and _openai_like(model)):
        return _once(model, schema, messages, method)
    retries = getattr(model, "max_retries", None)
    retries = retries if isinstance(retries, int) and not isinstance(retries, bool) else 2
    try:
        return _once(_with_retries(model, 0), schema, messages, method)
    except Exception as exc:
        if is_rejection(exc) or not retried(exc) or retries < 1:
            raise
    return _once(_with_retries(model, retries - 1), schema, messages, method)


_RETRIED_ERRORS = frozenset({"APIConnectionError", "APITimeoutError", "TimeoutException", "TransportError"})


def retried(exc: BaseException) -> bool:
    """Whether the openai client would have retried this failure (a connection error, a timeout, HTTP 408, 409,
    429 or 5xx); a reply that does not parse or stopped at its limit is not."""
    status = _status(exc)
    if status is not None:
        return status in (408, 409, 429) or status >= 500
    return isinstance(exc, TimeoutError) or any(c.__name__ in _RETRIED_ERRORS for c in type(exc).__mro__)


def negotiate(model: Any, schema: Any, messages: list,
              on_rejected: Callable[[str, BaseException], None] | None = None) -> Outcome:
    """Structured output by the model's setting (module docstring): the outcome of the first method the server
    does not reject; the last rejection is raised when every method is rejected."""
    methods = methods_for(model)
    auto = setting_of(model) == "auto"
    known = remembered(model) if _openai_like(model) else None
    last: BaseException | None = None
    for method in methods:
        try:
            outcome = _attempt(model, schema, messages, method, probe=auto and method != known)
        except Exception as exc:
            if not (auto and is_rejection(exc)):
                raise
            if method == known:
                forget(model)
            if on_rejected is not None:
                on_rejected(method, exc)
            last = exc
            continue
        if auto and _openai_like(model) and method != known:
            remember(model, method)
        return outcome
    assert last is not None
    raise last
