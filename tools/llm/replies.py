"""A chat model's reply read as text: its name (`model_name`), the text of its content (`message_text`), and the
JSON objects in a plain-text reply (`json_objects`). Shared by the calls, structured output and the chat
models, with no import of their own.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

__all__ = ["json_objects", "message_text", "model_name"]


def model_name(model: Any) -> str:
    if model is None:
        return "offline"
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)


def message_text(content: Any) -> str:
    """The text of a reply's content: a string, or the text blocks of a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in (None, "text", "output_text"):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)


_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def json_objects(text: str) -> Iterator[dict]:
    """JSON objects in a plain-text reply, in order of preference: inside ```json code fences first,
    then anywhere in the text (prose before or after is skipped); one per opening brace that parses."""
    if not text:
        return
    decoder = json.JSONDecoder()
    for cand in [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]:
        for start in [i for i, ch in enumerate(cand) if ch == "{"]:
            try:
                obj, _ = decoder.raw_decode(cand, start)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj
