"""Session 57 (issue 50): a question whose subject no sentence of the passages speaks of is said unanswered first,
though no word of it is a name; and every form reads only the asked company's passages where some are. The cases
are made up here (fictional companies and sentences), none from a benchmark set."""
from __future__ import annotations

from finrag.state.question import QuestionFacts
from finrag.tools.answering.fast_path import offline_answer
from finrag.tools.answering.prose_units import own_contexts
from finrag.tools.answering.unstated import unspoken, unstated_answer
from finrag.tools.question import read_question


def _ctx(text: str, doc: str = "ACME_2022_10K", page: int = 5) -> dict:
    return {"chunk_id": None, "doc_id": doc, "page_start": page, "page_end": page, "text": text, "score": 1.0}


_ACME = [_ctx("Net income attributable to the Company rose to $412 million in 2022 on higher volumes."),
         _ctx("The fair value of stock options granted was estimated on the date of grant.", page=61)]


def test_a_subject_no_sentence_speaks_of_is_said_unanswered_first():
    # "customer satisfaction index": common words, no name, and no sentence speaks of half of them
    question = "Acme customer satisfaction index for 2022"
    assert unspoken(question, _ACME, frozenset({"acme"})) == ["customer", "satisfaction", "index"]
    shown = "From the filings: Net income attributable to the Company rose to $412 million. [ACME_2022_10K, p. 5]"
    answer = unstated_answer(question, shown, _ACME, frozenset({"acme"}))
    assert answer.startswith("Not stated in the retrieved passages (ACME_2022_10K): no sentence of them speaks of "
                             "half of what the question asks ('customer', 'satisfaction', 'index')")
    assert answer.endswith("The closest passages (not an answer): Net income attributable to the Company rose to "
                           "$412 million. [ACME_2022_10K, p. 5]")


def test_a_sentence_speaking_of_half_the_subject_or_more_keeps_the_passages_as_they_are():
    # "how much" asks an amount: no word of the subject; "net income" is spoken of whole
    question = "How much net income did Acme report in 2022?"
    assert unspoken(question, _ACME, frozenset({"acme"})) == []
    shown = "From the filings: x"
    assert unstated_answer(question, shown, _ACME, frozenset({"acme"})) == shown
    # two words of three in one sentence: enough (a paraphrase writes the third its own way)
    assert unspoken("What was Acme's stock option approach?", _ACME, frozenset({"acme"})) == []


def test_no_topic_or_no_context_is_never_said_unanswered():
    assert unspoken("Acme 2022", _ACME, frozenset({"acme"})) == []
    assert unspoken("Acme customer satisfaction index", [], frozenset({"acme"})) == []


_BOLT = _ctx("Gross margin rose 300 basis points, driven by lower freight costs and favorable pricing.",
             "BOLTWORKS_2022_10K", 30)
_ZEPH = _ctx("Gross margin declined 120 basis points primarily due to higher raw material costs.",
             "ZEPHYRFOODS_2022_10K", 41)


def test_only_the_named_company_s_passages_are_read_in_every_form():
    question = "What drove Zephyrfoods' gross margin decline in 2022?"
    assert own_contexts(question, [_BOLT, _ZEPH]) == [_ZEPH]
    assert own_contexts("What drove the gross margin decline in 2022?", [_BOLT, _ZEPH]) == [_BOLT, _ZEPH]
    answer = offline_answer(question, ["gross", "margin", "decline"], [_BOLT, _ZEPH], None, read_question(question))
    assert "BOLTWORKS" not in answer and "ZEPHYRFOODS_2022_10K" in answer, answer


def test_a_count_from_another_company_s_filing_is_no_answer():
    other = _ctx("As of December 31, 2022, we had approximately 12,400 employees.", "BOLTWORKS_2022_10K", 8)
    own = _ctx("Zephyrfoods had approximately 3,100 employees at the end of 2022.", "ZEPHYRFOODS_2022_10K", 9)
    question = "How many employees did Zephyrfoods have at the end of 2022?"
    answer = offline_answer(question, ["employees"], [other, own], None, read_question(question))
    assert "3,100" in answer and "12,400" not in answer, answer
    # with no passage of the named company, the passages are all read (the answer says whose they are)
    assert own_contexts(question, [other]) == [other]
    assert offline_answer(question, ["employees"], [other], None, QuestionFacts(form="count", form_nouns=("employees",)))


def test_a_long_question_s_subject_is_spoken_of_by_two_of_its_words():
    # the scenario's words ("wound", "down", "sold", "holders") are topic words too: two of them in one sentence speak
    # of the subject; half of seven would ask four
    ctx = [_ctx("Total assets were $2.1 billion and total liabilities $1.4 billion at March 31, 2023.", page=3),
           _ctx("Holders of common stock are entitled to one vote per share.", page=40)]
    question = "If Acme wound down and sold all its assets to repay creditors, what could each holder of common stock receive?"
    assert unspoken(question, ctx, frozenset({"acme"})) == []
    # one word of a long topic is not enough
    assert unspoken(question, [ctx[0]], frozenset({"acme"}))


def test_a_one_word_name_in_lower_case_or_with_a_digit_names_its_company():
    bolt = _ctx("x", "BOLTWORKS_2022_10K", 3)
    three = _ctx("x", "3M_2022_10K", 4)
    target = _ctx("x", "TARGET_2022_10K", 5)
    assert own_contexts("did boltworks pay a dividend in 2022?", [three, bolt]) == [bolt]
    assert own_contexts("3M reportable segments 2022", [three, bolt]) == [three]
    # a company whose name is a common English word is not named by the word in lower case
    assert own_contexts("what target price did analysts set?", [target, bolt]) == [target, bolt]


def test_a_corpus_wide_search_s_silence_is_not_said_to_be_the_filing_s():
    # no routed company (CBR): the passages are whatever ranked, so they are shown as before
    shown = "From the filings: Net income attributable to the Company rose to $412 million. [ACME_2022_10K, p. 5]"
    assert unstated_answer("Acme customer satisfaction index for 2022", shown, _ACME) == shown


def test_the_asked_company_is_read_from_a_mixed_case_initialism_and_a_two_word_id():
    from finrag.tools.answering.prose_units import asked_company_docs, company_of_id

    assert company_of_id("KLINE_KLINE_2023Q2_EARNINGS") == "klinekline"
    assert company_of_id("acme.10-Q") == "acme" and company_of_id("3M_2022_10K") == "3m"
    contexts = [{"doc_id": "KLINE_KLINE_2023Q2_EARNINGS"}, {"doc_id": "ZENITH_2023_10K"}, {"doc_id": "NORDCO_2022_10K"}]
    # "KnK" (two capitals, mixed case) is an initialism of Kline & Kline, never of another company's filing
    assert asked_company_docs("Did KnK's margin rise in Q2 2023?", contexts) == {"KLINE_KLINE_2023Q2_EARNINGS"}
    assert asked_company_docs("Did margins rise in Q2 2023?", contexts) == set()
