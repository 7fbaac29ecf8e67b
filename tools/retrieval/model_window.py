"""The model's window respected: the generator's context length, and the context fitted inside it.

The context plan (HDRR's `context_budget_tokens`, 15k; SFR's `sfr_max_context_tokens`, 120k) knows nothing of
the model: a local server with an 8k window got a 15k prompt, which it truncates or rejects. The window is
`Configuration.llm_context_window` when set (> 0), else read from the generator's server where it says it
(`server_window`): llama.cpp's `GET /props` (`default_generation_settings.n_ctx`), vLLM's `GET /v1/models`
(`max_model_len`), Ollama's `POST /api/show` (`model_info.<arch>.context_length`); one probe per base URL and
model, cached, with a short timeout, every failure ignored (0: unknown, nothing is cut). OpenAI itself (no base
URL) is not probed.

`fit_to_window` keeps the context passages that fit in what the window leaves after the system prompt, the
question with its prompt template, the reader's tables and the generator's completion limit (with a margin for
tokenizers that count differently): passages are taken in turn from each filing (so a multi-company question
keeps every filing's best), in their order, and the record says what was cut (`window_record`).
"""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Optional, Sequence

PROBE_TIMEOUT_S = 2.0
SAFETY = 0.9  # share of the free window the context may fill: the server's tokenizer is not finrag's counter
MARGIN_TOKENS = 64  # chat template tokens (role markers, BOS) on top of the messages' text
DEFAULT_COMPLETION_TOKENS = 1024  # the generator's completion limit when the configuration has none
RETRY_UNKNOWN_S = 300.0  # a server that said nothing (or was down) is asked again after this long

_CACHE: dict[tuple[str, str], tuple[int, float]] = {}  # (base URL, model) -> (window, when probed)
_LOCK = threading.Lock()


def _get_json(url: str, timeout: float, body: Optional[dict] = None, key: str = "") -> Any:
    """The JSON answer of a GET (or, with `body`, a POST) to `url` (with the server's API `key`, if any); None
    on any failure."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"content-type": "application/json"} if data is not None else {}
    if key:
        headers["authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (the configured LLM server)
            return json.loads(resp.read(1_000_000) or b"null")
    except (OSError, ValueError, urllib.error.URLError):
        return None


def _positive(value: Any) -> int:
    """`value` as a positive int, else 0."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return 0
    return n if n > 0 else 0


def _llama_cpp(root: str, model: str, timeout: float, key: str) -> int:
    """llama.cpp's `llama-server`: `GET /props` -> default_generation_settings.n_ctx (or a top-level n_ctx)."""
    props = _get_json(f"{root}/props", timeout, key=key)
    if not isinstance(props, dict):
        return 0
    settings = props.get("default_generation_settings") or {}
    return _positive(settings.get("n_ctx") if isinstance(settings, dict) else None) or _positive(props.get("n_ctx"))


def _vllm(base: str, model: str, timeout: float, key: str) -> int:
    """vLLM: `GET /v1/models` -> the model's max_model_len (the first listed when the name is not there)."""
    listed = _get_json(f"{base}/models", timeout, key=key)
    data = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(data, list):
        return 0
    entries = [m for m in data if isinstance(m, dict)]
    mine = [m for m in entries if m.get("id") == model] or entries[:1]
    return _positive(mine[0].get("max_model_len")) if mine else 0


def _ollama(root: str, model: str, timeout: float, key: str) -> int:
    """Ollama: `POST /api/show {"model": ...}` -> model_info.<architecture>.context_length."""
    shown = _get_json(f"{root}/api/show", timeout, body={"model": model}, key=key)
    info = shown.get("model_info") if isinstance(shown, dict) else None
    if not isinstance(info, dict):
        return 0
    return max((_positive(v) for k, v in info.items() if str(k).endswith(".context_length")), default=0)


PROBES: tuple[Callable[[str, str, str, float, str], int], ...] = (
    lambda root, base, model, t, key: _llama_cpp(root, model, t, key),
    lambda root, base, model, t, key: _vllm(base, model, t, key),
    lambda root, base, model, t, key: _ollama(root, model, t, key),
)


def server_window(base_url: str, model: str, timeout: float = PROBE_TIMEOUT_S, api_key: str = "") -> int:
    """The context length the server at `base_url` says `model` has (0: it does not say, or no answer);
    probed once per (base URL, model) and cached (an unknown one for `RETRY_UNKNOWN_S`); `api_key` is sent as
    the chat calls send it."""
    base = (base_url or "").rstrip("/")
    if not base.startswith(("http://", "https://")):
        return 0
    key = (base, model)
    with _LOCK:
        cached = _CACHE.get(key)
    if cached is not None and (cached[0] or time.monotonic() - cached[1] < RETRY_UNKNOWN_S):
        return cached[0]
    root = base[:-3] if base.endswith("/v1") else base
    found = 0
    for probe in PROBES:
        found = probe(root, base, model, timeout, api_key)
        if found:
            break
    with _LOCK:
        _CACHE[key] = (found, time.monotonic())
    return found


_NO_TOKENIZE: dict[str, float] = {}  # servers without a /tokenize route, and when that was seen
RATIO_SAMPLE_CHARS = 20_000


def server_token_ratio(model: Any, text: str, counter: Callable[[str], int],
                       timeout: float = PROBE_TIMEOUT_S) -> float:
    """How many tokens the chat `model`'s server counts per finrag token (`counter`) on `text`: llama.cpp and
    vLLM tokenize on `POST /tokenize`, llama-cpp-python on `POST /extras/tokenize`; 1.0 where the server has no such route (asked again after
    `RETRY_UNKNOWN_S`) or on any failure. Gemma's tokenizer, for one, splits every digit: a statement page holds
    1.5-2x the tokens finrag counts, and a prompt fitted with finrag's count overflowed an 8k window ("Context
    size has been exceeded"). At least 1.0, at most 4.0."""
    base = str(getattr(model, "openai_api_base", None) or "").rstrip("/")
    if not base.startswith(("http://", "https://")) or not text:
        return 1.0
    root = base[:-3] if base.endswith("/v1") else base
    with _LOCK:
        seen = _NO_TOKENIZE.get(root)
    if seen is not None and time.monotonic() - seen < RETRY_UNKNOWN_S:
        return 1.0
    secret: Any = getattr(model, "openai_api_key", None)
    key = str(secret.get_secret_value()) if hasattr(secret, "get_secret_value") else str(secret or "")
    sample = text[:RATIO_SAMPLE_CHARS]
    name = str(getattr(model, "model_name", None) or "")
    n = 0
    for route in ("/tokenize", "/extras/tokenize"):  # llama.cpp and vLLM; llama-cpp-python
        out = _get_json(f"{root}{route}", timeout, {"content": sample, "prompt": sample, "input": sample,
                                                    "model": name}, key)
        tokens = out.get("tokens") if isinstance(out, dict) else None
        n = len(tokens) if isinstance(tokens, list) else _positive(out.get("count") if isinstance(out, dict) else 0)
        if n:
            break
    mine = counter(sample)
    if not n or not mine:
        with _LOCK:
            _NO_TOKENIZE[root] = time.monotonic()
        return 1.0
    return min(4.0, max(1.0, n / mine))


def reset_cache() -> None:
    """Forget the probed windows (tests; a server restarted with another context size)."""
    with _LOCK:
        _CACHE.clear()
        _NO_TOKENIZE.clear()


def model_window(cfg: Any, model: Any) -> int:
    """The generator's window in tokens: `cfg.llm_context_window` when > 0, else what the chat `model`'s server
    says (its `openai_api_base`), else 0 (unknown: the context is not fitted)."""
    configured = _positive(getattr(cfg, "llm_context_window", 0))
    if configured:
        return configured
    base = getattr(model, "openai_api_base", None) if model is not None else None
    name = str(getattr(model, "model_name", None) or getattr(model, "model", None) or "")
    secret: Any = getattr(model, "openai_api_key", None)
    key = str(secret.get_secret_value()) if hasattr(secret, "get_secret_value") else str(secret or "")
    return server_window(str(base), name, api_key=key) if base else 0


def completion_limit(cfg: Any) -> int:
    """The generator's completion-token limit (`llm_max_tokens['generator']` where the configuration has it)."""
    limits = getattr(cfg, "llm_max_tokens", None)
    value = limits.get("generator") if isinstance(limits, dict) else None
    return _positive(value) or DEFAULT_COMPLETION_TOKENS


def context_room(window: int, fixed_tokens: int, completion_tokens: int) -> int:
    """Tokens the context may take in a `window`: what the prompt's fixed part, the completion limit and the
    margin leave, times `SAFETY` (at least 0)."""
    return max(0, int((window - fixed_tokens - completion_tokens - MARGIN_TOKENS) * SAFETY))


def fit_to_window(contexts: Sequence[dict], room: int, cost: Callable[[dict], int]) -> list[dict]:
    """The passages of `contexts` that fit in `room` tokens (`cost` of each), taken in turn from each filing
    (each filing's passages in order), returned in their original order; a passage that does not fit ends
    its filing's share. When not even the first passage fits, its text is shortened to fit (the generator
    still reads the best passage, in part)."""
    by_doc: dict[str, list[int]] = {}
    for i, c in enumerate(contexts):
        by_doc.setdefault(str(c.get("doc_id")), []).append(i)
    queues = [list(ids) for ids in by_doc.values()]
    kept: set[int] = set()
    used = 0
    while any(queues):
        for q in queues:
            if not q:
                continue
            i = q.pop(0)
            c_cost = cost(contexts[i])
            if used + c_cost > room:
                q.clear()
                continue
            kept.add(i)
            used += c_cost
    if not kept and contexts and room > 0:
        first = dict(contexts[0])
        text = str(first.get("text") or "")
        first["text"] = text[:int(len(text) * room / max(1, cost(first)) * SAFETY)]
        return [first]
    return [c for i, c in enumerate(contexts) if i in kept]


def window_record(window: int, room: int, before: Sequence[dict], after: Sequence[dict]) -> dict:
    """What the answer records of the fit: `window_tokens`, `context_room_tokens`, `cut_to_window` and, when
    cut, how many passages were left out."""
    shortened = bool(after) and len(after) == 1 and after[0].get("text") != before[0].get("text")
    cut = len(after) < len(before) or shortened
    record: dict[str, Any] = {"window_tokens": int(window), "context_room_tokens": int(room), "cut_to_window": cut}
    if cut:
        record["passages_cut"] = len(before) - len(after)
    if shortened:
        record["passage_shortened"] = True
    return record
