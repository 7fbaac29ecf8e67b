"""Cover facts from the text of a filing that tags none (issue 33): the auditor's signature and the cover's public
float, each cited to its page; nothing when the text does not say it."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.pages import TextPages

from finrag.tools.answering.cover_text import answer_cover_text
from finrag.tools.answering.sources import PdfPages
from finrag.tools.question import read_question

COVER = ("ACME CLOUD, INC.\nAnnual Report on Form 10-K\nThe aggregate market value of the voting stock held by "
         "non-affiliates of the Registrant, as of June 28, 2024, the last business day of the Registrant's most "
         "recently completed second fiscal quarter, was approximately $12,345,678,901.\n")
REPORT = ("Report of Independent Registered Public Accounting Firm\nTo the Shareholders of Acme Cloud, Inc.\n"
          "Opinion on the Financial Statements\nWe have audited the accompanying consolidated balance sheets ...\n")
SIGNED = "Critical Audit Matters\n... the matter below ...\n/s/ Deloitte & Touche LLP\nWe have served as the Company's auditor since 2001.\n"
CONSENT = "Consent of Independent Registered Public Accounting Firm\n/s/ Deloitte & Touche LLP\n"


INFO = {"company": "Acme Cloud", "fiscal_year": 2024}


def test_the_auditor_is_the_reports_signer_on_the_page_after_its_opinion():
    r = answer_cover_text(read_question("Who audited Acme Cloud's FY2024 financial statements?"),
                          TextPages([COVER, "notes", REPORT, SIGNED, "more notes", CONSENT]), "acme-10k", INFO)
    assert r is not None and r.asked == "cover" and r.confident
    assert r.answer.startswith("Acme Cloud's independent registered public accounting firm is Deloitte & Touche LLP "
                               "[acme-10k, p. 3].")


def test_the_public_float_with_its_as_of_date():
    r = answer_cover_text(read_question("What was Acme Cloud's public float in its FY2024 10-K?"),
                          TextPages([COVER, REPORT]), "acme-10k", INFO)
    assert r is not None and r.value == 12_345_678_901.0
    assert "as of June 28, 2024: $12,345,678,901 ($12.35 billion) [acme-10k, p. 0]" in r.answer


def test_nothing_said_is_no_answer():
    pages = TextPages(["ACME CLOUD, INC.", "We have audited ... (no signature)", "/s/ Jane Doe, Chief Executive Officer"])
    for q in ["Who audited Acme Cloud's FY2024 financial statements?", "What was Acme Cloud's public float?"]:
        assert answer_cover_text(read_question(q), pages, "acme-10k", INFO) is None, q


PDFS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench" / "pdfs"


@pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")
@pytest.mark.parametrize("doc, auditor", [("3M_2018_10K", "PricewaterhouseCoopers LLP"),
                                          ("PEPSICO_2022_10K", "KPMG LLP")])
def test_real_pdfs(doc, auditor):
    r = answer_cover_text(read_question("Who is the auditor?"), PdfPages.from_dir(PDFS, [doc]), doc, {})
    assert r is not None and f"is {auditor} [{doc}, p. " in r.answer, r and r.answer
