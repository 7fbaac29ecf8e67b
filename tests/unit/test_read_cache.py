"""The per-index read cache (tools/indexing/read_cache.py) and the per-request memos that serving relies on:
remembered values are the ones the index holds now, never another generation's, and every memo gives what
the computation it replaces gives."""
from __future__ import annotations

import random
import string

import pytest

from finrag.tools.answering.tables import page_titles, statement_titles
from finrag.tools.indexing.read_cache import ReadCache
from finrag.tools.retrieval.vocabulary import KeywordCoverage, word_stems


def test_chunks_are_remembered_per_generation():
    cache = ReadCache()
    found, missing = cache.chunks([1, 2], generation=1)
    assert (found, missing) == ({}, [1, 2])
    cache.add_chunks({1: "one", 2: "two"}, 1, text=str)
    assert cache.chunks([2, 1, 3], generation=1) == ({2: "two", 1: "one"}, [3])
    assert cache.chunks([1, 2], generation=2) == ({}, [1, 2])  # the index changed: everything is read again


def test_a_value_read_under_an_older_generation_is_not_kept():
    cache = ReadCache()
    cache.chunks([1], generation=1)
    cache.chunks([1], generation=2)  # another thread saw the index change meanwhile
    cache.add_chunks({1: "stale"}, 1, text=str)
    assert cache.chunks([1], generation=2) == ({}, [1])
    reads = []

    def read():
        reads.append(1)
        return ["page"]

    assert cache.doc_value(("pages", "d"), 2, read) == ["page"]
    assert cache.doc_value(("pages", "d"), 2, read) == ["page"] and len(reads) == 1
    assert cache.doc_value(("pages", "d"), 3, read) == ["page"] and len(reads) == 2


def test_bounds_drop_the_least_recently_used():
    cache = ReadCache(max_chars=10, max_doc_units=6, max_docs=10)
    cache.add_chunks({1: "aaaa", 2: "bbbb"}, None, text=str)
    cache.chunks([1], None)  # 1 used last
    cache.add_chunks({3: "cccc"}, None, text=str)  # 12 characters > 10: 2 goes
    assert cache.chunks([1, 2, 3], None) == ({1: "aaaa", 3: "cccc"}, [2])
    cache.doc_value("x", None, lambda: "xxxx")
    cache.doc_value("y", None, lambda: "yyyy")  # 8 units > 6: x goes
    assert cache.doc_value("x", None, lambda: "new!") == "new!"
    assert cache.doc_value("too big", None, lambda: "z" * 7) == "z" * 7  # larger than the bound: not kept
    assert ("too big",) not in cache._docs and "too big" not in cache._docs


def test_store_reads_follow_the_index(tmp_path):
    """A removed filing's chunks, ids and pages are not served from memory after the removal."""
    from finrag.tools.demo.corpus import generate_demo_corpus
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    paths = generate_demo_corpus(tmp_path / "filings")
    store = Store(tmp_path / "index", create=True)
    try:
        store.check_embedder(get_embedder())
        index_paths([tmp_path / "filings"], store, progress=False, workers=1, embed=False, log=lambda _m: None)
        doc = store.documents()[0].doc_id
        ids = [int(i) for i in store.chunk_ids_of([doc])]
        first = store.get_chunks(ids)
        assert set(first) == set(ids) and store.get_chunks(ids)[ids[0]] is first[ids[0]]  # the remembered object
        assert store.pages_of(doc)
        with pytest.raises(ValueError):  # shared between requests: read-only
            store.chunk_ids_of([doc])[0] = 7
        assert store.remove_document(doc)
        assert store.get_chunks(ids) == {}
        assert store.chunk_ids_of([doc]).size == 0
        assert store.pages_of(doc) == []
        index_paths([p for p in paths if p.stem.startswith(doc.split("_")[0])], store, progress=False, workers=1,
                    embed=False, log=lambda _m: None)
        again = [int(i) for i in store.chunk_ids_of([doc])]
        assert again and not set(again) & set(ids)  # new chunk ids, read from the index
        assert store.get_chunks(again)[again[0]].doc_id == doc
    finally:
        store.close()


def _random_text(rng: random.Random, n: int = 240) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + " ,.&%-é’;\n\t$()") for _ in range(n))


def test_keyword_coverage_from_stems_equals_the_scan():
    """`of_stems` over `word_stems(text)` is `KeywordCoverage(text)`: sentences of filings, and hostile text
    with keywords of odd characters ('3M’s', a lone '%', 'é', spaces, commas)."""
    rng = random.Random(7)
    filing = ("Capital expenditures were $1,577 million in 2018 (2017: $1,373 million). 3M’s net sales rose 3.5%; "
              "R&D and related expenses were $1.8 billion. Operating income/(loss) of the U.S. segment, "
              "net of tax, increased. Revenues, cost of revenues and the company's e-commerce sales")
    words = filing.split() + ["revenue", "3m", "r&d", "u.s.", "%", "é", "", "income,", "capital expenditure",
                              "3M’s", "e", "-", "expenditur", "sale"]
    for _ in range(400):
        cov = KeywordCoverage(rng.sample(words, 8))
        assert cov.of_stems(word_stems(filing), filing) == cov(filing)
    for _ in range(2000):
        text = _random_text(rng)
        cov = KeywordCoverage(["".join(rng.choice("abcde0123.-%&,’;é ") for _ in range(rng.randint(0, 5)))
                               for _ in range(6)])
        assert cov.of_stems(word_stems(text), text) == cov(text)


def test_page_titles_remember_statement_titles():
    page = "Table of contents\nCONSOLIDATED STATEMENTS OF CASH FLOWS\n(in millions)\nSee Notes to Consolidated Statements of Income"
    assert page_titles(page) == tuple(statement_titles(page)) == ("cash_flow",)
    assert page_titles(page) is page_titles(page)
    assert page_titles("") == ()
