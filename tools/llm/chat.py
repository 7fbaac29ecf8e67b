"""Chat models per role: `get_chat_model(role, cfg)` returns a LangChain chat model, or None when
the role runs offline (its deterministic strategy).

A model that cannot be built (unknown provider, OpenAI without OPENAI_API_KEY and without a base URL)
raises `LLMConfigError`, a ValueError with a one-line message. The run's error policy
(`Configuration.on_llm_error`) travels with the model: for `offline` the model carries
`metadata["finrag_on_llm_error"] = "offline"`, which `finrag.tools.llm.calls` reads (`policy_of`); an
untagged model (the default, or a chat model instance passed in the configuration) fails loudly.

Every model built here waits at most `llm_timeout_s` per attempt and retries `llm_max_retries` times
(`llm_limits`), so a server that accepts the connection and never answers holds a call for about
llm_timeout_s x (llm_max_retries + 1), and the failure says "timed out" (`finrag.tools.llm.calls.LLMError`).
Every reply is bounded by the role's completion-token limit (`max_tokens_for`, `Configuration.llm_max_tokens`); one
that reaches it fails the call ("stopped at its limit of N tokens", `finrag.tools.llm.calls.LimitReached`).
"""
from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any, Literal, Mapping

if TYPE_CHECKING:  # importing langchain_core.language_models costs ~0.6 s; an offline run never needs it
    from langchain_core.language_models import BaseChatModel

from finrag.state.configuration import LLM_MAX_TOKENS, Configuration, default_configuration
from finrag.state.settings import ProcessSettings, process_settings
from finrag.tools.llm.deadline import fit_limits
from finrag.tools.llm.replies import model_name
from finrag.tools.llm.structured import SETTING_KEY, setting_of
from finrag.tools.llm.system_role import SYSTEM_ROLE_KEY
from finrag.tools.llm.system_role import setting_of as system_role_of

OFFLINE = ("offline", "none", "")
ON_LLM_ERROR_FAIL, ON_LLM_ERROR_OFFLINE = "fail", "offline"
ON_LLM_ERROR = (ON_LLM_ERROR_FAIL, ON_LLM_ERROR_OFFLINE)
POLICY_KEY = "finrag_on_llm_error"
_CACHE: dict[tuple, BaseChatModel] = {}
_LOCK = threading.Lock()


class LLMConfigError(ValueError):
    """The configuration names a model that cannot be built (one line; the CLI's exit code 2)."""


def on_llm_error(cfg: Configuration) -> Literal["fail", "offline"]:
    """The run's error policy: `fail` (the default) or `offline` (a `Literal` of Configuration, checked when the
    run's configuration was built)."""
    return cfg.on_llm_error


def llm_limits(cfg: Configuration | None = None) -> tuple[float, int]:
    """(seconds one attempt of an LLM call may wait, retries after the first attempt): the configuration's
    `llm_timeout_s` and `llm_max_retries` (of the defaults and FINRAG_*, `default_configuration`, when none is
    given), checked; a value that cannot be used is an `LLMConfigError`."""
    cfg = default_configuration(cfg)
    timeout, retries = cfg.llm_timeout_s, cfg.llm_max_retries
    if not (math.isfinite(timeout) and timeout > 0):
        raise LLMConfigError(f"llm_timeout_s must be a positive number of seconds, not {timeout!r}")
    if retries < 0:
        raise LLMConfigError(f"llm_max_retries must be a whole number >= 0, not {retries!r}")
    return timeout, retries


STOP_SEQUENCES: Mapping[str, tuple[str, ...]] = {
    "generator": ("\nQuestion:", "\nContext:", "\n[", "<end_of_turn>"),
    "contextualizer": ("</chunk>", "<document>", "<start_of_turn>", "<end_of_turn>"),
}
"""Where a plain-text role's reply ends at the latest: the prompt's own section markers (an answer never starts a
new "Question:" or "Context:" line, nor a line with a context label "[DOC, p. N]": citations follow the words
they support) and chat-turn markers a model without an end-of-turn habit writes out. A model that echoes or
continues its prompt (Gemma 3 270M, a base model, writes label after label) stops at the next marker instead
of running to its token limit; other models never meet them. Structured replies are bounded by their schemas
instead (`finrag.state.schema`'s `LLM*` types). At most 4: OpenAI's limit."""


def max_tokens_for(role: str, cfg: Configuration) -> int:
    """The completion-token limit of a role's replies (`Configuration.llm_max_tokens`; judge2: the judge's)."""
    limits = getattr(cfg, "llm_max_tokens", None) or LLM_MAX_TOKENS
    key = "judge" if role == "judge2" else role
    return int(limits.get(key) or LLM_MAX_TOKENS.get(key) or LLM_MAX_TOKENS["generator"])


def policy_of(model: BaseChatModel | None) -> str:
    """The error policy a model was handed out with (`fail` unless tagged `offline`)."""
    meta = getattr(model, "metadata", None) or {}
    return ON_LLM_ERROR_OFFLINE if meta.get(POLICY_KEY) == ON_LLM_ERROR_OFFLINE else ON_LLM_ERROR_FAIL


def structured_output(cfg: Configuration) -> str:
    """The run's structured-output method (`finrag.tools.llm.structured`): `auto` or one of METHODS (a `Literal`
    of Configuration, checked when the run's configuration was built)."""
    return cfg.structured_output


def system_role_setting(cfg: Configuration) -> str:
    """`Configuration.llm_system_role` (`finrag.tools.llm.system_role`; a `Literal`, checked when built)."""
    return cfg.llm_system_role


def _tags(policy: str, structured: str, system: str = "auto") -> dict[str, str]:
    """The metadata a model carries for a run's error policy, structured-output and system-message settings
    (the defaults: none)."""
    tags = {}
    if policy == ON_LLM_ERROR_OFFLINE:
        tags[POLICY_KEY] = ON_LLM_ERROR_OFFLINE
    if structured != "auto":
        tags[SETTING_KEY] = structured
    if system != "auto":
        tags[SYSTEM_ROLE_KEY] = system
    return tags


def _tagged(model: BaseChatModel, policy: str, structured: str = "auto", system: str = "auto") -> BaseChatModel:
    if policy == policy_of(model) and structured == setting_of(model) and system == system_role_of(model):
        return model
    meta = {k: v for k, v in (model.metadata or {}).items() if k not in (POLICY_KEY, SETTING_KEY, SYSTEM_ROLE_KEY)}
    meta.update(_tags(policy, structured, system))
    return model.model_copy(update={"metadata": meta or None})


def get_chat_model(role: str, cfg: Configuration, settings: ProcessSettings | None = None) -> BaseChatModel | None:
    """The chat model of a role (module docstring), or None for the offline strategy. `settings`: the caller's
    process settings (OPENAI_BASE_URL, OPENAI_API_KEY; None: the environment's, `process_settings`)."""
    policy, structured, system = on_llm_error(cfg), structured_output(cfg), system_role_setting(cfg)
    spec = cfg.model_for(role)
    if not isinstance(spec, str) and spec is not None:
        from langchain_core.language_models import BaseChatModel

        if isinstance(spec, BaseChatModel):
            return _tagged(spec, policy, structured, system)
    spec = str(spec).strip()
    if spec.lower() in OFFLINE:
        return None
    provider, _, model = spec.partition("/")
    if not model:
        provider, model = "openai", provider
    if provider not in ("openai", "openai-compatible"):
        raise LLMConfigError(f"unknown model provider {provider!r} in {spec!r} (the {role}'s model); "
                             "use 'offline' or 'openai/<model>' (with --llm-base-url for a compatible server)")
    env = process_settings(settings)  # OPENAI_BASE_URL, OPENAI_API_KEY
    base_url = cfg.llm_base_url or env.openai_base_url or None
    if not base_url and not env.openai_api_key:
        raise LLMConfigError(f"the {role}'s model {spec!r} needs OPENAI_API_KEY in the environment, or "
                             "--llm-base-url (llm_base_url) for an OpenAI-compatible server; --llm offline "
                             "answers without an LLM")
    timeout, retries = fit_limits(*llm_limits(cfg))  # inside a server request: what fits before its deadline
    limit = max_tokens_for(role, cfg)
    key = (model, base_url, env.openai_api_key, cfg.temperature, policy, structured, system, timeout, retries, limit)
    with _LOCK:
        if key not in _CACHE:
            from langchain_openai import ChatOpenAI

            # stream_usage: a streamed call (LangServe's /stream, stream_answer) asks for the usage chunk
            # (`stream_options: {"include_usage": true}`), so its token counts are the provider's
            # max_tokens: every reply is bounded (langchain-openai sends it as max_completion_tokens; a compatible
            # server also gets the older max_tokens, which llama-cpp-python's server reads)
            kwargs: dict[str, Any] = {"model": model, "temperature": cfg.temperature,
                                      "max_retries": retries, "timeout": timeout, "stream_usage": True,
                                      "max_tokens": limit}
            if role in STOP_SEQUENCES:
                kwargs["stop"] = list(STOP_SEQUENCES[role])
            if base_url:
                kwargs["base_url"] = base_url
                kwargs["api_key"] = env.openai_api_key or "not-needed"
                kwargs["extra_body"] = {"max_tokens": limit}
            else:  # the handed-in (or the environment's) OPENAI_API_KEY, checked above
                kwargs["api_key"] = env.openai_api_key
            if _tags(policy, structured, system):
                kwargs["metadata"] = _tags(policy, structured, system)
            _CACHE[key] = ChatOpenAI(**kwargs)
        return _CACHE[key]


OPENAI_BASE = "https://api.openai.com/v1"
"""Where a role goes without a base URL (OpenAI's API)."""
QUERY_ROLES = ("router", "rewriter", "verifier", "generator")
"""The LLM roles of a query's run."""


def endpoint_of(role: str, cfg: Configuration, settings: ProcessSettings | None = None) -> tuple[str, str] | None:
    """(base URL, model) a role's calls go to, without building its model; None for a role that runs offline.
    The same rule as `get_chat_model`: `llm_base_url`, else $OPENAI_BASE_URL (`settings`, the caller's; None: the
    environment's), else OpenAI's API."""
    spec = cfg.model_for(role)
    if spec is not None and not isinstance(spec, str):  # a chat model instance
        base = getattr(spec, "openai_api_base", None)
        return (str(base).rstrip("/") if base else "(in process)"), model_name(spec)
    spec = str(spec or "").strip()
    if spec.lower() in OFFLINE:
        return None
    _provider, _, model = spec.partition("/")
    base = cfg.llm_base_url or process_settings(settings).openai_base_url or OPENAI_BASE
    return str(base).rstrip("/"), model or spec


def endpoint_line(endpoints: dict[str, tuple[str, str] | None]) -> str | None:
    """One line naming where each role goes ("router, generator -> http://127.0.0.1:8080/v1 (stub-model); judge ->
    https://api.openai.com/v1 (gpt-4.1)") when the roles that use an LLM do not all go to the same host; else None."""
    used = {role: ep for role, ep in endpoints.items() if ep is not None}
    if len({_host(url) for url, _model in used.values()}) <= 1:
        return None
    groups: dict[tuple[str, str], list[str]] = {}
    for role, ep in used.items():
        groups.setdefault(ep, []).append(role)
    return "; ".join(f"{', '.join(roles)} -> {url} ({model})" for (url, model), roles in groups.items())


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.netloc else url
