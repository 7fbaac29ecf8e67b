"""The generated demo corpus (tools/demo/) and the bad-input fixtures (tests/support/bad_files.py)."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

try:
    import pymupdf as fitz
except ImportError:  # pragma: no cover
    import fitz  # type: ignore

from support import bad_files as bf

from finrag.tools.demo import corpus as dc

EXPECTED_NAMES = [
    "ACMEWIDGETS_2022_10K.pdf", "ACMEWIDGETS_2023_10K.pdf",
    "BOREALISENERGY_2022_10K.pdf", "BOREALISENERGY_2023_10K.pdf",
    "COBALTSOFTWARE_2022_10K.pdf", "COBALTSOFTWARE_2023_10K.pdf",
]
HEADINGS = [
    "Item 1. Business", "Item 1A. Risk Factors",
    "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "Revenue Recognition", "Liquidity and Capital Resources",
    "Item 8. Financial Statements and Supplementary Data", "Consolidated Statements of Operations",
    "Consolidated Balance Sheets", "Consolidated Statements of Cash Flows",
]


def _pages(path: Path) -> list[str]:
    with fitz.open(path) as doc:
        return [page.get_text() for page in doc]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    t0 = time.perf_counter()
    paths = dc.generate_demo_corpus(out)
    elapsed = time.perf_counter() - t0
    return {"dir": out, "paths": paths, "elapsed": elapsed,
            "text": {p.stem: _pages(p) for p in paths}}


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    return bf.make_bad_files(tmp_path_factory.mktemp("bad"))


# ---------------------------------------------------------------------------------------------- corpus
def test_file_names_and_speed(corpus):
    assert [p.name for p in corpus["paths"]] == EXPECTED_NAMES
    assert all(p.is_file() for p in corpus["paths"])
    assert [fl.doc_id for fl in dc.demo_filings()] == [n[:-4] for n in EXPECTED_NAMES]
    assert dc.demo_doc_id("ACME", 2023) == "ACMEWIDGETS_2023_10K"


def test_deterministic_bytes_and_text(corpus, tmp_path):
    again = dc.generate_demo_corpus(tmp_path)
    for a, b in zip(corpus["paths"], again):
        assert a.name == b.name
        assert a.read_bytes() == b.read_bytes()
        assert _pages(b) == corpus["text"][a.stem]


def test_text_equals_demo_filing_pages(corpus):
    for fl in dc.demo_filings():
        expected = dc.demo_filing_pages(fl.company, fl.year)
        got = corpus["text"][fl.doc_id]
        assert len(got) == len(expected)
        for i, (g, e) in enumerate(zip(got, expected)):
            lines = g.splitlines()
            if i:  # printed page number footer
                assert lines[-1] == str(i + 1)
                lines = lines[:-1]
            assert lines == e.splitlines()


def test_page_count_and_volume(corpus):
    for doc_id, pages in corpus["text"].items():
        assert 8 <= len(pages) <= 12, doc_id
        sizes = [len(t) for t in pages]
        assert all(s <= 3600 for s in sizes), (doc_id, sizes)
        assert all(s >= 1500 for s in sizes[:-1]), (doc_id, sizes)
        assert sum(sizes) > 20_000
        assert all(len(t.strip()) > 0 for t in pages)


def test_cover_page(corpus):
    for fl in dc.demo_filings():
        c, cover = fl.company, corpus["text"][fl.doc_id][0]
        for s in ("UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K",
                  "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
                  f"For the fiscal year ended {c.fiscal_year_end}, {fl.year}",
                  "Title of each class", "Trading Symbol(s)", "Name of each exchange on which registered"):
            assert s in cover, (fl.doc_id, s)
        lines = cover.splitlines()
        i = lines.index("(Exact name of registrant as specified in its charter)")
        assert lines[i - 1] == c.name
        j = next(k for k, ln in enumerate(lines) if ln.startswith("Title of each class"))
        assert re.search(rf"\s{c.ticker}\s", lines[j + 1]) and c.exchange in lines[j + 1]
    assert "For the fiscal year ended December 31, 2023" in corpus["text"]["ACMEWIDGETS_2023_10K"][0]


def test_same_headings_in_every_filing(corpus):
    for doc_id, pages in corpus["text"].items():
        lines = {ln for t in pages for ln in t.splitlines()}
        for h in HEADINGS:
            assert h in lines, (doc_id, h)


def _line(pages: list[str], prefix: str) -> str:
    return next(ln for t in pages for ln in t.splitlines() if ln.startswith(prefix))


def test_numbers_differ_across_companies_and_years(corpus):
    for prefix in ("Total revenue   ", "Net income   ", "  Capital expenditures", "Total current assets  ",
                   "  Cash and cash equivalents", "Total revenue for fiscal", "As of "):
        values = [_line(pages, prefix) for pages in corpus["text"].values()]
        assert len(set(values)) == len(values), prefix
    # the text around the numbers is the same boilerplate: only digits (and names/dates) change
    mdna = [re.sub(r"[\d,.$%]+", "#", _line(p, "Total revenue for fiscal")) for p in corpus["text"].values()]
    assert len(set(mdna)) <= 2  # "an increase" / "a decrease"
    fin = [dc.demo_financials(c, y) for c in dc.DEMO_COMPANIES[:3] for y in (2022, 2023)]
    for key in ("revenue", "net_income", "capex", "total_current_assets", "cash", "employees", "tax",
                "dividends"):
        assert len({f[key] for f in fin}) == len(fin), key


def test_prior_year_comparatives_match_prior_filing():
    for c in dc.DEMO_COMPANIES[:3]:
        f22 = dc.demo_financials(c, 2022)
        text23 = "\n".join(dc.demo_filing_pages(c, 2023))
        assert f"${f22['revenue'] / 10:,.1f} million in fiscal 2022" in text23  # amounts never wrap


def test_financials_are_consistent():
    for c in dc.DEMO_COMPANIES:
        for y in range(dc.MIN_YEAR - 1, dc.MAX_YEAR + 1, 3):
            f = dc.demo_financials(c, y)
            assert f["revenue"] == f["seg1_revenue"] + f["seg2_revenue"] > 0
            assert f["net_income"] == f["pretax"] - f["tax"] > 0
            assert f["total_assets"] == f["total_liabilities"] + f["equity"] and f["equity"] > 0
            assert f["cash"] == f["cash_begin"] + f["cfo"] + f["cfi"] + f["cff"]
            assert f["total_current_assets"] == f["cash"] + f["ar"] + f["inventory"] + f["prepaid"]


def test_fiscal_year_end_is_per_company():
    cobalt = dc.company_by("CBLT")
    assert cobalt.fiscal_year_end == "June 30"
    assert "For the fiscal year ended June 30, 2023" in dc.demo_filing_pages(cobalt, 2023)[0]


def test_companies_metadata():
    keys = [c.key for c in dc.DEMO_COMPANIES]
    tickers = [c.ticker for c in dc.DEMO_COMPANIES]
    assert len(set(keys)) == len(keys) and len(set(tickers)) == len(tickers)
    assert all(re.fullmatch(r"[A-Z]+", k) for k in keys)
    acme = dc.company_by("acme")
    assert (acme.name, acme.ticker, acme.key) == ("Acme Widgets, Inc.", "ACME", "ACMEWIDGETS")
    assert dc.company_by("Borealis Energy Corporation").ticker == "BORL"
    with pytest.raises(KeyError):
        dc.company_by("Apple")
    with pytest.raises(ValueError):
        dc.demo_filings(companies=99)


def test_tables_load_from_package_data():
    """Companies, filing texts, statement rows and question templates are files in tools/demo/data/."""
    from importlib.resources import files

    from finrag.tools.demo import companies, data_files
    for name in ("companies.yaml", "filing_text.yaml", "statements.yaml", "questions.yaml"):
        assert (files("finrag.tools.demo") / "data" / name).is_file()
        assert (data_files.DATA_DIR / name).is_file()
    assert companies.load_companies() == dc.DEMO_COMPANIES


# ------------------------------------------------------------------------------------------- questions
def test_questions_answers_on_evidence_pages(corpus):
    qs = dc.demo_questions(corpus["paths"])
    assert 10 <= len(qs) <= 14
    assert len({q["id"] for q in qs}) == len(qs)
    docs = {p.stem for p in corpus["paths"]}
    for q in qs:
        assert {"id", "question", "answer", "doc_id", "evidence_pages"} <= set(q)
        assert q["doc_id"] in docs and q["evidence_pages"]
        pages = corpus["text"][q["doc_id"]]
        for pg in q["evidence_pages"]:
            assert q["answer"] in pages[pg], (q["id"], pg)
        for ev in q["evidence"]:
            assert ev["doc_name"] == q["doc_id"] and q["answer"] in ev["evidence_text"]
        c = dc.company_by(q["ticker"])
        assert c.ticker in q["question"] or c.short in q["question"]
    assert any(q["ticker"] in q["question"] and dc.company_by(q["ticker"]).short not in q["question"]
               for q in qs)
    assert any(q["question_type"] == "distinctive_fact" for q in qs)
    assert {q["doc_id"] for q in qs} == docs  # every filing is asked about


def test_metric_answers_are_unique_to_their_company(corpus):
    """Cross-document confusion is real: the answer is not in another company's filing."""
    for q in dc.demo_questions(corpus["paths"]):
        for doc_id, pages in corpus["text"].items():
            if not doc_id.startswith(dc.company_by(q["ticker"]).key + "_"):
                assert q["answer"] not in "\n".join(pages), (q["id"], doc_id)


def test_questions_from_paths_dir_and_defaults_agree(corpus, tmp_path):
    by_default = dc.demo_questions()
    assert dc.demo_questions(corpus["paths"]) == by_default
    assert dc.demo_questions(corpus["dir"]) == by_default
    out = dc.write_demo_questions(tmp_path / "q.jsonl", corpus["paths"])
    rows = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()]
    assert rows == by_default
    first = by_default[0]
    assert first["question"] == "What was Acme Widgets' total revenue in FY2022?"
    assert re.fullmatch(r"\$[\d,]+\.\d million", first["answer"])


def test_questions_for_other_selections():
    qs = dc.demo_questions(companies=5, years=(2021, 2022, 2023))
    assert len(qs) == 12
    for q in qs:
        pages = dc.demo_filing_pages(q["ticker"], q["fiscal_year"])
        assert all(q["answer"] in pages[pg] for pg in q["evidence_pages"])
    assert len(dc.demo_questions(companies=1, years=(2020,))) == 12


# ------------------------------------------------------------------------------------------- bad files
def test_bad_files_exist_as_documented(bad):
    assert set(bad) == set(bf.BAD_FILES)
    for key, path in bad.items():
        assert path.name == bf.BAD_FILES[key].file_name
        assert bf.BAD_FILES[key].reason and bf.BAD_FILES[key].expect in ("error", "no_text", "ok")
    assert bad["empty"].is_file() and bad["empty"].stat().st_size == 0
    assert bad["dangling"].is_symlink() and not bad["dangling"].exists()
    assert bad["directory"].is_dir()


def test_bad_pdfs_behave_as_expected(bad):
    with pytest.raises(fitz.FileDataError):
        fitz.open(bad["corrupt"])
    assert bad["corrupt"].read_bytes().startswith(b"%PDF-")
    with pytest.raises(fitz.EmptyFileError):
        fitz.open(bad["empty"])
    with fitz.open(bad["encrypted"]) as doc:
        assert doc.needs_pass and doc.is_encrypted
        assert doc.authenticate(bf.ENCRYPTED_USER_PASSWORD)
        assert "FORM 10-K" in doc[0].get_text()
    with fitz.open(bad["scanned"]) as doc:
        assert doc.is_pdf and doc.page_count == 2 and not doc.needs_pass
        for page in doc:
            assert page.get_text().strip() == ""
            assert page.get_images() and page.get_drawings()
    data = bad["notapdf"].read_bytes()
    assert not data.startswith(b"%PDF-") and b"<html" in data
    with fitz.open(bad["notapdf"]) as doc:  # MuPDF sniffs content: opens as HTML, not as a PDF
        assert not doc.is_pdf


def test_bad_files_deterministic_and_idempotent(bad, tmp_path):
    again = bf.make_bad_files(tmp_path)
    bf.make_bad_files(tmp_path)  # re-running over existing files, symlink and directory works
    for key in ("corrupt", "scanned", "notapdf", "good_txt", "good_htm"):
        assert again[key].read_bytes() == bad[key].read_bytes(), key


def test_good_text_and_html(bad):
    txt = bad["good_txt"].read_text(encoding="utf-8")
    pages = txt.rstrip("\n").split("\f")
    assert pages == dc.demo_filing_pages(*bf.GOOD_TXT_SOURCE)
    assert "(Exact name of registrant as specified in its charter)" in pages[0]
    htm = bad["good_htm"].read_text(encoding="utf-8")
    c = dc.company_by(bf.GOOD_HTM_SOURCE[0])
    f = dc.demo_financials(c, bf.GOOD_HTM_SOURCE[1])
    assert "<table" in htm and "Trading Symbol(s)" in htm and f">{c.ticker}<" in htm
    plain = re.sub(r"<[^>]+>", " ", htm)
    assert c.name in plain and "(Exact name of registrant as specified in its charter)" in plain
    assert f"{f['revenue'] / 10:,.1f}" in plain and "Total revenue" in plain
