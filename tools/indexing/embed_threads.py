"""How many threads document embedding may use on the CPU (one rule for every embedder)."""
from __future__ import annotations

import os

from finrag.state.settings import process_settings

__all__ = ["embed_threads"]


def embed_threads(setting: str | None = None) -> int:
    """Threads for document embedding on the CPU: `setting` (the caller's `ProcessSettings.embed_threads`;
    None: `$FINRAG_EMBED_THREADS`), else every core this process may use (its affinity mask, else the machine's)."""
    env = (process_settings().embed_threads if setting is None else setting).strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"FINRAG_EMBED_THREADS={env!r}: expected a whole number of threads") from None
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
