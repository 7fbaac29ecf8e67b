"""The files of `finrag batch`: reading the questions, and the answers file that `--resume` continues.

Input (`read_questions`): one JSON object per line with `question` and an optional `id`; blank lines are
skipped. Every problem stops the command before anything is answered, with `FILE:LINE: what is wrong`
(`BatchFileError`, exit code 2): a line that is not UTF-8 (with the byte and column), not a JSON object
with a string `question`, a question or id with a lone surrogate (a `\\ud800` escape: not text, and not
writable as UTF-8), an `id` that is not a string or a number, or an id used twice (resume skips by id, so
two questions with one id would lose an answer). A missing, null or empty `id` becomes the line number,
which is stable and unique within the file.

Output (`answered_ids`): the ids already answered, for `--resume`. Answers are written one line at a
time, so a crash can only leave the *last* line incomplete (no newline at the end): that line is cut off
the file (and its question answered again), and the caller is told how many bytes were dropped. Any
other line that is not a JSON object with an `id` is an error: the file is not one `finrag batch` wrote.

Writing (`AnswersOut`): an existing `--out` file is never emptied before a first answer is ready. Without
`--resume` the first answer goes to a temporary file next to it, renamed over it at once, and the others
are appended, so a run that stops early (an LLM failure, Ctrl-C, a full disk, kill -9) leaves its answers
so far for `--resume`, and one that stops before its first answer (a mistyped `--index`, an LLM that fails
on the first line, a crash) leaves the file as it was. With `--resume` answers are appended.
A file that cannot be written is `OutFileError`, naming the file and why (read-only file system, disk full).

One writer per `--out` (`out_lock`): a run holds an `flock(2)` lock on `<out>.lock` next to the file (the
target of a link) from before it reads the answers already there until it ends, so two runs at once cannot
both answer the same questions: the second gets `OutLocked` ("--out A is locked by PID N ..."; exit code 4).
The kernel releases the lock however the holder ends (kill -9 included); the holder removes the lock file
when it ends normally. A pipe or a terminal (`/dev/stdout`) is not locked.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, TextIO, cast

from finrag.api import LONE_SURROGATE
from finrag.tools.documents.file_checks import DISK_FULL_ERRNOS, os_reason


class BatchFileError(ValueError):
    """A batch input or output file that cannot be used as it is (one line, with FILE:LINE)."""


class OutFileError(Exception):
    """`--out` cannot be written: `disk_full` (no space, quota, file size limit) or not writable at all."""

    def __init__(self, msg: str, exc: OSError | None = None):
        super().__init__(msg)
        self.disk_full = exc is not None and exc.errno in DISK_FULL_ERRNOS


class OutLocked(Exception):
    """Another `finrag batch` is writing the same `--out` (exit code 4)."""

    def __init__(self, out: Path, pid: Optional[int]):
        self.out, self.pid = out, pid
        who = f"PID {pid}" if pid else "another process"
        super().__init__(f"--out {out} is locked by {who} (another `finrag batch` is writing it); wait for it to "
                         "finish, or stop it, and run the command again")


_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)


def _lock_path(out: Path) -> Optional[Path]:
    """`<out>.lock` next to the file `--out` names (a link's target); None for a pipe, a terminal or a file
    reached through a descriptor, which are written as they are and not locked."""
    try:
        st = os.stat(out)
    except OSError:
        st = None
    if st is not None and (not stat.S_ISREG(st.st_mode) or _names_a_descriptor(out)):
        return None
    target = Path(os.path.realpath(out))
    return target.with_name(target.name + ".lock")


def _holder(fd: int) -> Optional[int]:
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _take(path: Path, out: Path, flags: int) -> int:
    """An open descriptor of `path` holding its exclusive `flock`, the file still at `path` (a holder that ended
    may have removed it between our open and our lock: then it is opened again); OutLocked if it is held."""
    while True:
        fd = os.open(path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd) if flags & os.O_CREAT else None
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise OutLocked(out, holder) from None
            raise
        try:
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


@contextmanager
def out_lock(out: Path) -> Iterator[Optional[Path]]:
    """Hold the one-writer lock of `--out` (see the module's docstring) and yield the lock file's path, or
    None when `--out` is not locked (a pipe; a folder where no file can be made and `--out` does not exist yet,
    which `AnswersOut` then reports). `OutLocked` at once if another run holds it. Where no lock file can be
    made next to `--out` (a read-only folder) the existing file itself is locked."""
    path = _lock_path(out)
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # AnswersOut says why the folder cannot be made
        path = None
    if path is None:
        yield None
        return
    own_file = True
    try:
        fd = _take(path, out, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        if exc.errno not in _UNWRITABLE and exc.errno != errno.ENOENT:
            raise OutFileError(f"cannot write --out {out}: cannot create its lock file {path} ({os_reason(exc)})",
                               exc) from None
        target = path.with_name(path.name[: -len(".lock")])
        try:
            fd, own_file, path = _take(target, out, os.O_RDONLY), False, target
        except OSError:  # no file to lock either: AnswersOut says why --out cannot be written
            yield None
            return
    try:
        if own_file:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        if own_file:
            try:
                path.unlink()  # while still locked: a run that opened this file before sees it gone (`_take`)
            except OSError:
                pass
        os.close(fd)  # closing the descriptor releases the lock


def _not_text(src: Path, n: int, field: str, value: str) -> None:
    bad = LONE_SURROGATE.search(value)
    if bad:
        raise BatchFileError(f"{src}:{n}: the {field} is not valid Unicode text: a lone surrogate "
                             f"(\\u{ord(bad.group()):04x}) at character {bad.start() + 1}")


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (also through links); False when either does not exist yet."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def read_questions(src: Path) -> list[tuple[str, str, int]]:
    """(id, question, line number) for each question line of `src`, in order."""
    rows: list[tuple[str, str, int]] = []
    seen: dict[str, int] = {}
    data = src.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark, as some editors write
        data = data[3:]
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BatchFileError(f"{src}:{n}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                                 "save the file as UTF-8") from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("question"), str):
            raise BatchFileError(f"{src}:{n}: expected a JSON object with a 'question' field (a string)")
        _not_text(src, n, "question", obj["question"])
        qid = obj.get("id")
        if qid is None or qid == "":
            qid = str(n)
        elif isinstance(qid, bool) or not isinstance(qid, (str, int, float)):
            raise BatchFileError(f"{src}:{n}: 'id' must be a string or a number, not {json.dumps(qid)[:40]}")
        else:
            qid = str(qid)
            _not_text(src, n, "id", qid)
        if qid in seen:
            raise BatchFileError(f"{src}:{n}: duplicate id {qid!r} (also line {seen[qid]}); ids must be unique "
                                 "(a line without an id gets its line number)")
        seen[qid] = n
        rows.append((qid, obj["question"], n))
    return rows


def answered_ids(out: Path) -> tuple[set[str], int]:
    """The ids in an answers file, and how many bytes of an incomplete last line were cut off (0 if none).

    The file is repaired in place: an incomplete last line is truncated away; a complete last line that
    only lacks its newline gets one."""
    data = out.read_bytes()
    done: set[str] = set()
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: b"" unless the last write was cut short
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        qid = _answer_id(raw)
        if qid is None:
            raise BatchFileError(f"{out}:{n}: not an answer line of `finrag batch` (expected a JSON object with "
                                 "an 'id'); --resume cannot tell which questions are answered: fix or remove it")
        done.add(qid)
    if not torn.strip():
        if torn:
            _truncate(out, len(data) - len(torn))
        return done, len(torn)
    qid = _answer_id(torn)
    if qid is not None:  # the whole answer is there, only its newline is missing
        with out.open("ab") as fh:
            fh.write(b"\n")
        done.add(qid)
        return done, 0
    _truncate(out, len(data) - len(torn))
    return done, len(torn)


def _answer_id(raw: bytes) -> str | None:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except ValueError:  # also UnicodeDecodeError
        return None
    if not isinstance(obj, dict) or obj.get("id") is None:
        return None
    return str(obj["id"])


def _truncate(path: Path, size: int) -> None:
    with path.open("r+b") as fh:
        fh.truncate(size)
        fh.flush()
        os.fsync(fh.fileno())


class AnswersOut:
    """The `--out` file of one `finrag batch` run (see the module's docstring), opened at once: an `--out`
    that cannot be written fails before any question is answered.

    `write(answer)` writes one line (flushed); `close(complete)` ends the run: a temporary file that holds no
    answer is removed (or, when the run completed and `--out` did not exist, becomes an empty `--out`).
    `written` counts the answers written, `untouched` tells whether `--out` is still as it was.
    How `--out` is written:
    * `resume`: appended to (created when missing);
    * a regular file or a new one: the first answer goes to `<name>.tmp-<pid>-<random>` next to it (the
      target of a link), which takes the mode of the file it replaces and is renamed over it at once (after
      an fsync); the next answers are appended to it, so a run killed later leaves the answers so far for
      `--resume`, and one killed before its first answer leaves `--out` as it was (and its temporary file,
      which the next run removes);
    * where no file can be created next to it but the file itself is writable: the file, emptied when the
      first answer is written;
    * not a regular file (a pipe, a terminal), or a file reached through a descriptor (`/dev/stdout`
      redirected to a file): written directly.
    """

    def __init__(self, out: Path, *, resume: bool):
        self.out, self.written = out, 0
        self.untouched = True
        self._tmp: Path | None = None
        self._lazy = False  # the file itself, emptied at the first answer
        self._fh: TextIO | None = None
        try:
            st = os.stat(out)  # through links: /dev/stdout is a pipe or a terminal, not a file to replace
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except OSError as exc:
            raise OutFileError(f"cannot write --out {out}: {os_reason(exc)}", exc) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutFileError(f"cannot write --out {out}: it is a folder")
        direct = st is not None and (not stat.S_ISREG(st.st_mode) or _names_a_descriptor(out))
        target = out if direct else Path(os.path.realpath(out))  # a link's target is replaced, not the link
        self._target = target
        try:
            if not target.parent.is_dir():
                target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutFileError(f"cannot write --out {out}: cannot create the folder {exc.filename or target.parent} "
                               f"({os_reason(exc)})", exc) from None
        try:
            if resume:
                self._fh = open(target, "a", encoding="utf-8")
                self.untouched = False
            elif direct:
                self._fh = open(target, "w", encoding="utf-8")
                self.untouched = False
            else:
                self._open_tmp(target, st)
        except OSError as exc:
            raise OutFileError(f"cannot write --out {out}: {os_reason(exc)}", exc) from None

    def _open_tmp(self, target: Path, st: os.stat_result | None) -> None:
        _remove_stale(target)
        tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            if st is None or exc.errno not in (errno.EACCES, errno.EPERM) or not os.access(target, os.W_OK):
                raise OutFileError(f"cannot write --out {self.out}: cannot create a file in {target.parent} "
                                   f"({os_reason(exc)})", exc) from None
            self._fh, self._lazy = open(target, "r+", encoding="utf-8"), True  # a writable file in a locked folder
            return
        self._tmp = tmp
        if st is not None:
            try:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
            except OSError:
                pass
        self._fh = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, answer: dict) -> None:
        line = json.dumps(answer, ensure_ascii=False) + "\n"
        fh = cast(TextIO, self._fh)  # open from __init__ until close (write is not called after close)
        try:
            if self._lazy and self.untouched:
                fh.seek(0)
                fh.truncate()
                self.untouched = False
            fh.write(line)
            fh.flush()
            if self._tmp is not None:  # the first answer is ready: it replaces --out, the next ones follow it
                os.fsync(fh.fileno())
                os.replace(self._tmp, self._target)
                self._tmp, self.untouched = None, False
                self.written += 1  # counted as soon as --out holds it: a Ctrl-C in the folder's fsync says so
                _sync_folder(self._target.parent)
            else:
                self.written += 1
        except OSError as exc:
            if self._tmp is None:
                self.untouched = False
            raise OutFileError(f"cannot write --out {self.out}: {os_reason(exc)}", exc) from None

    def close(self, complete: bool = False) -> None:
        """End the run (only the first call counts); `complete`: every question was answered."""
        fh, self._fh = self._fh, None
        if fh is None:
            return
        try:
            fh.close()
        except OSError:  # a full disk: what could not be flushed is lost, the lines before are kept
            pass
        if self._tmp is None:
            return
        if complete and not self._target.exists():  # no question to answer: an empty --out, as asked
            os.replace(self._tmp, self._target)
            self.untouched = False
        else:
            self._tmp.unlink(missing_ok=True)
        self._tmp = None



_FD_LINK = re.compile(r"/(?:proc/(?:self|thread-self|\d+)|dev)/fd/\d+")


def _names_a_descriptor(out: Path) -> bool:
    """Whether `out` reaches a file through an open descriptor (`/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`):
    that is the file the descriptor has open (a shell redirection), written as it is, not replaced."""
    path = os.path.abspath(out)
    for _ in range(40):
        if _FD_LINK.fullmatch(path):
            return True
        if not os.path.islink(path):
            return False
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return False


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of earlier runs on `target` that were killed (their process is gone)."""
    pattern = re.compile(re.escape(target.name) + r"\.tmp-(\d+)-[0-9a-f]{8}")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        m = pattern.fullmatch(name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:
            try:
                (target.parent / name).unlink()
            except OSError:
                pass
        except OSError:  # alive, someone else's
            pass


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
