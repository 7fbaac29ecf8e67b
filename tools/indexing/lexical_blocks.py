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

`search_blocks` finds the best k chunks of an OR of terms (MaxScore with block-max bounds):

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
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

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


def _mapped(conn: sqlite3.Connection, token: str) -> _Mapped | None:
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


# -------------------------------------------------------------------------------------------- search
@dataclass
class Source:
    """One term's records in one run (or outside runs), its blocks, and how to scale their impacts."""
    rec: np.ndarray
    block: np.ndarray  # uint32, ascending
    start: np.ndarray  # uint32: each block's first record
    f: np.ndarray  # float32: each block's largest impact
    scale: float  # impact -> bound factor: max(1, A / A0) * SAFETY
    fmax: float
    live: tuple[np.ndarray, np.ndarray] | None  # the run's live documents when some were removed

    def bounds(self, w: float) -> np.ndarray:
        return self.f.astype(np.float64) * (w * (K1 + 1.0) * self.scale)

    def at(self, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of `blocks` (uint32, ascending) this source has, and where in its block arrays."""
        pos = np.searchsorted(self.block, blocks)
        ok = pos < len(self.block)
        ok[ok] = self.block[pos[ok]] == blocks[ok]
        return ok, pos[ok]


def sources(conn: sqlite3.Connection, terms: list[str], avgdl: float) -> dict[str, list[Source]] | None:
    """Each term's sources (inside the caller's snapshot); None when there are no runs or too many documents
    outside them."""
    from finrag.tools.indexing import lexical
    from finrag.tools.indexing import lexical_runs as R

    runs = conn.execute("SELECT run, file FROM lex_runs ORDER BY run").fetchall()
    if not runs:
        return None
    pending = [r[0] for r in conn.execute("SELECT lo FROM lex_docs WHERE run IS NULL")]
    if len(pending) > R.PENDING_LOOKUPS:
        return None
    lives = R.run_lives(conn, [r for r, _ in runs])
    out: dict[str, list[Source]] = {t: [] for t in terms}
    marks = ",".join("?" * len(terms))

    def loose(term: str, rec: np.ndarray, live) -> None:
        block, start, f = blocks_of(rec, avgdl)
        out[term].append(Source(rec, block, start, f, SAFETY, float(f.max()) if len(f) else 0.0, live))

    for run, token in runs:
        m = _mapped(conn, token) if token else None
        if m is not None:
            scale = max(1.0, avgdl / m.avgdl) * SAFETY
            for term in terms:
                got = m.term(term)
                if got is not None:
                    out[term].append(Source(*got[:4], scale, got[4], lives[run]))
            continue
        for term, post in conn.execute(f"SELECT term, post FROM lex_run WHERE run=? AND term IN ({marks})",
                                       (run, *terms)):
            loose(term, np.frombuffer(post, dtype=RUN_DTYPE), lives[run])
    if pending:
        for term, rows in lexical.fetch_postings(conn, terms, pending).items():
            if rows:
                ids, tf, dl = lexical.decode_records(rows)
                if int(ids.max()) > np.iinfo(np.uint32).max:
                    return None
                rec = np.empty(len(ids), dtype=RUN_DTYPE)
                rec["id"], rec["tf"], rec["dl"] = ids, tf, dl
                loose(term, R.sorted_records(rec), None)
    return out


def search_blocks(conn: sqlite3.Connection, weights: list[tuple[tuple[str, ...], float]], k: int,
                  avgdl: float) -> list[tuple[int, float]] | None:
    """The best k chunks of a corpus-wide OR of terms (`weights`: (phrase's terms, idf) pairs, in the exhaustive
    scorer's order), scoring only the blocks that can hold one; None when it does not apply (no runs, too many
    documents outside them): score every posting then. A phrase of several terms is bounded by its first term
    (its frequency is the smallest of its terms') and scored where all its terms occur."""
    from finrag.tools.indexing.lexical_runs import read_snapshot

    if k <= 0 or not weights:
        return None
    with read_snapshot(conn):
        src = sources(conn, sorted({t for p, _ in weights for t in p}), avgdl)
    if src is None:
        return None
    # a term's largest contribution anywhere, and which phrases can reach the top k at all
    u = np.array([max((s.fmax * s.scale for s in src[p[0]]), default=0.0) * w * (K1 + 1.0) for p, w in weights])
    present = [i for i in range(len(weights)) if u[i] > 0]
    if not present:
        return []
    found_ids: list[np.ndarray] = []  # every scored chunk once (blocks are scored once), with its score
    found: list[np.ndarray] = []
    best = np.zeros(0)  # the k best chunk scores so far

    def score(blocks: np.ndarray) -> float:
        """Score `blocks` (uint32, ascending, none scored before) exactly; returns the k-th best score so far
        (0: fewer than k chunks)."""
        nonlocal best
        if len(blocks):
            i, t = _totals(*_score_blocks(weights, src, blocks, avgdl), blocks)
            found_ids.append(i)
            found.append(t)
            best = np.concatenate([best, t])
            if len(best) > k:
                best = -np.partition(-best, k - 1)[:k]
        return float(best.min()) if len(best) >= k else 0.0

    # 1. the highest-impact blocks of the strongest phrases give a first threshold
    first = [np.zeros(0, dtype=np.uint32)]
    for i in sorted(present, key=lambda i: -u[i])[:3]:
        for s in src[weights[i][0][0]]:
            b = s.bounds(weights[i][1])
            top = np.argpartition(-b, FIRST_BLOCKS - 1)[:FIRST_BLOCKS] if len(b) > FIRST_BLOCKS else np.arange(len(b))
            first.append(s.block[top])
    first_blocks = np.unique(np.concatenate(first))
    theta = score(first_blocks)
    # 2. essential phrases: a chunk with none of them scores at most the sum of the other phrases' maxima
    cut = theta * (1.0 - 1e-9)
    order = sorted(present, key=lambda i: u[i])
    weak_sum, n_weak = 0.0, 0
    for i in order:
        if (weak_sum + u[i]) * SAFETY >= cut:
            break
        weak_sum += u[i]
        n_weak += 1
    weak, essential = order[:n_weak], order[n_weak:]
    nb = 1 + max(int(s.block[-1]) for i in essential for s in src[weights[i][0][0]] if len(s.block))
    ub = np.zeros(nb)
    for i in essential:  # dense: the essential phrases' block maxima everywhere
        ss = src[weights[i][0][0]]
        if len(ss) == 1:
            ub[ss[0].block] += ss[0].bounds(weights[i][1])
            continue
        per = np.zeros(nb)
        for s in ss:
            per[s.block] = np.maximum(per[s.block], s.bounds(weights[i][1]))
        ub += per
    ub[first_blocks[first_blocks < nb]] = 0.0  # scored already
    cand = np.flatnonzero((ub + weak_sum * SAFETY >= cut) & (ub > 0)).astype(np.uint32)
    ub = ub[cand]
    for i in reversed(weak):  # looked up at the candidates only, strongest first, fewer candidates each time
        weak_sum -= u[i]
        ub += _bound_at(src[weights[i][0][0]], weights[i][1], cand, nb)
        keep = ub + max(weak_sum, 0.0) * SAFETY >= cut
        cand, ub = cand[keep], ub[keep]
    # 3. the best bounds first (doubling batches); theta rises as blocks are scored, and fewer remain
    batch = BATCH
    while len(cand):
        take = np.argpartition(-ub, batch - 1)[:batch] if len(cand) > batch else np.arange(len(cand))
        theta = max(theta, score(np.sort(cand[take])))
        rest = np.ones(len(cand), dtype=bool)
        rest[take] = False
        rest &= ub >= theta * (1.0 - 1e-9)
        cand, ub = cand[rest], ub[rest]
        batch *= 2
    ids, total = np.concatenate(found_ids), np.concatenate(found)
    if len(ids) > k:  # as `lexical.top_k` chooses: the k best, ties by chunk id
        top = np.flatnonzero(total >= -np.partition(-total, k - 1)[k - 1])
    else:
        top = np.arange(len(ids))
    top = top[np.lexsort((ids[top], -total[top]))][:k]
    return [(int(ids[i]), float(total[i])) for i in top]


def _totals(all_ids: list[np.ndarray], all_scores: list[np.ndarray], blocks: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """`lexical.totals` for chunks inside `blocks` (uint32, ascending): each chunk's phrase scores summed in list
    order (the exhaustive scorer's), counted densely by position in the blocks instead of sorting chunk ids."""
    if not all_ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    ids = np.concatenate(all_ids)
    mask = (1 << BITS) - 1
    local = (np.searchsorted(blocks, (ids >> BITS).astype(np.uint32)).astype(np.int64) << BITS) | (ids & mask)
    total = np.bincount(local, weights=np.concatenate(all_scores), minlength=len(blocks) << BITS)
    at = np.flatnonzero(total > 0)
    return (blocks[at >> BITS].astype(np.int64) << BITS) | (at & mask), total[at]


def _bound_at(sources_: list[Source], w: float, blocks: np.ndarray, nb: int) -> np.ndarray:
    """A phrase's largest contribution in each of `blocks` (uint32, ascending, below `nb`; 0 where it does not
    occur)."""
    out = np.zeros(len(blocks))
    for s in sources_:
        if len(blocks) * 16 > len(s.block):  # many candidates: through a dense array of the blocks
            dense = np.zeros(max(nb, int(s.block[-1]) + 1 if len(s.block) else 0))
            dense[s.block] = s.bounds(w)
            out = np.maximum(out, dense[blocks])
            continue
        ok, pos = s.at(blocks)
        if len(pos):
            out[ok] = np.maximum(out[ok], s.f[pos].astype(np.float64) * (w * (K1 + 1.0) * s.scale))
    return out


def _records_in(sources_: list[Source], blocks: np.ndarray) -> np.ndarray:
    """One term's live records in `blocks` (uint32, ascending), from all its sources, in chunk-id order."""
    from finrag.tools.indexing.lexical_runs import alive_mask, id_ranges

    parts = []
    for s in sources_:
        _, pos = s.at(blocks)
        if not len(pos):
            continue
        starts = s.start[pos].astype(np.int64)
        nxt = pos + 1
        ends = np.full(len(pos), len(s.rec), dtype=np.int64)
        inside = nxt < len(s.start)
        ends[inside] = s.start[nxt[inside]]
        r = s.rec[id_ranges(starts, ends)]
        if s.live is not None:
            r = r[alive_mask(r["id"].astype(np.int64), *s.live)]
        parts.append(r)
    if not parts:
        return np.zeros(0, dtype=RUN_DTYPE)
    if len(parts) == 1:
        return parts[0]
    r = np.concatenate(parts)
    return r[np.argsort(r["id"], kind="stable")]
def _score_blocks(weights: Sequence[tuple[tuple[str, ...], float]], src: dict[str, list[Source]],
                  blocks: np.ndarray, avgdl: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Chunk ids and phrase scores (one pair per phrase, in `weights` order) of the chunks in `blocks`, computed
    as the exhaustive scorer does."""
    from finrag.tools.indexing.lexical import term_score

    cache: dict[str, np.ndarray] = {}
    all_ids, all_scores = [], []
    for phrase, w in weights:
        for t in phrase:
            if t not in cache:
                cache[t] = _records_in(src.get(t, []), blocks)
        r = cache[phrase[0]]
        ids, tf, dl = r["id"].astype(np.int64), r["tf"].astype(np.float64), r["dl"].astype(np.float64)
        for t in phrase[1:]:  # a phrase: chunks with all its tokens, the smallest frequency
            r2 = cache[t]
            common, i1, i2 = np.intersect1d(ids, r2["id"].astype(np.int64), assume_unique=True, return_indices=True)
            ids, tf, dl = common, np.minimum(tf[i1], r2["tf"].astype(np.float64)[i2]), dl[i1]
        if len(ids):
            all_ids.append(ids)
            all_scores.append(term_score(w, tf, dl, avgdl))
    return all_ids, all_scores
