"""LLM calls with accounting: every call returns its reply and an `llm_calls` record (role, model,
prompt/completion tokens).

The error policy (`Configuration.on_llm_error`) is applied by `try_structured` / `try_text`, the calls the
nodes make: with `fail` (the default) a failed call (unreachable server, HTTP error, a reply that does not
parse) raises `LLMError`, one line naming the role, the model, the server and the cause; with `offline` it
returns an error record (`model: "error"`) and the node's offline strategy answers that role, which
`finrag.api.to_contract` reports as `offline_fallback`. The policy travels with the model:
`finrag.tools.llm.chat.get_chat_model` tags the models it hands out for `offline` (`policy_of`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # annotations only: importing it costs ~0.6 s, which an offline run never needs
    from langchain_core.language_models import BaseChatModel

from finrag.tools.llm import system_role
from finrag.tools.llm.chat import ON_LLM_ERROR_FAIL, policy_of
from finrag.tools.llm.deadline import DeadlinePassed
from finrag.tools.llm.deadline import check as check_deadline
from finrag.tools.llm.replies import model_name
from finrag.tools.llm.structured import negotiate
from finrag.tools.llm.tokens import count_tokens

_TIMEOUT_ERRORS = frozenset({"APITimeoutError", "ModelTimeoutError", "TimeoutException"})
"""Names of the exception classes (or their bases) of a call that ran out of time: the openai client's, LangChain's
and httpx's (matched by name, so this module imports none of them)."""
_FALLBACK_HINT = ("to answer with the offline strategy instead, use --on-llm-error offline "
                  "(on_llm_error=offline, FINRAG_ON_LLM_ERROR=offline)")


def is_timeout(exc: BaseException | None) -> bool:
    """Whether a failed call ran out of time (the exception, or one it was raised from, is a timeout)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, TimeoutError) or any(c.__name__ in _TIMEOUT_ERRORS for c in type(exc).__mro__):
            return True
        exc = exc.__cause__
    return False


def _attempt_limits(model: Any) -> tuple[float | None, int | None]:
    """(seconds one attempt may wait, attempts) of a chat model, as far as it says (ChatOpenAI does)."""
    timeout = getattr(model, "request_timeout", None)
    timeout = getattr(timeout, "read", timeout)  # an httpx.Timeout: its read timeout
    retries = getattr(model, "max_retries", None)
    return (float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else None,
            retries + 1 if isinstance(retries, int) and not isinstance(retries, bool) else None)


class LLMError(RuntimeError):
    """A call to the requested LLM failed and the run's policy (`on_llm_error="fail"`) does not allow the
    offline strategy to stand in. `str()` is one line: role, model, server, cause, and how to fall back; a call
    that ran out of time (`timed_out`) says "timed out after N s (K attempts)" and how to wait longer."""

    def __init__(self, role: str, model: BaseChatModel | None, cause: BaseException):
        self.role, self.model, self.cause = role, model_name(model), cause
        self.timed_out = is_timeout(cause)
        base = getattr(model, "openai_api_base", None) or ""
        where = f"{self.model} at {base}" if base else self.model
        if isinstance(cause, DeadlinePassed):  # the server's request timed out before this call could start
            super().__init__(f"the {role} LLM ({where}) was not called: {cause}")
            return
        if isinstance(cause, LimitReached):  # the reply was cut at its completion limit
            at = f"its limit of {cause.limit} tokens" if cause.limit else "its completion limit"
            super().__init__(f"the {role} LLM ({where}) stopped at {at} (finish_reason=length); raise it with "
                             f"FINRAG_LLM_MAX_TOKENS (llm_max_tokens, e.g. {role}=2048); {_FALLBACK_HINT}")
            return
        if self.timed_out:
            timeout, attempts = _attempt_limits(model)
            after = f" after {timeout:g} s" if timeout else ""
            tries = f" ({attempts} attempt{'s' if attempts != 1 else ''})" if attempts else ""
            super().__init__(f"the {role} LLM ({where}) timed out{after}{tries}; for a slow server raise "
                             f"--llm-timeout (llm_timeout_s, FINRAG_LLM_TIMEOUT_S); {_FALLBACK_HINT}")
            return
        detail = " ".join(str(cause).split())[:300]
        super().__init__(f"the {role} LLM ({where}) failed: {type(cause).__name__}: {detail or 'no detail'}; "
                         f"{_FALLBACK_HINT}")


def provider_usage(message: Any) -> tuple[int, int] | None:
    """(prompt_tokens, completion_tokens) as the provider reported them, None when it did not (a streamed
    call whose server ignored `stream_options.include_usage`, a model without usage metadata)."""
    usage = getattr(message, "usage_metadata", None) or {}
    if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return None


def usage_of(message: Any, prompt_text: str = "", completion_text: str = "") -> tuple[int, int]:
    """(prompt_tokens, completion_tokens): the provider's numbers, else our own count."""
    return provider_usage(message) or (count_tokens(prompt_text), count_tokens(completion_text))


def call_record(role: str, model: BaseChatModel | None, prompt_tokens: int, completion_tokens: int,
                estimated: bool = False, structured: str | None = None, folded: bool = False) -> dict:
    """One `cost.calls` entry; `tokens_estimated: true` only when the counts are finrag's own estimate;
    `structured`: how a structured call asked for its JSON (`finrag.tools.llm.structured.METHODS`);
    `system_folded: true` when the instructions went in the user turn (`finrag.tools.llm.system_role`)."""
    rec: dict[str, Any] = {"role": role, "model": model_name(model), "prompt_tokens": int(prompt_tokens),
                           "completion_tokens": int(completion_tokens)}
    if estimated:
        rec["tokens_estimated"] = True
    if structured:
        rec["structured"] = structured
    if folded:
        rec["system_folded"] = True
    return rec


def _prompt_text(messages: list) -> str:
    return "\n".join(str(getattr(m, "content", m)) for m in messages)


class LimitReached(RuntimeError):
    """A reply stopped at its completion-token limit (`finish_reason == "length"`): it is cut, not an answer."""

    def __init__(self, role: str, limit: int | None):
        self.role, self.limit = role, limit
        at = f"its limit of {limit} tokens" if limit else "its completion limit"
        super().__init__(f"the {role} LLM stopped at {at} (finish_reason=length)")


def max_tokens_of(model: Any) -> int | None:
    """The completion-token limit a chat model was built with (ChatOpenAI's `max_tokens`), if any."""
    limit = getattr(model, "max_tokens", None)
    return limit if isinstance(limit, int) and not isinstance(limit, bool) else None


def cut_note(record: Mapping[str, Any]) -> str:
    """' (cut at N tokens)' for a plain-text reply that stopped at its completion limit (`finish_reason:
    "length"`), '' otherwise: what an answer cut there says at its end."""
    if record.get("finish_reason") != "length":
        return ""
    return f" (cut at {int(record.get('max_tokens') or record.get('completion_tokens') or 0):,} tokens)"


def cut_answer(text: str, record: Mapping[str, Any]) -> str:
    """`text` as the answer of its reply: unchanged when the reply ended by itself; cut at its limit, without the
    citation the cut left open (`[FILING_ID` and no `]`: no citation, and the note inside it would read as one)
    and with `cut_note` at its end."""
    note = cut_note(record)
    if not note:
        return text
    body = text.rstrip()
    opened = body.rfind("[")
    if opened >= 0 and "]" not in body[opened:]:
        body = body[:opened].rstrip()
    return body + note


def check_finished(role: str, model: Any, reply: Any) -> None:
    """Raise `LimitReached` when a reply stopped at its completion limit."""
    meta = getattr(reply, "response_metadata", None) or {}
    if meta.get("finish_reason") == "length":
        raise LimitReached(role, max_tokens_of(model))


def invoke_tracked(role: str, model: BaseChatModel, messages: list, *, cut_ok: bool = False) -> tuple[Any, dict]:
    """Invoke a chat model; return (reply message, call record). A reply cut at its completion limit raises
    `LimitReached`, unless `cut_ok` (a plain-text answer: the text so far is the reply, and the record says
    `finish_reason: "length"` and `max_tokens`, the limit it reached)."""
    sent, folded = system_role.for_server(model, messages)
    reply = model.invoke(sent)
    spent = (0, 0)
    if not folded and system_role.dropped(model, sent, (provider_usage(reply) or (0, 0))[0]):
        system_role.remember_drop(model)  # the server never saw the instructions: ask again with them folded
        spent = provider_usage(reply) or (0, 0)
        sent, folded = system_role.fold(messages), True
        reply = model.invoke(sent)
    finish = str((getattr(reply, "response_metadata", None) or {}).get("finish_reason") or "")
    if not cut_ok:
        check_finished(role, model, reply)
    pt, ct = usage_of(reply, _prompt_text(sent), str(getattr(reply, "content", "")))
    record = call_record(role, model, pt + spent[0], ct + spent[1], estimated=provider_usage(reply) is None,
                         folded=folded)
    if cut_ok and finish:  # a plain-text answer says how it ended ("stop", or "length": cut at its limit)
        record["finish_reason"] = finish
        if finish == "length":
            record["max_tokens"] = max_tokens_of(model) or ct + spent[1]
    return reply, record


def invoke_structured_raw(role: str, model: BaseChatModel, schema, messages: list) -> tuple[Any, Any, Any, dict]:
    """Structured output negotiated with the server (`finrag.tools.llm.structured.negotiate`: json_schema, tools,
    json_object, prompt) with token accounting; returns (parsed or None, raw reply message, parsing error or
    None, call record with the method used in `structured`). A reply the parser rejected does not raise, so the
    caller can read the raw reply (`message_text`, `json_objects`); a reply cut at its completion limit raises
    `LimitReached`; every method rejected raises the last rejection. The system message goes as
    `finrag.tools.llm.system_role` says (folded into the user turn for a server seen dropping it)."""
    sent, folded = system_role.for_server(model, messages)
    outcome = _negotiated(role, model, schema, sent)
    exchanges = list(outcome.exchanges)
    if not folded and exchanges and system_role.dropped(model, exchanges[0][0],
                                                        (provider_usage(exchanges[0][1]) or (0, 0))[0]):
        system_role.remember_drop(model)  # the server never saw the instructions: ask again with them folded
        folded = True
        outcome = _negotiated(role, model, schema, system_role.fold(messages))
        exchanges += outcome.exchanges
    check_finished(role, model, outcome.raw)
    pt = ct = 0
    estimated = False
    for sent, raw in exchanges:
        text = str(getattr(raw, "content", "") or "") or (str(outcome.parsed) if raw is outcome.raw else "")
        p, c = usage_of(raw, _prompt_text(sent), text)
        pt, ct, estimated = pt + p, ct + c, estimated or provider_usage(raw) is None
    return outcome.parsed, outcome.raw, outcome.error, call_record(role, model, pt, ct, estimated=estimated,
                                                                   structured=outcome.method, folded=folded)


def _negotiated(role: str, model: BaseChatModel, schema, messages: list) -> Any:
    """`negotiate`, with the openai client's own "the reply stopped at max_tokens" (json_schema's parse) as
    `LimitReached`."""

    try:
        return negotiate(model, schema, messages)
    except Exception as exc:
        if any(c.__name__ == "LengthFinishReasonError" for c in type(exc).__mro__):
            raise LimitReached(role, max_tokens_of(model)) from exc
        raise


def invoke_structured(role: str, model: BaseChatModel, schema, messages: list) -> tuple[Any, dict]:
    """Structured output with token accounting (`invoke_structured_raw`); a reply that does not parse raises
    ValueError."""
    parsed, _raw, error, record = invoke_structured_raw(role, model, schema, messages)
    if parsed is None and error is not None:
        raise ValueError(str(error))
    if isinstance(parsed, dict) and hasattr(schema, "model_validate"):
        parsed = schema.model_validate(parsed)
    return parsed, record


ERROR_MODEL = "error"
"""The `model` of a failed call's record (`error_record`); test a record with `failed_call`."""


def failed_call(record: Mapping[str, Any]) -> bool:
    """Whether an `llm_calls` record is a failed call's (`error_record`): not counted as an LLM call, and its
    role was answered by the offline strategy."""
    return record.get("model") == ERROR_MODEL


def error_record(role: str, exc: BaseException) -> dict:
    """A call that failed: recorded (and not counted as an LLM call) so the offline strategy can take over."""
    return {"role": role, "model": ERROR_MODEL, "prompt_tokens": 0, "completion_tokens": 0,
            "error": f"{type(exc).__name__}: {str(exc)[:200]}"}


def _failed(role: str, model: BaseChatModel, exc: Exception) -> dict:
    """The error record of a failed call when the model's policy is `offline`; else raise `LLMError`."""
    if policy_of(model) == ON_LLM_ERROR_FAIL:
        raise LLMError(role, model, exc) from exc
    return error_record(role, exc)


def try_structured(role: str, model: BaseChatModel, schema, messages: list) -> tuple[Any, dict]:
    """`invoke_structured` under the error policy: a failure raises `LLMError` (`on_llm_error="fail"`) or
    returns (None, error record) so the offline strategy can take over (`"offline"`)."""
    try:
        check_deadline(role)
        return invoke_structured(role, model, schema, messages)
    except Exception as exc:
        return None, _failed(role, model, exc)


def try_text(role: str, model: BaseChatModel, messages: list, *, cut_ok: bool = False) -> tuple[str, dict]:
    """A plain-text call under the error policy: a failure raises `LLMError`, or returns ("", error record).
    `cut_ok` (the generator's answer): a reply cut at its completion limit is returned as it is, its record
    marked `finish_reason: "length"` (`invoke_tracked`); otherwise such a reply is a failure (`LimitReached`)."""
    try:
        check_deadline(role)
        reply, record = invoke_tracked(role, model, messages, cut_ok=cut_ok)
        return str(reply.content).strip(), record
    except Exception as exc:
        return "", _failed(role, model, exc)
