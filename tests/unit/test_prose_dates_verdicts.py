"""Session 57 (issue 50): a date asked without "when" ("since what year", "<deal> closing date"), the filing's
word for a deal's closing and for an initialism, and a yes/no question's verdict before the reader's figure. The
cases are made up here (fictional companies and sentences), none from a benchmark set."""
from __future__ import annotations

import pytest

from finrag.state.question import QuestionFacts
from finrag.tools.answering.fast_path import offline_answer
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.question import read_question
from finrag.tools.retrieval.form_evidence import TopicCover
from finrag.tools.vocabulary.synonyms import same_as


def _ctx(text: str, doc: str = "ACME_2022_10K", page: int = 5) -> dict:
    return {"chunk_id": None, "doc_id": doc, "page_start": page, "page_end": page, "text": text, "score": 1.0}


@pytest.mark.parametrize("question", [
    "since what year has Deloitte audited Acme?",
    "Since when has Acme listed its shares on the NYSE?",
    "acme zephyr acquisition closing date?",
    "Acme dividend record date",
])
def test_a_date_asked_without_when_is_a_date(question):
    assert read_question(question).form == "date"


@pytest.mark.parametrize("question", [
    "What was the fair value of the assets at the acquisition date?",  # a figure at a date
    "revenue for the year ended on that date",  # a period named by a date, no event
    "Is the closing date of the Zephyr deal known?",  # a yes/no
])
def test_a_figure_or_a_yes_no_that_names_a_date_is_no_date_question(question):
    assert read_question(question).form != "date"


def test_a_deal_s_closing_is_the_day_it_was_consummated_or_completed():
    assert {"consummated", "completed"} <= set(same_as("closing"))
    cover = TopicCover(["merger", "closing"])
    assert cover("On March 3, 2019, we consummated the merger with Zephyr Corp.") == 1.0
    assert cover("We completed our merger with Zephyr Corp. on March 3, 2019.") == 1.0
    assert TopicCover(["ipo"])("We completed our initial public offering in June 2004.") == 1.0


def test_the_event_s_date_leads_a_closing_date_question():
    question = "acme zephyr merger closing date"
    ctx = [_ctx("Upon the closing of the 2019 Merger, our chief financial officer became a director.", page=9),
           _ctx("On March 3, 2019, through a series of transactions, we consummated the merger with Zephyr Corp.", page=6)]
    answer = offline_answer(question, ["merger", "closing", "date"], ctx, None, read_question(question))
    assert answer.startswith("On March 3, 2019, through a series of transactions, we consummated the merger"), answer


def _figure(answer: str) -> ReaderResult:
    found = Found(item="share_repurchases", year=2022, value=-950.0, label="Repurchases of common stock", raw="(950)",
                  header="2022", doc_id="ACME_2022_10K", page=60, scale="millions", statement="cash flow", score=1.0)
    return ReaderResult(answer=answer, confident=True, kind="item", found=[found])


_BUYBACK = _ctx("During 2022, the Company repurchased 12 million shares of its common stock for $950 million.", page=40)
_FIGURE = "Acme's FY2022 share repurchases was $950 million [ACME_2022_10K, p. 60]."


def test_a_yes_no_question_leads_with_its_verdict_then_the_figure():
    question = "Acme buybacks in 2022 - did they do any?"
    facts = read_question(question)
    assert facts.form == "yesno" and not facts.judgement
    answer = offline_answer(question, ["repurchase", "shares"], [_BUYBACK], _figure(_FIGURE), facts)
    assert answer.startswith("Yes: During 2022, the Company repurchased 12 million shares"), answer
    assert answer.rstrip().endswith(_FIGURE)


def test_the_figure_leads_when_no_sentence_decides_and_a_judgement_is_the_reader_s():
    question = "Did Acme repurchase shares in 2022?"
    other = _ctx("The fair value of stock options was estimated using a lattice model.", page=70)
    assert offline_answer(question, ["repurchase", "shares"], [other], _figure(_FIGURE), read_question(question)) == _FIGURE
    # a judgement's verdict comes from the reader's computed figures: it leads as before
    verdict = "No: Acme's gross margin is not improving, judged by its FY2022 figures."
    facts = QuestionFacts(form="yesno", judgement="improving_gross_margin")
    assert offline_answer("Is Acme's gross margin improving?", ["gross", "margin"], [_BUYBACK],
                          ReaderResult(answer=verdict, confident=True, kind="metric"), facts) == verdict


def test_a_fiscal_year_named_by_its_letters_asks_the_fiscal_year_s_end():
    from finrag.tools.answering.prose_units import form_topic
    assert form_topic("acme FY2021 end date?", [], frozenset({"acme"})) == ["fiscal", "year", "end"]
    question = "acme FY2021 end date?"
    ctx = [_ctx("Authority to repurchase up to $1 billion of common stock runs through the end of 2023.", page=30),
           _ctx("Our fiscal year is a 52- or 53-week year that ends on the Saturday closest to June 30.", page=50)]
    answer = offline_answer(question, ["end", "date"], ctx, None, read_question(question))
    assert answer.startswith("Our fiscal year is a 52- or 53-week year that ends on the Saturday closest to June 30"), answer


def test_a_named_year_s_end_date_is_the_period_s_end_and_the_rule_answers_no_year():
    ctx = [_ctx("Our fiscal year is a 52- or 53-week year that ends on the Saturday closest to June 30.", page=50),
           _ctx("Annual report for the fiscal year ended July 2, 2021 of Acme Corp.", page=1)]
    question = "acme FY2021 end date?"
    answer = offline_answer(question, ["end", "date"], ctx, None, read_question(question))
    assert answer.startswith("Annual report for the fiscal year ended July 2, 2021"), answer
    question = "When does Acme's fiscal year end?"
    answer = offline_answer(question, ["fiscal", "year", "end"], ctx, None, read_question(question))
    assert answer.startswith("Our fiscal year is a 52- or 53-week year"), answer
    # in the present, a year in parentheses names the filing: the rule still answers
    question = "When does Acme's fiscal year end? (FY2021 10-K)"
    answer = offline_answer(question, ["fiscal", "year", "end"], ctx, None, read_question(question))
    assert answer.startswith("Our fiscal year is a 52- or 53-week year"), answer


@pytest.mark.parametrize("question", [
    "acme widgets segment revenue growth driver fy22",
    "Acme services revenue growth - drivers?",
    "acme gross margin decline: main reasons?",
])
def test_a_change_s_drivers_asked_without_a_question_word_are_drivers(question):
    assert read_question(question).form == "drivers"


def test_a_yes_no_about_a_driver_is_still_a_yes_no():
    assert read_question("Is revenue growth a driver of margin?").form == "yesno"


def test_headquarters_asked_by_its_letters_is_written_out():
    assert TopicCover(["hq"])("Our corporate headquarters are in Springfield, Illinois.") == 1.0


def test_a_reader_answer_that_states_its_own_verdict_decides_the_yes_no():
    question = "Did Acme's total debt increase in 2022?"
    own = "No. Acme's total debt decreased from $1,200 million in FY2021 to $1,150 million in FY2022 (-$50 million)."
    ctx = [_ctx("We did not repurchase any debt securities in 2022, and no debt was issued.", page=45)]
    assert offline_answer(question, ["total", "debt", "increase"], ctx, _figure(own), read_question(question)) == own


def test_a_risk_stated_as_a_possibility_is_no_cause_of_a_past_change():
    from finrag.tools.answering.drivers_answer import drivers_answer
    question = "What drove Acme's gross margin change in FY2022?"
    risk = _ctx("While the Company strives to maintain margins through cost programs, it might experience losses as a "
                "result of continued inflation.", page=18)
    fact = _ctx("Gross margin decreased 120 basis points, primarily due to higher freight costs.", page=30)
    assert drivers_answer(question, ["gross", "margin"], [risk], read_question(question)) == ""
    answer = drivers_answer(question, ["gross", "margin"], [risk, fact], read_question(question))
    assert answer.startswith("Primarily due to higher freight costs"), answer
