"""Yes/no, drivers and list questions answered offline by the sentence that answers their form (issue 50): the form
read once with the question (`QuestionFacts.form`), Yes or No led by the deciding sentence, the causes of the asked
change led by them, the enumerated items led by the list; where nothing decides a yes/no, that is said. Passages are
real filing text (Microsoft's FY2023, NIKE's FY2023, 3M's 2022, General Mills' FY2022 and Boeing's 2019 10-Ks)."""
from __future__ import annotations

import pytest

from finrag.tools.answering.fast_path import offline_answer
from finrag.tools.answering.prose import prose_answer
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.question import read_question
from finrag.tools.question.form import answer_form
from finrag.tools.retrieval.query_rewrite import offline_rewrite


def ctx(doc: str, page: int, text: str) -> dict:
    return {"doc_id": doc, "page_start": page, "page_end": page, "chunk_id": None, "text": text}


def answer(question: str, contexts: list[dict]) -> str:
    return prose_answer(question, offline_rewrite(question).keywords, contexts)


@pytest.mark.parametrize("question, expected", [
    ("Did Meta pay a dividend in 2024?", "yesno"),
    ("At the time of Boeing's 2019 10-K, was the 737 MAX fleet still grounded?", "yesno"),  # after an opening phrase
    ("Could you list Corning's reportable segments per the 2022 annual report?", "list"),  # a request, not a yes/no
    ("What drove Microsoft's gross margin increase in fiscal 2023?", "drivers"),
    ("Why did Coca-Cola's employee count fall in 2024?", "drivers"),  # the causes, not the count
    ("What were the primary reasons for the decline in operating income?", "drivers"),
    ("What are 3M's business segments as of its 2022 10-K?", "list"),
    ("Which were Activision Blizzard's top three franchises in 2020?", "list"),
    ("What were MGM Resorts' reportable segments at December 31, 2022?", "list"),
    ("What were Apple's net sales in 2022?", ""),  # one figure, not a list
    ("Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?", ""),  # an either-or
    ("Which region had the worst topline performance for MGM during FY2022?", ""),  # a ranking
])
def test_the_form_is_read_once_with_the_question(question, expected):
    assert read_question(question).form == expected


def test_list_nouns_are_the_asked_noun_not_the_owner():
    assert read_question("What were MGM Resorts' reportable segments at December 31, 2022?").form_nouns == ["segments"]
    assert read_question("Which were Activision Blizzard's top three franchises in 2020?").form_nouns == ["franchises"]


BOEING = ctx("BOEING_2019_10K", 7, "Commercial Airplanes\nThe 737 MAX fleet is currently grounded, and we have "
             "temporarily suspended production of the 737 MAX. We continue to work with the FAA.\nThe 777X is "
             "expected to enter service in 2021. Our backlog includes more than 5,400 airplanes.")
NIKE_UNION = ctx("NIKE_2019_10K", 7, "As of May 31, 2019, we had approximately 76,700 employees worldwide. None of "
                 "our employees in the United States are represented by a union. We believe our employee relations "
                 "are good.")


def test_yes_led_by_the_sentence_that_decides_it():
    text = answer("At the time of Boeing's 2019 10-K, was the 737 MAX fleet still grounded?", [BOEING])
    lead = text.split("[BOEING_2019_10K, p. 7]")[0]
    assert lead.startswith("Yes: ") and "The 737 MAX fleet is currently grounded" in lead, text
    assert "Also" not in text  # the same sentence is not quoted twice


def test_no_when_the_deciding_clause_negates_it():
    text = answer("Are Nike's employees in the United States represented by a union?", [NIKE_UNION])
    assert text.startswith("No: None of our employees in the United States are represented by a union"), text


def test_nothing_decides_it_is_said_not_guessed():
    text = answer("Does Boeing still operate stores in Mexico?", [BOEING])  # no sentence names Mexico
    assert text.startswith("Undecided: no sentence of the retrieved passages says yes or no"), text
    assert "(not an answer)" in text and "737 MAX" in text  # the passages shown, marked


MSFT = ctx("MICROSOFT_2023_10K", 43, (
    "Excluding the impact of the change in accounting estimate, gross margin percentage decreased 1 point driven by "
    "declines in Intelligent Cloud and More Personal Computing. Operating expenses increased $1.4 billion or 3% "
    "driven by investments in cloud engineering. Gross margin increased $10.4 billion or 8% driven by growth in "
    "Intelligent Cloud and Productivity and Business Processes and the change in accounting estimate, offset in part "
    "by a decline in More Personal Computing. Cash used in investing decreased $7.6 billion due to a decrease in "
    "cash used for acquisitions."))


def test_drivers_lead_with_the_causes_of_the_asked_change():
    text = answer("What drove Microsoft's gross margin increase in fiscal 2023?", [MSFT])
    lead = text.split("[MICROSOFT_2023_10K")[0]
    assert lead.startswith("Driven by growth in Intelligent Cloud and Productivity and Business Processes"), text
    assert "Gross margin increased $10.4 billion" in lead  # the whole sentence quoted, cited once


def test_drivers_of_a_fall_are_not_those_of_a_rise():
    text = answer("Why did Microsoft's gross margin percentage decline in fiscal 2023?", [MSFT])
    assert text.startswith("Driven by declines in Intelligent Cloud and More Personal Computing"), text


def test_drivers_show_the_change_itself_from_its_row():
    table = ctx("MICROSOFT_2023_10K", 40, "(In millions, except percentages) 2023 2022 Percentage Change Revenue "
                "211,915 198,270 7% Cost of revenue 65,863 62,650 5% Operating income 88,523 83,383 6% Gross margin "
                "percentage 69 % 68 % 1 ppt Research and development 27,195 24,512 11% Sales and marketing 22,759 "
                "21,825 4% General and administrative 7,575 5,900 28%")
    text = answer("What drove Microsoft's gross margin increase in fiscal 2023?", [MSFT, table])
    assert "The change itself: ... " in text and "Gross margin percentage 69 % 68 %" in text.split("The change")[1]


def test_drivers_lead_before_the_readers_figure():
    figure = ReaderResult(answer="Microsoft's gross margin for FY2023 was $146,052 million [MICROSOFT_2023_10K, p. 59].",
                          confident=True, kind="item")
    q = "What drove Microsoft's gross margin increase in fiscal 2023?"
    text = offline_answer(q, offline_rewrite(q).keywords, [MSFT], figure)
    assert text.startswith("Driven by growth") and text.endswith(figure.answer), text
    plain = "What was Microsoft's gross margin in fiscal 2023?"  # a figure asked: the reader's answer alone
    assert offline_answer(plain, offline_rewrite(plain).keywords, [MSFT], figure) == figure.answer


MMM = ctx("3M_2022_10K", 28, (
    "Income from unconsolidated subsidiaries, net of taxes: (Millions) 2022 2021 $ 11 $ 10.\n"
    "3M manages its operations in four business segments. The reportable segments are Safety and Industrial; "
    "Transportation and Electronics; Health Care; and Consumer. Effective in the first quarter of 2022, the "
    "measure of segment operating performance changed."))
GIS = ctx("GENERALMILLS_2022_10K", 22, (
    "Our Pet operating segment includes pet food products sold in national pet superstore chains, e-commerce "
    "retailers, grocery stores, regional pet store chains, mass merchandisers, and veterinary clinics and hospitals."))


def test_a_list_leads_with_its_items_written_with_semicolons():
    text = answer("What are 3M's business segments as of its 2022 10-K?", [MMM])
    assert text.startswith("Safety and Industrial; Transportation and Electronics; Health Care; Consumer"), text
    assert "[3M_2022_10K, p. 28]" in text


def test_a_list_is_of_the_plural_noun_not_a_description_of_one_item():
    assert answer("Which operating segments did General Mills have in fiscal 2022?", [GIS]) == ""


def test_a_table_row_is_no_list():
    table = ctx("AMERICANEXPRESS_2022_10K", 90, "The changes in the carrying amount of goodwill reported in our "
                "reportable operating segments were as follows: (Millions) USCS CS ICS GMNS Total Balance as of "
                "December 31, 2020 $ 369 $ 2,124 $ 799 $ 560 $ 3,852 Acquisitions 13")
    assert answer("What are American Express's reportable operating segments (2022)?", [table]) == ""


def test_causes_written_before_the_change():
    ulta = ctx("ULTABEAUTY_2023_10K", 40, "As a result of the opening of 47 new stores and higher inventory in transit, "
               "merchandise inventories increased 8.5% to $1.6 billion at year end. As a result of the program, "
               "the Company repurchased 2.2 million shares.")
    text = answer("What drove the increase in Ulta Beauty's merchandise inventories balance at end of FY2023?", [ulta])
    assert text.startswith("As a result of the opening of 47 new stores and higher inventory in transit (the filing"), text


def test_the_form_is_read_from_the_asking_sentence():
    q = ("Has AMCOR's quick ratio improved or declined between FY2023 and FY2022? If the quick ratio is not something "
         "that a financial analyst would ask about a company like this, then state that and explain why.")
    assert read_question(q).form == ""  # "explain why" instructs; it asks no causes


def test_a_table_or_a_list_of_exhibits_decides_no_yes_or_no():
    exhibits = ctx("BA_2024_10K", 133, "3.Exhibits 2.1 | Agreement and Plan of Merger, dated June 30, 2024, by and among "
                   "Spirit AeroSystems Holdings | 3.1 | All schedules are omitted because they are not applicable.")
    text = answer("Did Boeing complete its acquisition of Spirit AeroSystems in 2024?", [exhibits])
    assert text.startswith("Undecided:"), text  # "not applicable" in a list of exhibits says no "No"


def test_items_whose_names_hold_commas():
    boeing = ctx("BA_2024_10K", 61, "As described in Note 23, we operate in three reportable segments: Commercial "
                 "Airplanes (BCA), Defense, Space & Security (BDS), and Global Services (BGS). We added a new line item.")
    text = answer("What are Boeing's reportable segments?", [boeing])
    assert text.startswith("Commercial Airplanes (BCA), Defense, Space & Security (BDS), and Global Services (BGS) ("), text


def test_the_plural_of_a_list_is_the_object_of_list_or_identify():
    """"Identify the accounting firm that audited ... statements" asks for one firm, not a list of statements."""
    from finrag.tools.question.form import answer_form, form_nouns

    q = ("Please identify the independent registered public accounting firm that audited The Boeing Company's "
         "consolidated financial statements for fiscal year 2024.")
    assert answer_form(q) != "list"
    for q, noun in (("Identify Boeing's business segments", "segments"), ("list all of Apple's segments", "segments"),
                    ("Name the three largest customers of Lockheed", "customers")):
        assert answer_form(q) == "list" and form_nouns(q, "list") == (noun,), q


@pytest.mark.parametrize("question", [
    "globex corp - did they cut the dividend in 2019?",
    "Initech buybacks last year: were there any?",
    "Acme Widgets 2020 \u2014 does it lease its plants?",
])
def test_a_yes_no_after_its_topic_set_off_by_a_dash_or_a_colon(question):
    assert answer_form(question) == "yesno"


def test_a_dash_before_no_auxiliary_asks_no_yes_no():
    assert answer_form("What is Acme's dividend - annual?") != "yesno"
