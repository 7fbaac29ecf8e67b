"""Where a call's instructions go: the system message, or folded into the first user turn.

finrag puts each role's instructions (and the router's candidates) in a system message. Some OpenAI-compatible
servers drop it without a word: llama-cpp-python's `--chat_format gemma` formats only user and assistant turns,
so the router never sees its candidates and the generator never sees its rules. The `llm_system_role` setting
(`Configuration.llm_system_role`) says what to do:

* `system`: always send a system message (OpenAI, vLLM, llama.cpp's own server with a chat template);
* `user`: always fold the instructions into the first user turn (`fold`);
* `auto` (default): send a system message until a reply shows the server dropped it (`dropped`), then fold, for
  that call (sent again) and for every later call to the same base URL and model (remembered per process).

The evidence is the server's own prompt-token count: a call whose system message is at least twice as long as
the rest (the router's candidates, the verifier's rules) and whose reported prompt is under 60% of what was sent
lost its system message; a tokenizer 0.7-1.5x finrag's count cannot produce that pattern otherwise (kept: at most
0.5 of the sent tokens; dropped: at least 0.7). Calls with a short system message decide nothing, and only
OpenAI-compatible servers other than OpenAI's own are judged (a chat model instance handed in never is).
"""
from __future__ import annotations

from typing import Any

from finrag.tools.llm.structured import OPENAI_BASE, ServerMemory, _openai_like, server_key
from finrag.tools.llm.tokens import count_tokens

SYSTEM_ROLE_KEY = "finrag_llm_system_role"
"""The model metadata key that carries the `llm_system_role` setting (`finrag.tools.llm.chat`)."""
SYSTEM_ROLES = ("auto", "system", "user")
"""The values of `llm_system_role`."""
_DROPS = ServerMemory()
"""Servers seen dropping system messages, per process (bounded; the oldest goes first)."""


def setting_of(model: Any) -> str:
    """The `llm_system_role` a model was handed out with (`auto` unless tagged)."""
    value = str((getattr(model, "metadata", None) or {}).get(SYSTEM_ROLE_KEY) or "auto")
    return value if value in SYSTEM_ROLES else "auto"


def folds(model: Any) -> bool:
    """Whether calls to this model fold their system message (setting `user`, or `auto` once a drop was seen)."""
    setting = setting_of(model)
    if setting != "auto":
        return setting == "user"
    if not _compatible_server(model):
        return False
    return bool(_DROPS.get(model, False))


def remember_drop(model: Any) -> None:
    """Remember that this model's server drops system messages."""
    _DROPS.put(model, True)


def forget(model: Any = None) -> None:
    """Forget one model's server (or, with no model, all)."""
    _DROPS.forget(model)


def _compatible_server(model: Any) -> bool:
    """Whether the model is an OpenAI-compatible client pointed at a server other than OpenAI's (the only kind
    whose chat format may drop a system message; a chat model instance handed in, e.g. a fake, decides nothing)."""
    return _openai_like(model) and server_key(model)[0] != OPENAI_BASE.rstrip("/")


def _is_system(message: Any) -> bool:
    return getattr(message, "type", None) == "system"


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else str(content)


def has_system(messages: list) -> bool:
    """Whether any message is a system message."""
    return any(_is_system(m) for m in messages)


def fold(messages: list) -> list:
    """The messages with every system message's text put before the first user turn's text (one user message
    when there is none); the other messages unchanged, in order."""
    if not has_system(messages):
        return list(messages)
    from langchain_core.messages import HumanMessage

    instructions = "\n\n".join(_text(m) for m in messages if _is_system(m) and _text(m).strip())
    rest = [m for m in messages if not _is_system(m)]
    for i, m in enumerate(rest):
        if getattr(m, "type", None) == "human":
            content = getattr(m, "content", "")
            if isinstance(content, str):
                merged = f"{instructions}\n\n{content}" if content else instructions
                rest[i] = m.model_copy(update={"content": merged})
            else:  # content blocks: the instructions as the first text block
                rest[i] = m.model_copy(update={"content": [{"type": "text", "text": instructions}, *content]})
            return rest
    return [HumanMessage(instructions), *rest]


def for_server(model: Any, messages: list) -> tuple[list, bool]:
    """(messages as this model's server should get them, whether they were folded)."""
    if folds(model) and has_system(messages):
        return fold(messages), True
    return list(messages), False


def dropped(model: Any, sent: list, prompt_tokens: int | None) -> bool:
    """Whether the server's prompt-token count shows it dropped the system message of `sent` (module docstring);
    False when the setting is not `auto`, nothing was sent as system, or the server gave no count."""
    if setting_of(model) != "auto" or not prompt_tokens or not has_system(sent) or not _compatible_server(model):
        return False
    system = sum(count_tokens(_text(m)) for m in sent if _is_system(m))
    rest = sum(count_tokens(_text(m)) for m in sent if not _is_system(m))
    return system >= 32 and system >= 2 * rest and prompt_tokens < 0.6 * (system + rest)
