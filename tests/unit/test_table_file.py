"""Pages' tables kept on disk beside the index (`tools/answering/table_file.py`): a real PDF's statement page read
once, its tables read back by another process's file object without PyMuPDF, equal field for field; a changed
PDF or page text is a miss; a damaged or unwritable file is a miss, never an error."""
from __future__ import annotations

import os
import sqlite3

import pymupdf
import pytest

from finrag.tools.answering import table_file, tables
from finrag.tools.answering.table_file import FILE_NAME, PageTableFile, table_file_for
from finrag.tools.answering.table_types import Column, Row, Table
from finrag.tools.answering.tables import page_tables

LINES = [("Consolidated Statements of Operations", None, None), ("(In millions)", None, None),
         ("", "2023", "2022"), ("Net revenue", "21,505", "19,409"), ("Cost of revenue", "(2,354)", "(2,165)"),
         ("Operating income", "6,650", "6,098")]


def _statement_pdf(path, revenue="21,505"):
    doc = pymupdf.open()
    page = doc.new_page()
    for i, (label, a, b) in enumerate(LINES):
        y = 72 + 18 * i
        page.insert_text((72, y), label, fontsize=10)
        for x, cell in ((360, a), (460, b)):
            if cell:
                page.insert_text((x, y), revenue if cell == "21,505" else cell, fontsize=10)
    doc.save(str(path))
    doc.close()
    return str(path)


@pytest.fixture(autouse=True)
def _empty_process_cache():
    tables._CACHE.clear()
    yield
    tables._CACHE.clear()


def _no_pdf_reading(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the page was read from the PDF")
    monkeypatch.setattr(tables, "tables_from_words", refuse)


def test_a_page_read_once_is_read_back_by_another_process_equal(tmp_path, monkeypatch):
    pdf = _statement_pdf(tmp_path / "ACME_2023_10K.pdf")
    first = PageTableFile(tmp_path / FILE_NAME)
    got = page_tables("ACME_2023_10K", 0, "Consolidated Statements of Operations", pdf, shared=first)
    assert got and any(r.label == "Net revenue" and 21505.0 in r.values.values() for t in got for r in t.rows)
    assert any(-2354.0 in r.values.values() for t in got for r in t.rows)
    tables._CACHE.clear()  # another process: nothing in memory, a new file object on the same file
    _no_pdf_reading(monkeypatch)
    again = page_tables("ACME_2023_10K", 0, "Consolidated Statements of Operations", pdf,
                        shared=PageTableFile(tmp_path / FILE_NAME))
    assert again == got  # dataclasses: every field, the column -> value maps with int keys


def test_a_changed_pdf_or_page_text_is_a_miss(tmp_path, monkeypatch):
    pdf = _statement_pdf(tmp_path / "ACME_2023_10K.pdf")
    shared = PageTableFile(tmp_path / FILE_NAME)
    page_tables("ACME_2023_10K", 0, "Consolidated Statements of Operations", pdf, shared=shared)
    tables._CACHE.clear()
    while tables._PDFS:  # this process's open copy of the old file (another process opens the new one)
        tables._PDFS.popitem()[1].close()
    _statement_pdf(tmp_path / "ACME_2023_10K.pdf", revenue="99,999")  # rewritten in place
    st = os.stat(pdf)
    os.utime(pdf, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    new = page_tables("ACME_2023_10K", 0, "Consolidated Statements of Operations", pdf, shared=shared)
    assert any(99999.0 in r.values.values() for t in new for r in t.rows)
    tables._CACHE.clear()
    calls = []
    real = tables.tables_from_words
    monkeypatch.setattr(tables, "tables_from_words", lambda *a, **k: calls.append(1) or real(*a, **k))
    page_tables("ACME_2023_10K", 0, "Consolidated Statements of Operations (restated)", pdf, shared=shared)
    assert calls, "another stored page text must not read the old tables"


def test_values_round_trip_exactly():
    t = Table(doc_id="D", page=3, columns=[Column(2023, "2023", 360.5, "Years ended"), Column(None, "% change")],
              rows=[Row("Revenue", {0: 1.5e-7, 1: -2.0}, {0: "0.00000015", 1: "(2)"}, "Revenues:")],
              scale="millions", statement="income", title="Statements", method="words", scope="segment")
    assert table_file._decode(table_file._encode([t])) == [t]


def test_a_damaged_file_is_a_miss_and_answers_go_on(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_bytes(b"not a database" * 200)
    pdf = _statement_pdf(tmp_path / "ACME_2023_10K.pdf")
    shared = PageTableFile(path)
    assert shared.get("any") is None
    shared.put("any", [])  # no error
    assert page_tables("ACME_2023_10K", 0, "", pdf, shared=shared)
    assert path.read_bytes() == b"not a database" * 200  # left as it was


def test_a_value_that_does_not_decode_is_a_miss(tmp_path):
    shared = PageTableFile(tmp_path / FILE_NAME)
    shared.put("k", [])
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("UPDATE page_tables SET tables = '[{\"doc_id\": 1}]' WHERE key = 'k'")
    assert shared.get("k") is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder_is_a_miss(tmp_path):
    tmp_path.chmod(0o555)
    try:
        shared = PageTableFile(tmp_path / FILE_NAME)
        assert shared.get("k") is None
        shared.put("k", [])
    finally:
        tmp_path.chmod(0o755)


def test_one_file_object_per_index_folder(tmp_path):
    assert table_file_for(tmp_path) is table_file_for(str(tmp_path))
    assert table_file_for(None) is None and table_file_for(tmp_path / "missing") is None
