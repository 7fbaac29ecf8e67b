"""The errors of `finrag.threads` (one line each) and `damaged`, which names a store SQLite cannot use as what it is.

Kept apart from app/threads.py so that the store stays one concern; `finrag.threads` re-exports every name.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from finrag.tools.conversation.checkpoint_serde import TamperedCheckpoint
from finrag.tools.conversation.store_file import read_only

__all__ = ["ThreadBusy", "ThreadError", "ThreadExists", "ThreadNotFound", "ThreadQuota", "ThreadStoreDamaged",
           "ThreadStoreGone", "ThreadStoreReadOnly", "ThreadStoreTampered", "damaged"]


class ThreadError(ValueError):
    """A thread cannot be used as asked (one line)."""


class ThreadNotFound(ThreadError, KeyError):
    """No thread of that id in the store (`thread_id`: the id asked for)."""

    def __init__(self, message: str = "thread not found", thread_id: str = "") -> None:
        """The one-line message, and the id asked for."""
        super().__init__(message)
        self.thread_id = thread_id

    def __str__(self) -> str:
        """The one-line message (KeyError would quote it)."""
        return str(self.args[0]) if self.args else "thread not found"


class ThreadExists(ThreadError):
    """A thread of that id is in the store already (`ThreadStore.create`)."""


class ThreadBusy(ThreadError):
    """The thread is answering another turn, and the caller would not wait longer (`ThreadStore.turn(wait=)`)."""


class ThreadStoreDamaged(ThreadError):
    """The thread store cannot be used as asked: SQLite cannot read it (reported, never reset), or one of the
    subclasses below (each says what it is; the server answers 503 for all of them)."""


class ThreadStoreReadOnly(ThreadStoreDamaged):
    """The store cannot be written (a read-only file system, no write permission): its threads can be read, not
    continued or created."""


class ThreadStoreTampered(ThreadStoreDamaged):
    """A checkpoint names a type finrag never stores (`checkpoint_serde`): refused, nothing of it run."""


class ThreadStoreGone(ThreadStoreDamaged):
    """The store's file was deleted or replaced on disk while this process had it open: nothing more is written
    into the old file; the process opens the one at the path on the next request (`owned_store`)."""


class ThreadQuota(ThreadError):
    """A client created threads faster than its API key may, or its key keeps as many threads with turns as it
    may (the server answers 429)."""


def damaged(path: Path | None, exc: BaseException) -> ThreadStoreDamaged:
    """The one-line error of a store SQLite cannot read: a tampered checkpoint and a store that cannot be written
    are named as what they are (neither is damage, and moving the store away would discard every conversation)."""
    where = str(path) if path else "the in-memory thread store"
    cause = " ".join(str(exc).split())[:200]  # SQLite's integrity report can run to many lines
    if isinstance(exc, ThreadStoreDamaged):
        return exc
    if isinstance(exc, TamperedCheckpoint):
        return ThreadStoreTampered(f"thread store {where}: {cause}; refused, nothing of it was run (delete that "
                                   "thread, or move the store away)")
    why = read_only(path) if path is not None and isinstance(exc, sqlite3.OperationalError) else None
    if why:
        return ThreadStoreReadOnly(f"thread store {where} is read-only ({why}): its conversations can be read, not "
                                   "continued; make it writable to go on")
    return ThreadStoreDamaged(f"thread store {where} is damaged ({cause}); move it away to start a new one "
                              "(it is not reset)")
