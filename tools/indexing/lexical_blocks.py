"""Corpus-wide BM25 top k by block-max pruning over memory-mapped run files: exact, and reading little.

A run of `lexical_runs.py` is a few SQLite blobs per term; reading a common term's blob at 100x the
FinanceBench corpus copies megabytes. So `_write_run` also writes the run into a file next to the index
(`lexrun-<token>.bin`, named in `lex_runs.file`; immutable, read through mmap), per term:

* its records (chunk id, tf, length: `RUN_DTYPE`) in chunk-id order, and
* its *blocks*: for every block of 2**BITS consecutive chunk ids where it occurs, the block, its first
  record and the block's largest `tf / (tf + k1 * (1 - b + b * dl / A0))` (rounded up to float32; A0 the
  average chunk length when the file was written). Times `w * (k1 + 1)` that is the term's largest BM25
  contribution in the block; for another average length A it is at most `max(1, A / A0)` times larger, so
  the bound stays valid as the corpus changes.

`lexical_search.search_blocks` finds the best k chunks of an OR of terms (MaxScore with block-max bounds):

1. the highest-impact blocks of the strongest terms are scored exactly: their k-th best score is a
   threshold theta that the final k-th score can only exceed;
2. the weakest terms whose maxima sum below theta are non-essential: a chunk with none of the other
   terms cannot reach the top k, so only the blocks of essential terms are candidates; their bound (the
   essential terms' block maxima, plus the non-essential terms' own block maxima looked up for the
   candidates) must reach theta;
3. the candidates are scored best bound first, theta rises, and the rest is filtered again.

Every chunk whose score can reach the final k-th score is scored exactly (in the term order and arithmetic
of the exhaustive scorer, so scores are bitwise the same), so the top k, ties by chunk id, is the one the
exhaustive scorer returns (`tests/unit/test_lexical_runs.py`). A run without a file (written before files
existed, or an in-memory index) and documents outside runs are read from SQLite and get their blocks
computed on the fly; documents removed since a run was written are filtered out of every record scored
(bounds over more records are still bounds).
"""
from __future__ import annotations

import json
import mmap
import os
import sqlite3
import threading
import uuid
from pathlib import Path

import numpy as np

from finrag.tools.indexing.lexical import K1, B

BITS = 3  # blocks of 8 chunk ids: finer blocks bound a sum of terms much more tightly than 64
MAGIC = b"FRLXBLK1"
SAFETY = 1.0 + 1e-6  # bounds are widened by this (float rounding of the scores they bound)
FIRST_BLOCKS = 32  # per strong term, scored before the threshold is known
BATCH = 256  # candidate blocks scored before the threshold is raised again
RUN_DTYPE = np.dtype([("id", "<u4"), ("tf", "<u2"), ("dl", "<u2")])


# --------------------------------------------------------------------------------------------- files
def index_dir(conn: sqlite3.Connection) -> Path | None:
    """The directory of the connection's main database file (None for an in-memory database)."""
    for _, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return Path(file).parent if file else None
    return None


def _impact(tf: np.ndarray, dl: np.ndarray, avgdl: float) -> np.ndarray:
    tf = tf.astype(np.float64)
    return tf / (tf + K1 * (1.0 - B + B * dl.astype(np.float64) / avgdl))


def blocks_of(rec: np.ndarray, avgdl: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block of chunk ids in `rec` (sorted by id): the blocks (uint32), their first records (uint32) and
    largest impacts (float32, rounded up)."""
    blocks = rec["id"] >> BITS
    starts = np.flatnonzero(np.r_[True, blocks[1:] != blocks[:-1]]) if len(rec) else np.zeros(0, dtype=np.int64)
    f = np.zeros(0, dtype=np.float32)
    if len(starts):
        f = np.maximum.reduceat(_impact(rec["tf"], rec["dl"], avgdl), starts).astype(np.float32)
        f = np.nextafter(f, np.float32(np.inf))  # never below the float64 value
    return blocks[starts].astype(np.uint32), starts.astype(np.uint32), f


class RunFile:
    """Writes one run's file (records and blocks per term, then a JSON directory); `close` returns its token,
    None when the index is in memory. The file is written under a temporary name and renamed when complete."""

    def __init__(self, conn: sqlite3.Connection, avgdl: float):
        self.dir = index_dir(conn)
        self.avgdl = float(avgdl) if avgdl > 0 else 1.0
        self.token = uuid.uuid4().hex
        self.terms: dict[str, list] = {}
        self._f = None
        if self.dir is not None:
            self._tmp = self.dir / f"lexrun-{self.token}.tmp"
            self._f = open(self._tmp, "wb")
            self._f.write(MAGIC + np.zeros(1, "<u8").tobytes())
            self._pos = len(MAGIC) + 8

    def add(self, term: str, rec: np.ndarray) -> None:
        if self._f is None:
            return
        block, start, f = blocks_of(rec, self.avgdl)
        self.terms[term] = [self._pos, len(rec), self._pos + rec.nbytes, len(block),
                            float(f.max()) if len(f) else 0.0]
        for a in (rec, block, start, f):
            self._f.write(a.tobytes())
        self._pos += rec.nbytes + 12 * len(block)

    def close(self) -> str | None:
        if self._f is None:
            return None
        self._f.write(json.dumps({"avgdl": self.avgdl, "bits": BITS, "terms": self.terms}).encode())
        self._f.seek(len(MAGIC))
        self._f.write(np.array([self._pos], "<u8").tobytes())
        self._f.close()
        assert self.dir is not None  # the file is opened only when the index has a directory
        os.replace(self._tmp, self.dir / f"lexrun-{self.token}.bin")
        return self.token

    def abandon(self) -> None:
        if self._f is not None:
            self._f.close()
            self._tmp.unlink(missing_ok=True)


def remove_unused(conn: sqlite3.Connection) -> int:
    """Delete run files no run names (left by merges, or by a write that was rolled back); returns how many.
    A reader still holding an older snapshot that names one reads that run from SQLite instead."""
    d = index_dir(conn)
    if d is None:
        return 0
    used = {f for (f,) in conn.execute("SELECT file FROM lex_runs WHERE file IS NOT NULL")}
    gone = 0
    for p in list(d.glob("lexrun-*.bin")) + list(d.glob("lexrun-*.tmp")):
        if p.stem[len("lexrun-"):] not in used:
            p.unlink(missing_ok=True)
            gone += 1
    return gone


class _Mapped:
    """An open run file: its memory map and directory."""

    def __init__(self, path: Path):
        with open(path, "rb") as f:
            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if self.map[:len(MAGIC)] != MAGIC:
            raise ValueError(f"{path} is not a finrag run file")
        at = int(np.frombuffer(self.map, "<u8", 1, len(MAGIC))[0])
        meta = json.loads(self.map[at:])
        if meta.get("bits") != BITS:
            raise ValueError(f"{path} has blocks of another size")
        self.avgdl = float(meta["avgdl"])
        self.terms = meta["terms"]

    def term(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None:
        """A term's records, blocks, their first records and impacts (views of the map), and its largest impact."""
        d = self.terms.get(term)
        if d is None:
            return None
        n, m, at = d[1], d[3], d[2]
        return (np.frombuffer(self.map, RUN_DTYPE, n, d[0]), np.frombuffer(self.map, "<u4", m, at),
                np.frombuffer(self.map, "<u4", m, at + 4 * m), np.frombuffer(self.map, "<f4", m, at + 8 * m), float(d[4]))


_OPEN: dict[str, _Mapped] = {}
_OPEN_LOCK = threading.Lock()


def mapped(conn: sqlite3.Connection, token: str) -> _Mapped | None:
    d = index_dir(conn)
    if d is None:
        return None
    path = d / f"lexrun-{token}.bin"
    key = str(path)
    with _OPEN_LOCK:
        hit = _OPEN.get(key)
        if hit is None:
            try:
                hit = _OPEN[key] = _Mapped(path)
            except (OSError, ValueError):  # gone (merged since this snapshot) or unreadable: read SQLite
                return None
            if len(_OPEN) > 64:
                _OPEN.pop(next(iter(_OPEN)))
        return hit
