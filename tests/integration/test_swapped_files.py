"""Issue 49 cases 2 and 10: a filing replaced on disk after indexing is never read under the indexed filing's
identity, and one huge row of the page-table file is never decoded.

Cobalt Software's FY2022 10-K copied over Acme Widgets' (modification time restored): the statement reader read
the tables from the file as it was now, and answered "Acme Widgets' FY2022 total revenue was $2,204.5 million"
(Cobalt's figure), and `/documents/{id}/file` served Cobalt's PDF as Acme's.
"""
from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import time

import httpx
import pytest

CHANGED = "the file changed since it was indexed; run finrag index"  # file_identity.CHANGED, word for word

ACME, COBALT = "ACMEWIDGETS_2022_10K", "COBALTSOFTWARE_2022_10K"
QUESTION = "What was Acme Widgets' total revenue in FY2022?"


@pytest.fixture
def swap_index(demo_corpus, tmp_path):
    """An index (text only) of a copy of the demo filings, and that copy's folder."""
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    filings = tmp_path / "filings"
    shutil.copytree(demo_corpus[0], filings)
    store = Store(tmp_path / "index", create=True)
    store.check_embedder(get_embedder())
    report = index_paths([filings], store, progress=False, workers=1, embed=False)
    assert not report.failed
    store.close()
    return tmp_path / "index", filings


def _swap(filings):
    """Cobalt's FY2022 PDF copied over Acme's, the modification time set back to Acme's."""
    target = filings / f"{ACME}.pdf"
    st = os.stat(target)
    shutil.copyfile(filings / f"{COBALT}.pdf", target)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def _answer(index) -> str:
    from finrag import run_query
    from finrag.tools.answering import tables
    from finrag.tools.indexing import open_index

    open_index.reset()
    tables._CACHE.clear()  # a fresh process
    while tables._PDFS:
        tables._PDFS.popitem()[1].close()
    return run_query(QUESTION, "sfr", index=str(index)).answer


def test_a_filing_replaced_after_indexing_is_not_read_as_the_indexed_one(swap_index, caplog):
    index, filings = swap_index
    before = _answer(index)
    assert "1,476.2" in before and "2,204.5" not in before, before  # Acme's figure from Acme's file
    _swap(filings)
    (index / "page_tables.sqlite").unlink(missing_ok=True)
    with caplog.at_level(logging.WARNING):
        after = _answer(index)
    assert "2,204.5" not in after, after  # never Cobalt's figure as Acme's
    assert after.startswith(f"{ACME}: {CHANGED}."), after  # and the answer says why, first
    assert any(CHANGED in r.getMessage() and ACME in r.getMessage() for r in caplog.records)


def test_the_page_table_file_does_not_answer_for_a_replaced_file(swap_index):
    """The disk cache is keyed by the content hash recorded at indexing: tables read from the original file are
    still Acme's (never the new file's), whatever the new file's size and modification time."""
    index, filings = swap_index
    assert "1,476.2" in _answer(index)  # read once: page_tables.sqlite holds Acme's page
    _swap(filings)
    assert "2,204.5" not in _answer(index)


def test_the_server_refuses_the_file_and_page_image_of_a_replaced_filing(swap_index):
    from support.servers import ThreadServer

    from finrag.server import create_app

    index, filings = swap_index
    _swap(filings)
    with ThreadServer(create_app(index, warm_up=False)) as srv:
        got = httpx.get(f"{srv.url}/documents/{ACME}/file", timeout=30)
        assert got.status_code == 409 and CHANGED in got.json()["detail"], got.text[:300]
        assert "%PDF" not in got.text
        img = httpx.get(f"{srv.url}/documents/{ACME}/pages/0/image", timeout=30)
        assert img.status_code == 409 and CHANGED in img.json()["detail"]
        page = httpx.get(f"{srv.url}/documents/{ACME}/pages/0", timeout=30).json()
        assert page["file_state"] == "changed" and page["view"] == "text" and CHANGED in page["note"]
        ok = httpx.get(f"{srv.url}/documents/{COBALT}/file", timeout=30)
        assert ok.status_code == 200 and ok.content.startswith(b"%PDF")


def test_a_huge_page_table_row_is_a_miss_not_decoded(tmp_path):
    """Issue 49 case 10: one 45 MB row (valid JSON, 360k rows) made every question on its filing take 12-17 s."""
    from finrag.tools.answering.table_file import FILE_NAME, PageTableFile

    shared = PageTableFile(tmp_path / FILE_NAME)
    shared.put("small", [])
    row = '{"label":"x","values":{"0":1.0},"raw":{"0":"1"},"section":""}'
    huge = ('[{"doc_id":"D","page":0,"columns":[],"rows":[' + ",".join([row] * 360_000) + '],"scale":"",'
            '"statement":null,"title":"","method":"words","scope":""}]')
    assert len(huge) > 20_000_000
    with sqlite3.connect(tmp_path / FILE_NAME) as conn:
        conn.execute("INSERT OR REPLACE INTO page_tables (key, tables) VALUES (?, ?)", ("planted", huge))
    t0 = time.perf_counter()
    assert shared.get("planted") is None
    assert time.perf_counter() - t0 < 1.0
    assert shared.get("small") == []
