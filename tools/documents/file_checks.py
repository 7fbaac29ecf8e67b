"""Why a file or folder cannot be used, in a few words for one-line messages: an OSError's cause
(`os_reason`), why SQLite cannot open an index for writing (`why_unwritable`), a database file that is
empty (`empty_database`: damage, which SQLite would silently take for a new, empty index), a "text" filing
that is binary data (`binary_reason`: NUL bytes, random bytes), and a PDF that MuPDF had to repair because
it is cut short or lost content (`pdf_damage`); `ParseError`, the one error a file that cannot be read raises."""
from __future__ import annotations

import codecs
import errno
import os
import re
from pathlib import Path


class ParseError(Exception):
    """A file that cannot be indexed, with a human-readable reason."""


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


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13)) + b"\x7f"
BINARY_SHARE = 0.10
"""The share of a text file's bytes that may be NUL, other control bytes or invalid UTF-8 before it is binary
data (real filings: well under 1%, a Latin-1 filing's accented letters included)."""


def binary_reason(path: Path, share: float = BINARY_SHARE) -> str | None:
    """Why a .txt/.htm/.html file is binary data rather than text, in a few words, or None for text: only NUL
    bytes (a zeroed or sparse file), UTF-16 (a byte-order mark), or over `share` of its bytes NUL, control bytes
    or invalid UTF-8. Reads the file in blocks and stops as soon as the answer is known; raises OSError."""
    size = path.stat().st_size
    limit = max(1, int(size * share))
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    seen = nul = junk = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            if not seen and block[:2] in (b"\xff\xfe", b"\xfe\xff"):
                return "UTF-16 text (save it as UTF-8)"
            seen += len(block)
            nul += block.count(0)
            junk += len(block) - len(block.translate(None, _CONTROL_BYTES))
            junk += decoder.decode(block).count("\ufffd")
            if junk > limit and nul < seen:
                break
    if seen and nul == seen:
        return "only NUL bytes: a zeroed or sparse file"
    if junk > limit:
        where = f"its {seen:,} bytes" if seen >= size else f"the first {seen:,} bytes"
        return f"binary data, not text: {junk / max(seen, 1):.0%} of {where} are NUL, control bytes or invalid UTF-8"
    return None


PDF_TAIL = 16 << 10
"""How far from its end a PDF's last `%%EOF` marker may lie (trailing bytes some writers append)."""
_PDF_CONTENT_LOST = re.compile(
    r"cannot load content stream|object is not a stream|non-page object in page tree|page tree load failed|"
    r"missing 'endobj'|cannot find object|premature end of data|unexpected end of data|truncated", re.I)


def pdf_damage(path: Path, warnings: str, repaired: bool) -> str | None:
    """Why a PDF that opened is damaged, from MuPDF's warnings while it was read (`pymupdf.TOOLS.mupdf_warnings()`)
    and whether MuPDF had to repair it (`doc.is_repaired`), or None for a sound file. A repaired file cut short
    (no `%%EOF` near its end) and a file whose page tree or content streams could not be loaded are damaged:
    what MuPDF reads of them is part of the filing. Benign warnings (fonts, ActualText) are not damage."""
    lost = next((ln.strip() for ln in warnings.splitlines() if _PDF_CONTENT_LOST.search(ln)), "")
    if repaired:
        try:
            size = path.stat().st_size
            with open(path, "rb") as fh:
                fh.seek(max(0, size - PDF_TAIL))
                cut = b"%%EOF" not in fh.read()
        except OSError as exc:
            return f"unreadable: {os_reason(exc)}"
        if cut:
            return "truncated (no %%EOF at its end; MuPDF had to repair it)" + (f": {lost[:100]}" if lost else "")
    if lost:
        return f"parts could not be read (MuPDF: {lost[:100]})"
    return None
