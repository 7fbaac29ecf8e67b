"""Corpus-wide BM25 read from runs equals FTS5's bm25() through additions, removals, re-indexing and merges."""
from __future__ import annotations

import random
import sqlite3

import pytest

from finrag.tools.indexing import lexical, lexical_blocks, lexical_runs, lexical_search

WORDS = ("revenue capital expenditures cash flow dividends inventory cost sales margin debt equity lease "
         "goodwill impairment tax segment operating income net assets liabilities p&l year-over-year "
         "repurchases property plant equipment 2018 2019 fiscal quarter").split()


class Corpus:
    """An FTS5 table (the reference), the `chunks` rows `flush` reads, and the lexical tables."""

    def __init__(self, path: str = ":memory:"):
        self.conn = sqlite3.connect(path)  # a file: runs also get their memory-mapped files (lexical_blocks.py)
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
    whose terms `lexical_search.search` reads only when the others do not fill k)."""
    for _ in range(queries):
        terms = rng.sample(WORDS, rng.randint(1, 4))
        got = lexical_search.search(c.conn, terms, 10)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lexical_runs, "fetch_runs", lambda *a: None)
            mp.setattr(lexical_search, "search_blocks", lambda *a: None)
            rows = lexical_search.search(c.conn, terms, 10)
        assert got == rows, terms
        want = c.fts5(terms, 10)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5), terms


@pytest.fixture(params=[(1, "memory"), (3, "memory"), (1, "file"), (3, "file")],
                ids=["blocks-of-2", "blocks-of-8", "blocks-of-2-mmap", "blocks-of-8-mmap"])
def corpus(request, monkeypatch, tmp_path):
    """Blocks of 2 chunk ids make the block-max search skip blocks in these small corpora; 8 is the default.
    "memory": runs read from SQLite (an in-memory index has no run files); "file": from their mapped files."""
    monkeypatch.setattr(lexical_blocks, "BITS", request.param[0])
    monkeypatch.setattr(lexical_blocks, "FIRST_BLOCKS", 2)
    monkeypatch.setattr(lexical_blocks, "BATCH", 2)
    return Corpus(str(tmp_path / "lex.sqlite") if request.param[1] == "file" else ":memory:")


def test_runs_follow_additions_removals_reindexing_and_merges(corpus):
    rng = random.Random(7)
    c = corpus
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
    assert lexical_runs.run_lives(c.conn, [1])[1] is not None  # two of its documents left: its records are checked

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
        if lexical_runs.run_lives(c.conn, [run])[run] is None:  # a run with all its documents holds only theirs
            los, ns = lexical_runs._live(c.conn, run)
            assert lexical_runs.alive_mask(ids.astype("int64"), los, ns).all()


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


def _zipf_texts(rng: random.Random, vocab: list[str], n: int, longest: int = 40) -> list[str]:
    """Chunks whose words follow a skewed distribution (a few words everywhere, most rare), as in filings."""
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    return [" ".join(rng.choices(vocab, weights, k=rng.randint(1, longest))) for _ in range(n)]


def test_block_max_search_equals_the_exhaustive_scorer(corpus, monkeypatch):
    """Random corpora and queries (copies of documents tie, as in bench/scale.py; phrases, repeated stems, unknown
    words; k from 1 to 50): the same chunks and bitwise the same scores as scoring every posting, while blocks
    are skipped."""
    rng = random.Random(23)
    vocab = WORDS + [f"w{i}" for i in range(150)] + ["assets", "asset", "p&l", "year-over-year"]
    c = corpus
    docs = []
    for d in range(30):
        docs.append(_zipf_texts(rng, vocab, rng.randint(1, 12)))
        c.add(f"D{d}", docs[-1])
    for d in range(10):  # identical copies: equal scores, ties by chunk id
        c.add(f"C{d}", docs[d % 4])
    lexical_runs.flush(c.conn)
    c.conn.commit()
    if c.conn.execute("PRAGMA database_list").fetchone()[2]:
        assert c.conn.execute("SELECT COUNT(*) FROM lex_runs WHERE file IS NULL").fetchone()[0] == 0
    scored, total = [0], [0]
    real = lexical_search._score_blocks

    def spy(weights, src, blocks, avgdl):
        scored[0] += len(blocks)
        return real(weights, src, blocks, avgdl)

    monkeypatch.setattr(lexical_search, "_score_blocks", spy)

    def check(queries: int) -> None:
        n_blocks = len({cid >> lexical_blocks.BITS for (cid,) in c.conn.execute("SELECT chunk_id FROM chunks")})
        for _ in range(queries):
            terms = rng.sample(vocab, rng.randint(1, 12)) + (["nothing-like-it"] if rng.random() < 0.1 else [])
            k = rng.choice([1, 3, 10, 50])
            got = lexical_search.search(c.conn, terms, k)
            want = lexical_search.search(c.conn, terms, k, exhaustive=True)
            assert got == want, (terms, k)  # ids, order and float scores
            total[0] += n_blocks

    check(80)
    c.add("LONG", _zipf_texts(rng, vocab, 6, longest=400))  # outside runs, and the average length grows
    c.remove("D3")  # dead inside its run
    c.remove("C1")
    check(80)
    assert scored[0] < total[0] * (0.7 if lexical_blocks.BITS == 1 else 1.0)  # small blocks: most never scored


def test_runs_without_files_are_read_from_sqlite_and_get_files_at_the_next_flush(tmp_path):
    """An index whose runs predate run files (or whose file went missing) gives the same results from SQLite;
    the next flush writes the files, and files no run names are removed."""
    rng = random.Random(5)
    c = Corpus(str(tmp_path / "lex.sqlite"))
    for d in range(20):
        c.add(f"D{d}", _texts(rng, rng.randint(1, 6)))
    lexical_runs.flush(c.conn)
    c.conn.commit()
    queries = [rng.sample(WORDS, rng.randint(1, 6)) for _ in range(30)]
    want = [lexical_search.search(c.conn, q, 5, exhaustive=True) for q in queries]
    assert [lexical_search.search(c.conn, q, 5) for q in queries] == want
    files = sorted(tmp_path.glob("lexrun-*.bin"))
    assert len(files) == 1
    c.conn.execute("UPDATE lex_runs SET file = NULL")  # as written before run files existed
    c.conn.commit()
    assert [lexical_search.search(c.conn, q, 5) for q in queries] == want
    lexical_blocks._OPEN.clear()
    lexical_runs.flush(c.conn)  # nothing new to write: the run gets its file, the unnamed one goes
    c.conn.commit()
    assert c.conn.execute("SELECT COUNT(*) FROM lex_runs WHERE file IS NULL").fetchone()[0] == 0
    assert sorted(tmp_path.glob("lexrun-*.bin")) != files and len(list(tmp_path.glob("lexrun-*.bin"))) == 1
    assert [lexical_search.search(c.conn, q, 5) for q in queries] == want
    lexical_blocks._OPEN.clear()
    for f in tmp_path.glob("lexrun-*.bin"):  # gone behind the index's back: read from SQLite again
        f.unlink()
    assert [lexical_search.search(c.conn, q, 5) for q in queries] == want
    for d in range(20, 30):  # more runs, merged: only the files of the runs left remain
        c.add(f"D{d}", _texts(rng, 3))
        lexical_runs.flush(c.conn, run_docs=2, max_runs=2)
        c.conn.commit()
    names = {f for (f,) in c.conn.execute("SELECT file FROM lex_runs")}
    assert {p.stem[len("lexrun-"):] for p in tmp_path.glob("lexrun-*")} == names
    assert [lexical_search.search(c.conn, q, 5) for q in queries] == [lexical_search.search(c.conn, q, 5, exhaustive=True)
                                                             for q in queries]


def test_bounds_use_the_shortest_chunk_of_a_block(monkeypatch, tmp_path):
    """A block holding the best chunk (the term in a one-word chunk) and a long one must not be bounded by
    the long one: the best chunk would be skipped."""
    monkeypatch.setattr(lexical_blocks, "BITS", 2)
    monkeypatch.setattr(lexical_blocks, "FIRST_BLOCKS", 1)
    c = Corpus(str(tmp_path / "lex.sqlite"))
    filler = "cost sales margin debt equity lease goodwill tax segment operating income"
    c.add("A", ["revenue", filler + " revenue " + filler + " " + filler, filler, filler])  # ids 1-4: block 0 and 1
    c.add("B", [filler, "revenue " + filler[:40], filler, filler], lo=9)  # ids 9-12: block 2 and 3
    lexical_runs.flush(c.conn)
    assert lexical_search.search(c.conn, ["revenue"], 1)[0][0] == 1


def test_run_files_of_another_block_size_are_read_from_sqlite(monkeypatch, tmp_path):
    rng = random.Random(5)
    c = Corpus(str(tmp_path / "lex.sqlite"))
    for d in range(10):
        c.add(f"D{d}", _texts(rng, 4))
    monkeypatch.setattr(lexical_blocks, "BITS", 2)
    lexical_runs.flush(c.conn)
    c.conn.commit()
    want = lexical_search.search(c.conn, ["revenue", "cash"], 5, exhaustive=True)
    lexical_blocks._OPEN.clear()
    monkeypatch.setattr(lexical_blocks, "BITS", 3)  # this file's blocks would not line up with the search's
    assert lexical_blocks.mapped(c.conn, c.conn.execute("SELECT file FROM lex_runs").fetchone()[0]) is None
    assert lexical_search.search(c.conn, ["revenue", "cash"], 5) == want
