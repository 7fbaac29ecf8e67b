"""Chat models per role: `get_chat_model(role, cfg)` returns a LangChain chat model, or None when
the role runs offline (its deterministic strategy)."""
from __future__ import annotations

import os
import threading
from typing import Any

from langchain_core.language_models import BaseChatModel

from finrag.state.configuration import Configuration

OFFLINE = ("offline", "none", "")
_CACHE: dict[tuple, BaseChatModel] = {}
_LOCK = threading.Lock()


def get_chat_model(role: str, cfg: Configuration) -> BaseChatModel | None:
    spec = cfg.model_for(role)
    if isinstance(spec, BaseChatModel):
        return spec
    spec = str(spec).strip()
    if spec.lower() in OFFLINE:
        return None
    provider, _, model = spec.partition("/")
    if not model:
        provider, model = "openai", provider
    if provider not in ("openai", "openai-compatible"):
        raise ValueError(f"unknown model provider {provider!r} in {spec!r}; use 'offline' or 'openai/<model>'")
    base_url = cfg.llm_base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = (model, base_url, float(cfg.temperature))
    with _LOCK:
        if key not in _CACHE:
            from langchain_openai import ChatOpenAI

            kwargs: dict[str, Any] = {"model": model, "temperature": float(cfg.temperature), "max_retries": 3,
                                      "timeout": 120}
            if base_url:
                kwargs["base_url"] = base_url
                kwargs.setdefault("api_key", os.environ.get("OPENAI_API_KEY") or "not-needed")
            _CACHE[key] = ChatOpenAI(**kwargs)
        return _CACHE[key]


def model_name(model: BaseChatModel | None) -> str:
    if model is None:
        return "offline"
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
