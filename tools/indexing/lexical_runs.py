"""BM25 postings in runs: what a corpus-wide search reads instead of one row per (term, document).

`lexical.py` keeps each document's postings per term (`lex_post`), which a scoped search reads. A
corpus-wide search needs every document's postings of the query terms: one row per filing, 16,800 rows
per term at 100x the FinanceBench corpus. Runs keep them as a few blobs per term:

* `lex_run(run, term, post, bounds)`: for each term, the postings of a batch of documents in one blob of
  (absolute chunk id, frequency, length) records, and their bucket bounds (below); `lex_runs(run,
  postings, docs, bits)` sizes the runs and records their bucket size;
  `lex_docs.run` says which run holds a document's postings now.

`flush` (at the end of `finrag index`) writes the documents not in a run yet (up to `RUN_DOCS` per run)
and merges the smallest runs when there are more than `MAX_RUNS`, so a corpus-wide search reads at most
a few rows per term plus the per-document rows of documents written since (`fetch_runs`). Runs are
derived: a run that holds fewer live documents than it was written with (some were removed or
re-indexed since) has its records checked against `lex_docs`, so runs never change a result
(`tests/unit/test_lexical_runs.py`).

Each run row also keeps *bucket bounds*: for every bucket of 2**BUCKET_BITS consecutive chunk ids in
which the term occurs, where its records start, the largest term frequency and the smallest chunk
length. A term's BM25 contribution grows with the frequency and shrinks with the length, so these give
an upper bound of every chunk's score per bucket. `search_pruned` scores the most promising buckets
first, takes the k-th best score found as a threshold and scores only the buckets whose bound reaches
it: the same top k (ties by chunk id) from a fraction of the postings.
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterable, Sequence

import numpy as np

from finrag.tools.indexing.lexical import _CURRENT, _fetch, _postings, _records, term_score, top_k, totals

RUN_DTYPE = np.dtype([("id", "<u4"), ("tf", "<u2"), ("dl", "<u2")])
RUN_DOCS = 256  # documents per run written by `flush` (bounds its memory)
MAX_RUNS = 8  # more runs than this are merged
PENDING_LOOKUPS = 256  # beyond this many documents outside runs, a corpus-wide search reads per-document rows
BUCKET_BITS = 6  # bounds per 64 consecutive chunk ids (a fifth of a 10-K); runs of another size are read unpruned
BOUND_DTYPE = np.dtype([("bucket", "<u4"), ("start", "<u4"), ("tf", "<u2"), ("dl", "<u2")])
FIRST_BUCKETS = 32  # scored before the threshold is known
PRUNE_MIN_ROWS = 500_000  # smaller corpora score every posting: as fast there, without the bounds' overhead


def flush(conn: sqlite3.Connection, *, run_docs: int = RUN_DOCS, max_runs: int = MAX_RUNS) -> int:
    """Write the documents that are in no run into new runs of at most `run_docs` documents, then merge the
    smallest runs while there are more than `max_runs` (inside the caller's transaction). Returns how many
    documents were written. A document's postings are derived again from its chunk texts, as
    `remove_document` does (its per-document rows cannot be found by document alone)."""
    pending = conn.execute(f"SELECT l.lo, l.doc_id FROM lex_docs l WHERE l.run IS NULL AND {_CURRENT} "
                           "ORDER BY l.lo").fetchall()
    if len(pending) * 4 > conn.execute("SELECT COUNT(*) FROM lex_docs").fetchone()[0]:
        return rebuild_runs(conn)  # most of the index: one pass over the stored rows beats tokenizing again
    written = 0
    for i in range(0, len(pending), max(1, run_docs)):
        per_term: dict[str, list[np.ndarray]] = {}
        done = []
        for lo, doc_id in pending[i:i + run_docs]:
            rows = conn.execute("SELECT chunk_id, char_start, char_end, text FROM chunks WHERE doc_id=? "
                                "ORDER BY chunk_id", (doc_id,)).fetchall()
            if not rows or rows[-1][0] > np.iinfo(np.uint32).max:  # ids must fit the records: stays outside runs
                continue
            ids = np.asarray([r[0] for r in rows], dtype=np.int64)
            for term, rec in _postings(conn, [r[3] for r in rows], [(r[1], r[2]) for r in rows])[0].items():
                out = np.empty(len(rec), dtype=RUN_DTYPE)
                out["id"], out["tf"], out["dl"] = ids[rec["off"]], rec["tf"], rec["dl"]
                per_term.setdefault(term, []).append(out)
            done.append(lo)
        if not done:
            continue
        run = _write_run(conn, ((t, np.concatenate(parts)) for t, parts in sorted(per_term.items())), len(done))
        conn.executemany("UPDATE lex_docs SET run=? WHERE lo=?", [(run, lo) for lo in done])
        written += len(done)
    _merge(conn, max_runs)
    return written


def rebuild_runs(conn: sqlite3.Connection) -> int:
    """Replace every run by one written from the per-document rows of all current documents (inside the
    caller's transaction; one pass over `lex_post` in its key order). Returns how many documents it holds."""
    import itertools

    docs = dict(conn.execute(f"SELECT l.lo, l.n FROM lex_docs l WHERE {_CURRENT}").fetchall())
    if not docs or max(lo + n for lo, n in docs.items()) > np.iinfo(np.uint32).max + 1:
        return 0
    conn.execute("DELETE FROM lex_run")
    conn.execute("DELETE FROM lex_runs")
    conn.execute("UPDATE lex_docs SET run = NULL")

    def items():
        rows = conn.execute("SELECT term, lo, post FROM lex_post")  # primary-key order: term, then lo
        for term, group in itertools.groupby(rows, key=lambda r: r[0]):
            parts = [(lo, post) for _, lo, post in group if lo in docs]
            if parts:
                ids, tf, dl = _records(parts)
                rec = np.empty(len(ids), dtype=RUN_DTYPE)
                rec["id"], rec["tf"], rec["dl"] = ids, tf, dl
                yield term, rec

    run = _write_run(conn, items(), len(docs))
    conn.executemany("UPDATE lex_docs SET run=? WHERE lo=?", [(run, lo) for lo in docs])
    return len(docs)


def _write_run(conn: sqlite3.Connection, items: Iterable[tuple[str, np.ndarray]], docs: int) -> int:
    """A new run of (term, RUN_DTYPE records) in term order holding `docs` documents; returns its number."""
    run = conn.execute("SELECT COALESCE(MAX(run), 0) + 1 FROM lex_runs").fetchone()[0]
    total = 0

    def rows():
        nonlocal total
        for term, rec in items:
            if len(rec):
                if len(rec) > 1 and (np.diff(rec["id"].astype(np.int64)) < 0).any():
                    rec = _sorted(rec)
                total += len(rec)
                yield run, term, rec.tobytes(), bounds_of(rec).tobytes()

    conn.executemany("INSERT INTO lex_run(run, term, post, bounds) VALUES (?,?,?,?)", rows())
    conn.execute("INSERT INTO lex_runs(run, postings, docs, bits) VALUES (?,?,?,?)", (run, total, docs, BUCKET_BITS))
    return run


def bounds_of(rec: np.ndarray) -> np.ndarray:
    """Per bucket of chunk ids in `rec` (sorted by id): the bucket, its first record, largest tf, smallest dl."""
    buckets = rec["id"] >> BUCKET_BITS
    starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]]) if len(rec) else np.zeros(0, dtype=np.int64)
    out = np.empty(len(starts), dtype=BOUND_DTYPE)
    out["bucket"], out["start"] = buckets[starts], starts
    if len(starts):
        out["tf"] = np.maximum.reduceat(rec["tf"], starts)
        out["dl"] = np.minimum.reduceat(rec["dl"], starts)
    return out


def _lives(conn: sqlite3.Connection, runs: Sequence[int]) -> dict[int, tuple[np.ndarray, np.ndarray] | None]:
    """For each run: None when it still holds every document it was written with, else its live documents."""
    have = dict(conn.execute("SELECT run, COUNT(*) FROM lex_docs WHERE run IS NOT NULL GROUP BY run").fetchall())
    written = dict(conn.execute("SELECT run, docs FROM lex_runs").fetchall())
    return {run: None if have.get(run, 0) == written.get(run) else _live(conn, run) for run in runs}


def _live(conn: sqlite3.Connection, run: int) -> tuple[np.ndarray, np.ndarray]:
    """First chunk ids (ascending) and chunk counts of the documents whose postings `run` holds now."""
    rows = conn.execute("SELECT lo, n FROM lex_docs WHERE run=? ORDER BY lo", (run,)).fetchall()
    return np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64)


def _alive(ids: np.ndarray, los: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """Which chunk ids fall inside one of the documents (`los`, `ns`)."""
    at = np.searchsorted(los, ids, side="right") - 1
    ok = at >= 0
    ok[ok] = ids[ok] < los[at[ok]] + ns[at[ok]]
    return ok


def _run_records(post: bytes, live: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    rec = np.frombuffer(post, dtype=RUN_DTYPE)
    return rec if live is None else rec[_alive(rec["id"].astype(np.int64), *live)]


def _merge(conn: sqlite3.Connection, max_runs: int) -> None:
    """When there are more than `max_runs` runs, merge the smallest ones (all but `max_runs // 2`) into one,
    leaving out the postings of documents removed or re-indexed since they were written."""
    import heapq

    runs = [r for r, _ in conn.execute("SELECT run, postings FROM lex_runs ORDER BY postings, run")]
    if len(runs) <= max(1, max_runs):
        return
    victims = runs[: len(runs) - max(1, max_runs // 2)]
    lives = _lives(conn, victims)

    def stream(run: int):
        for term, post in conn.execute("SELECT term, post FROM lex_run WHERE run=? ORDER BY term", (run,)):
            yield term, run, post

    streams = [stream(run) for run in victims]

    def merged():
        group: list[np.ndarray] = []
        current = None
        for term, run, post in heapq.merge(*streams):
            if term != current and group:
                yield current, _sorted(np.concatenate(group))
                group = []
            current = term
            group.append(_run_records(post, lives[run]))
        if group:
            yield current, _sorted(np.concatenate(group))

    old = victims
    marks = ",".join("?" * len(old))
    docs = conn.execute(f"SELECT COUNT(*) FROM lex_docs WHERE run IN ({marks})", old).fetchone()[0]
    new = _write_run(conn, merged(), docs)  # its number is above every victim's: their rows are not in its range
    conn.execute(f"DELETE FROM lex_run WHERE run IN ({marks})", old)
    conn.execute(f"DELETE FROM lex_runs WHERE run IN ({marks})", old)
    conn.execute(f"UPDATE lex_docs SET run=? WHERE run IN ({marks})", [new, *old])


def _sorted(rec: np.ndarray) -> np.ndarray:
    return rec[np.argsort(rec["id"], kind="stable")]


def fetch_runs(conn: sqlite3.Connection, terms: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """Each term's corpus-wide (chunk ids, tf, dl) from the runs plus the per-document rows of documents in no
    run; None when there are no runs or too many documents outside them (read the per-document rows then).

    The reads form one snapshot (a read transaction, unless the caller is in one): a `finrag index` that
    commits new runs or a merge meanwhile is seen either entirely or not at all."""
    with _snapshot(conn):
        return _fetch_runs(conn, terms)


@contextmanager
def _snapshot(conn: sqlite3.Connection):
    """A read transaction around several reads, unless the caller is in a transaction already."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def _fetch_runs(conn: sqlite3.Connection, terms: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    sources = _sources(conn, terms)
    if sources is None:
        return None
    out = {}
    for term, ss in sources.items():
        parts = [rec if live is None else rec[_alive(rec["id"].astype(np.int64), *live)] for rec, _, live in ss]
        rec = np.concatenate(parts) if parts else np.zeros(0, dtype=RUN_DTYPE)
        out[term] = (rec["id"].astype(np.int64), rec["tf"].astype(np.float64), rec["dl"].astype(np.float64))
    return out


# ---------------------------------------------------------------------------------------- pruned top k
Source = tuple[np.ndarray, np.ndarray, "tuple[np.ndarray, np.ndarray] | None"]  # records, bounds, live documents


def search_pruned(conn: sqlite3.Connection, weights: list[tuple[tuple[str, ...], float]], k: int,
                  avgdl: float) -> list[tuple[int, float]] | None:
    """The best k chunks of a corpus-wide OR of single-word terms (`weights`: ((term,), idf) pairs), scoring only
    the buckets whose bound reaches the k-th best score; None when it does not apply (phrases of several
    words, a corpus under PRUNE_MIN_ROWS chunks, no runs, too many documents outside them): score every
    posting then."""
    if k <= 0 or not weights or any(len(p) != 1 for p, _ in weights):
        return None
    if conn.execute("SELECT rows FROM lex_stats WHERE id = 0").fetchone()[0] < PRUNE_MIN_ROWS:
        return None
    with _snapshot(conn):
        bits = {b for (b,) in conn.execute("SELECT bits FROM lex_runs")}
        if bits != {BUCKET_BITS}:  # no runs, or buckets that would not line up
            return None
        sources = _sources(conn, sorted({p[0] for p, _ in weights}))
    if sources is None:
        return None
    present = [b["bucket"] for ss in sources.values() for _, b, _ in ss if len(b)]
    if not present:
        return []
    nb = 1 + max(int(b.max()) for b in present)
    bound = np.zeros(nb)
    for (term,), w in weights:  # in the order `top_k` adds a chunk's terms: a bound never below a score
        per_term = np.zeros(nb)
        for _, b, _ in sources[term]:  # a source lists a bucket once
            at = b["bucket"].astype(np.int64)
            per_term[at] = np.maximum(per_term[at],
                                      term_score(w, b["tf"].astype(np.float64), b["dl"].astype(np.float64), avgdl))
        bound += per_term
    order = np.flatnonzero(bound > 0)
    order = order[np.argsort(-bound[order], kind="stable")]
    first = order[:FIRST_BUCKETS]
    ids, scores = _score_buckets(weights, sources, first, nb, avgdl)
    theta = 0.0
    if ids:
        found = totals(ids, scores)[1]
        if len(found) >= k:
            theta = float(-np.partition(-found, k - 1)[k - 1])
    rest = order[FIRST_BUCKETS:]
    rest = rest[bound[rest] >= theta * (1.0 - 1e-9)]  # a bucket whose bound is below the k-th score cannot enter
    more_ids, more_scores = _score_buckets(weights, sources, rest, nb, avgdl)
    return top_k(ids + more_ids, scores + more_scores, k)


def _sources(conn: sqlite3.Connection, terms: list[str]) -> dict[str, list[Source]] | None:
    """Each term's runs (records and bounds, undecoded) and the postings of documents outside runs; None when
    there are no runs or too many documents outside them (read the per-document rows then)."""
    runs = [r for (r,) in conn.execute("SELECT run FROM lex_runs ORDER BY run")]
    if not runs:
        return None
    pending = [r[0] for r in conn.execute("SELECT lo FROM lex_docs WHERE run IS NULL")]
    if len(pending) > PENDING_LOOKUPS:
        return None
    lives = _lives(conn, runs)
    out: dict[str, list[Source]] = {t: [] for t in terms}
    marks = ",".join("?" * len(terms))
    for run in runs:
        for term, post, bounds in conn.execute(
                f"SELECT term, post, bounds FROM lex_run WHERE run=? AND term IN ({marks})", (run, *terms)):
            out[term].append((np.frombuffer(post, dtype=RUN_DTYPE), np.frombuffer(bounds, dtype=BOUND_DTYPE),
                              lives[run]))
    if pending:
        for term, rows in _fetch(conn, terms, pending).items():
            if rows:
                ids, tf, dl = _records(rows)
                if int(ids.max()) > np.iinfo(np.uint32).max:
                    return None
                rec = np.empty(len(ids), dtype=RUN_DTYPE)
                rec["id"], rec["tf"], rec["dl"] = ids, tf, dl
                rec = _sorted(rec)
                out[term].append((rec, bounds_of(rec), None))
    return out


def _score_buckets(weights: list[tuple[tuple[str, ...], float]], sources: dict[str, list[Source]],
                   buckets: np.ndarray, nb: int, avgdl: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Chunk ids and term scores (one array pair per term, in `weights` order) of the chunks in `buckets`."""
    if not len(buckets):
        return [], []
    chosen = np.zeros(nb, dtype=bool)
    chosen[buckets] = True
    all_ids, all_scores = [], []
    for (term,), w in weights:
        parts = []
        for rec, b, live in sources[term]:
            sel = chosen[b["bucket"].astype(np.int64)]
            if not sel.any():
                continue
            starts = b["start"].astype(np.int64)
            ends = np.append(starts[1:], len(rec))
            r = rec[_ranges(starts[sel], ends[sel])]
            if live is not None:
                r = r[_alive(r["id"].astype(np.int64), *live)]
            parts.append(r)
        if parts:
            r = np.concatenate(parts) if len(parts) > 1 else parts[0]
            if len(r):
                all_ids.append(r["id"].astype(np.int64))
                all_scores.append(term_score(w, r["tf"].astype(np.float64), r["dl"].astype(np.float64), avgdl))
    return all_ids, all_scores


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The indices start..end-1 of every (start, end) pair, concatenated."""
    lengths = ends - starts
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return offsets + np.arange(int(lengths.sum()))

