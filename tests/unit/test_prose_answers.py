"""Prose answers lead with the sentence that answers the question's form (issue 50): a count with its noun, a date,
a name; at most one supporting passage; when no sentence holds such an answer, that is said and the closest passage
is marked as not an answer. Real passage text (Nike's FY2021 10-K, p. 7)."""
from __future__ import annotations

from finrag.tools.answering.prose import prose_answer
from finrag.tools.question import read_question

NIKE = ("are an important part of our culture in that we also support employees in giving back to community "
        "organizations through donations and volunteering, which are matched by\nthe NIKE Foundation where eligible.\n"
        "EMPLOYEE BASE\nAs of May 31, 2021, we had approximately 73,300 employees worldwide, including retail and "
        "part-time employees. We also utilize independent contractors and temporary\npersonnel to supplement our "
        "workforce.\nNone of our employees are represented by a union. We believe employee pay continuity and our "
        "stock options matter to our employees.")
PAY = ("During fiscal 2021 we continued to provide pay continuity to employees whose stores were closed. Employees "
       "may buy shares through the employee stock purchase plan. Stock options vest over four years.")
CTX = [{"doc_id": "NIKE_2021_10K", "page_start": 7, "page_end": 8, "chunk_id": None, "text": PAY},
       {"doc_id": "NIKE_2021_10K", "page_start": 7, "page_end": 7, "chunk_id": None, "text": NIKE}]


def form(question: str) -> str:
    return read_question(question).form


def test_the_form_of_a_question():
    assert form("How many employees did Nike have at the end of fiscal 2021?") == "count"
    assert form("Nike employee count in FY2021") == "count"
    assert form("When did Nike complete the acquisition?") == "date"
    assert form("Who is 3M's auditor?") == "name"
    assert form("Who are the primary customers of Boeing as of FY2022?") == "list"  # several, not one name
    assert form("What was Nike's revenue in FY2021?") == ""
    assert "associates" in read_question("How many employees did Nike have?").form_nouns
    assert read_question("how many retail stores does Nike operate").form_nouns == ["stores", "store"]
    assert read_question("How many full-time and part-time employees did Amazon have?").form_nouns[0] == "employees"


def test_a_count_leads_with_the_sentence_that_states_it():
    for q in ("How many employees did Nike have at the end of fiscal 2021?", "Nike employee count in FY2021"):
        answer = prose_answer(q, ["employees", "nike", "fiscal", "2021"], CTX)
        assert answer.startswith("As of May 31, 2021, we had approximately 73,300 employees worldwide"), answer
        assert "[NIKE_2021_10K" in answer.split(".")[2] or "[NIKE_2021_10K" in answer
        assert answer.count("[NIKE_2021_10K") <= 2  # the answer and at most one supporting passage


def test_no_sentence_with_the_count_is_said_not_made_up():
    answer = prose_answer("How many employees did Nike have at the end of fiscal 2021?", ["employees", "2021"], CTX[:1])
    assert answer.startswith("No sentence of the retrieved passages states a number of employees")
    assert "(not an answer)" in answer


def test_other_forms_are_left_to_the_other_answers():
    assert prose_answer("What was Nike's revenue in FY2021?", ["revenue"], CTX) == ""


def test_a_name_is_not_the_asked_company_s_own():
    report = [{"doc_id": "PFIZER_2021_10K", "page_start": 98, "page_end": 99, "chunk_id": None,
               "text": "Report of Independent Registered Public Accounting Firm. We have audited Pfizer Inc. and "
                       "Subsidiary Companies' internal control over financial reporting as of December 31, 2021. "
                       "We have served as the Company's auditor since 2000, KPMG LLP, New York, New York."}]
    answer = prose_answer("Who is Pfizer's independent registered public accounting firm?",
                          ["independent", "registered", "public", "accounting", "firm"], report)
    assert "KPMG LLP" in answer.split("[PFIZER_2021_10K")[0]


def test_counts_in_plural_and_after_their_noun():
    ctx = [{"doc_id": "COSTCO_2021_10K", "page_start": 18, "page_end": 18, "chunk_id": None,
            "text": "Costco operated 815, 795, and 782 warehouses worldwide at August 29, 2021. "
                    "As of December 31, 2024, our employee headcount worldwide was 125,665."}]
    assert "815" in prose_answer("Costco warehouse count at end of FY2021?", ["costco", "warehouse", "2021"], ctx)
    assert prose_answer("What was the employee headcount at the end of 2024?", ["employee", "headcount", "2024"],
                        ctx).startswith("As of December 31, 2024, our employee headcount worldwide was 125,665.")
