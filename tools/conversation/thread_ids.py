"""Thread ids, and text from filings shown to people, kept to what reads as it is (issue 49 case 11).

A thread id is one line a person types and sees again (`finrag chat --thread`, the server's URLs and lists): no
control character (C0, DEL, C1 such as U+0085), no line or paragraph separator (U+2028, U+2029), no invisible
formatting character (bidi overrides such as U+202E, zero-width ones such as U+200B), and no leading or trailing
space (refused, not trimmed: " lead" and "lead" would be two names of one thread). `shown` neutralises the same
characters in text from a filing (a registrant's name) before it is displayed: each is written as its escape
(`\\u202e`), so a right-to-left override cannot reverse an answer or the page around it.
"""
from __future__ import annotations

import unicodedata
from typing import Any

__all__ = ["MAX_THREAD_ID", "invisible", "shown", "thread_id_problem"]

MAX_THREAD_ID = 200
"""The longest thread id accepted (characters)."""

_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})
_JOINERS = frozenset({"\u200c", "\u200d"})  # zero-width (non-)joiners: parts of how many scripts are written


def invisible(ch: str) -> bool:
    """Does the character change or hide how text reads (control, separator, bidi or zero-width formatting)?"""
    return unicodedata.category(ch) in _HIDDEN and ch not in _JOINERS


def shown(text: str, keep: str = "") -> str:
    """`text` with every `invisible` character (but those in `keep`, e.g. a newline) written as its escape."""
    if not any(invisible(c) for c in text if c not in keep):
        return text
    return "".join(f"\\u{ord(c):04x}" if c not in keep and invisible(c) else c for c in text)


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
