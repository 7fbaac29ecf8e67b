"""Prose answers, session 56 (issue 50): a question's word is matched by the filing's word for the same thing
(`vocabulary.synonyms`), a workforce's "size" is a count, a sentence cut by its chunk's start leads after a whole
one, and a list in apposition to a noun that says how many is a list. Passages are made up (fictional companies)."""
from __future__ import annotations

import pytest

from finrag.tools.answering.list_answer import listed_items
from finrag.tools.answering.prose import cut_short, prose_answer
from finrag.tools.question import read_question
from finrag.tools.retrieval.form_evidence import TopicCover
from finrag.tools.retrieval.query_rewrite import offline_rewrite
from finrag.tools.vocabulary.answer_shapes import whole_count
from finrag.tools.vocabulary.synonyms import filing_words, same_as


def ctx(doc: str, page: int, text: str) -> dict:
    return {"doc_id": doc, "page_start": page, "page_end": page, "chunk_id": None, "text": text}


def answer(question: str, contexts: list[dict]) -> str:
    return prose_answer(question, offline_rewrite(question).keywords, contexts)


def test_same_as_reads_a_class_and_its_inflections():
    assert "employees" in same_as("workforce") and "workforce" in same_as("team members")
    assert "buy back" in same_as("repurchased") and "repurchase" in same_as("buybacks")
    assert "locations" in same_as("store")
    assert same_as("revenue") == () and same_as("due") == ()  # "due" alone is "due to" as often


def test_filing_words_writes_a_phrase_as_the_filing_does():
    assert filing_words("Did Zephyr buy back shares?") == "Did Zephyr repurchase shares?"
    assert filing_words("Has it debt coming  due next year?") == "Has it debt maturing next year?"
    assert filing_words("Is the dividend due to rise?") == "Is the dividend due to rise?"


def test_a_workforce_size_is_a_count_of_employees():
    for q in ("What was Zephyr Tools' total workforce size at the end of 2031?",
              "What is the size of Zephyr's workforce?", "Roughly how many ppl does Zephyr employ?"):
        facts = read_question(q)
        assert facts.form == "count" and "employees" in facts.form_nouns, (q, facts.form, facts.form_nouns)
    assert read_question("What is the size of the board?").form != "count"


def test_a_store_count_counts_locations():
    facts = read_question("Quillmart store count at year end 2031?")
    assert facts.form == "count" and "locations" in facts.form_nouns
    part = ctx("QUILLMART_2031_10K", 30, "Capital spending funded the remodel of 140 stores and 25 new stores.")
    whole = ctx("QUILLMART_2031_10K", 4, "As of December 31, 2031, we operated 1,912 retail locations in nine countries.")
    text = answer("Quillmart store count at year end 2031?", [part, whole])
    assert text.startswith("As of December 31, 2031, we operated 1,912 retail locations"), text
    assert whole_count(whole["text"], tuple(facts.form_nouns))


def test_topic_cover_finds_the_filing_word():
    assert TopicCover(["workforce", "engineers"])("We had 9,100 employees, of whom 3,000 engineers.") == 1.0


def test_a_workforce_question_is_answered_by_the_employees_sentence():
    pay = ctx("ZEPHYR_2031_10K", 40, "Employee compensation rose 6% in 2031 as we added benefits for 2,000 new hires.")
    count = ctx("ZEPHYR_2031_10K", 7, "At December 31, 2031, Zephyr had approximately 48,200 employees worldwide.")
    text = answer("What was Zephyr's total workforce size at the end of 2031?", [pay, count])
    assert text.startswith("At December 31, 2031, Zephyr had approximately 48,200 employees"), text


def test_buy_back_is_decided_by_a_repurchase_sentence():
    none = ctx("ZEPHYR_2031_10K", 61, "There were no repurchases of common stock in 2029, 2030 or 2031.")
    other = ctx("ZEPHYR_2031_10K", 62, "Common shares outstanding totaled 410 million as of December 31, 2031.")
    text = answer("Did Zephyr buy back any stock in 2031?", [other, none])
    assert text.startswith("No: There were no repurchases of common stock"), text


def test_debt_coming_due_is_decided_by_a_maturing_sentence():
    due = ctx("QUILLMART_2031_10K", 48, "We have $2.4 billion of debt maturing in the next twelve months, which we "
              "expect to repay with cash on hand.")
    text = answer("Does Quillmart have debt coming due within the next twelve months?", [due])
    assert text.startswith("Yes: We have $2.4 billion of debt maturing"), text


def test_a_sentence_cut_by_its_chunk_leads_after_a_whole_one():
    assert cut_short("and 610 depots at June 30, 2031 and 2030, respectively.") == 0.1
    assert cut_short("At June 30, 2031, Pellworth operated 640 depots worldwide.") == 0.0
    cut = ctx("PELLWORTH_2031_10K", 3, "and 610 depots worldwide at June 30, 2031 and 2030, respectively. We also sell online.")
    whole = ctx("PELLWORTH_2031_10K", 40, "At June 30, 2031, Pellworth operated 640 depots worldwide: 500 in the "
                "United States and 140 in Canada.")
    text = answer("how many depots did Pellworth have worldwide at the end of FY31?", [cut, whole])
    assert text.startswith("At June 30, 2031, Pellworth operated 640 depots"), text


def test_a_list_in_apposition_to_a_counted_noun():
    text = "After review, we have concluded we have three reportable segments, Cables, Sensors and Field Services. Next."
    found = list(listed_items(text, ("segments",)))
    assert found and found[0][1] == ["Cables", "Sensors", "Field Services"], found
    assert not list(listed_items("The Company reports two segments, which are described below.", ("segments",)))


def test_a_bulleted_list_names_each_item_before_its_description():
    text = ("After the reorganisation, we have the following two reportable segments: • the Rotor and Blades segment, "
            "which primarily includes hubs and blades; and • the Controls, Sensors and Software segment, which "
            "primarily includes firmware. Revenue rose.")
    found = list(listed_items(text, ("segments",)))
    assert found and found[0][1] == ["the Rotor and Blades segment", "the Controls, Sensors and Software segment"]


class _Store:
    """An index of one filing's chunks, as `list_evidence` reads it."""

    def __init__(self, texts: list[str]):
        from finrag.state.schema import RetrievedChunk
        self.chunks = {i: RetrievedChunk(chunk_id=i, doc_id="ZEPHYR_2031_10K", page_start=i + 1, page_end=i + 1,
                                         text=t, score=0.0) for i, t in enumerate(texts)}

    def chunk_ids_of(self, doc_ids):
        return list(self.chunks)

    def get_chunks(self, ids):
        return {i: self.chunks[i] for i in ids if i in self.chunks}


def test_list_evidence_adds_the_chunk_that_enumerates_the_noun():
    from finrag.tools.answering.list_answer import list_evidence
    store = _Store(["Segment results: North Rail revenue rose 4%.",
                    "Zephyr operates in four reportable segments: North Rail, South Rail, Freight Services and Marine Logistics.",
                    "Our two reportable segments, Alpha and Beta, are described below."])
    got = list_evidence(store, ["ZEPHYR_2031_10K"], ("segments",), [])
    assert [c["chunk_id"] for c in got] == [1]
    have = [{"chunk_id": 1, "doc_id": "ZEPHYR_2031_10K", "page_start": 2, "page_end": 2, "text": store.chunks[1].text}]
    assert list_evidence(store, ["ZEPHYR_2031_10K"], ("segments",), have) == []  # already in the context
    text = prose_answer("What are Zephyr's reportable segments?", ["reportable", "segments"], have)
    assert text.startswith("North Rail; South Rail; Freight Services; Marine Logistics"), text


def test_drivers_of_the_change_the_question_sizes():
    organic = ctx("ZEPHYR_2031_10K", 30, "Organic net sales decreased 1.2% to $9.1 billion in 2031 compared to $9.2 "
                  "billion in 2030 due to lower volume (1.5 pp), partially offset by pricing (0.3 pp).")
    reported = ctx("ZEPHYR_2031_10K", 29, "Net sales decreased 6.1% to $9.1 billion in 2031 compared to $9.7 billion "
                   "in 2030 primarily due to the divestiture of the valves business and unfavorable foreign currency.")
    text = answer("Zephyr net sales fell ~6% in 2031, what were the main reasons", [organic, reported])
    assert text.startswith("Primarily due to the divestiture of the valves business"), text


@pytest.mark.parametrize("opening", [
    "Our consolidated gross profit rate",  # the anaphor's change is the sentence before's
    "Our gross profit rate",               # ... and its measure, though that sentence omits the question's qualifier
])
def test_drivers_read_an_anaphor_as_the_change_before_it(opening):
    part = ctx("QUILLMART_2031_10K", 44, "For fiscal 2031, the decrease in gross profit rate at Quill Club was primarily "
               "due to markdowns on seasonal goods and higher freight costs.")
    whole = ctx("QUILLMART_2031_10K", 40, f"{opening} decreased 41 basis points in fiscal 2031. For fiscal 2031, the "
                "decrease was primarily due to price investments and the mix impact from online sales.")
    text = answer("Why did Quillmart's consolidated gross profit rate go down in FY2031?", [part, whole])
    assert text.startswith("Primarily due to price investments"), text


def test_a_ticker_of_the_asked_company_is_no_name_a_sentence_must_write():
    heading = ctx("ZEPHYR_2031_10K", 17, "Market for the Registrant’s Common Stock and Issuer Purchases of Equity Securities "
                  "Our common stock is traded under the symbol “ZPHR.”")
    none = ctx("ZEPHYR_2031_10K", 61, "There were no repurchases of common stock in 2029, 2030 or 2031.")
    text = answer("Did ZPHR buy back any stock in 2031?", [heading, none])
    assert text.startswith("No: There were no repurchases of common stock"), text


def test_a_year_end_written_as_ye_is_a_period_not_a_topic():
    from finrag.tools.answering.prose_units import topic_words
    assert topic_words("Zephyr total headcount at YE2031", [ctx("ZEPHYR_2031_10K", 3, "")]) == ["headcount"]
    count = ctx("ZEPHYR_2031_10K", 3, "As of December 31, 2031, we had approximately 7,700 total employees.")
    text = answer("Zephyr total headcount at YE2031", [count])
    assert text.startswith("As of December 31, 2031, we had approximately 7,700"), text


def test_a_period_as_subject_explains_the_change_just_stated():
    seg = ctx("PELLWORTH_2031_10K", 38, "Asia net revenues were $0.7 billion in 2031, compared to $1.1 billion in 2030, a "
              "decrease of 36%, due to lower visitation.")
    whole = ctx("PELLWORTH_2031_10K", 37, "Consolidated net revenues were $8.2 billion in 2031 compared to $6.0 billion in "
                "2030, an increase of 37%. The current year benefited from the opening of the Harbor resort and a full "
                "year of revenues from the Ridge casino, partially offset by the sale of the Dune hotel.")
    text = answer("Pellworth consolidated net revenue was up 37% in 2031. What drove it?", [seg, whole])
    assert text.startswith("Benefited from the opening of the Harbor resort"), text


def test_drivers_quote_the_whole_sentence_not_its_cut_line():
    page = ctx("ZEPHYR_2031_10K", 27, "Net sales decreased 6.1% to $9.1 billion in 2031 compared to $9.7 billion in 2030 "
               "primarily due to unfavorable foreign currency (2.2 pp) and\nthe divestiture of the valves business "
               "(3.0 pp). Organic Net Sales decreased 0.9% due to lower volume.")
    text = answer("Zephyr net sales fell ~6% in 2031, what were the main reasons", [page])
    assert "the divestiture of the valves business" in text.split("(the filing")[0], text
