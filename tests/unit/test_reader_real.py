"""The statement reader on real filings (skipped when ../shared/data is absent).

`eval/data/reader_questions.jsonl` holds questions written for the reader over FinanceBench filings that no
dev question is about; their answers were read by hand from the PDFs' statement pages. The reader gets no
retrieved context here: only the routed filing, whose statement pages it finds by their titles.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from finrag.tools.answering.reader import read
from finrag.tools.answering.sources import PdfPages
from finrag.tools.answering.tables import tables_from_text, tables_from_words

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [json.loads(line) for line in (REPO / "eval" / "data" / "reader_questions.jsonl").open(encoding="utf-8")]


@pytest.fixture(scope="module")
def pages(shared_data) -> PdfPages:
    return PdfPages.from_dir(shared_data / "pdfs")


def _number(text: str) -> float:
    return float(re.findall(r"-?\d[\d,]*\.?\d*", text)[0].replace(",", ""))


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_written_questions_on_real_filings(pages, q):
    doc = q["doc_id"]
    info = {"company": doc.split("_")[0].title(), "fiscal_year": int(re.search(r"_(\d{4})", doc).group(1)),
            "form": "10K"}
    r = read(q["question"], [], pages, routed_docs=[doc], doc_info=info)
    assert r.confident, r.answer
    first = r.answer.split(". Formula")[0].split(". Source")[0].split(". Values")[0]
    got = re.findall(r"[-+]?\$?\d[\d,]*\.?\d*", first.split(" was ")[-1].split(" changed by ")[-1])
    assert got, first
    assert _number(got[0].replace("$", "")) == pytest.approx(_number(q["answer"]), abs=0.011), r.answer
    if q.get("evidence_pages"):
        assert {f.page for f in r.found} <= set(q["evidence_pages"]) | {p + 1 for p in q["evidence_pages"]}, r.found


def test_words_and_text_agree_on_3m_cash_flow_page(shared_data):
    import pymupdf

    with pymupdf.open(shared_data / "pdfs" / "3M_2018_10K.pdf") as pdf:
        p = pdf[59]
        words = tables_from_words(p.get_text("words"), page_width=p.rect.width, text=p.get_text())
        text = tables_from_text(p.get_text())
    for tabs in (words, text):
        [t] = tabs
        assert [c.year for c in t.columns] == [2018, 2017, 2016] and t.scale == "millions"
        rows = {r.label: r.values for r in t.rows}
        assert rows["Purchases of property, plant and equipment (PP&E)"] == {0: -1577.0, 1: -1373.0, 2: -1420.0}
        assert rows["Net cash provided by (used in) operating activities"][0] == 6439.0


def test_percent_columns_between_periods_go_to_no_period(shared_data):
    """Ulta's earnings release prints '% of net sales' after each amount; only the amounts are periods."""
    import pymupdf

    with pymupdf.open(shared_data / "pdfs" / "ULTABEAUTY_2023Q4_EARNINGS.pdf") as pdf:
        p = pdf[5]
        tabs = tables_from_words(p.get_text("words"), page_width=p.rect.width, text=p.get_text())
    quarter = tabs[0]
    rows = {r.label: r.values for r in quarter.rows}
    years = [c.year for c in quarter.columns]
    assert rows["Net sales"][years.index(2023)] == 3226773.0 and rows["Net sales"][years.index(2022)] == 2729388.0
