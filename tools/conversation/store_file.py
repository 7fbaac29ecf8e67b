"""The thread store's file: is it still the file the store opened, and can it be written? (issue 49 cases 6, 7)

A store deleted or replaced on disk while a process serves from it must not take turns into the unlinked file
(they would be gone after a restart): `file_id` is what the store compares before each write. A store on a
read-only file system (or a file without write permission) is read-only, not damaged: `read_only` says why, and
`open_read_only` opens it for reading alone.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Optional

__all__ = ["file_id", "open_read_only", "read_only"]


def file_id(path: Path) -> Optional[tuple[int, int]]:
    """(device, inode) of the file at `path`, None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def read_only(path: Path) -> Optional[str]:
    """Why the store at `path` cannot be written ('a read-only file system', 'no write permission on ...'), None
    when it can (or when that cannot be told)."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "a read-only file system"
    except OSError:
        return None
    if path.exists() and not os.access(path, os.W_OK):
        return f"no write permission on {path.name}"
    if not os.access(folder, os.W_OK):
        return f"no write permission on its folder {folder}"
    return None


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that only reads the store (SQLite's read-only mode; where it cannot keep its shared-memory file
    beside the store, as on a read-only file system, the file read as immutable)."""
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, timeout=30.0)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?immutable=1", uri=True, check_same_thread=False)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
