"""Prose answers lead with the sentence that answers the question's form (issue 50): a count with its noun, a date,
a name; at most one supporting passage; when no sentence holds such an answer, that is said and the closest passage
is marked as not an answer. Real passage text (Nike's FY2021 10-K, p. 7)."""
from __future__ import annotations

from finrag.tools.answering.prose import prose_answer
from finrag.tools.question import read_question
from finrag.tools.retrieval.form_evidence import TopicCover, topic_of

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
    assert read_question("how many retail stores does Nike operate").form_nouns[:2] == ["stores", "store"]
    assert "locations" in read_question("how many retail stores does Nike operate").form_nouns  # the filing's word
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


def one(doc: str, page: int, text: str) -> dict:
    return {"doc_id": doc, "page_start": page, "page_end": page, "chunk_id": None, "text": text}


def test_a_count_of_people_is_a_count_of_employees():
    """"How many people work for" asks the workforce, which the filing writes as employees (real J&J text, p. 6)."""
    jnj = one("JOHNSON_JOHNSON_2022_10K", 6, (
        "PART I Item 1. BUSINESS General Johnson & Johnson and its subsidiaries (the Company) have approximately "
        "152,700 employees worldwide engaged in the research and development, manufacture and sale of a broad range "
        "of products in the healthcare field. Results of Operations Analysis of Consolidated Sales For discussion see "
        "the Company's Annual Report on Form 10-K for the fiscal year ended January 2, 2022, Item 7."))
    answer = prose_answer("Roughly how many people work for J&J worldwide according to the 2022 10-K?",
                          ["many", "people", "work", "j&j", "worldwide", "2022", "10"], [jnj])
    assert "152,700 employees worldwide" in answer.split("[JOHNSON_JOHNSON_2022_10K")[0], answer


def test_the_whole_count_before_a_part_of_it():
    """A count asked of the company alone is its whole workforce, not the employees of one programme (real Boeing
    FY2024 10-K text)."""
    ba = [one("ba-10-k-2025-02-03", 4, "In 2024, Boeing employees completed approximately 5.9 million hours of "
                                       "learning and approximately 14,000 Boeing employees leveraged our tuition "
                                       "assistance program to pursue degrees."),
          one("ba-10-k-2025-02-03", 3, "Human Capital As of December 31, 2024, Boeing’s total workforce was "
                                       "approximately 172,000 with 15% located outside of the U.S.")]
    answer = prose_answer("Roughly how many people work for Boeing?", ["people", "work", "boeing"], ba,
                          frozenset({"boeing"}))
    assert "172,000" in answer.split("[ba-10-k-2025-02-03")[0], answer


def test_a_name_written_with_no_break_spaces():
    """PDF text writes no-break spaces between words; the auditor's name is read all the same (Corning FY2021, p. 50)."""
    corning = one("CORNING_2021_10K", 50, "The\xa0effectiveness\xa0of\xa0the\xa0Company’s\xa0internal\xa0control\xa0over\xa0"
                                          "financial\xa0reporting\xa0as\xa0of\xa0December\xa031,\xa02021\xa0has\xa0been\xa0"
                                          "audited\xa0by\xa0PricewaterhouseCoopers\xa0LLP,\xa0an\xa0independent\xa0"
                                          "registered\xa0public\xa0accounting\xa0firm.")
    answer = prose_answer("Who audits Corning? (FY21)", ["audits", "corning", "21"], [corning])
    assert "PricewaterhouseCoopers" in answer.split("[CORNING_2021_10K")[0], answer


def test_an_events_date_before_a_periods_end():
    """"When did CVS acquire Aetna" is answered by the date of the acquisition, not by the end of the period whose
    results include Aetna's; both sentences speak of the acquisition and Aetna (real CVS Health 10-K text)."""
    cvs = [one("CVSHEALTH_2020_10K", 129, "The Company's consolidated operating results include the operating results "
                                          "of Aetna from the Aetna Acquisition Date to December 31, 2018."),
           one("CVSHEALTH_2020_10K", 109, "On November 28, 2018 (the “Aetna Acquisition Date”), the Company acquired "
                                          "Aetna Inc.")]
    answer = prose_answer("When did CVS Health acquire Aetna?", ["cvs", "health", "acquire", "aetna"], cvs)
    assert answer.startswith("On November 28, 2018"), answer


def test_a_fiscal_calendars_date():
    """"When does the fiscal year end" asks the calendar's rule, which filings write as a weekday ("the Friday
    closest to November 30"), not the date one year ended (real Adobe FY2017 10-K text)."""
    adobe = [one("ADOBE_2017_10K", 2, "Portions of the Proxy Statement, to be filed within 120 days of the end of the "
                                      "fiscal year ended December 1, 2017, are incorporated by reference in Part III."),
             one("ADOBE_2017_10K", 61, "Fiscal Year Our fiscal year is a 52- or 53-week year that ends on the Friday "
                                       "closest to November 30.")]
    answer = prose_answer("When does Adobe's fiscal year end? (FY2017 10-K)", ["adobe", "fiscal", "year", "end"], adobe)
    assert "Friday closest to November 30" in answer.split("[ADOBE_2017_10K")[0], answer


def test_a_topic_word_and_its_derivations():
    cover = TopicCover(["acquire", "aetna", "ipo"])
    assert cover("the Company completed its acquisition of Aetna") == 2 / 3
    assert cover("shares sold in the IPO; the Company acquired Aetna") == 1.0
    assert TopicCover(["end"])("the fiscal year ends") == 1.0  # a short word whole, or inflected
    assert TopicCover(["end"])("the board may endorse it") == 0.0
    assert topic_of(["how", "many", "people", "work", "worldwide", "2022"], ("employees", "people")) == ["worldwide"]


def test_a_reader_that_found_nothing_does_not_replace_the_name():
    """A name question that also asks a share ("who ... and what share of sales") makes the reader look for a table
    row; when it finds none, its note follows the sentence that gives the name instead of replacing it."""
    from finrag.tools.answering.fast_path import offline_answer
    from finrag.tools.answering.reader import ReaderResult

    report = [one("PFIZER_2021_10K", 98, "We have served as the Company's auditor since 2000, KPMG LLP, New York, "
                                         "New York, our independent registered public accounting firm.")]
    question = "Who is Pfizer's independent registered public accounting firm and what share of fees did it bill?"
    note = ReaderResult(answer="No revenue row for the part whose share is asked was found in PFIZER_2021_10K's tables.",
                        confident=False, kind="item")
    answer = offline_answer(question, ["independent", "registered", "public", "accounting", "firm", "fees"], report,
                            note, read_question(question))
    assert "KPMG LLP" in answer.split("[PFIZER_2021_10K")[0] and answer.endswith(note.answer), answer
