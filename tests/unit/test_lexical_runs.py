"""Corpus-wide BM25 read from runs equals FTS5's bm25() through additions, removals, re-indexing and merges."""
from __future__ import annotations

import random
import sqlite3

import pytest

from finrag.tools.indexing import lexical, lexical_runs

WORDS = ("revenue capital expenditures cash flow dividends inventory cost sales margin debt equity lease "
         "goodwill impairment tax segment operating income net assets liabilities p&l year-over-year "
         "repurchases property plant equipment 2018 2019 fiscal quarter").split()


class Corpus:
    """An FTS5 table (the reference), the `chunks` rows `flush` reads, and the lexical tables."""

    def __init__(self):
        self.conn = sqlite3.connect(":memory:")
        self.conn.executescript(
            "CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61');"
            "CREATE TABLE chunks(chunk_id INTEGER PRIMARY KEY, doc_id TEXT, char_start INT, char_end INT, text TEXT);")
        lexical.ensure_schema(self.conn)
        self.next_id = 1

    def add(self, doc: str, texts: list[str], lo: int | None = None) -> int:
        lo = self.next_id if lo is None else lo
        ids = list(range(lo, lo + len(texts)))
        self.next_id = max(self.next_id, ids[-1] + 1)
        self.conn.executemany("INSERT INTO chunks VALUES (?, ?, NULL, NULL, ?)", [(i, doc, t) for i, t in zip(ids, texts)])
        self.conn.executemany("INSERT INTO f(rowid, text) VALUES (?, ?)", list(zip(ids, texts)))
        lexical.add_document(self.conn, doc, ids, texts)
        return lo

    def remove(self, doc: str) -> None:
        lexical.remove_document(self.conn, doc)
        self.conn.execute("DELETE FROM f WHERE rowid IN (SELECT chunk_id FROM chunks WHERE doc_id=?)", (doc,))
        self.conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc,))

    def fts5(self, terms: list[str], k: int) -> list[tuple[int, float]]:
        match = " OR ".join(f'"{t}"' for t in terms)
        return self.conn.execute("SELECT rowid, -bm25(f) FROM f WHERE f MATCH ? ORDER BY bm25(f), rowid LIMIT ?",
                                 (match, k)).fetchall()


def _texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 40))) for _ in range(n)]


def _same_as_fts5(c: Corpus, rng: random.Random, queries: int = 40) -> None:
    """The same top 10 as reading every document's own rows, and FTS5's scores (up to its IDF floor of 1e-6,
    whose terms `lexical.search` reads only when the others do not fill k)."""
    for _ in range(queries):
        terms = rng.sample(WORDS, rng.randint(1, 4))
        got = lexical.search(c.conn, terms, 10)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lexical_runs, "fetch_runs", lambda *a: None)
            mp.setattr(lexical_runs, "search_pruned", lambda *a: None)
            rows = lexical.search(c.conn, terms, 10)
        assert got == rows, terms
        want = c.fts5(terms, 10)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5), terms


@pytest.fixture(params=[2, 12], ids=["buckets-of-4", "buckets-of-4096"])
def bucket_bits(request, monkeypatch):
    """Buckets of 4 chunk ids make the pruned search skip buckets in these small corpora; 4,096 is the default."""
    monkeypatch.setattr(lexical_runs, "BUCKET_BITS", request.param)
    monkeypatch.setattr(lexical_runs, "FIRST_BUCKETS", 2)
    monkeypatch.setattr(lexical_runs, "PRUNE_MIN_ROWS", 0)
    return request.param


def test_runs_follow_additions_removals_reindexing_and_merges(bucket_bits):
    rng = random.Random(7)
    c = Corpus()
    for d in range(12):
        c.add(f"D{d}", _texts(rng, rng.randint(1, 6)))
    assert lexical_runs.fetch_runs(c.conn, ["revenue"]) is None  # no runs yet: per-document rows
    _same_as_fts5(c, rng)

    assert lexical_runs.flush(c.conn, run_docs=3, max_runs=2) == 12  # most of the index: one run from the rows
    assert c.conn.execute("SELECT COUNT(*) FROM lex_runs").fetchone()[0] == 1
    assert c.conn.execute("SELECT COUNT(*) FROM lex_docs WHERE run IS NULL").fetchone()[0] == 0
    c.conn.commit()
    assert lexical_runs.fetch_runs(c.conn, ["revenue"]) is not None
    assert not c.conn.in_transaction  # its own read transaction is closed again
    _same_as_fts5(c, rng)

    c.add("NEW", _texts(rng, 4))  # outside any run until the next flush: read from its own rows
    _same_as_fts5(c, rng)
    c.remove("D3")  # its copy in the run is dead
    _same_as_fts5(c, rng)
    lo = c.conn.execute("SELECT lo FROM lex_docs WHERE doc_id='D5'").fetchone()[0]
    n = c.conn.execute("SELECT n FROM lex_docs WHERE doc_id='D5'").fetchone()[0]
    c.remove("D5")
    c.add("D5", _texts(rng, n), lo=lo)  # re-indexed under the same chunk ids, with other words
    _same_as_fts5(c, rng)
    assert lexical_runs._lives(c.conn, [1])[1] is not None  # two of its documents left: its records are checked

    for i in range(6):  # one incremental run per flush, merged when there are more than two
        c.add(f"E{i}", _texts(rng, rng.randint(1, 5)))
        assert lexical_runs.flush(c.conn, run_docs=3, max_runs=2) == (3 if i == 0 else 1)  # NEW, D5, E0; then E<i>
        assert c.conn.execute("SELECT COUNT(*) FROM lex_runs").fetchone()[0] <= 2
        _same_as_fts5(c, rng)
    assert c.conn.execute("SELECT COUNT(*) FROM lex_docs WHERE run IS NULL").fetchone()[0] == 0
    small = c.conn.execute("SELECT run FROM lex_runs ORDER BY postings LIMIT 1").fetchone()[0]
    gone = c.conn.execute("SELECT doc_id FROM lex_docs WHERE run=? ORDER BY lo", (small,)).fetchall()
    for (doc,) in gone:  # documents of a small run go: the merge that follows must leave them out
        c.remove(doc)
    _same_as_fts5(c, rng)
    c.add("F0", _texts(rng, 3))
    lexical_runs.flush(c.conn, run_docs=3, max_runs=2)
    assert c.conn.execute("SELECT COUNT(*) FROM lex_runs WHERE run=?", (small,)).fetchone()[0] == 0  # merged
    _same_as_fts5(c, rng)
    # merged runs keep no dead postings: every record belongs to a live document of its run
    for run, post in c.conn.execute("SELECT run, post FROM lex_run"):
        ids = lexical_runs._run_records(post, None)["id"]
        if lexical_runs._lives(c.conn, [run])[run] is None:  # a run with all its documents holds only theirs
            los, ns = lexical_runs._live(c.conn, run)
            assert lexical_runs._alive(ids.astype("int64"), los, ns).all()


def test_many_documents_outside_runs_read_per_document_rows(monkeypatch):
    rng = random.Random(3)
    c = Corpus()
    for d in range(4):
        c.add(f"D{d}", _texts(rng, 3))
    lexical_runs.flush(c.conn)
    monkeypatch.setattr(lexical_runs, "PENDING_LOOKUPS", 2)
    for d in range(3):
        c.add(f"P{d}", _texts(rng, 2))
    assert lexical_runs.fetch_runs(c.conn, ["revenue"]) is None  # 3 outside runs > 2
    _same_as_fts5(c, rng)


def test_pruned_search_skips_buckets_and_keeps_the_top_k(bucket_bits, monkeypatch):
    rng = random.Random(11)
    c = Corpus()
    for d in range(40):
        c.add(f"D{d}", _texts(rng, rng.randint(2, 8)))
    lexical_runs.flush(c.conn)
    c.add("LATE", _texts(rng, 3))  # outside the runs: bounded and scored like the rest
    c.remove("D7")
    scored = []
    real = lexical_runs._score_buckets

    def spy(weights, sources, buckets, nb, avgdl):
        scored.append((len(buckets), nb))
        return real(weights, sources, buckets, nb, avgdl)

    monkeypatch.setattr(lexical_runs, "_score_buckets", spy)
    skipped = 0
    for _ in range(60):
        terms = rng.sample(WORDS[:20], rng.randint(1, 3))  # single words: the pruned path
        scored.clear()
        got = lexical.search(c.conn, terms, 5)
        assert scored, terms
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lexical_runs, "search_pruned", lambda *a: None)
            assert got == lexical.search(c.conn, terms, 5), terms
        skipped += scored[0][1] - sum(n for n, _ in scored)
    assert (skipped > 0) == (bucket_bits == 2)  # small buckets: some were never scored



def test_bounds_use_the_shortest_chunk_of_a_bucket(monkeypatch):
    """A bucket holding the best chunk (the term in a one-word chunk) and a long one must not be bounded by
    the long one: the best chunk would be skipped."""
    monkeypatch.setattr(lexical_runs, "BUCKET_BITS", 2)
    monkeypatch.setattr(lexical_runs, "FIRST_BUCKETS", 1)
    monkeypatch.setattr(lexical_runs, "PRUNE_MIN_ROWS", 0)
    c = Corpus()
    filler = "cost sales margin debt equity lease goodwill tax segment operating income"
    c.add("A", ["revenue", filler + " revenue " + filler + " " + filler, filler, filler])  # ids 1-4: bucket 0 and 1
    c.add("B", [filler, "revenue " + filler[:40], filler, filler], lo=9)  # ids 9-12: bucket 2 and 3
    lexical_runs.flush(c.conn)
    assert lexical.search(c.conn, ["revenue"], 1)[0][0] == 1


def test_runs_of_another_bucket_size_are_read_unpruned(monkeypatch):
    rng = random.Random(5)
    c = Corpus()
    for d in range(10):
        c.add(f"D{d}", _texts(rng, 4))
    monkeypatch.setattr(lexical_runs, "BUCKET_BITS", 2)
    monkeypatch.setattr(lexical_runs, "PRUNE_MIN_ROWS", 0)
    lexical_runs.flush(c.conn)
    want = lexical.search(c.conn, ["revenue", "cash"], 5)
    assert lexical_runs.search_pruned(c.conn, [(("revenu",), 1.0)], 5, 10.0) is not None
    monkeypatch.setattr(lexical_runs, "BUCKET_BITS", 3)  # these runs' buckets would not line up with new ones
    assert lexical_runs.search_pruned(c.conn, [(("revenu",), 1.0)], 5, 10.0) is None
    assert lexical.search(c.conn, ["revenue", "cash"], 5) == want


def test_small_corpora_score_every_posting(monkeypatch):
    c = Corpus()
    c.add("A", ["revenue grew", "cash flow"])
    lexical_runs.flush(c.conn)
    assert lexical_runs.search_pruned(c.conn, [(("revenu",), 1.0)], 5, 2.0) is None  # 2 chunks < PRUNE_MIN_ROWS
    monkeypatch.setattr(lexical_runs, "PRUNE_MIN_ROWS", 2)
    hits = lexical_runs.search_pruned(c.conn, [(("revenu",), 1.0)], 5, 2.0)
    assert hits is not None and [cid for cid, _ in hits] == [1]

