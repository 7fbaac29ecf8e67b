"""Section detection (tools/indexing/sections.py): items, notes, tables of contents, statements placed after
Item 15 or inside MD&A, chunk labels; and precision/recall on the hand-labelled real filings."""
from __future__ import annotations

from pathlib import Path

import pytest

from finrag.tools.indexing.chunking import join_pages
from finrag.tools.indexing.sections import detect_sections, item_of_title, label_chunks, note_topic

ROOT = Path(__file__).resolve().parents[2]

TOC = ("Table of Contents\nPART I\nItem 1.\nBusiness\n3\nItem 1A.\nRisk Factors\n9\nItem 3.\nLegal Proceedings\n20\n"
       "PART II\nItem 7.\nManagement's Discussion and Analysis\n25\nItem 8.\nFinancial Statements and Supplementary Data\n40\n")
PAGES = [
    "ACME CORP\nAnnual Report on Form 10-K\n1. We make widgets.\n",  # a numbered list before Item 1: no note
    TOC,
    "PART I\nItem 1. Business\nWe make widgets. Our customers are airlines.\n",
    "Item 1A. Risk Factors\nWe depend on a few customers. See Item 7 of this report.\n",
    "Item 3. Legal Proceedings\nWe are a defendant in several lawsuits.\n",
    "PART II\nItem 7.\nManagement’s Discussion and Analysis of Financial Condition and Results of Operations\n"
    "Revenue grew because of pricing.\n1. Pricing\n",
    "Item 8. Financial Statements and Supplementary Data\nConsolidated Statements of Income\nRevenue 100\n",
    "Notes to Consolidated Financial Statements\nNote 1 – Summary of Significant Accounting Policies\nBasis.\n"
    "Note 2 – Acquisitions\nWe acquired Beta Inc. for $10 million.\n",
    "NOTE 3: COMMITMENTS AND CONTINGENCIES\nLitigation.\nNote 4 – Supply Chain Finance Program\nText.\n",
]


def test_items_are_read_from_their_titles_and_the_table_of_contents_is_skipped():
    found = [(s.kind, s.key, s.page) for s in detect_sections(PAGES)]
    items = [(k, p) for kind, k, p in found if kind == "item"]
    assert items == [("business", 2), ("risk_factors", 3), ("legal_proceedings", 4), ("mdna", 5),
                     ("financial_statements", 6)]


def test_notes_only_inside_the_financial_statements_and_other_topics_end_a_note():
    notes = [(s.key, s.page) for s in detect_sections(PAGES) if s.kind == "note"]
    assert notes == [("accounting_policies", 7), ("acquisitions", 7), ("contingencies", 8), ("other", 8)]


def test_titles_are_compared_without_the_spaces_pdf_text_puts_in_words():
    assert note_topic("6. Acquisit ions") == "acquisitions" and note_topic("10. Deb t") == "debt"
    assert item_of_title("MANAGEMENT’S DISCUSSION AND ANALYSIS") == "mdna"
    assert item_of_title("Exhibit and Financial Statement Schedules") == "exhibits"
    assert item_of_title("see the discussion above") is None


def test_statements_after_item_15_and_inside_mdna_start_the_financial_statements_again():
    after_15 = ["Item 7. Management's Discussion and Analysis\nText\n",
                "Item 8. Financial Statements and Supplementary Data\nSee Item 15.\n",
                "Item 15. Exhibits\nList\n", "Signatures\nName\n",
                "Index to Financial Statements\nReport of Independent Registered Public Accounting Firm\n",
                "Note 1 – Income Taxes\nRate.\n"]
    keys = [(s.kind, s.key, s.page) for s in detect_sections(after_15)]
    assert ("item", "signatures", 3) in keys and ("item", "financial_statements", 4) in keys
    assert ("note", "income_taxes", 5) in keys
    inside_7 = ["Item 7. Management's Discussion and Analysis\nText\n", "Table of Contents\nConsolidated Statement of "
                "Income\nPepsiCo\nRevenue 1\n", "Note 1 – Leases\nText\n", "Item 7A. Quantitative and Qualitative "
                "Disclosures About Market Risk\nText\n"]
    keys = [(s.kind, s.key, s.page) for s in detect_sections(inside_7)]
    assert keys[:3] == [("item", "mdna", 0), ("item", "financial_statements", 1), ("note", "leases", 2)]


def test_chunks_are_labelled_with_the_item_and_note_they_start_in():
    pages = [p + "Filler text of a real page. " * 20 for p in PAGES]  # pages as long as real ones
    text, starts = join_pages(pages)
    secs = detect_sections(pages)
    chunk_starts = [starts[2], starts[5] + 10, starts[7] + 120, starts[8]]
    assert label_chunks(secs, chunk_starts) == [("business", None), ("mdna", None),
                                                 ("financial_statements", "acquisitions"),
                                                 ("financial_statements", "other")]  # Note 4 fills it
    assert label_chunks([], [0, 5]) == [(None, None), (None, None)]


def test_precision_and_recall_on_the_hand_labelled_real_filings(shared_data):
    from bench import sections as bench
    for f in __import__("json").loads(bench.LABELS.read_text())["filings"]:
        if not (shared_data.parent / f["source"]).exists():
            pytest.skip(f"{f['source']} is not in ../shared/data")
    res = bench.score(shared_data.parent)
    assert res["items_overall"]["recall"] >= 0.95 and res["items_overall"]["precision"] >= 0.95
    assert res["notes_overall"]["recall"] >= 0.95 and res["notes_overall"]["precision"] >= 0.9
    formats = {f["format"] for f in res["filings"]}
    assert formats == {"pdf", "html"}
