"""LLM calls with accounting: every call returns its reply and an `llm_calls` record (role, model,
prompt/completion tokens); `try_*` turn a failure into an error record so the offline strategy can take over."""
from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models import BaseChatModel

from finrag.tools.llm.chat import model_name
from finrag.tools.llm.tokens import count_tokens


def usage_of(message: Any, prompt_text: str = "", completion_text: str = "") -> tuple[int, int]:
    """(prompt_tokens, completion_tokens): the provider's numbers, else our own count."""
    usage = getattr(message, "usage_metadata", None) or {}
    if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return count_tokens(prompt_text), count_tokens(completion_text)


def call_record(role: str, model: BaseChatModel | None, prompt_tokens: int, completion_tokens: int) -> dict:
    return {"role": role, "model": model_name(model), "prompt_tokens": int(prompt_tokens),
            "completion_tokens": int(completion_tokens)}


def invoke_tracked(role: str, model: BaseChatModel, messages: list) -> tuple[Any, dict]:
    """Invoke a chat model; return (reply message, call record)."""
    reply = model.invoke(messages)
    prompt_text = "\n".join(str(getattr(m, "content", m)) for m in messages)
    pt, ct = usage_of(reply, prompt_text, str(getattr(reply, "content", "")))
    return reply, call_record(role, model, pt, ct)


def invoke_structured(role: str, model: BaseChatModel, schema, messages: list) -> tuple[Any, dict]:
    """Structured output with token accounting (include_raw keeps the usage metadata)."""
    prompt_text = "\n".join(str(getattr(m, "content", m)) for m in messages)
    try:
        runnable = model.with_structured_output(schema, include_raw=True)
        out = runnable.invoke(messages)
        parsed, raw = out.get("parsed"), out.get("raw")
        if parsed is None and out.get("parsing_error") is not None:
            raise ValueError(str(out["parsing_error"]))
        pt, ct = usage_of(raw, prompt_text, str(getattr(raw, "content", "") or parsed))
        return parsed, call_record(role, model, pt, ct)
    except NotImplementedError:
        # models without tool calling: ask for JSON and parse it
        reply, record = invoke_tracked(role, model, messages)
        text = str(reply.content)
        m = re.search(r"\{.*\}", text, re.S)
        if not m:
            raise ValueError(f"{role}: no JSON object in the model's reply")
        return schema.model_validate(json.loads(m.group(0))), record


def error_record(role: str, exc: BaseException) -> dict:
    """A call that failed: recorded (and not counted as an LLM call) so the offline strategy can take over."""
    return {"role": role, "model": "error", "prompt_tokens": 0, "completion_tokens": 0,
            "error": f"{type(exc).__name__}: {str(exc)[:200]}"}


def try_structured(role: str, model: BaseChatModel, schema, messages: list) -> tuple[Any, dict]:
    """`invoke_structured`, but a failure returns (None, error record) instead of raising."""
    try:
        return invoke_structured(role, model, schema, messages)
    except Exception as exc:
        return None, error_record(role, exc)


def try_text(role: str, model: BaseChatModel, messages: list) -> tuple[str, dict]:
    """A plain-text call; a failure returns ("", error record) instead of raising."""
    try:
        reply, record = invoke_tracked(role, model, messages)
        return str(reply.content).strip(), record
    except Exception as exc:
        return "", error_record(role, exc)
