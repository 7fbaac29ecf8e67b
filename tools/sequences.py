"""Small helpers over sequences."""
from __future__ import annotations

from typing import Iterable

__all__ = ["uniq"]


def uniq(items: Iterable) -> list:
    """Items in first-seen order, without duplicates, None or ''."""
    return list(dict.fromkeys(i for i in items if i not in (None, "")))
