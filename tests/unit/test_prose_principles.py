"""Prose answers, the principles of issue 50's round after the blind set of session 54: a fact decides a yes/no before
an intention, a verb matches its irregular past, a whole count is read in its clause, a compound of frame words
("year-end") is no topic, a table's row is no part of the sentence after it, a measure named in capitals is also
written by its initials. Passages are real filing text (Netflix's 2017, Meta's 2024, Lockheed Martin's 2022, Apple's
FY2024 and Boeing's 2022 10-Ks)."""
from __future__ import annotations

from finrag.tools.answering.extractive import _units
from finrag.tools.answering.prose import prose_answer
from finrag.tools.answering.prose_units import topic_words
from finrag.tools.retrieval.query_rewrite import offline_rewrite


def ctx(doc: str, page: int, text: str) -> dict:
    return {"doc_id": doc, "page_start": page, "page_end": page, "chunk_id": None, "text": text}


def answer(question: str, contexts: list[dict]) -> str:
    return prose_answer(question, offline_rewrite(question).keywords, contexts)


_NFLX_INTENT = ctx("NETFLIX_2017_10K", 56, "The Company does not anticipate paying any cash dividends in the foreseeable "
                   "future and therefore uses an expected dividend yield of zero in the option valuation model.")
_NFLX_FACT = ctx("NETFLIX_2017_10K", 16, "Dividends We have not declared or paid any cash dividends, and we have no "
                 "present intention of paying any cash dividends in the foreseeable future.")


def test_a_fact_decides_before_an_intention():
    text = answer("Did Netflix pay a cash dividend in 2017?", [_NFLX_INTENT, _NFLX_FACT])
    assert text.startswith("No: Dividends We have not declared or paid any cash dividends"), text


def test_a_question_about_the_future_is_decided_by_the_intention():
    text = answer("Will Netflix pay a cash dividend in the foreseeable future?", [_NFLX_INTENT, _NFLX_FACT])
    assert text.startswith("No: The Company does not anticipate paying"), text


def test_a_verb_matches_its_irregular_past():
    intent = ctx("META_2024_10K", 116, "Subject to legally available funds and future declaration by our board of "
                 "directors, we currently intend to continue to pay a quarterly cash dividend on our outstanding common stock.")
    paid = ctx("META_2024_10K", 60, "Beginning in February 2024, we declared and paid four quarterly cash dividends, "
               "including dividend equivalents, totaling $2.00 for each share of common stock during the year ended "
               "December 31, 2024.")
    text = answer("Does Meta pay a dividend? (FY2024)", [intent, paid])
    assert text.startswith("Yes: Beginning in February 2024, we declared and paid"), text
    assert "$2.00" in text.split("[")[0]


def test_a_whole_count_is_read_in_its_clause():
    hired = ctx("LOCKHEEDMARTIN_2022_10K", 6, "During 2022, we hired more than 14,000 employees, despite the continuing "
                "challenges presented by the COVID-19 pandemic.")
    whole = ctx("LOCKHEEDMARTIN_2022_10K", 5, "As of December 31, 2022, we had a highly skilled workforce made up of "
                "approximately 116,000 employees, including approximately 60,000 engineers, scientists and information "
                "technology professionals.")
    text = answer("how many employees did Lockheed Martin have as of 12/31/2022", [hired, whole])
    assert text.startswith("As of December 31, 2022, we had a highly skilled workforce made up of approximately 116,000"), text


def test_a_compound_of_frame_words_is_no_topic():
    nflx = ctx("NETFLIX_2017_10K", 3, "As of December 31, 2017 , we had approximately 5,500 total employees. Of these "
               "employees, approximately 5,400 were full-time.")
    question = "What was NFLX's total employee count at year-end 2017?"
    assert "year-end" not in topic_words(question, [nflx])
    assert answer(question, [nflx]).startswith("As of December 31, 2017 , we had approximately 5,500 total employees."), \
        answer(question, [nflx])


_APPLE = ("Gross margin percentage:\nProducts | 37.2% | 36.5% | 36.3%\nServices | 73.9% | 70.8% | 71.7%\n"
          "Total gross margin percentage | 46.2% | 44.1% | 43.3%\n\nProducts Gross Margin\n\nProducts gross margin and "
          "Products gross margin percentage increased during 2024 compared to 2023 due to cost savings, partially offset "
          "by a different Products mix and the weakness in foreign currencies relative to the U.S. dollar.\n\nServices "
          "Gross Margin\n\nServices gross margin increased during 2024 compared to 2023 due primarily to higher "
          "Services net sales.")


def test_a_table_row_is_no_part_of_the_sentence_after_it():
    units = _units(_APPLE)
    assert any(u.startswith("Products Gross Margin Products gross margin and") and "cost savings" in u for u in units)
    assert not any("|" in u and "cost savings" in u for u in units)
    text = answer("what drove AAPL products gross margin higher in FY2024", [ctx("aapl-10-k-2024-11-01", 25, _APPLE)])
    assert text.startswith("Due to cost savings"), text


def test_a_measure_named_in_capitals_is_written_by_its_initials():
    table = ctx("BOEING_2022_10K", 29, "Revenues The following table summarizes Revenues: (Dollars in millions) Years "
                "ended December 31, 2022 2021 2020 Commercial Airplanes $25,867 $19,493 $16,162 Defense, Space & Security "
                "23,162 26,540 26,257 Total $66,608 $62,286 $58,158 Revenues increased by $4,322 million in 2022 compared "
                "with 2021 driven by higher revenues at BCA and BGS, partially offset by lower revenues at BDS.")
    bca = ctx("BOEING_2022_10K", 30, "BCA revenues increased by $6,374 million in 2022 compared with 2021 primarily due "
              "to higher 737 and 787 deliveries in 2022.")
    text = answer("What drove the increase in Boeing Commercial Airplanes revenue in 2022?", [table, bca])
    assert text.startswith("Primarily due to higher 737 and 787 deliveries"), text


def test_an_intention_is_one_before_the_topic_it_speaks_of():
    from finrag.tools.answering.yesno_answer import states_intention

    question = "Did Lockheed Martin go through with its proposed acquisition of Aerojet Rocketdyne?"
    lmt = ("U.S. regulators have increased their scrutiny of mergers and acquisitions in recent years, which could "
           "continue to limit our ability to execute certain transactions that we might otherwise pursue, such as the "
           "termination of our proposed acquisition of Aerojet Rocketdyne in 2022.")
    assert not states_intention(lmt, question, ["go", "proposed", "acquisition", "aerojet", "rocketdyne"])
    assert states_intention("we currently intend to continue to pay a quarterly cash dividend",
                            "Does Meta pay a dividend?", ["pay", "dividend"])


def test_the_routed_companys_name_is_no_topic_of_a_yes_or_no():
    """A filing calls itself "the Company": the name the question writes is no word the deciding sentence must hold."""
    plan = ctx("aapl-10-k-2024-11-01", 46, "A maximum of approximately 1.3 billion shares were authorized for issuance "
               "pursuant to 2022 Plan awards. 2014 Employee Stock Plan The Apple Inc. 2014 Employee Stock Plan is a "
               "shareholder-approved plan.")
    note = ctx("aapl-10-k-2024-11-01", 40, "Note 10 – Shareholders' Equity Share Repurchase Program During 2024, the "
               "Company repurchased 499 million shares of its common stock for $95.0 billion.")
    question = "Did Apple repurchase shares in fiscal 2024?"
    text = prose_answer(question, offline_rewrite(question).keywords, [plan, note], frozenset({"apple", "inc"}))
    assert text.startswith("Yes: ") and "$95.0 billion" in text.split("[")[0], text
