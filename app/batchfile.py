"""The files of `finrag batch`: reading the questions, and the answers file that `--resume` continues.

Input (`read_questions`): one JSON object per line with `question` and an optional `id`; blank lines are
skipped. Every problem stops the command before anything is answered, with `FILE:LINE: what is wrong`
(`BatchFileError`, exit code 2): a line that is not UTF-8 (with the byte and column), not a JSON object
with a string `question`, an `id` that is not a string or a number, or an id used twice (resume skips by
id, so two questions with one id would lose an answer). A missing, null or empty `id` becomes the line
number, which is stable and unique within the file.

Output (`answered_ids`): the ids already answered, for `--resume`. Answers are written one line at a
time, so a crash can only leave the *last* line incomplete (no newline at the end): that line is cut off
the file (and its question answered again), and the caller is told how many bytes were dropped. Any
other line that is not a JSON object with an `id` is an error: the file is not one `finrag batch` wrote.
"""
from __future__ import annotations

import json
import os
from pathlib import Path


class BatchFileError(ValueError):
    """A batch input or output file that cannot be used as it is (one line, with FILE:LINE)."""


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
        qid = obj.get("id")
        if qid is None or qid == "":
            qid = str(n)
        elif isinstance(qid, bool) or not isinstance(qid, (str, int, float)):
            raise BatchFileError(f"{src}:{n}: 'id' must be a string or a number, not {json.dumps(qid)[:40]}")
        else:
            qid = str(qid)
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
