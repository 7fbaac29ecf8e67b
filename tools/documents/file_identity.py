"""Is the file at a filing's indexed path still the file that was indexed? (issue 49 case 2)

Every read of a filing's bytes after indexing (the statement reader's tables, the page viewer's words and images,
`/documents/{id}/file`) asks `file_state(path, content_hash)` first, with the SHA-256 the index recorded: 'ok',
'changed' or 'missing'. A file replaced on disk (another filing copied over it, its size and modification time
restored or not) is 'changed', and is never read under the indexed filing's identity: the caller says
`CHANGED` ("the file changed since it was indexed; run finrag index") or keeps to the indexed text.

The digest of a file is computed once per (device, inode, size, modification time, status-change time): a write
into the file, a copy over it or a rename onto its path changes one of them (the status-change time even when the
modification time is set back), so a question pays one `stat` per filing read.
"""
from __future__ import annotations

import hashlib
import os
import stat as stat_mode
from typing import Literal

from finrag.tools.cache import LruCache

__all__ = ["CHANGED", "FileState", "file_state", "file_digest"]

CHANGED = "the file changed since it was indexed; run finrag index"
"""What a read of a filing whose file was replaced since indexing says instead (one line)."""

FileState = Literal["ok", "changed", "missing"]

_DIGESTS: LruCache[tuple, str] = LruCache(512)


def file_digest(path: str) -> str:
    """The SHA-256 of the file at `path`, as indexing computes it (OSError when it cannot be read)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_state(path: str, content_hash: str) -> FileState:
    """'ok' when the file at `path` is the one indexed with `content_hash`, 'changed' when another file is there
    now, 'missing' when there is no readable file (or no path, or no recorded hash to compare with)."""
    if not path or not content_hash:
        return "missing"
    try:
        st = os.stat(path)
    except (OSError, ValueError, TypeError):
        return "missing"
    if not stat_mode.S_ISREG(st.st_mode):
        return "missing"
    key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    try:
        digest = _DIGESTS.get_or_compute(key, lambda: file_digest(str(path)))
    except OSError:
        return "missing"
    return "ok" if digest == content_hash else "changed"
