"""Token counting: tiktoken's o200k encoding when its BPE file is available locally, else an estimate of
4 characters per token (tiktoken downloads the file on first use, which this offline machine cannot do)."""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def _encoder():
    try:
        import tiktoken

        return tiktoken.get_encoding("o200k_base")
    except Exception:
        return None


def count_tokens(text: str) -> int:
    if not text:
        return 0
    enc = _encoder()
    if enc is not None:
        return len(enc.encode(text, disallowed_special=()))
    return max(1, (len(text) + 3) // 4)
