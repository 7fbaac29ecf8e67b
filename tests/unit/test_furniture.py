"""Page furniture is no part of a quoted answer (issue 50): page numbers, "Table of Contents", trademark marks,
footnote letters and running footers are removed from what the offline answers quote; table cells stay."""
from __future__ import annotations

import re

from finrag.tools.answering.extractive import extractive_answer
from finrag.tools.answering.furniture import without_furniture

# shapes of real FinanceBench page text (3M 2022, American Express 2022, Pfizer 2021, Lockheed Martin 2021)
THREE_M = ("The following table contains a summary of net sales by geographic area and business segment.\nTM\nTM\n"
           "TM\nTM\nTM \nTM\n®\n®\n33\n\nTable of Contents\n3M invests in renewal and maintenance programs.\n"
           "Purchases of property, plant and equipment (PP&E) were $1,749 million in 2022.")
AMEX = ("the capabilities of our integrated payments platform.\n®\n®\n2\n\nTable of Contents\nCard Network Business\n"
        "We operate a payments network through which we establish relationships with banks.")
PFIZER = "(a)\n(b)\n(c)\n®\n®\n(d)\n(a), (b)\nPfizer Inc.\n2021 Form 10-K\n72\n\nRevenues grew 95% in 2021."
FURNITURE = re.compile(r"Table of Contents|(?:\b(?:TM|\(R\))|®)\s+(?:\b(?:TM|\(R\))|®)|\b2021 Form 10-K\b")


def test_furniture_lines_are_removed_and_the_text_kept():
    assert without_furniture(THREE_M) == ("The following table contains a summary of net sales by geographic area and "
                                          "business segment.\n\n3M invests in renewal and maintenance programs.\n"
                                          "Purchases of property, plant and equipment (PP&E) were $1,749 million in 2022.")
    assert without_furniture(AMEX).split("\n") == ["the capabilities of our integrated payments platform.", "",
                                                    "Card Network Business", AMEX.rsplit("\n", 1)[1]]
    assert without_furniture(PFIZER) == "Pfizer Inc.\n\nRevenues grew 95% in 2021."
    assert without_furniture("statements.\nTable of Contents \n64\n\nLockheed Martin") == "statements.\n\nLockheed Martin"


def test_table_cells_stay_even_at_a_page_end():
    table = "Revenue\n2022\n2021\nProducts\n128\n115\n\nServices grew."
    assert without_furniture(table) == table
    assert without_furniture("Interest expense was 42\nmillion.") == "Interest expense was 42\nmillion."


def test_an_extractive_answer_quotes_no_furniture():
    contexts = [{"doc_id": "3M_2022_10K", "page_start": 36, "page_end": 37, "chunk_id": None, "text": THREE_M},
                {"doc_id": "AMERICANEXPRESS_2022_10K", "page_start": 1, "page_end": 2, "chunk_id": None, "text": AMEX}]
    answer = extractive_answer("How much did 3M spend on purchases of property, plant and equipment in FY2022?",
                               ["purchases", "property", "plant", "equipment", "2022"], contexts)
    assert "$1,749 million" in answer and not FURNITURE.search(answer), answer


def test_no_break_spaces_are_spaces():
    corning = ("Corning\u00a0did\u00a0not\u00a0have\u00a0any\u00a0amounts\u00a0outstanding.\n\u00a0\n\u00a0\n41\n\n"
               "Table\u00a0of\u00a0Contents\n\u00a0\nShare Repurchases\n")
    assert "Contents" not in without_furniture(corning) and "\n41\n" not in without_furniture(corning)


def test_a_running_footer_with_its_page_number_after_spaces_is_furniture():
    # the shape of a real footer line (NIKE 2023 10-K): the year, the form, then the page number after spaces
    assert without_furniture("Total assets\n$ 37,531\n2023 FORM 10-K   57    \n\nCash") == "Total assets\n$ 37,531\n\nCash"
    assert without_furniture("Acme Corp | 2024 Form 10-Q | 12") == ""
    assert without_furniture("We filed our 2023 Form 10-K on July 20.") == "We filed our 2023 Form 10-K on July 20."


def test_no_quoted_row_is_a_header_of_years_or_a_window_s_cut_start():
    from finrag.tools.answering.extractive import _units

    window = "nts and commitments (Note 9)\n14\nCash and equivalents\n$ 7,441\n$ 8,574\n(Dollars in millions)\n2024\n2023\n"
    units = _units(window, True)
    assert "Cash and equivalents $ 7,441 $ 8,574" in units
    assert not any(u.startswith(("nts and", "(Dollars in millions)")) for u in units), units
    assert "Revenues 2024 51,217" in _units("Revenues 2024\n51,217\n", False)  # a row dated in its label stays
