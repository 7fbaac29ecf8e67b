"""Ranking questions (issue 33): which segment, region, product category or balance-sheet line ranks first.

The reading of the question (`tools/question/ranking.py`), the answer's arithmetic (`rankings.py`), the tagged
facts' path (`member_ranking.py`, a made-up 10-K and Apple's real one) and the statement tables' path
(`ranking_tables.py`: a PDF written here, whose income statement lists kinds of revenue and whose supplemental
page lists regions under a caption, and real FinanceBench PDFs that no dev question ranks).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from support.ixbrl import widgetco_facts

from finrag.state.question import Ranking
from finrag.tools.answering.member_ranking import answer_member_ranking
from finrag.tools.answering.ranking_tables import answer_ranking_from_tables
from finrag.tools.answering.rankings import Breakdown, Part, is_aggregate, render_ranking
from finrag.tools.answering.sources import PdfPages
from finrag.tools.documents.html import html_document
from finrag.tools.question import read_question
from finrag.tools.question.ranking import ranking_of

REPO = Path(__file__).resolve().parents[2]
APPLE = REPO.parent / "shared" / "data" / "edgar" / "aapl-10-k-2024-11-01.html"
PDFS = REPO.parent / "shared" / "data" / "financebench" / "pdfs"


# --------------------------------------------------------------------------- reading the question
@pytest.mark.parametrize("question, group, by, order, measure, kind, over", [
    ("Which region had the worst topline performance for MGM during FY2022?", "member", "growth", "lowest",
     "revenue", "region", None),
    ("Which region had the Highest EBITDAR Contribution for MGM during FY2022?", "member", "share", "highest",
     "ebitda", "region", None),
    ("Are there any product categories / service categories that represent more than 20% of Boeing's revenue for "
     "FY2022?", "member", "share", "highest", "revenue", "product category", 20.0),
    ("What was the largest liability in American Express's Balance Sheet in 2022?", "liability", "value", "highest",
     "balance", "liability", None),
    ("Which of Apple's product lines had the lowest revenue in fiscal 2024?", "member", "value", "lowest", "revenue",
     "product line", None),
    ("Which reportable segment grew revenue the fastest for KO in Q2 of fiscal 2025?", "member", "growth", "highest",
     "revenue", "reportable segment", None),
    ("Which segment had the highest operating income for Coca-Cola in 2020?", "member", "value", "highest",
     "operating_income", "segment", None),
    ("What was the smallest asset on Verizon's balance sheet in 2022?", "asset", "value", "lowest", "balance",
     "asset", None),
    # the company's own name holds a breakdown noun ("Business"): the noun ranked is the one before the superlative
    ("Which of International Business Machines' regions had the lowest revenue for Q2 FY2025?", "member", "value",
     "lowest", "revenue", "region", None),
    # the superlative before the noun, the noun before "which", no "which" at all, the breakdown after "by"
    ("What was Apple's smallest product category by net sales in fiscal 2024?", "member", "value", "lowest",
     "revenue", "product category", None),
    ("Of the countries Amazon breaks out, which had the smallest net sales in 2024?", "member", "value", "lowest",
     "revenue", "country", None),
    ("Meta's largest geographic region by revenue in 2024?", "member", "value", "highest", "revenue",
     "geographic region", None),
    ("Which is the largest of Coca-Cola's operating segments by revenue?", "member", "value", "highest", "revenue",
     "operating segment", None),
    ("Smallest of Apple's reportable geographic segments by net sales in the June 2025 quarter?", "member", "value",
     "lowest", "revenue", "reportable geographic segment", None),
    ("Oracle's lowest-revenue geographic region in Q1 fiscal 2025?", "member", "value", "lowest", "revenue",
     "geographic region", None),
    ("By geography, where did Tesla generate the least revenue in Q2 2025?", "member", "value", "lowest", "revenue",
     "geography", None),
    ("Tesla Q2 2025 - biggest revenue source by product/service line?", "member", "value", "highest", "revenue",
     "product/service line", None),
])
def test_ranking_questions_are_read(question, group, by, order, measure, kind, over):
    r = read_question(question).ranking
    assert r == Ranking(group=group, by=by, order=order, measure=measure, kind_word=kind, over=over)


@pytest.mark.parametrize("question", [
    "What was Apple's revenue in FY2024?",
    "Which quarter had the highest revenue for Apple in fiscal 2024?",  # no breakdown noun
    "Which segment had the highest operating margin for 3M in 2018?",  # a margin is not ranked from amounts
    "What was the revenue of Apple's Greater China segment in FY2024?",  # one member's value (member_facts)
    "Did revenue in the Americas segment increase in FY2024?",
    "Which region had the most stores for Best Buy in FY2023?",  # a count, not a measure ranked here
    "What is the largest risk factor Apple names?",
    "Which segment is the largest?",  # no measure to rank by
    "What is the biggest risk for Apple?",
    "What were the largest customers of Boeing?",
])
def test_other_questions_are_no_rankings(question):
    assert ranking_of(question) is None


# --------------------------------------------------------------------------- the answer's arithmetic
def _bd(**kw) -> Breakdown:
    parts = [Part("East", 120.0, 100.0, page=3), Part("West", 90.0, 100.0, page=3), Part("North", 60.0, 40.0, page=3)]
    base = dict(doc_id="acme-10k", page=3, parts=parts, title="'Net revenues'", period="FY2024",
                prior_period="FY2023", scale="millions", total=280.0, total_label="Total net revenues",
                others=[Part("Corporate and other", 10.0, 5.0)])
    return Breakdown(**{**base, **kw})


def test_growth_names_the_part_its_inputs_and_the_arithmetic():
    text, named = render_ranking(Ranking(group="member", by="growth", order="highest", kind_word="region"), _bd(),
                                 company="Acme")
    assert [p.name for p in named] == ["North"]
    assert text.startswith("North had the highest revenue growth of Acme's regions for FY2024: $60 million against "
                           "$40 million for FY2023, (60 - 40) / 40 = +50.0% [acme-10k, p. 3].")
    assert "West -10.0%" in text and "Not ranked (reconciling rows, not regions): Corporate and other" in text
    low, named = render_ranking(Ranking(group="member", by="growth", order="lowest", kind_word="region"), _bd())
    assert named[0].name == "West" and "(90 - 100) / 100 = -10.0%" in low


def test_share_uses_the_printed_total_and_a_threshold_lists_every_part_past_it():
    text, named = render_ranking(Ranking(group="member", by="share", kind_word="segment"), _bd())
    assert named[0].name == "East" and "$120 million of Total net revenues $280 million = 42.9%" in text
    text, named = render_ranking(Ranking(group="member", by="share", over=30.0, kind_word="segment"), _bd())
    assert text.startswith("Yes. 2 of the filing's segments represent more than 30% of revenue for FY2024: "
                           "East 42.9% ($120 million); West 32.1% ($90 million)")
    assert [p.name for p in named] == ["East", "West"] and "At or below it: North 21.4%" in text
    text, named = render_ranking(Ranking(group="member", by="share", over=50.0, kind_word="segment"), _bd())
    assert text.startswith("No. None of the filing's segments represents more than 50% of revenue") and not named
    # without a printed total, a share is of the sum of every row (ranked or not)
    text, _ = render_ranking(Ranking(group="member", by="share", kind_word="segment"), _bd(total=None, total_label=""))
    assert "of the sum of the table's rows, $280 million = 42.9%" in text


def test_growth_without_prior_values_is_not_ranked():
    parts = [Part("East", 120.0), Part("West", 90.0)]
    assert render_ranking(Ranking(group="member", by="growth", kind_word="region"), _bd(parts=parts)) == ("", [])


def test_an_aggregate_member_is_the_exact_sum_of_others():
    assert is_aggregate(209_586.0, [201_183.0 - 1.0, 8_404.0, 1.0 + 0.0, 37_005.0])  # 201,182 + 8,404 = 209,586
    assert not is_aggregate(39_296.0, [7_009.0, 7_162.0, 8_097.0, 24_213.0])  # 39,319 is 0.06% off: no aggregate
    assert not is_aggregate(10.0, [10.0])  # one other part equal is no sum


# --------------------------------------------------------------------------- tagged facts
INFO = {"company": "Widgetco", "registrant": "Widgetco, Inc.", "tickers": ["WID"], "fiscal_year": 2024,
        "form": "10K", "period_end": "2024-12-31"}


def test_widgetco_members_ranked_from_their_facts():
    facts = widgetco_facts()
    r = answer_member_ranking(read_question("Which product line had the highest revenue for Widgetco in FY2024?"),
                              facts, "wid-10-k", INFO)
    assert r is not None and r.confident and r.asked == "ranking", r and r.answer
    assert r.answer.startswith("Subscription had the highest revenue of Widgetco's product lines") and \
        "$6,000 million" in r.answer and "Source: the filing's inline XBRL facts" in r.answer
    assert answer_member_ranking(read_question("What was Widgetco's revenue in FY2024?"), facts, "wid-10-k",
                                 INFO) is None


@pytest.mark.skipif(not APPLE.exists(), reason="needs ../shared/data/edgar")
@pytest.mark.parametrize("question, first, figure", [
    ("Which product line had the highest net sales for Apple in fiscal 2024?", "iPhone had the highest revenue",
     "$201,183 million"),
    ("Which of Apple's product lines had the lowest revenue in fiscal 2024?", "iPad had the lowest revenue",
     "$26,694 million"),
    ("Which segment grew revenue the fastest for Apple in FY2024?", "Europe had the highest revenue growth", "+7.5%"),
])
def test_the_real_apple_10k(question, first, figure):
    data = html_document(APPLE.read_text(encoding="utf-8", errors="replace"))[1]
    info = {"company": "Apple", "registrant": "Apple Inc.", "tickers": ["AAPL"], "fiscal_year": 2024, "form": "10K",
            "period_end": "2024-09-28"}
    r = answer_member_ranking(read_question(question), data, "aapl-10-k", info)
    assert r is not None and r.answer.startswith(first) and figure in r.answer, r and r.answer
    assert "Products" not in r.answer.split(". ")[0]  # an aggregate member ("Products") is no part


# --------------------------------------------------------------------------- statement tables
def _write_pdf(path: Path) -> None:
    """Acme Resorts' two pages: an income statement whose revenue rows are kinds of revenue, and a supplemental
    page whose regions sit under a caption, in a table with three- and twelve-month columns."""
    import pymupdf

    doc = pymupdf.open()
    pages = [
        ["ACME RESORTS, INC.", "CONSOLIDATED STATEMENTS OF OPERATIONS", "(In thousands)", "",
         ("", "2024", "2023"), ("Revenues", "", ""), ("Casino", "5,000", "4,000"), ("Rooms", "3,000", "1,000"),
         ("Food and beverage", "2,000", "1,500"), ("Total revenues", "10,000", "6,500"),
         ("Operating income", "1,200", "900")],
        ["ACME RESORTS, INC.", "SUPPLEMENTAL DATA - NET REVENUES", "(In thousands)", "",
         ("", "Three months ended", "Twelve months ended"),  # over the first and the last two columns
         ("", "Dec. 31,", "Dec. 31,", "Dec. 31,", "Dec. 31,"), ("", "2024", "2023", "2024", "2023"),
         ("Las Vegas Strip Resorts", "2,000", "1,500", "7,000", "4,000"),
         ("Regional Operations", "500", "450", "2,500", "2,000"),
         ("Macau", "100", "200", "400", "900"),
         ("Management and other operations", "20", "10", "100", "200")],
    ]
    for lines in pages:
        page = doc.new_page(width=612, height=792)
        y = 72.0
        for line in lines:
            if isinstance(line, str):
                page.insert_text((72, y), line, fontsize=10)
            else:
                page.insert_text((72, y), line[0], fontsize=10)
                cells = line[1:]
                xs = [330, 450] if len(cells) == 2 else [300, 370, 440, 510]
                if len(cells) == 2 and "months" in cells[0]:  # a period group over two columns each
                    xs = [300, 440]
                for x, cell in zip(xs, cells):
                    page.insert_text((x, y), cell, fontsize=8 if len(cells) == 4 or "months" in cell else 10)
            y += 16
    doc.save(str(path))


def test_regions_from_a_captioned_table_never_the_income_statements_revenue_kinds(tmp_path):
    pdf = tmp_path / "ACME_2024_10K.pdf"
    _write_pdf(pdf)
    source = PdfPages({"ACME_2024_10K": str(pdf)})
    info = {"company": "Acme Resorts", "fiscal_year": 2024, "form": "10K", "period_end": "2024-12-31"}
    q = read_question("Which region had the worst topline performance for Acme Resorts in FY2024?")
    r = answer_ranking_from_tables(q, [], source, doc_id="ACME_2024_10K", info=info)
    assert r is not None and r.asked == "ranking", r and r.answer
    assert r.answer.startswith("Macau had the lowest revenue growth of Acme Resorts' regions for FY2024: $400 thousand "
                               "against $900 thousand for FY2023, (400 - 900) / 900 = -55.6% [ACME_2024_10K, p. 1].")
    assert "'SUPPLEMENTAL DATA - NET REVENUES'" in r.answer and "Casino" not in r.answer
    assert "Not ranked (reconciling rows, not regions): Management and other operations" in r.answer
    assert r.found and r.found[0].page == 1 and r.pages_added == [("ACME_2024_10K", 1)]
    # every figure is an operand (in dollars): the named part first, its prior value, the other parts
    assert r.found[0].label == "Macau" and r.found[0].value == 400_000.0
    assert {(f.label, f.year, f.value) for f in r.found} >= {("Macau", 2023, 900_000.0), ("Regional Operations", 2024,
                                                                                            2_500_000.0)}
    from finrag.tools.answering.number_check import unmatched_numbers

    assert unmatched_numbers("Macau fell 55.6% to $400 thousand; Regional Operations rose 25.0%.", r) == []
    assert unmatched_numbers("Macau fell 61.0% to $410 thousand.", r) == ["61.0%", "$410 thousand"]
    share = answer_ranking_from_tables(read_question("Which region had the highest revenue contribution for Acme "
                                                     "Resorts in FY2024?"), [], source, doc_id="ACME_2024_10K",
                                       info=info)
    assert share is not None and share.answer.startswith("Las Vegas Strip Resorts had the highest revenue "
                                                         "contribution"), share and share.answer
    assert "$7,000 thousand of the sum of the table's rows, $10,000 thousand = 70.0%" in share.answer


def test_no_breakdown_of_the_asked_measure_is_no_answer(tmp_path):
    pdf = tmp_path / "ACME_2024_10K.pdf"
    _write_pdf(pdf)
    source = PdfPages({"ACME_2024_10K": str(pdf)})
    q = read_question("Which region had the highest EBITDAR for Acme Resorts in FY2024?")
    assert answer_ranking_from_tables(q, [], source, doc_id="ACME_2024_10K", info={"fiscal_year": 2024}) is None


@pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")
@pytest.mark.parametrize("doc_id, question, first, figure", [
    ("3M_2018_10K", "Which segment had the highest net sales for 3M in FY2018?",
     "Industrial had the highest revenue of 3M's segments for FY2018", "$12,267 million"),
    ("LOCKHEEDMARTIN_2022_10K", "Which business segment had the highest net sales for Lockheed Martin in FY2022?",
     "Aeronautics had the highest revenue", "$26,987 million"),
    ("NIKE_2021_10K", "Which of Nike's regions had the lowest revenues in FY2021?",
     "Asia Pacific & Latin America had the lowest revenue of Nike's regions", "$5,343 million"),
    ("MICROSOFT_2022_10K", "Which segment grew revenue the fastest for Microsoft in FY2022?",
     "Intelligent Cloud had the highest revenue growth", "+25.3%"),
    ("VERIZON_2022_10K", "What was the largest liability in Verizon's balance sheet in 2022?",
     "Long-term debt was the largest liability in Verizon's balance sheet", "$140,676 million"),
    ("VERIZON_2022_10K", "What was the largest asset in Verizon's balance sheet in 2022?",
     "Wireless licenses was the largest asset", "$149,796 million"),
])
def test_real_filings_that_no_dev_question_ranks(doc_id, question, first, figure):
    from finrag.tools.routing.documents import build_document_info

    info = build_document_info(doc_id).model_dump()
    r = answer_ranking_from_tables(read_question(question), [], PdfPages.from_dir(PDFS, [doc_id]), doc_id=doc_id,
                                   info=info)
    assert r is not None and r.answer.startswith(first) and figure in r.answer, r and r.answer


def test_an_earnings_per_share_table_is_no_breakdown_of_segments(tmp_path):
    """Issue 47: a bank's "which segment had the highest net income" named a row of the EPS table ("Diluted")."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    lines = ["ACME BANK CORP.", "CONSOLIDATED STATEMENTS OF INCOME", "(In millions, except per share data)", "",
             ("", "2024", "2023"), ("Net interest income", "9,000", "8,000"), ("Noninterest income", "3,000", "2,500"),
             ("Net income", "4,000", "3,600"), ("Net income per common share:", "", ""), ("Basic", "5.10", "4.50"),
             ("Diluted", "5.00", "4.40"), ("Total", "10.10", "8.90")]
    y = 72.0
    for line in lines:
        if isinstance(line, str):
            page.insert_text((72, y), line, fontsize=10)
        else:
            page.insert_text((72, y), line[0], fontsize=10)
            for x, cell in zip([330, 450], line[1:]):
                page.insert_text((x, y), cell, fontsize=10)
        y += 16
    pdf = tmp_path / "ACMEBANK_2024_10K.pdf"
    doc.save(str(pdf))
    source = PdfPages({"ACMEBANK_2024_10K": str(pdf)})
    q = read_question("Which segment had the highest net income for Acme Bank in FY2024?")
    r = answer_ranking_from_tables(q, [], source, doc_id="ACMEBANK_2024_10K", info={"fiscal_year": 2024})
    assert r is None or not r.answer.startswith(("Diluted", "Basic")), r.answer
