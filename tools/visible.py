"""Characters that change or hide how text reads, and text from filings shown with them escaped (issue 49 case 11).

Control characters (C0, DEL, C1 such as U+0085), line and paragraph separators (U+2028, U+2029) and invisible
formatting characters (bidi overrides such as U+202E, zero-width ones such as U+200B) are `invisible`. Text a
filing supplies (a registrant's name) goes into answers and onto the page through `shown`, which writes each as
its escape (`\\u202e`): a right-to-left override in a name cannot reverse the answer or the page around it.
The zero-width (non-)joiners U+200C and U+200D are part of how many scripts are written, and are kept.
"""
from __future__ import annotations

import unicodedata

__all__ = ["invisible", "shown"]

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
