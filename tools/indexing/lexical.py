"""BM25 whose cost depends on the documents searched: per-document postings next to FTS5.

SQLite FTS5's `bm25()` first counts, for every phrase of the query, the rows of the *whole table*
that contain it (its IDF), so even a query restricted to one filing's rowid range costs time
proportional to the corpus. This module keeps what BM25 needs in ordinary tables, written in the
same transaction as the document:

* `lex_post(term, lo, post)`: for each (term, document) the chunks that contain the term, as
  packed (chunk offset from the document's first chunk id `lo`, term frequency, chunk length in
  tokens) records;
* `lex_df(term, df)`: in how many chunks of the corpus each term occurs;
* `lex_docs(lo, doc_id, n, run)`: which documents are covered, how many chunks each has, and which run
  of `lexical_runs.py` holds their postings;
* `lex_stats`: the corpus's chunk and token counts (FTS5's row count and average length).

Terms are FTS5's own: each distinct word goes through an FTS5 table with the same tokenizer (porter
unicode61) in the connection's temp schema once and is remembered (`Terms`), so the scores equal
FTS5's `bm25()` (k1 = 1.2, b = 0.75, IDF floored at 1e-6) for single-word terms. A quoted term that
FTS5 splits into several tokens (`"p&l"`, `"year-over-year"`) is a phrase to FTS5; here it matches
chunks that contain all its tokens, with the smallest of their frequencies (there are no positions).

A scoped search reads the postings of the routed documents only (a few primary-key lookups per
term), so its cost does not grow with the corpus. A corpus-wide search reads each term's postings from
the runs of `lexical_runs.py` (a few blobs per term, and their memory-mapped files: `lexical_blocks.py` scores
only the blocks of chunk ids that can reach the top k) where they exist, else one row per document. Terms
in more than half of the chunks (whose IDF is FTS5's floor) are skipped when the other terms already
fill the k results.
"""
from __future__ import annotations

import re
import sqlite3
import threading
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from finrag.tools.indexing import chunk_text

K1, B = 1.2, 0.75
IDF_FLOOR = 1e-6
POST_DTYPE = np.dtype([("off", "<u4"), ("tf", "<u2"), ("dl", "<u2")])

RUN_TABLE = "CREATE TABLE IF NOT EXISTS lex_run(run INTEGER, term TEXT, post BLOB, bounds BLOB, PRIMARY KEY(run, term)) WITHOUT ROWID"
SCHEMA = """
CREATE TABLE IF NOT EXISTS lex_docs(lo INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, n INTEGER);
CREATE INDEX IF NOT EXISTS lex_docs_doc ON lex_docs(doc_id);
CREATE TABLE IF NOT EXISTS lex_post(term TEXT, lo INTEGER, post BLOB, PRIMARY KEY(term, lo)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lex_df(term TEXT PRIMARY KEY, df INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lex_stats(id INTEGER PRIMARY KEY CHECK (id = 0), rows INTEGER, tokens INTEGER);
INSERT OR IGNORE INTO lex_stats(id, rows, tokens) VALUES (0, 0, 0);
""" + RUN_TABLE + """;
CREATE TABLE IF NOT EXISTS lex_runs(run INTEGER PRIMARY KEY, postings INTEGER NOT NULL, docs INTEGER NOT NULL, bits INTEGER,
    file TEXT);
"""

_TOKENIZER = "porter unicode61"
_TEMP = """
CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_tok USING fts5(text, tokenize='{tok}', content='');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_tok_v USING fts5vocab(temp, lex_tok, instance);
""".format(tok=_TOKENIZER)
_WORD_RE = re.compile("[\\w\ue000-\uf8ff\U000f0000-\U0010fffd]+")  # letters, digits, private use (unicode61's Co)
_PLAIN = re.compile("[A-Za-z0-9]+\\Z")  # one token to unicode61


def fts_words(text: str) -> list[str]:
    """unicode61's token characters in runs (it separates at '_', which \\w would keep)."""
    return _WORD_RE.findall(text.replace("_", " "))




def ensure_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)
    migrate(conn)


def migrate(conn: sqlite3.Connection) -> None:
    """Add `lex_docs.run` to an index written before runs existed (its documents are then outside any run);
    runs without bucket bounds (written during development) are dropped: they are derived, the next
    `finrag index` writes them again."""
    if "run" not in {r[1] for r in conn.execute("PRAGMA table_info(lex_docs)")}:
        conn.execute("ALTER TABLE lex_docs ADD COLUMN run INTEGER")
        conn.execute("DELETE FROM lex_run")  # runs are derived: none without their documents' column
        conn.execute("DELETE FROM lex_runs")
    if "bits" not in {r[1] for r in conn.execute("PRAGMA table_info(lex_runs)")}:
        conn.execute("ALTER TABLE lex_runs ADD COLUMN bits INTEGER")
    if "file" not in {r[1] for r in conn.execute("PRAGMA table_info(lex_runs)")}:
        conn.execute("ALTER TABLE lex_runs ADD COLUMN file TEXT")  # none yet: read from SQLite until the next flush
    if "bounds" not in {r[1] for r in conn.execute("PRAGMA table_info(lex_run)")}:
        conn.execute("DROP TABLE lex_run")
        conn.execute("DELETE FROM lex_runs")
        conn.execute("UPDATE lex_docs SET run = NULL")
        conn.execute(RUN_TABLE)


class Terms:
    """Words -> FTS5 terms, with FTS5 itself as the tokenizer and a per-process cache.

    Text is split into words (maximal runs of letters and digits, which unicode61 never splits
    further except for a few scripts, handled because each word goes through FTS5 whole); each
    distinct word is run through an FTS5 table with the index's tokenizer once (porter stemming,
    case and diacritic folding) and remembered, so indexing a document costs a regex pass and
    dictionary lookups, and the terms are exactly FTS5's.
    """

    def __init__(self, size: int = 500_000):
        self._map: dict[str, tuple[int, ...]] = {}
        self._single: dict[str, int] = {}  # the term id of a word with exactly one term, -1 none, -2 several
        self._ids: dict[str, int] = {}
        self.names: list[str] = []
        self._lock = threading.Lock()
        self._local = threading.local()
        self.size = size

    def _id(self, term: str) -> int:
        tid = self._ids.get(term)
        if tid is None:
            tid = self._ids[term] = len(self.names)
            self.names.append(term)
        return tid

    def _conn(self) -> sqlite3.Connection:
        """This thread's private in-memory connection, FTS5 as the tokenizer. Never the index's own: writing the
        temp table through a reader connection opened a transaction that was never ended, so that connection
        kept reading the index as it was then (a live server never saw new filings, issue 34 case 1)."""
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self._local.conn = sqlite3.connect(":memory:", isolation_level=None)
            c.executescript(_TEMP)
        return c

    def _tokenize(self, rows: list[str]) -> dict[int, list[tuple[int, str]]]:
        """FTS5's (offset, term) tokens of each row, by position in `rows`."""
        conn = self._conn()
        conn.executemany("INSERT INTO temp.lex_tok(rowid, text) VALUES (?, ?)", list(enumerate(rows)))
        found: dict[int, list[tuple[int, str]]] = {}
        for term, doc, offset in conn.execute("SELECT term, doc, offset FROM temp.lex_tok_v"):
            found.setdefault(doc, []).append((offset, term))
        conn.execute("INSERT INTO temp.lex_tok(lex_tok) VALUES ('delete-all')")
        return found

    def _learn(self, words: Sequence[str]) -> None:
        # a word of ASCII letters and digits is one token to unicode61: such words go through FTS5 500 to a row
        # (a row's n-th token is its n-th word; a row with another count is tokenized word by word), the others
        # one to a row
        plain = [i for i, w in enumerate(words) if _PLAIN.match(w)]
        rows = [plain[i:i + 500] for i in range(0, len(plain), 500)]
        tokens = self._tokenize([" ".join([words[i] for i in row]) for row in rows])
        found: dict[int, list[tuple[int, str]]] = {}
        one_each = set()
        for r, row in enumerate(rows):
            got = tokens.get(r, [])
            if len(got) == len(row) and sorted(o for o, _ in got) == list(range(len(row))):
                found.update((row[o], [(0, t)]) for o, t in got)
                one_each.update(row)
        single = [i for i in range(len(words)) if i not in one_each]
        found.update((single[k], v) for k, v in self._tokenize([words[i] for i in single]).items())
        with self._lock:
            if len(self._map) > self.size:
                self._map.clear()
                self._single.clear()
            for i, w in enumerate(words):
                tup = tuple(self._id(t) for _, t in sorted(found.get(i, [])))
                self._map[w] = tup
                self._single[w] = tup[0] if len(tup) == 1 else (-1 if not tup else -2)

    def _ensure(self, words: Sequence[str]) -> None:
        missing = [w for w in dict.fromkeys(words) if w not in self._single]
        for i in range(0, len(missing), 50_000):
            self._learn(missing[i:i + 50_000])

    def ids(self, words: Sequence[str]) -> list[tuple[int, ...]]:
        """The term ids of each word (usually one; none for a word FTS5 drops)."""
        self._ensure(words)
        try:
            return [self._map[w] for w in words]
        except KeyError:  # the cache was cleared by another thread meanwhile
            self._learn(list(dict.fromkeys(words)))
            return [self._map[w] for w in words]

    def flat(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """All the words' term ids in order, and where each word's ids start (len(words) + 1 bounds)."""
        self._ensure(words)
        try:
            single = np.fromiter(map(self._single.__getitem__, words), dtype=np.int64, count=len(words))
        except KeyError:
            self._learn(list(dict.fromkeys(words)))
            single = np.fromiter(map(self._single.__getitem__, words), dtype=np.int64, count=len(words))
        counts = (single >= 0).astype(np.int64)
        multi = np.flatnonzero(single == -2).tolist()
        for i in multi:
            counts[i] = len(self._map[words[i]])
        bounds = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        out = np.empty(int(bounds[-1]), dtype=np.int64)
        one = single >= 0
        out[bounds[:-1][one]] = single[one]
        for i in multi:
            out[bounds[i]:bounds[i + 1]] = self._map[words[i]]
        return out, bounds

    def phrase(self, text: str) -> tuple[str, ...]:
        """FTS5's terms of a query phrase, in order."""
        return tuple(self.names[t] for ids in self.ids(fts_words(text)) for t in ids)


TERMS = Terms()
_SPLIT_RE = re.compile("(" + _WORD_RE.pattern + ")")


def _chunk_terms(texts: Sequence[str],
                 spans: Sequence[tuple[int, int]] | None) -> list[np.ndarray]:
    """Each text's FTS5 term ids, in order.

    With `spans` (each text's character span in the document, as chunks have) the document is tokenized
    once: a chunk's terms are the words inside its span plus the parts of the words it cuts at either end,
    which is what FTS5 sees in the chunk's text. Without, each text is tokenized on its own."""
    pieces, pos = [], 0
    if spans is not None and len(spans) == len(texts) and all(
            isinstance(s, int) and isinstance(e, int) and e - s == len(t) for (s, e), t in zip(spans, texts)):
        for (s, e), t in zip(spans, texts):
            if s > pos:
                pieces.append(" " * (s - pos))  # a blank window that was not stored as a chunk
                pos = s
            if e > pos:
                pieces.append(t[pos - s:])
                pos = e
    else:
        text_words = [fts_words(t) for t in texts]
        flat, bounds = TERMS.flat([w for ws in text_words for w in ws])
        out, i = [], 0
        for ws in text_words:
            out.append(flat[bounds[i]:bounds[i + len(ws)]])
            i += len(ws)
        return out
    full = "".join(pieces).replace("_", " ")
    parts = _SPLIT_RE.split(full)  # separator, word, separator, word, ..., separator
    words = parts[1::2]
    lens = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    offs = np.zeros(len(parts), dtype=np.int64)
    np.cumsum(lens[:-1], out=offs[1:])
    starts, ends = offs[1::2], offs[1::2] + lens[1::2]
    flat, bounds = TERMS.flat(words)
    cuts: list[str] = []  # words cut by a chunk's start or end: what FTS5 sees of them in that chunk
    plan = []
    for s, e in spans:
        i0 = int(np.searchsorted(starts, s, "left"))
        i1 = int(np.searchsorted(ends, e, "right"))
        head = tail = -1
        if i0 > 0 and ends[i0 - 1] > s:  # cut by the chunk's start (or covering the whole chunk)
            head = len(cuts)
            cuts.append(full[s:min(int(ends[i0 - 1]), e)])
        if i1 < len(words) and starts[i1] < e < ends[i1] and starts[i1] >= s:  # cut by its end
            tail = len(cuts)
            cuts.append(full[int(starts[i1]):e])
        plan.append((i0, i1, head, tail))
    cut_flat, cut_bounds = TERMS.flat(cuts)
    out = []
    for i0, i1, head, tail in plan:
        inner = flat[bounds[i0]:bounds[i1]] if i1 > i0 else flat[0:0]
        if head >= 0 or tail >= 0:
            h = cut_flat[cut_bounds[head]:cut_bounds[head + 1]] if head >= 0 else flat[0:0]
            tl = cut_flat[cut_bounds[tail]:cut_bounds[tail + 1]] if tail >= 0 else flat[0:0]
            inner = np.concatenate([h, inner, tl])
        out.append(inner)
    return out


def document_postings(conn: sqlite3.Connection | None, texts: Sequence[str],
                      spans: Sequence[tuple[int, int]] | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """term -> POST_DTYPE records (position in `texts`, frequency, length) and each text's length in tokens (the
    index is not read: `conn` may be None, as in the parse pool)."""
    per_chunk = _chunk_terms(texts, spans)
    lens = np.array([len(t) for t in per_chunk], dtype=np.int64)
    if not lens.sum():
        return {}, lens
    terms = np.concatenate(per_chunk)
    chunks = np.repeat(np.arange(len(texts), dtype=np.int64), lens)
    key = terms * (len(texts) + 1) + chunks  # one entry per (term, chunk), with its count
    uniq, tf = np.unique(key, return_counts=True)
    t_ids, c_ids = uniq // (len(texts) + 1), uniq % (len(texts) + 1)
    cut = np.flatnonzero(np.diff(t_ids)) + 1
    rec = np.empty(len(uniq), dtype=POST_DTYPE)
    rec["off"] = c_ids
    rec["tf"] = np.minimum(tf, 65535)
    rec["dl"] = np.minimum(lens, 65535)[c_ids]
    names = TERMS.names
    starts_ = np.concatenate([[0], cut]).tolist()
    ends_ = np.concatenate([cut, [len(uniq)]]).tolist()
    heads = t_ids[starts_].tolist()
    return {names[t]: rec[a:b] for t, a, b in zip(heads, starts_, ends_)}, lens


@dataclass(frozen=True)
class Precomputed:
    """A document's postings computed where it was chunked (`precompute`, in the parse pool): each term's
    POST_DTYPE records as bytes, their offsets the chunks' positions, and its `n` chunks' total `tokens`."""

    n: int
    terms: list[str]
    posts: list[bytes]
    dfs: list[int]
    tokens: int


def precompute(texts: Sequence[str], spans: Sequence[tuple[int, int]] | None = None) -> Precomputed:
    """`document_postings` of a document's chunks, ready for `add_document` (which then only inserts rows)."""
    post, lens = document_postings(None, texts, spans)
    return Precomputed(len(texts), list(post), [r.tobytes() for r in post.values()], [len(r) for r in post.values()],
                       int(lens.sum()))


def add_document(conn: sqlite3.Connection, doc_id: str, chunk_ids: Sequence[int], texts: Sequence[str],
                 spans: Sequence[tuple[int, int]] | None = None, pre: Precomputed | None = None) -> None:
    """Write a document's postings (inside the caller's transaction). Chunk ids must be ascending; `spans`
    (the chunks' character spans in the document) lets the document be tokenized once. `pre`, the same
    postings computed from the same chunks (`precompute`), is used when the chunk ids are consecutive (their
    offsets from the first are then the chunks' positions): nothing is tokenized here."""
    if not len(chunk_ids):
        return
    lo = int(chunk_ids[0])
    if pre is not None and pre.n == len(chunk_ids) == len(texts) and int(chunk_ids[-1]) - lo == len(chunk_ids) - 1:
        posts, dfs, tokens = list(zip(pre.terms, pre.posts)), list(zip(pre.terms, pre.dfs)), pre.tokens
    else:
        offsets = np.asarray(chunk_ids, dtype=np.int64) - lo
        post, lens = document_postings(conn, texts, spans)
        for rec in post.values():  # positions in `texts` -> offsets from `lo`
            rec["off"] = offsets[rec["off"]]
        posts = [(t, rec.tobytes()) for t, rec in post.items()]
        dfs, tokens = [(t, len(rec)) for t, rec in post.items()], int(lens.sum())
    conn.execute("INSERT OR REPLACE INTO lex_docs(lo, doc_id, n, run) VALUES (?,?,?,NULL)", (lo, doc_id, len(texts)))
    conn.executemany("INSERT OR REPLACE INTO lex_post(term, lo, post) VALUES (?,?,?)", [(t, lo, b) for t, b in posts])
    conn.executemany("INSERT INTO lex_df(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
                     dfs)
    conn.execute("UPDATE lex_stats SET rows = rows + ?, tokens = tokens + ? WHERE id = 0", (len(texts), tokens))


def remove_document(conn: sqlite3.Connection, doc_id: str) -> None:
    """Drop a document's postings and its share of the statistics (inside the caller's transaction,
    before its chunks are deleted: their text names the terms to remove)."""
    for lo, n in conn.execute("SELECT lo, n FROM lex_docs WHERE doc_id=?", (doc_id,)).fetchall():
        rows = chunk_text.document_chunks(conn, doc_id)
        tokens = 0
        for term in document_postings(conn, [r[3] for r in rows], [(r[1], r[2]) for r in rows])[0]:
            row = conn.execute("SELECT post FROM lex_post WHERE term=? AND lo=?", (term, lo)).fetchone()
            if row is None:
                continue
            rec = np.frombuffer(row[0], dtype=POST_DTYPE)
            tokens += int(rec["tf"].astype(np.int64).sum())
            conn.execute("DELETE FROM lex_post WHERE term=? AND lo=?", (term, lo))
            conn.execute("UPDATE lex_df SET df = df - ? WHERE term=?", (len(rec), term))
        conn.execute("DELETE FROM lex_df WHERE df <= 0")
        conn.execute("DELETE FROM lex_docs WHERE lo=?", (lo,))
        conn.execute("UPDATE lex_stats SET rows = MAX(rows - ?, 0), tokens = MAX(tokens - ?, 0) WHERE id = 0",
                     (n, tokens))


CURRENT_DOC = "l.lo = (SELECT MIN(c.chunk_id) FROM chunks c WHERE c.doc_id = l.doc_id)"
"""Postings are current when they start at the document's first chunk (a document re-indexed by an earlier
version of finrag, which did not know these tables, has new chunk ids and stale postings)."""


def covered(conn: sqlite3.Connection, doc_ids: Iterable[str]) -> dict[str, int]:
    """doc_id -> lo for the given documents that have current postings."""
    docs = list(doc_ids)
    out: dict[str, int] = {}
    for i in range(0, len(docs), 500):
        part = docs[i:i + 500]
        q = f"SELECT l.doc_id, l.lo FROM lex_docs l WHERE l.doc_id IN ({','.join('?' * len(part))}) AND {CURRENT_DOC}"
        out.update({d: lo for d, lo in conn.execute(q, part)})
    return out


def count_covered(conn: sqlite3.Connection) -> int:
    """How many documents have current postings."""
    return conn.execute(f"SELECT COUNT(*) FROM lex_docs l WHERE {CURRENT_DOC}").fetchone()[0]


def drop_stale(conn: sqlite3.Connection) -> list[str]:
    """Remove postings that no longer match their document's chunks (inside the caller's transaction); returns
    the documents concerned. Slow (a scan of the postings per document) but only needed after an earlier
    version of finrag re-indexed or removed documents of an index that already had postings."""
    stale = conn.execute(f"SELECT l.lo, l.doc_id, l.n FROM lex_docs l WHERE NOT ({CURRENT_DOC}) OR NOT EXISTS "
                         "(SELECT 1 FROM chunks c WHERE c.doc_id = l.doc_id)").fetchall()
    for lo, _doc, n in stale:
        tokens = 0
        for term, post in conn.execute("SELECT term, post FROM lex_post WHERE lo = ?", (lo,)).fetchall():
            rec = np.frombuffer(post, dtype=POST_DTYPE)
            tokens += int(rec["tf"].astype(np.int64).sum())
            conn.execute("UPDATE lex_df SET df = df - ? WHERE term=?", (len(rec), term))
        conn.execute("DELETE FROM lex_post WHERE lo = ?", (lo,))
        conn.execute("DELETE FROM lex_docs WHERE lo = ?", (lo,))
        conn.execute("UPDATE lex_stats SET rows = MAX(rows - ?, 0), tokens = MAX(tokens - ?, 0) WHERE id = 0",
                     (n, tokens))
    if stale:
        conn.execute("DELETE FROM lex_df WHERE df <= 0")
    return [d for _, d, _ in stale]


def idf(n_rows: int, df: int) -> float:
    v = float(np.log((n_rows - df + 0.5) / (df + 0.5))) if df > 0 else 0.0
    return v if v > 0 else IDF_FLOOR


class PostingCache:
    """Decoded corpus-wide postings of recently searched terms (chunk ids, frequencies, lengths), so that a
    warm process (`finrag serve`) reads a common term's postings once per index generation, not per query.

    Bounded by bytes (least recently used out first); keys carry the index and its generation, so a write
    to the index makes every older entry unreachable (and soon evicted). Scoped searches do not use it:
    they read a few rows per term.
    """

    def __init__(self, max_bytes: int = 256 << 20):
        from collections import OrderedDict

        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key, value: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        size = sum(a.nbytes for a in value)
        if size > self.max_bytes // 4:  # one huge list would push out everything else
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= sum(a.nbytes for a in old)
            self._items[key] = value
            self._bytes += size
            while self._bytes > self.max_bytes and self._items:
                _, gone = self._items.popitem(last=False)
                self._bytes -= sum(a.nbytes for a in gone)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


POSTINGS = PostingCache()


def fetch_postings(conn: sqlite3.Connection, terms: list[str], los: Sequence[int] | None) -> dict[str, list[tuple[int, bytes]]]:
    """Each term's (lo, postings) rows: of every document, or of the documents starting at `los`."""
    if los is None:
        return {t: conn.execute("SELECT lo, post FROM lex_post WHERE term = ?", (t,)).fetchall() for t in terms}
    marks = ",".join("?" * len(terms))
    lo_marks = ",".join("?" * len(los))
    out: dict[str, list[tuple[int, bytes]]] = {t: [] for t in terms}
    for term, lo, post in conn.execute(f"SELECT term, lo, post FROM lex_post WHERE term IN ({marks}) "
                                       f"AND lo IN ({lo_marks})", [*terms, *[int(x) for x in los]]):
        out[term].append((lo, post))
    return out


def decode_records(parts: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """chunk ids, term frequencies and lengths of a term's postings over several documents."""
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return z, z.astype(np.float64), z.astype(np.float64)
    los = np.fromiter((lo for lo, _ in parts), dtype=np.int64, count=len(parts))
    counts = np.fromiter((len(p) for _, p in parts), dtype=np.int64, count=len(parts)) // POST_DTYPE.itemsize
    rec = np.frombuffer(b"".join([p for _, p in parts]), dtype=POST_DTYPE)  # one buffer: no per-document arrays
    return rec["off"] + np.repeat(los, counts), rec["tf"].astype(np.float64), rec["dl"].astype(np.float64)



def term_score(w: float, tf, dl, avgdl: float):
    """One term's BM25 contribution: w * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))."""
    return w * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))


def totals(all_ids: list[np.ndarray], all_scores: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct chunk ids (ascending) and their summed scores; a chunk's terms are added in list order."""
    ids = np.concatenate(all_ids)
    scores = np.concatenate(all_scores)
    base = int(ids.min())
    span = int(ids.max()) - base + 1
    if span <= 4 * len(ids) + 4096:  # dense accumulation (a document's chunk ids are contiguous)
        total = np.bincount(ids - base, weights=scores, minlength=span)
        uniq = np.flatnonzero(total > 0)
        return uniq + base, total[uniq]
    uniq, inv = np.unique(ids, return_inverse=True)
    return uniq, np.bincount(inv, weights=scores)


def top_k(all_ids: list[np.ndarray], all_scores: list[np.ndarray], k: int) -> list[tuple[int, float]]:
    """The k best chunks, best first; among equal scores the lower chunk id first (whatever else was scored)."""
    if not all_ids:
        return []
    uniq, total = totals(all_ids, all_scores)
    if len(uniq) > k:
        kth = -np.partition(-total, k - 1)[k - 1]
        top = np.flatnonzero(total >= kth)
    else:
        top = np.arange(len(uniq))
    top = top[np.lexsort((uniq[top], -total[top]))][:k]
    return [(int(uniq[i]), float(total[i])) for i in top]
