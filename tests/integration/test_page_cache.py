"""A cited page is rendered once: the second request for the same page and zoom is the cached PNG, and a
different zoom or page is a new render. Checked by counting renders (PyMuPDF's `get_pixmap`), not by time:
how fast the cached fetch is lives in bench/web_page.py."""
from __future__ import annotations

import pytest

from finrag import web_pages
from finrag.state.configuration import Configuration
from finrag.tools.indexing import open_index


@pytest.fixture
def renders(monkeypatch):
    """Counts PyMuPDF page renders while the test runs, on an empty PNG cache."""
    from finrag.tools.documents.parsing import quiet_mupdf

    pymupdf = quiet_mupdf()
    real = pymupdf.Page.get_pixmap
    count = {"n": 0}

    def counted(self, *args, **kwargs):
        count["n"] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_pixmap", counted)
    monkeypatch.setattr(web_pages, "_PNGS", web_pages._LRU(4))
    return count


def test_a_page_is_rendered_once_per_zoom(demo_index, demo_corpus, renders):
    store = open_index.open_index(Configuration(index_dir=str(demo_index)))
    doc_id = demo_corpus[1][0].stem
    first, etag = web_pages.page_png(store, doc_id, 2, zoom=2)
    again, etag_again = web_pages.page_png(store, doc_id, 2, zoom=2)
    assert first.startswith(b"\x89PNG") and again == first and etag_again == etag
    assert renders["n"] == 1
    other_zoom, other_etag = web_pages.page_png(store, doc_id, 2, zoom=1)
    assert renders["n"] == 2 and other_zoom != first and other_etag != etag
    web_pages.page_png(store, doc_id, 3, zoom=2)
    assert renders["n"] == 3


def test_the_cache_keeps_only_the_latest_pages(demo_index, demo_corpus, renders):
    store = open_index.open_index(Configuration(index_dir=str(demo_index)))
    doc_id = demo_corpus[1][0].stem
    for page in (1, 2, 3, 4, 5):  # a cache of 4: page 1 is dropped
        web_pages.page_png(store, doc_id, page, zoom=1)
    web_pages.page_png(store, doc_id, 5, zoom=1)
    assert renders["n"] == 5
    web_pages.page_png(store, doc_id, 1, zoom=1)
    assert renders["n"] == 6
