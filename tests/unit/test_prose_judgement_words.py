"""Issue 50, session 57 tuned round (g57p): judgement questions read by their meaning (a measure named by the
judgement's own words, "getting worse", capital spending called heavy), yes/no asked without an auxiliary, and a
common word of the topic the filing never writes said unanswered first. Questions and companies are this file's own."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from finrag.state.question import QuestionFacts
from finrag.tools.answering.judgement_answer import _with_billions, answer_judgement
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.unstated import unmentioned, unstated_answer
from finrag.tools.question import read_question
from finrag.tools.question.form import answer_form
from finrag.tools.question.judgement import implied_metric

# ---------------------------------------------------------------- judgements read by their meaning


@pytest.mark.parametrize("question, metric", [
    ("Has Acme's operating profitability weakened in 2022?", "operating_margin"),
    ("Is Globex's gross profitability improving in FY2023?", "gross_margin"),
    ("are initech's margins improving in 2021?", "gross_margin"),
    ("Is its profitability deteriorating in 2020?", "net_margin"),
])
def test_a_judgement_s_own_words_name_its_measure(question, metric):
    facts = read_question(question)
    assert facts.metric == metric and facts.judgement in ("improving", "worsening")


def test_a_segment_s_margins_imply_no_company_margin():
    assert implied_metric("Are Acme's margins improving?") == "gross_margin"
    assert implied_metric("Acme Europe margins improving in 2022?") is None  # a segment's: its own rows
    assert read_question("Acme Europe margins improving in 2022?").judgement is None


def test_getting_worse_is_a_trend_read_the_other_way():
    facts = read_question("Was Globex's operating margin getting worse in 2022?")
    assert facts.judgement == "worsening" and facts.metric == "operating_margin"
    values = {2020: 9.0, 2021: 8.0, 2022: 5.0}

    def measure(text: str, asked: QuestionFacts) -> ReaderResult:
        year = int(text.rstrip("?")[-4:])
        return ReaderResult(answer=f"Operating margin {values[year]}%. Formula: operating income / revenue.",
                            confident=True, kind="metric", value=values[year])

    answer = answer_judgement(facts, {"company": "Globex", "fiscal_year": 2022}, measure)
    assert answer is not None and answer.answer.startswith("Yes: Globex's operating margin is getting worse: it fell")
    assert "read as getting worse when its latest year is worse" in answer.answer
    values[2022] = 8.5
    better = answer_judgement(facts, {"company": "Globex", "fiscal_year": 2022}, measure)
    assert better is not None and better.answer.startswith("No: Globex's operating margin is not getting worse")


@pytest.mark.parametrize("question", [
    "Is Initech capex heavy relative to revenue in 2022?",
    "Is Initech's capital spending high compared to its sales in FY2021?",
    "Is Initech a capex-heavy business?",
])
def test_capital_spending_called_heavy_is_capital_intensity(question):
    assert read_question(question).judgement == "capital_intensive"


def test_a_comparison_with_another_year_is_still_no_level_judgement():
    assert read_question("Is Initech more profitable compared to 2021?").judgement is None


def test_an_amount_of_a_billion_is_also_said_in_billions():
    assert _with_billions("$20,286 million") == "$20,286 million ($20.3 billion)"
    assert _with_billions("$(1,975) million") == "$(1,975) million (-$2.0 billion)"
    assert _with_billions("-$1,975 million") == "-$1,975 million (-$2.0 billion)"
    assert _with_billions("$442 million") == "$442 million"


# ---------------------------------------------------------------- yes/no asked without an auxiliary


@pytest.mark.parametrize("question", [
    "Globex dividends in 2020 - yes or no?",
    "Initech buyback in FY2022: y/n?",
    "Acme gross margin - improving in 2021?",
    "Globex net debt - still rising?",
])
def test_a_verbless_yes_no_is_yes_no(question):
    assert answer_form(question) == "yesno"


@pytest.mark.parametrize("question", [
    "Acme revenue - including services?",
    "Globex capex: what drove the increase?",
])
def test_a_dash_before_a_qualifier_or_a_question_word_is_no_yes_no(question):
    assert answer_form(question) != "yesno"


def test_a_yes_or_no_tail_is_no_operand():
    facts = read_question("Initech share repurchases in 2022 - yes or no?")
    assert facts.form == "yesno" and facts.formula is None


# ---------------------------------------------------------------- a common word the filing never writes


@dataclass
class _Hit:
    doc_id: str


class _Index:
    """A filing's pages, and how many companies' filings the corpus search finds a word in (`spread`, default 9)."""

    def __init__(self, pages: dict[str, list[str]], spread: dict[str, int] | None = None):
        self.pages, self.spread = pages, spread or {}

    def pages_of(self, doc_id: str) -> list[str]:
        return self.pages.get(doc_id, [])

    def search_fts(self, query, k=20, doc_ids=None, variant="base"):
        return [_Hit(f"co{i}_2022_10K") for i in range(self.spread.get(query, 9))][:k]


_DOC = "GLOBEX_2022_10K"
_CTX = [{"chunk_id": None, "doc_id": _DOC, "page_start": 40, "page_end": 40, "score": 1.0,
         "text": "Our effective tax rate was 21% in 2022. Monthly subscription fees rose."}]
_PAGES = {_DOC: ["Our effective tax rate was 21% in 2022.", "Monthly subscription fees rose."]}


def test_a_specialised_word_the_filing_writes_nowhere_is_said_unanswered():
    question = "what was globex's monthly attrition rate in 2022"
    index = _Index(_PAGES, {"attrition": 2})
    assert unmentioned(question, _CTX, frozenset({"globex"}), index) == {"attrition": 0}
    answer = unstated_answer(question, "From the filings: x", _CTX, frozenset({"globex"}), index)
    assert answer.startswith("Not stated in the retrieved passages: none of them mentions 'attrition' (not in the filing)")


@pytest.mark.parametrize("question, spread", [
    ("what was globex's monthly attrition rate in 2022", 9),  # many companies write it: common vocabulary
    ("what was globex's monthly atrittion rate in 2022", 0),  # no filing writes it: the question's typo
    ("did globex do a buyback in 2022?", 2),  # a filing may write it otherwise ("repurchase")
    ("who bought globex's subscription unit in 2022?", 2),  # a verb, not the thing asked
    ("globex subscription fees improving in 2022?", 2),
    ("which globex region had the worst topline in 2022?", 2),  # an everyday word; a line item's ("revenue")
])
def test_a_word_common_misspelt_paraphrased_or_a_verb_is_left_to_the_passages(question, spread):
    words = ("attrition", "atrittion", "buyback", "bought", "improving", "worst", "topline")
    index = _Index(_PAGES, dict.fromkeys(words, spread))
    assert unmentioned(question, _CTX, frozenset({"globex"}), index) == {}


def test_a_word_the_filing_writes_somewhere_is_left_to_the_passages():
    question = "what was globex's monthly attrition rate in 2022"
    index = _Index({_DOC: ["Customer attrition remained low."]}, {"attrition": 2})
    assert unmentioned(question, _CTX, frozenset({"globex"}), index) == {}
    assert unmentioned(question, _CTX, frozenset({"globex"})) == {}  # without the index: names only
