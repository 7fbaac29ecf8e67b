"""Judgement questions (issue 50): read once with the question (`QuestionFacts.judgement`, from the judgement catalog),
answered from metrics the table reader computes on real FinanceBench filings (../shared/data/financebench/pdfs;
skipped without them), led by the verdict, said to be a judgement with its convention, every figure cited; a
lender's margin is said not useful; a figure that cannot be computed is said missing, with no verdict."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from finrag.tools.answering.judgement_answer import answer_judgement, metric_question
from finrag.tools.answering.kinds import ask_kind
from finrag.tools.answering.reader import read
from finrag.tools.answering.sources import PdfPages
from finrag.tools.question import read_question
from finrag.tools.question.judgement import judgement_of
from finrag.tools.vocabulary.judgements import JUDGEMENTS

PDFS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench" / "pdfs"


@pytest.mark.parametrize("question, judgement, metric", [
    ("Is 3M a capital-intensive business based on FY2022 data?", "capital_intensive", None),
    ("Does AMCOR have an improving gross margin profile as of FY2023? If gross margin is not a useful metric for a "
     "company like this, then state that and explain why.", "improving", "gross_margin"),
    ("Does Verizon have a reasonably healthy liquidity profile based on its quick ratio for FY 2022?", "liquidity",
     "quick_ratio"),
    ("Does Corning have positive working capital based on FY2022 data?", "positive", "working_capital"),
    ("Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?", "improving", "quick_ratio"),
    ("Does Adobe have an improving Free cashflow conversion as of FY2022?", "improving", "fcf_conversion"),
    ("Are JnJ's FY2022 financials that of a high growth company?", "high_growth", None),
    ("Is Boeing highly leveraged?", "highly_leveraged", None),
    ("Based on its FY2022 data, is 3M capital intensive?", "capital_intensive", None),  # after an opening phrase
    ("Does Boeing carry a lot of debt?", "highly_leveraged", None),
    ("Is PepsiCo's working capital negative in FY2022?", "negative", "working_capital"),
    ("Does Adobe have an improving liquidity profile based on its current ratio?", "improving", "current_ratio"),
])
def test_the_judgement_is_read_once_with_the_question(question, judgement, metric):
    facts = read_question(question)
    assert (facts.judgement, facts.metric) == (judgement, metric)
    assert ask_kind(facts) == "judgement"


@pytest.mark.parametrize("question", [
    "What was 3M's capital expenditure in FY2022?",
    "Did JnJ's net earnings as a percent of sales increase in Q2 of FY2023 compared to Q2 of FY2022?",  # a fact
    "What is Apple's liquidity position?",  # not a yes/no
    "Has Microsoft increased its debt on balance sheet between FY2023 and the FY2022 period?",
    "Is the positive outlook for FY2024 confirmed?",  # 'positive' without a metric
    "Does Apple have an improving ecosystem?",  # 'improving' without a metric
    "Did Apple's liquidity improve in FY2023?",  # a change, not a level
    "Was Apple more profitable in FY2023 than in FY2022?",  # a comparison
])
def test_other_questions_ask_no_judgement(question):
    assert read_question(question).judgement is None


def test_the_catalog_names_only_metrics_of_the_metric_catalog():
    assert {"capital_intensive", "liquidity", "positive", "improving"} <= set(JUDGEMENTS)
    assert JUDGEMENTS["capital_intensive"].tests[0].metric == "capex_revenue"
    assert judgement_of("Is it capital intensive?", None, yesno=False) is None  # a yes/no only
    text, facts = metric_question("capex_revenue", 2022)
    assert facts.metric == "capex_revenue" and facts.years_written == [2022] and facts.judgement is None, text


def _judge(doc_id: str, question: str, info: dict) -> str:
    pages = PdfPages.from_dir(PDFS, [doc_id])

    def measure(text, facts):
        return read(text, [], pages, routed_docs=[doc_id], doc_info=info, statement_pages=True, facts=facts)

    result = answer_judgement(read_question(question), info, measure)
    assert result is not None
    return result.answer


needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason="needs ../shared/data/financebench")


@needs_pdfs
@pytest.mark.parametrize("doc_id, fy, company, question, lead, shown", [
    ("3M_2022_10K", 2022, "3M", "Is 3M a capital-intensive business based on FY2022 data?",
     "No: 3M is not capital-intensive", ["5.1%", "$1,749 million", "19.8%", "~10% of revenue"]),
    ("AMCOR_2023_10K", 2023, "Amcor", "Does AMCOR have an improving gross margin profile as of FY2023?",
     "No: Amcor's gross margin is not improving", ["FY2021 21.2%", "FY2022 19.4%", "FY2023 18.5%"]),
    ("VERIZON_2022_10K", 2022, "Verizon", "Does Verizon have a reasonably healthy liquidity profile based on its quick "
     "ratio for FY 2022?", "No: Verizon does not have a healthy liquidity profile", ["0.56", "at least 1.0"]),
    ("CORNING_2022_10K", 2022, "Corning", "Does Corning have positive working capital based on FY2022 data?",
     "Yes: Corning's working capital is positive", ["$2,278 million", "current assets exceed"]),
    ("AMCOR_2023_10K", 2023, "Amcor", "Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?",
     "Improved: Amcor's quick ratio rose from 0.53 in FY2022 to 0.57 in FY2023", ["$689 million"]),
    ("ADOBE_2022_10K", 2022, "Adobe", "Does Adobe have an improving Free cashflow conversion as of FY2022?",
     "Yes: Adobe's free cash flow conversion is improving", ["142.7%", "155.5%", "higher is better"]),
    ("JOHNSON_JOHNSON_2022_10K", 2022, "Johnson & Johnson", "Are JnJ's FY2022 financials that of a high growth company?",
     "No: Johnson & Johnson does not grow like a high-growth company", ["1.2%", "$94,943 million", "~15%"]),
])
def test_a_judgement_leads_with_its_verdict_and_shows_its_figures(doc_id, fy, company, question, lead, shown):
    answer = _judge(doc_id, question, {"company": company, "fiscal_year": fy, "form": "10K"})
    assert answer.startswith(lead), answer
    assert "This is a judgement, not a figure the filing states" in answer
    for text in shown:
        assert text in answer, (text, answer)
    assert re.search(rf"\[{doc_id}, p\. \d+\]", answer)
    assert not re.search(r"\[(?!" + re.escape(doc_id) + r")[A-Z0-9_]+, p\.", answer)  # the routed filing's only


@needs_pdfs
def test_a_lenders_margin_is_said_not_useful():
    answer = _judge("AMERICANEXPRESS_2022_10K", "Does AMEX have an improving operating margin profile as of 2022?",
                    {"company": "American Express", "fiscal_year": 2022, "form": "10K"})
    assert answer.startswith("Operating margin is not a useful metric for American Express"), answer


@needs_pdfs
def test_a_figure_the_filing_lacks_is_said_missing_without_a_verdict():
    # the FY2022 10-K's statements hold no FY2017 columns: no verdict from other years' or other filings' figures
    answer = _judge("3M_2022_10K", "Is 3M a capital-intensive business based on FY2017 data?",
                    {"company": "3M", "fiscal_year": 2022, "form": "10K"})
    assert answer.startswith("Not judged: whether 3M is capital-intensive needs the FY2017 capital expenditure"), answer
    assert "not found" in answer and not re.search(r"\b(?:Yes|No):", answer)


@needs_pdfs
def test_a_lenders_working_capital_is_said_not_useful_without_being_told_to():
    # the question has no "if it is not useful, say so": a judgement says so of any metric that does not fit
    answer = _judge("AMERICANEXPRESS_2022_10K", "Does American Express have positive working capital based on FY2022 "
                    "data?", {"company": "American Express", "fiscal_year": 2022, "form": "10K"})
    assert answer.startswith("Working capital is not a useful metric for American Express: its statements are a "
                             "financial company's, whose balance sheet is not classified"), answer
    assert "Net interest income" in answer and not re.search(r"\b(?:Yes|No):", answer)


@needs_pdfs
def test_a_10q_is_judged_by_its_quarter():
    # Corning's Q2 2023 10-Q has no twelve-month columns: the quarter's own figures, labelled as the quarter's
    from finrag.tools.routing.documents import build_document_info

    info = build_document_info("CORNING_2023Q2_10Q").model_dump()
    answer = _judge("CORNING_2023Q2_10Q", "Is Corning profitable in Q2 2023?", info)
    assert answer.startswith("Yes: Corning is profitable, judged by its Q2 FY2023 figures: its net profit margin was"), answer
    assert "'Net sales'" in answer and "[CORNING_2023Q2_10Q, p. 2]" in answer
