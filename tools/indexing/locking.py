"""The index's two locks: one writer at a time, and one vector-file write at a time.

Both are `flock(2)` locks on small files in the index directory, so the kernel releases them when the
holder exits, however it exits (kill -9, OOM): a crashed writer never leaves a lock behind.

* `writer_lock(index_dir)`: held by `finrag index` (and `finrag demo`) for the whole run. A second writer
  does not wait: it gets `IndexLocked`, "index DIR is locked by PID N (...)" (exit code 4). The holder's PID
  is written into `write.lock` for that message. Readers (`ask`, `batch`, `serve`, `--check`) never take it.
  Where `write.lock` cannot be created (a read-only file system, no write permission) the writer gets
  `IndexUnwritable` (exit code 5), naming the index and the reason.
* `faiss_save_lock(index_dir)` (`faiss.lock`, named after the FAISS files it first guarded): taken around every
  write of vector data (rows written in place into `vectors_<variant>.f32`, a new vector file, a save of the
  approximate index `ann_<variant>.faiss`; by the writer and by a reader that finds a stale file and rebuilds
  it), blocking. Whole files go through a temporary file with a unique name that is
  renamed over the target, so a reader never sees a half-written file and two savers never share a
  temporary file; under the lock a saver also removes the temporary files of savers that were killed.

The whole concurrency model is described in docs/architecture.md ("Concurrency").
"""
from __future__ import annotations

import errno
import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from finrag.tools.documents.file_checks import os_reason
from finrag.tools.indexing.store_schema import IndexError_, IndexUnwritable

WRITE_LOCK = "write.lock"
FAISS_LOCK = "faiss.lock"
_UNWRITABLE = (errno.EROFS, errno.EACCES, errno.EPERM)


class IndexLocked(IndexError_):
    """Another process holds the index's writer lock."""

    def __init__(self, index_dir: Path, pid: int | None):
        self.index_dir, self.pid = index_dir, pid
        who = f"PID {pid}" if pid else "another process"
        super().__init__(f"index {index_dir} is locked by {who} (another `finrag index` is writing it); "
                         "wait for it to finish, or stop it, and run the command again")


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


@contextmanager
def writer_lock(index_dir: str | os.PathLike) -> Iterator[Path]:
    """Hold the writer lock of `index_dir` (created if needed); raise `IndexLocked` at once if it is held, and
    `IndexUnwritable` when the lock file cannot be made (a read-only file system, no write permission)."""
    index_dir = Path(index_dir)
    path = index_dir / WRITE_LOCK
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):  # a full disk has its own message
            raise
        raise IndexUnwritable(f"index {index_dir} cannot be created: {os_reason(exc)} (cannot make the folder "
                              f"{exc.filename or index_dir})") from None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in _UNWRITABLE:
            raise
        raise IndexUnwritable(f"index {index_dir} cannot be written: {os_reason(exc)} ({path} cannot be "
                              "created); index into a writable folder") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise IndexLocked(index_dir, _holder(fd)) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield path
        finally:
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def locked_by(index_dir: str | os.PathLike) -> int | None:
    """The PID holding the writer lock of `index_dir`, or None when no writer is running (never blocks)."""
    path = Path(index_dir) / WRITE_LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _holder(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextmanager
def faiss_save_lock(index_dir: str | os.PathLike) -> Iterator[None]:
    """Serialise vector-file writes and ANN saves in `index_dir` (blocking), and clear the temporary files of
    killed savers (those named `faiss_*.tmp-*`)."""
    index_dir = Path(index_dir)
    fd = os.open(index_dir / FAISS_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        for stale in index_dir.glob("faiss_*.tmp-*"):  # only a saver holding this lock writes these
            try:
                stale.unlink()
            except OSError:
                pass
        yield
    finally:
        os.close(fd)


def unique_tmp(path: Path) -> Path:
    """A temporary name next to `path` that no other process or thread uses: `<name>.tmp-<pid>-<random>`."""
    return path.with_name(f"{path.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
