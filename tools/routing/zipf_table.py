"""wordfreq's English frequencies for plain words, without importing wordfreq.

Importing `wordfreq` pulls in langcodes, ftfy, regex and msgpack and costs 0.3-0.9 s on 2 cores, which a
one-shot `finrag ask` pays for the few `zipf` look-ups routing makes. Nearly every word routing asks about
is plain lower-case ASCII letters and digits with no two digits in a row ('revenue', '3m'), for which wordfreq's answer is a table look-up in its 'large' English
list (`large_en.msgpack.gz`, a list of centibel buckets). This module copies that list once into a small
SQLite file in the user's cache (`$XDG_CACHE_HOME/finrag/`, ~6 MB, keyed by the data file's size and
mtime) and answers plain words from it with wordfreq's own arithmetic (rounding to three significant
digits, then to hundredths of a Zipf unit); `tests/unit/test_words.py` compares it with wordfreq. Any
other token (digit runs, which wordfreq estimates separately, apostrophes, '&', non-ASCII) goes to wordfreq itself.
"""
from __future__ import annotations

import gzip
import importlib.util
import math
import os
import re
import sqlite3
import threading
from pathlib import Path

from finrag.state.configuration import user_cache_dir

TABLE_VERSION = 2  # in the cache file's name: a change of what the table holds never reads an older file
PLAIN = re.compile(r"(?:[a-z]|[0-9](?![0-9]))+")  # ASCII letters and lone digits: one wordfreq token, as listed
_LOCK = threading.Lock()


def _data_file() -> Path | None:
    spec = importlib.util.find_spec("wordfreq")  # finds the package without running it
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / "large_en.msgpack.gz"
        if path.exists():
            return path
    return None


def _cache_file(data: Path) -> Path:
    st = data.stat()
    return user_cache_dir() / f"zipf-en-v{TABLE_VERSION}-{st.st_size}-{int(st.st_mtime)}.sqlite"


def _build(data: Path, target: Path) -> None:
    """Write the plain words of wordfreq's list with their bucket (centibels below 1) to `target`."""
    import msgpack  # wordfreq's own dependency

    with gzip.open(data, "rb") as fh:
        pack = msgpack.load(fh, raw=False)
    header = pack[0]
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        raise ValueError(f"unexpected wordfreq data header {header!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        conn = sqlite3.connect(tmp)
        conn.execute("CREATE TABLE words(word TEXT PRIMARY KEY, cb INTEGER) WITHOUT ROWID")
        rows = {}
        for cb, bucket in enumerate(pack[1:]):
            for word in bucket:
                if PLAIN.fullmatch(word):
                    rows[word] = cb  # as wordfreq's dict: a later bucket wins
        conn.executemany("INSERT INTO words VALUES (?, ?)", rows.items())
        conn.commit()
        conn.close()
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def zipf_of_bucket(cb: int | None) -> float:
    """wordfreq's `zipf_frequency` for a word in bucket `cb` (None: not in the list -> 0.0)."""
    if cb is None:
        return 0.0
    freq = 10 ** (-cb / 100)
    leading_zeroes = math.floor(-math.log(freq, 10))
    freq = round(freq, leading_zeroes + 3)  # word_frequency's three significant digits
    return round(math.log(freq, 10) + 9, 2)


class ZipfTable:
    """Plain English words -> wordfreq's Zipf value, from the cached SQLite copy of its list."""

    def __init__(self, path: Path):
        self._local = threading.local()
        self.path = path

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                                      check_same_thread=False)
        return conn

    def __call__(self, word: str) -> float:
        row = self._conn().execute("SELECT cb FROM words WHERE word = ?", (word,)).fetchone()
        return zipf_of_bucket(row[0] if row else None)


_TABLE: list = []  # [ZipfTable or None] once decided


def table() -> ZipfTable | None:
    """The cached table, built on first use; None when wordfreq's data or a writable cache is missing."""
    with _LOCK:
        if not _TABLE:
            found = None
            try:
                data = _data_file()
                if data is not None:
                    path = _cache_file(data)
                    if not path.exists():
                        _build(data, path)
                    found = ZipfTable(path)
                    found("the")  # opens and checks the file now, not in the middle of routing
            except Exception:  # read-only home, odd data: wordfreq itself answers
                found = None
            _TABLE.append(found)
        return _TABLE[0]
