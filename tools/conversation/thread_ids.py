"""Thread ids: one line of visible characters (issue 49 case 11).

A thread id is one line a person types and sees again (`finrag chat --thread`, the server's URLs and lists): no
control character (C0, DEL, C1 such as U+0085), no line or paragraph separator (U+2028, U+2029), no invisible
formatting character (bidi overrides such as U+202E, zero-width ones such as U+200B: `finrag.tools.visible`), and no
leading or trailing space (refused, not trimmed: " lead" and "lead" would be two names of one thread).
"""
from __future__ import annotations

import unicodedata
from typing import Any

from finrag.tools.visible import invisible

__all__ = ["MAX_THREAD_ID", "thread_id_problem"]

MAX_THREAD_ID = 200
"""The longest thread id accepted (characters)."""

def thread_id_problem(thread_id: Any) -> str | None:
    """Why `thread_id` is not a thread id (one line), None when it is one: a non-empty string of at most
    `MAX_THREAD_ID` characters, one line of visible characters without surrounding spaces."""
    if not isinstance(thread_id, str) or not thread_id.strip():
        return "thread id must be a non-empty string"
    if len(thread_id) > MAX_THREAD_ID:
        return f"thread id must be one line of at most {MAX_THREAD_ID} characters"
    bad = next((c for c in thread_id if invisible(c)), None)
    if bad is not None:
        return (f"thread id must be one line of visible characters: U+{ord(bad):04X} "
                f"({unicodedata.name(bad, unicodedata.category(bad))}) is not")
    if thread_id != thread_id.strip():
        return "thread id must not begin or end with a space (it is not trimmed)"
    return None
