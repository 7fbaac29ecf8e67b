"""Why a file or folder cannot be used, in a few words for one-line messages: an OSError's cause
(`os_reason`), why SQLite cannot open an index for writing (`why_unwritable`), and a database file that is
empty (`empty_database`: damage, which SQLite would silently take for a new, empty index)."""
from __future__ import annotations

import errno
import os
from pathlib import Path

DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
"""The errors of a write that ran out of room: no space, the quota, the file size limit."""

_OS_REASONS = {errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
               errno.EPERM: "operation not permitted", errno.ENOSPC: "disk full (no space left on device)",
               errno.EDQUOT: "disk quota exceeded", errno.EFBIG: "file too large (the file size limit)",
               errno.EISDIR: "it is a folder", errno.ENOTDIR: "a part of the path is not a folder"}


def os_reason(exc: OSError) -> str:
    """An OSError's cause in a few words for a one-line message ("read-only file system", "permission denied")."""
    return _OS_REASONS.get(exc.errno or 0) or (exc.strerror or str(exc) or type(exc).__name__).lower()


def why_unwritable(index_dir: Path, db_path: Path) -> str | None:
    """Why SQLite cannot open the index for writing (it writes `finrag.sqlite`, and `-wal` and `-shm` next to
    it), or None when the folder and the file look writable."""
    try:
        if os.statvfs(index_dir).f_flag & os.ST_RDONLY:
            return f"{index_dir} is on a read-only file system"
    except OSError:
        pass
    if not os.access(index_dir, os.W_OK):
        return f"the folder {index_dir} is not writable (permission denied)"
    for path in (db_path, db_path.with_name(db_path.name + "-wal"), db_path.with_name(db_path.name + "-shm")):
        if path.exists() and not os.access(path, os.W_OK):
            return f"{path.name} is read-only (permission denied)"
    return None


def empty_database(db_path: Path) -> bool:
    """Whether the database file is empty (0 bytes) with no write-ahead log that holds its pages: damage (a
    truncated file, `: > finrag.sqlite`), never an index, which has its header once it has been opened."""
    try:
        if db_path.stat().st_size:
            return False
        wal = db_path.with_name(db_path.name + "-wal")
        return not (wal.exists() and wal.stat().st_size)
    except OSError:
        return False
