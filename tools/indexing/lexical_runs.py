"""BM25 postings in runs: what a corpus-wide search reads instead of one row per (term, document).

`lexical.py` keeps each document's postings per term (`lex_post`), which a scoped search reads. A
corpus-wide search needs every document's postings of the query terms: one row per filing, 16,800 rows
per term at 100x the FinanceBench corpus. Runs keep them as a few blobs per term:

* `lex_run(run, term, post, bounds)`: for each term, the postings of a batch of documents in one blob of
  (absolute chunk id, frequency, length) records (`bounds`: empty; bucket bounds of an earlier version);
  `lex_runs(run, postings, docs, bits, file)` sizes the runs and names each run's memory-mapped file
  (`lexical_blocks.py`: the same records with per-block bounds, what a corpus-wide search reads);
  `lex_docs.run` says which run holds a document's postings now.

`flush` (at the end of `finrag index`) writes the documents not in a run yet (up to `RUN_DOCS` per run)
and merges the smallest runs when there are more than `MAX_RUNS`, so a corpus-wide search reads at most
a few rows per term plus the per-document rows of documents written since (`fetch_runs`). Runs are
derived: a run that holds fewer live documents than it was written with (some were removed or
re-indexed since) has its records checked against `lex_docs`, so runs never change a result
(`tests/unit/test_lexical_runs.py`).

Each run is also written into a file (`lexical_blocks.RunFile`, by `_write_run`; `flush` writes one for a run
that has none, and removes the files no run names): a corpus-wide search reads the blocks it needs from
there (`lexical_search.search_blocks`), the SQLite rows stay what merges and the exhaustive scorer read.
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterable, Sequence

import numpy as np

from finrag.tools.indexing import chunk_text, lexical_blocks
from finrag.tools.indexing.lexical import CURRENT_DOC, decode_records, document_postings, fetch_postings

RUN_DTYPE = lexical_blocks.RUN_DTYPE  # a run's records (chunk id, tf, length), in SQLite and in its file
RUN_DOCS = 256  # documents per run written by `flush` (bounds its memory)
MAX_RUNS = 8  # more runs than this are merged
PENDING_LOOKUPS = 256  # beyond this many documents outside runs, a corpus-wide search reads per-document rows


def flush(conn: sqlite3.Connection, *, run_docs: int = RUN_DOCS, max_runs: int = MAX_RUNS) -> int:
    """Write the documents that are in no run into new runs of at most `run_docs` documents, then merge the
    smallest runs while there are more than `max_runs` (inside the caller's transaction). Returns how many
    documents were written. A document's postings are derived again from its chunk texts, as
    `remove_document` does (its per-document rows cannot be found by document alone)."""
    pending = conn.execute(f"SELECT l.lo, l.doc_id FROM lex_docs l WHERE l.run IS NULL AND {CURRENT_DOC} "
                           "ORDER BY l.lo").fetchall()
    if len(pending) * 4 > conn.execute("SELECT COUNT(*) FROM lex_docs").fetchone()[0]:
        return rebuild_runs(conn)  # most of the index: one pass over the stored rows beats tokenizing again
    written = 0
    for i in range(0, len(pending), max(1, run_docs)):
        per_term: dict[str, list[np.ndarray]] = {}
        done = []
        for lo, doc_id in pending[i:i + run_docs]:
            rows = chunk_text.document_chunks(conn, doc_id)
            if not rows or rows[-1][0] > np.iinfo(np.uint32).max:  # ids must fit the records: stays outside runs
                continue
            ids = np.asarray([r[0] for r in rows], dtype=np.int64)
            for term, rec in document_postings(conn, [r[3] for r in rows], [(r[1], r[2]) for r in rows])[0].items():
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
    _ensure_files(conn)
    return written


def rebuild_runs(conn: sqlite3.Connection) -> int:
    """Replace every run by one written from the per-document rows of all current documents (inside the
    caller's transaction; one pass over `lex_post` in its key order). Returns how many documents it holds."""
    import itertools

    docs = dict(conn.execute(f"SELECT l.lo, l.n FROM lex_docs l WHERE {CURRENT_DOC}").fetchall())
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
                yield term, _as_run(*decode_records(parts))

    run = _write_run(conn, items(), len(docs))
    conn.executemany("UPDATE lex_docs SET run=? WHERE lo=?", [(run, lo) for lo in docs])
    lexical_blocks.remove_unused(conn)
    return len(docs)


def _write_run(conn: sqlite3.Connection, items: Iterable[tuple[str, np.ndarray]], docs: int) -> int:
    """A new run of (term, RUN_DTYPE records) in term order holding `docs` documents; returns its number."""
    run = conn.execute("SELECT COALESCE(MAX(run), 0) + 1 FROM lex_runs").fetchone()[0]
    total = 0
    out = lexical_blocks.RunFile(conn, _avgdl(conn))

    def rows():
        nonlocal total
        for term, rec in items:
            if len(rec):
                if len(rec) > 1 and (np.diff(rec["id"].astype(np.int64)) < 0).any():
                    rec = sorted_records(rec)
                total += len(rec)
                out.add(term, rec)
                yield run, term, rec.tobytes(), b""

    try:
        conn.executemany("INSERT INTO lex_run(run, term, post, bounds) VALUES (?,?,?,?)", rows())
        token = out.close()
    except BaseException:
        out.abandon()
        raise
    conn.execute("INSERT INTO lex_runs(run, postings, docs, bits, file) VALUES (?,?,?,?,?)",
                 (run, total, docs, lexical_blocks.BITS, token))
    return run


def _avgdl(conn: sqlite3.Connection) -> float:
    rows, tokens = conn.execute("SELECT rows, tokens FROM lex_stats WHERE id = 0").fetchone()
    return tokens / rows if rows else 1.0


def _ensure_files(conn: sqlite3.Connection) -> None:
    """Write the file of every run that has none (written before run files existed, or deleted since), and
    remove the files no run names (inside the caller's transaction)."""
    d = lexical_blocks.index_dir(conn)
    if d is None:
        return
    for run, name in conn.execute("SELECT run, file FROM lex_runs").fetchall():
        if name and (d / f"lexrun-{name}.bin").exists():
            continue
        out = lexical_blocks.RunFile(conn, _avgdl(conn))
        try:
            for term, post in conn.execute("SELECT term, post FROM lex_run WHERE run=? ORDER BY term", (run,)):
                out.add(term, np.frombuffer(post, dtype=RUN_DTYPE))
            token = out.close()
        except BaseException:
            out.abandon()
            raise
        conn.execute("UPDATE lex_runs SET file=? WHERE run=?", (token, run))
    lexical_blocks.remove_unused(conn)


def run_lives(conn: sqlite3.Connection, runs: Sequence[int]) -> dict[int, tuple[np.ndarray, np.ndarray] | None]:
    """For each run: None when it still holds every document it was written with, else its live documents."""
    have = dict(conn.execute("SELECT run, COUNT(*) FROM lex_docs WHERE run IS NOT NULL GROUP BY run").fetchall())
    written = dict(conn.execute("SELECT run, docs FROM lex_runs").fetchall())
    return {run: None if have.get(run, 0) == written.get(run) else _live(conn, run) for run in runs}


def _live(conn: sqlite3.Connection, run: int) -> tuple[np.ndarray, np.ndarray]:
    """First chunk ids (ascending) and chunk counts of the documents whose postings `run` holds now."""
    rows = conn.execute("SELECT lo, n FROM lex_docs WHERE run=? ORDER BY lo", (run,)).fetchall()
    return np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64)


def alive_mask(ids: np.ndarray, los: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """Which chunk ids fall inside one of the documents (`los`, `ns`)."""
    at = np.searchsorted(los, ids, side="right") - 1
    ok = at >= 0
    ok[ok] = ids[ok] < los[at[ok]] + ns[at[ok]]
    return ok


def _run_records(post: bytes, live: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    rec = np.frombuffer(post, dtype=RUN_DTYPE)
    return rec if live is None else rec[alive_mask(rec["id"].astype(np.int64), *live)]


def _merge(conn: sqlite3.Connection, max_runs: int) -> None:
    """When there are more than `max_runs` runs, merge the smallest ones (all but `max_runs // 2`) into one,
    leaving out the postings of documents removed or re-indexed since they were written."""
    import heapq

    runs = [r for r, _ in conn.execute("SELECT run, postings FROM lex_runs ORDER BY postings, run")]
    if len(runs) <= max(1, max_runs):
        return
    victims = runs[: len(runs) - max(1, max_runs // 2)]
    lives = run_lives(conn, victims)

    def stream(run: int):
        for term, post in conn.execute("SELECT term, post FROM lex_run WHERE run=? ORDER BY term", (run,)):
            yield term, run, post

    streams = [stream(run) for run in victims]

    def merged():
        group: list[np.ndarray] = []
        current = None
        for term, run, post in heapq.merge(*streams):
            if term != current and group:
                yield current, sorted_records(np.concatenate(group))
                group = []
            current = term
            group.append(_run_records(post, lives[run]))
        if group:
            yield current, sorted_records(np.concatenate(group))

    old = victims
    marks = ",".join("?" * len(old))
    docs = conn.execute(f"SELECT COUNT(*) FROM lex_docs WHERE run IN ({marks})", old).fetchone()[0]
    new = _write_run(conn, merged(), docs)  # its number is above every victim's: their rows are not in its range
    conn.execute(f"DELETE FROM lex_run WHERE run IN ({marks})", old)
    conn.execute(f"DELETE FROM lex_runs WHERE run IN ({marks})", old)
    conn.execute(f"UPDATE lex_docs SET run=? WHERE run IN ({marks})", [new, *old])


def sorted_records(rec: np.ndarray) -> np.ndarray:
    return rec[np.argsort(rec["id"], kind="stable")]


def fetch_runs(conn: sqlite3.Connection, terms: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """Each term's corpus-wide (chunk ids, tf, dl) from the runs plus the per-document rows of documents in no
    run; None when there are no runs or too many documents outside them (read the per-document rows then).

    The reads form one snapshot (a read transaction, unless the caller is in one): a `finrag index` that
    commits new runs or a merge meanwhile is seen either entirely or not at all."""
    with read_snapshot(conn):
        return _fetch_runs(conn, terms)


@contextmanager
def read_snapshot(conn: sqlite3.Connection):
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
        parts = [rec if live is None else rec[alive_mask(rec["id"].astype(np.int64), *live)] for rec, live in ss]
        rec = np.concatenate(parts) if parts else np.zeros(0, dtype=RUN_DTYPE)
        out[term] = (rec["id"].astype(np.int64), rec["tf"].astype(np.float64), rec["dl"].astype(np.float64))
    return out


Source = tuple[np.ndarray, "tuple[np.ndarray, np.ndarray] | None"]  # records, live documents


def _sources(conn: sqlite3.Connection, terms: list[str]) -> dict[str, list[Source]] | None:
    """Each term's runs (records, undecoded) and the postings of documents outside runs; None when
    there are no runs or too many documents outside them (read the per-document rows then)."""
    runs = [r for (r,) in conn.execute("SELECT run FROM lex_runs ORDER BY run")]
    if not runs:
        return None
    pending = [r[0] for r in conn.execute("SELECT lo FROM lex_docs WHERE run IS NULL")]
    if len(pending) > PENDING_LOOKUPS:
        return None
    lives = run_lives(conn, runs)
    out: dict[str, list[Source]] = {t: [] for t in terms}
    marks = ",".join("?" * len(terms))
    for run in runs:
        for term, post in conn.execute(f"SELECT term, post FROM lex_run WHERE run=? AND term IN ({marks})",
                                       (run, *terms)):
            out[term].append((np.frombuffer(post, dtype=RUN_DTYPE), lives[run]))
    loose = pending_records(conn, terms, pending)
    if loose is None:
        return None
    for term, rec in loose.items():
        out[term].append((rec, None))
    return out


def _as_run(ids: np.ndarray, tf: np.ndarray, dl: np.ndarray) -> np.ndarray:
    """Decoded postings (`decode_records`) as run records."""
    rec = np.empty(len(ids), dtype=RUN_DTYPE)
    rec["id"], rec["tf"], rec["dl"] = ids, tf, dl
    return rec


def pending_records(conn: sqlite3.Connection, terms: list[str], pending: Sequence[int]) -> dict[str, np.ndarray] | None:
    """Each term's records in the documents outside runs (first chunk ids `pending`), sorted as a run's; None when a
    chunk id does not fit a run's uint32 (read the per-document rows then)."""
    out: dict[str, np.ndarray] = {}
    if not pending:
        return out
    for term, rows in fetch_postings(conn, terms, pending).items():
        if rows:
            ids, tf, dl = decode_records(rows)
            if int(ids.max()) > np.iinfo(np.uint32).max:
                return None
            out[term] = sorted_records(_as_run(ids, tf, dl))
    return out


def id_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The indices start..end-1 of every (start, end) pair, concatenated."""
    lengths = ends - starts
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return offsets + np.arange(int(lengths.sum()))


