"""Session 57 tuned round (issue 50): counts, dates, names, lists and drivers read by principle. The cases are made
up here (fictional companies and sentences), none from a benchmark set."""
from __future__ import annotations

import pytest

from finrag.tools.answering.drivers_answer import CAUSE, _qualified, drivers_answer
from finrag.tools.answering.extractive import _units
from finrag.tools.answering.fast_path import offline_answer
from finrag.tools.answering.list_answer import list_answer, listed_items
from finrag.tools.answering.prose_units import topic_words
from finrag.tools.question import read_question
from finrag.tools.retrieval.form_evidence import TopicCover, topic_of
from finrag.tools.vocabulary.answer_shapes import asks_since, since_date
from finrag.tools.vocabulary.synonyms import same_as


def _ctx(text: str, doc: str = "WIDGETCO_2023_10K", page: int = 5) -> dict:
    return {"chunk_id": None, "doc_id": doc, "page_start": page, "page_end": page, "text": text, "score": 1.0}


# ---- counts: the counted noun, "total <noun>", months, "global"

@pytest.mark.parametrize("question, noun", [
    ("widgetco total employees 2023?", "employees"),
    ("number of Widget Foods warehouses at year end 2022", "warehouses"),  # past the company's name
    ("how many full-time staff did Widgetco have", "staff"),
    ("what is the total number of associates at Widgetco", "associates"),
])
def test_the_counted_noun_is_read_past_a_company_s_name(question, noun):
    facts = read_question(question)
    assert facts.form == "count" and facts.form_nouns[0] == noun, (facts.form, facts.form_nouns)


def test_a_total_cost_of_employees_is_no_count():
    assert read_question("widgetco total employee compensation 2023").form != "count"


def test_a_month_names_the_period_not_the_topic():
    assert topic_of(["widgetco", "headcount", "jan", "2023"], ("headcount",)) == ["widgetco"]
    assert topic_of(["revenue", "may"], ()) == ["revenue", "may"]  # "may" is a verb as often


def test_global_is_around_the_globe_and_no_break_spaces_are_spaces():
    cover = TopicCover(["global"])
    assert cover("we had approximately 9,100 employees around\xa0the \xa0globe") == 1.0
    assert cover("we had approximately 9,100 employees worldwide") == 1.0
    question = "Widgetco global workforce size 2023"
    ctx = [_ctx("Our offices are in 14 countries around the world and 3 continents.", page=3),
           _ctx("As of June 30, 2023, we had approximately 9,100 employees around\xa0the globe.", page=6)]
    answer = offline_answer(question, ["global", "workforce"], ctx, None, read_question(question))
    assert answer.startswith("As of June 30, 2023, we had approximately 9,100 employees"), answer


def test_a_business_bought_out_is_an_acquisition_a_stake_an_ownership_interest():
    assert "acquisition" in same_as("buy") and "ownership interest" in same_as("stake")
    assert TopicCover(["buy", "stake"])("We completed the acquisition of the remaining ownership interest in Zeta.") == 1.0
    assert "acquisition" not in same_as("purchases")  # purchases of property and equipment are no acquisition


# ---- dates: a tenure's start

@pytest.mark.parametrize("question", [
    "Since which year has Deloitte been Widgetco's auditor?",
    "how long has KPMG audited widgetco (2023 10-K)",
    "Widgetco FY2023 annual report: since when has EY been the auditor?",
])
def test_a_tenure_asked_is_a_date_not_the_auditor_s_name(question):
    facts = read_question(question)
    assert facts.form == "date" and facts.cover is None, (facts.form, facts.cover)
    assert asks_since(question)


def test_the_auditor_s_name_is_still_a_cover_fact():
    assert read_question("Who is Widgetco's auditor?").cover == "auditor"


def test_a_tenure_is_answered_by_since_when():
    assert since_date("We have served as the Company's auditor since 1998.")
    assert since_date("She has been Chief Financial Officer since March 2019.")
    assert not since_date("We have audited the balance sheets as of December 31, 2023.")
    assert asks_since("When did Jane Roe become CFO of Widgetco?") and not asks_since("When did Widgetco buy Zeta?")
    question = "Since which year has Deloitte been Widgetco's auditor?"
    ctx = [_ctx("Chicago, Illinois February 20, 2024 Report of Independent Registered Public Accounting Firm We have "
                "audited Widgetco's internal control over financial reporting as of December 31, 2023.", page=60),
           _ctx("/s/ Deloitte & Touche LLP We have served as the Company's auditor since 1998.", page=61)]
    answer = offline_answer(question, ["deloitte", "auditor"], ctx, None, read_question(question), frozenset({"widgetco"}))
    assert "since 1998" in answer.split("[")[0], answer


def test_a_hyphenated_company_name_is_no_topic_word():
    assert "zeta-corp" not in topic_words("how long has EY audited zeta-corp", [], frozenset({"zeta", "corp"}))


def test_early_late_mid_of_a_year_is_the_period():
    assert "early" not in topic_words("who became Widgetco CFO in early 2023", [])
    assert "mid" not in topic_words("Widgetco store count by mid-2022", [])
    assert "early" in topic_words("Widgetco early retirement program cost", [])  # no period after it


# ---- names

@pytest.mark.parametrize("question, nouns", [
    ("Widgetco FY22 - which customer is over 10% of net sales?", ["customer"]),
    ("who became Widgetco's chief financial officer in mid 2023", []),
    ("Widgetco 2023: who signed the auditor's report?", []),
])
def test_which_customer_and_who_are_name_questions(question, nouns):
    facts = read_question(question)
    assert facts.form == "name" and list(facts.form_nouns) == nouns, (facts.form, facts.form_nouns)


def test_who_are_asks_a_list():
    assert read_question("Who are Widgetco's largest customers?").form == "list"


# ---- lists

@pytest.mark.parametrize("question", [
    "Widgetco reportable segments in the 2022 10-K",
    "widgetco segments fy2023",
    "Widgetco operating segments?",
])
def test_a_noun_phrase_naming_segments_and_a_period_is_a_list(question):
    facts = read_question(question)
    assert facts.form == "list" and facts.form_nouns == ["segments"], (facts.form, facts.form_nouns)


def test_a_list_ends_where_its_count_is_reached():
    text = ("Widgetco operates in three reportable segments: Alpha Systems, Beta Services and Gamma Tools, and "
            "manufactures products at 40 plants in 9 countries.")
    [(_sentence, items, said)] = list(listed_items(text, ("segments",)))
    assert items == ["Alpha Systems", "Beta Services", "Gamma Tools"] and said


def test_a_colon_after_a_clause_that_describes_the_counted_noun():
    text = ("We have two operating segments organized by the customers they serve and the products they sell: "
            "Retail Stores and Wholesale Trade.")
    [(_sentence, items, _said)] = list(listed_items(text, ("segments",)))
    assert items == ["Retail Stores", "Wholesale Trade"]


def test_spelled_out_items_lead_whatever_the_context_order():
    ctx = [_ctx("We operate in three business segments: AS, BS and GT.", page=80),
           _ctx("We operate in three business segments: Alpha Systems (AS), Beta Services (BS) and Gamma Tools (GT).",
                page=2)]
    answer = list_answer("Widgetco segments?", ("segments",), ["segments"], ctx)
    assert answer.startswith("Alpha Systems (AS); Beta Services (BS); Gamma Tools (GT)"), answer


# ---- drivers

@pytest.mark.parametrize("text", [
    "Gross margin decreased 20 basis points, driven primarily by higher freight costs.",
    "Sales fell 4%, caused mainly by lower volumes.",
    "Income rose, resulting largely from lower taxes.",
])
def test_an_adverb_inside_the_cause_marker(text):
    assert CAUSE.search(text)


def test_a_part_of_the_measure_named_in_lower_case_is_qualified():
    question = "why did widgetco revenue fall in 2023"
    assert _qualified("Currency-neutral apparel revenues contracted 3% for 2023", ["revenue"], question)
    assert not _qualified("Revenues declined 2% for 2023", ["revenue"], question)
    assert not _qualified("Our total revenues declined 2% for 2023", ["revenue"], question)
    assert not _qualified("The decline in revenues was 2%", ["revenue"], question)


def test_the_whole_measure_s_causes_lead_before_a_part_s():
    question = "why did widgetco revenue fall in 2023"
    ctx = [_ctx("Apparel revenues decreased 5% for 2023, driven by lower sales of jackets and coats.", page=30),
           _ctx("Revenues decreased 3% for 2023, driven primarily by store closures and lower wholesale shipments.",
                page=31)]
    answer = drivers_answer(question, ["revenue"], ctx, read_question(question), frozenset({"widgetco"}))
    assert answer.startswith("Driven primarily by store closures"), answer


def test_a_bulleted_summary_too_long_for_one_unit_is_read_by_its_bullets():
    bullets = "; ".join(f"• Item {i} increased {i}% driven by higher volumes in the region number {i} of the "
                        "company's operations" for i in range(8))
    units = _units(f"Highlights for 2023 included: {bullets}.")
    assert any(u.startswith("Item 3 increased 3%") for u in units), units


def test_a_label_attributed_to_someone_is_no_change_s_cause():
    question = "What drove Widgetco's operating margin change in 2023?"
    ctx = [_ctx("Operating income margin and earnings per share attributable to Widgetco common shareholders:", page=20),
           _ctx("Business segment operating income margins decreased year-on-year due to higher litigation costs.",
                page=21)]
    answer = drivers_answer(question, ["operating", "margin"], ctx, read_question(question), frozenset({"widgetco"}))
    assert answer.startswith("Due to higher litigation costs"), answer


def test_a_named_party_is_not_who_opens_a_bare_who_question():
    # "who bought ..." stays an open question (a buyer's name has no legal form to read it by)
    assert read_question("Who bought Widgetco's snack brands in 2022?").form != "name"
    assert read_question("Per Widgetco's 2023 8-K, which director retired?").form != "name"


def test_a_count_s_change_is_asked_by_its_counts_and_a_cut_number_opens_no_unit():
    from finrag.tools.answering.prose import cut_short
    assert cut_short("5 Outlet Centers in fiscal 2024.") == 0.1 and cut_short("We had 812 stores.") == 0.0
    question = "Was there any change in the number of Widgetco stores between 2022 and 2023?"
    ctx = [_ctx("As of December 31, 2023, we operated 812 stores, compared with 790 stores a year earlier.", page=7)]
    answer = offline_answer(question, ["change", "stores"], ctx, None, read_question(question), frozenset({"widgetco"}))
    assert answer.startswith("As of December 31, 2023, we operated 812 stores"), answer
