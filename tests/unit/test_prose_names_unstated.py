"""Issue 50, round three (f55p): names asked by their kind (a city, an exchange, a customer, the CEO), the evidence
answer's style read from the question's one form, and a question whose named thing no passage mentions said to be
unanswered first. Sentences are the filings' own (Apple's, Netflix's, PepsiCo's, Lockheed Martin's, Tesla's, AMD's
10-Ks)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from finrag.tools.answering import evidence
from finrag.tools.answering.evidence import evidence_style
from finrag.tools.answering.prose import form_answer
from finrag.tools.answering.prose_units import company_words
from finrag.tools.answering.unstated import NAME_SPREAD, RARE_PAGES, unmentioned, unstated_answer
from finrag.tools.question import read_question
from finrag.tools.vocabulary.answer_shapes import answer_piece


def _ctx(text: str, doc: str = "DOC_2022_10K", page: int = 5) -> dict:
    return {"chunk_id": None, "doc_id": doc, "page_start": page, "page_end": page, "text": text, "score": 1.0}


# ---------------------------------------------------------------- the evidence answer reads the question's form

def test_evidence_style_is_the_question_form_not_a_second_reading():
    assert not hasattr(evidence, "question_style")  # one reading of the form: QuestionFacts.form
    for question, style in [("What drove the reduction in SG&A expense as a percent of net sales in FY2023?", "drivers"),
                            ("Is Boeing's business subject to cyclicality?", "yesno"),
                            # the question model reads a yes/no after an opening phrase, which the old regex missed
                            ("At the time of its FY2019 10-K, was Nike paying a dividend?", "yesno"),
                            ("Which region had the Highest EBITDAR Contribution for MGM during FY2022?", "which"),
                            ("Total revenue of Apple in 2024", "open")]:
        assert evidence_style(question, read_question(question)) == style, question


# ---------------------------------------------------------------- a name asked by its kind

@pytest.mark.parametrize("question, nouns", [
    ("What city is Apple headquartered in?", ["city"]),
    ("What city are Netflix's principal executive offices in (2015 10-K)?", ["city"]),
    ("Where is Nike headquartered?", ["headquarters"]),
    ("In which state is Tesla incorporated?", ["state"]),
    ("Which exchange is META's Class A stock listed on?", []),
    ("Which foundry did AMD have its wafer supply agreement with, per the 2015 10-K?", []),
    ("LMT's biggest customer in 2022?", ["customer"]),
    ("Who is PepsiCo's largest customer and what share of FY22 net revenue did it account for?", ["customer"]),
])
def test_one_thing_asked_by_its_kind_is_a_name(question, nouns):
    facts = read_question(question)
    assert facts.form == "name" and list(facts.form_nouns) == nouns


@pytest.mark.parametrize("question, form", [
    ("What percentage of revenue came from services in 2022?", ""),   # a figure's noun
    ("What public float did IBM report on the cover of its FY2024 10-K?", ""),
    ("What year did Netflix go public?", "date"),
    ("Who are the primary customers of Boeing as of FY2022?", "list"),  # several customers
    ("Where did revenue grow fastest?", ""),                          # no place of the company asked
])
def test_a_figure_a_date_or_a_list_is_no_name(question, form):
    assert read_question(question).form == form


def test_a_place_answers_a_place_and_nothing_else():
    cover = "100 Winchester Circle, Los Gatos, California 95032 (Address of principal executive offices)"
    assert answer_piece("name", cover, ("city",)) == "Los Gatos, California"
    assert answer_piece("name", "One Apple Park Way Cupertino, California 95014", ("city",)) == "Cupertino, California"
    assert answer_piece("name", "Our headquarters are in Austin, TX and we", ("headquarters",)) == "Austin, TX"
    # the auditor's city is no firm's name, and a firm is no place
    assert answer_piece("name", "/s/ Ernst & Young LLP San Jose, California", ()) == "Young LLP"
    assert answer_piece("name", "audited by PricewaterhouseCoopers LLP, our auditor", ("city",)) is None


def test_a_customer_is_the_party_a_share_of_sales_is_to_or_from():
    pepsi = ("In 2022, sales to Walmart Inc. (Walmart) and its affiliates, including Sam’s Club (Sam’s), represented "
             "approximately 14% of our consolidated net revenue, with sales reported across all of our divisions")
    lmt = "We derived 73% of our total consolidated net sales from the U.S. Government in 2022, including 64% from the DoD."
    boeing = "Revenues from the U.S. Government, primarily recorded at BDS and BGS, represented 42% of consolidated revenues"
    own = frozenset({"lockheed", "martin", "pepsico"})
    assert answer_piece("name", pepsi, ("customer",), own) == "Walmart Inc."
    assert answer_piece("name", lmt, ("customer",), own) == "U.S. Government"
    assert answer_piece("name", boeing, ("customer",), own) == "U.S. Government"
    # a segment's own products are a source of sales, not a customer; a customer without its share is no answer
    segment = "Net sales from Aeronautics’ combat aircraft products represented 32% of our total consolidated net sales"
    assert answer_piece("name", segment, ("customer",), own) is None
    rms = "Net sales from RMS’ Sikorsky helicopter programs represented 10% of our consolidated net sales in 2021"
    assert answer_piece("name", rms, ("customer",), own) is None
    assert answer_piece("name", "We sell to Walmart Inc. and other retailers.", ("customer",), own) is None
    # the customer as the subject of its share, the share in words
    gis = ("During fiscal 2020, Walmart Inc. and its affiliates (Walmart) accounted for 21 percent of our consolidated "
           "net sales and 30 percent of net sales of our North America Retail segment.")
    assert answer_piece("name", gis, ("customer",), frozenset({"general", "mills"})) == "Walmart Inc."


def test_an_officer_named_before_an_appositive_title():
    tesla = "We are highly dependent on the services of Elon Musk, Technoking of Tesla and our Chief Executive Officer."
    assert answer_piece("name", tesla, (), frozenset({"tesla"})) == "Elon Musk"
    # "CEO" written in capitals is the title asked, not a word of the company's name
    words = company_words("Who is Tesla's CEO according to its FY2024 10-K?", [_ctx("x", "tsla-10-k-2025-01-30")])
    assert "tesla" in words and "ceo" not in words


def test_a_name_that_echoes_the_question_or_is_the_company_s_own_is_no_answer():
    exhibit = ("Wafer Supply Agreement, among Advanced Micro Devices, Inc., The Foundry Company and AMD Fab Technologies "
               "US, Inc., dated March 2,")
    asked = frozenset("which foundry did amd have its wafer supply agreement with per the".split())
    assert answer_piece("name", exhibit, (), frozenset({"amd"}), asked) is None  # AMD's own (its initials), an echo
    assert answer_piece("name", "we entered into a Wafer Supply Agreement (WSA) with GLOBALFOUNDRIES Inc.", (),
                        frozenset({"amd"}), asked) == "GLOBALFOUNDRIES Inc."


def test_the_ceo_sentence_leads_not_the_auditor_after_a_controls_paragraph():
    controls = _ctx("Based on this evaluation, our Chief Executive Officer and our Chief Financial Officer concluded that "
                    "our disclosure controls were effective as of December 31, 2024. Our independent registered public "
                    "accounting firm, PricewaterhouseCoopers LLP, has audited the effectiveness of our internal control "
                    "as of December 31, 2024.", "tsla-10-k-2025-01-30", 93)
    risk = _ctx("Our success depends on key people. In particular, we are highly dependent on the services of Elon Musk, "
                "Technoking of Tesla and our Chief Executive Officer. None of our key employees is bound by an "
                "employment agreement.", "tsla-10-k-2025-01-30", 22)
    question = "Who is Tesla's CEO according to its FY2024 10-K?"
    answer = form_answer(question, "name", (), ["tesla", "ceo"], [controls, risk], frozenset({"tesla", "inc"}))
    assert answer.startswith("In particular, we are highly dependent on the services of Elon Musk"), answer


def test_a_largest_customer_question_leads_with_the_share_sentence():
    question = "Who is PepsiCo's largest customer and what share of FY22 net revenue did it account for?"
    facts = read_question(question)
    ctx = [_ctx("Sales incentives and discounts are primarily accounted for as a reduction of revenue and include "
                "payments to customers for performing activities on our behalf.", "PEPSICO_2022_10K", 60),
           _ctx("The loss of a major customer could hurt us. In 2022, sales to Walmart Inc. (Walmart) and its affiliates, "
                "including Sam’s Club (Sam’s), represented approximately 14% of our consolidated net revenue, with sales "
                "reported across all of our divisions.", "PEPSICO_2022_10K", 8)]
    answer = form_answer(question, "name", tuple(facts.form_nouns), ["pepsico", "largest", "customer", "share", "net",
                                                                     "revenue"], ctx, frozenset({"pepsico"}), facts)
    lead = answer.split("[PEPSICO_2022_10K")[0]
    assert "Walmart Inc." in lead and "14%" in lead, answer


# ---------------------------------------------------------------- unanswerable: a named thing no passage mentions

@dataclass
class _Hit:
    doc_id: str


class _Index:
    """The index as the test reads it: a filing's pages and the corpus' BM25 hits of a word."""

    def __init__(self, pages: dict[str, list[str]], hits: dict[str, list[str]]):
        self.pages, self.hits = pages, hits
        self.common = [f"co{i}_2022_10K" for i in range(NAME_SPREAD + 1)]  # any other word: most companies write it

    def pages_of(self, doc_id: str) -> list[str]:
        return self.pages.get(doc_id, [])

    def search_fts(self, query, k=20, doc_ids=None, variant="base"):
        return [_Hit(d) for d in self.hits.get(query, self.common)][:k]


_TSLA = "tsla-10-k-2025-01-30"
_PASSAGES = [_ctx("Tesla opposed the fee request, and at Tesla's 2024 Annual Meeting of Stockholders, 72% of the "
                  "disinterested voting shares approved it.", _TSLA, 87)]


def test_a_named_thing_no_passage_mentions_is_said_unanswered_first():
    question = "How much did Tesla spend developing the Dojo supercomputer in 2024?"
    assert unmentioned(question, _PASSAGES, frozenset({"tesla"})) == {"dojo": 0}
    index = _Index({_TSLA: ["We design vehicles.", "Energy storage."]}, {"dojo": [_TSLA]})
    shown = "From the filings: Tesla opposed the fee request. [tsla-10-k-2025-01-30, p. 87]"
    answer = unstated_answer(question, shown, _PASSAGES, frozenset({"tesla"}), index)
    assert answer.startswith("Not stated in the retrieved passages: none of them mentions 'dojo' (not in the filing)")
    assert answer.endswith("The closest passages (not an answer): Tesla opposed the fee request. "
                           "[tsla-10-k-2025-01-30, p. 87]")


def test_a_word_the_filing_or_the_corpus_writes_widely_is_no_missing_name():
    # "the Real change in Sales": a capitalised common word most companies' filings write
    question = "How much was the Real change in Sales for Tesla in FY 2024?"
    widely = _Index({_TSLA: []}, {"real": [f"co{i}_2022_10K" for i in range(NAME_SPREAD + 1)]})
    assert unmentioned(question, _PASSAGES, frozenset({"tesla"}), widely) == {}
    # a word the filing writes on many pages is its vocabulary, though the passages shown miss it
    many = _Index({_TSLA: ["Optimus robots"] * (RARE_PAGES + 1)}, {"optimus": [_TSLA]})
    assert unmentioned("What did Tesla spend on Optimus in 2024?", _PASSAGES, frozenset({"tesla"}), many) == {}
    once = _Index({_TSLA: ["Optimus, a robotic humanoid in development"]}, {"optimus": [_TSLA]})
    found = unmentioned("What did Tesla spend on Optimus in 2024?", _PASSAGES, frozenset({"tesla"}), once)
    assert found == {"optimus": 1}
    assert "'optimus' (the filing writes it on 1 page, none retrieved)" in unstated_answer(
        "What did Tesla spend on Optimus in 2024?", "From the filings: x", _PASSAGES, frozenset({"tesla"}), once)


def test_an_initialism_no_filing_writes_is_the_question_s_own_abbreviation_not_a_missing_name():
    # FinanceBench's "what is the year end FY2018 net PPNE for 3M?": no filing writes "PPNE" (they write "property,
    # plant and equipment"), so the passages' silence on it says nothing; a word one filing writes still counts
    ctx = [_ctx("Property, plant and equipment, net was $8,738 million.", "3M_2018_10K", 60)]
    question = "What is the year end FY2018 net PPNE for 3M? Answer in USD billions."
    nowhere = _Index({"3M_2018_10K": ["Property, plant and equipment"]}, {"ppne": []})
    assert unmentioned(question, ctx, frozenset({"3m"}), nowhere) == {}
    shown = "From the filings: Property, plant and equipment, net was $8,738 million. [3M_2018_10K, p. 60]"
    assert unstated_answer(question, shown, ctx, frozenset({"3m"}), nowhere) == shown
    once = _Index({"3M_2018_10K": []}, {"ppne": ["3M_2018_10K"]})
    assert unmentioned(question, ctx, frozenset({"3m"}), once) == {"ppne": 0}
    # a name written as a name is absent though no filing writes it ("the Optimus robot" asked of a Boeing corpus)
    boeing = _Index({"BOEING_2022_10K": ["Commercial Airplanes"]}, {"optimus": []})
    ba = [_ctx("Research and development expense increased.", "BOEING_2022_10K", 30)]
    assert unmentioned("How much did Boeing spend on the Optimus robot?", ba, frozenset({"boeing"}), boeing) == {
        "optimus": 0}


class _NoSearch(_Index):
    def search_fts(self, query, k=20, doc_ids=None, variant="base"):
        raise RuntimeError("no full-text search")


def test_without_a_search_the_pages_decide():
    question = "How much did Tesla spend developing the Dojo supercomputer in 2024?"
    assert unmentioned(question, _PASSAGES, frozenset({"tesla"}), _NoSearch({_TSLA: []}, {})) == {"dojo": 0}


def test_a_name_written_out_or_mentioned_is_not_missing():
    ctx = [_ctx("Long served as Vice President, Research and Development, of The Coca-Cola Company.", "COCACOLA_2017_10K", 25)]
    assert unmentioned("How much did Coca-Cola spend on R&D in 2017?", ctx, frozenset({"coca", "cola"})) == {}
    shown = "From the filings: x"
    assert unstated_answer("What did Tesla say of its Annual Meeting?", shown, _PASSAGES, frozenset({"tesla"})) == shown
    assert unmentioned("anything", [], frozenset()) == {}


# ---------------------------------------------------------------- yes/no: the act done decides before its noun

def test_the_act_done_decides_before_the_act_named_as_a_noun():
    from finrag.tools.answering.yesno_answer import states_act, yesno_answer

    topic = ["repurchase", "shares"]
    assert states_act("During 2024, the Company repurchased 499 million shares of its common stock", topic)
    assert not states_act("the Company was authorized to purchase up to $110 billion under a share repurchase program",
                          topic)
    assert states_act("We paid four quarterly cash dividends", ["pay", "dividend"])  # an irregular past
    # an act denied is a fact too; a possibility is not an act
    assert states_act("Verizon did not repurchase any shares of the Company's common stock", topic)
    assert states_act("There were no repurchases of common stock during 2022 and 2021", topic)
    assert not states_act("Under the program, shares may be repurchased in privately negotiated transactions", topic)
    from finrag.tools.answering.yesno_answer import asked_verb

    assert asked_verb("Did Apple repurchase shares in fiscal 2024?", ["repurchase", "shares"]) == ["repurchase"]
    # "have plans to pay": the act asked is no payment ("the price paid for our common stock" decides nothing first)
    assert asked_verb("did AMD have plans to pay a dividend on its common stock in 2015?",
                      ["plans", "pay", "dividend", "common", "stock"]) == []
    question = "Did Apple repurchase shares in fiscal 2024?"
    ctx = [_ctx("As of September 28, 2024, the Company was authorized by the Board to repurchase up to $110 billion of "
                "the Company's shares under a share repurchase program, of which $20.9 billion had been utilized.",
                "aapl-10-k-2024-11-01", 21),
           _ctx("Share Repurchase Program. During 2024, the Company repurchased 499 million shares of its common stock "
                "for $95.0 billion.", "aapl-10-k-2024-11-01", 45)]
    answer = yesno_answer(question, ["repurchase", "shares"], ctx, read_question(question), frozenset({"apple", "inc"}))
    assert answer.startswith("Yes: ") and "$95.0 billion" in answer.split("[aapl")[0], answer


# ---------------------------------------------------------------- drivers: the asked measure, the company's, a fact

def test_drivers_lead_with_the_company_s_own_unqualified_measure():
    from finrag.tools.answering.drivers_answer import drivers_answer

    question = "What caused Kraft Heinz's net sales decline in 2019?"
    doc = "KRAFTHEINZ_2019_10K"
    ctx = [_ctx("Organic Net Sales decreased 1.9% to $1.7 billion in 2019 compared to $1.7 billion in 2018 due to "
                "lower pricing (3.4 pp), partially offset by favorable volume/mix (1.5 pp).", doc, 31),
           _ctx("Net sales decreased 13.4% to $1.9 billion in 2019 compared to $2.2 billion in 2018 primarily due to "
                "the unfavorable impacts of acquisitions and divestitures.", doc, 31),
           _ctx("Net sales decreased 4.9% to $25.0 billion in 2019 compared to $26.3 billion in 2018 primarily due to "
                "the unfavorable impacts of foreign currency (1.9 pp) and acquisitions and divestitures (1.3 pp).", doc, 27)]
    answer = drivers_answer(question, ["net", "sales", "decline"], ctx, read_question(question),
                            frozenset({"kraft", "heinz", "company"}))
    assert answer.startswith("Primarily due to the unfavorable impacts of foreign currency (1.9 pp) and acquisitions"), answer


def test_drivers_lead_with_a_fact_not_an_outlook():
    from finrag.tools.answering.drivers_answer import drivers_answer

    question = "What drove CVS's Health Care Benefits segment revenue growth in 2022?"
    doc = "CVSHEALTH_2022_10K"
    ctx = [_ctx("With respect to 2023, the Health Care Benefits segment revenue is expected to continue to benefit from "
                "Medicare membership growth, partially offset by declines in Medicaid due to redeterminations.", doc, 60),
           _ctx("Health Care Benefits segment total revenues increased $9.2 billion, or 11.2%, to $91.4 billion in 2022 "
                "compared to 2021 driven by growth across all product lines.", doc, 80)]
    answer = drivers_answer(question, ["health", "care", "benefits", "revenue", "growth"], ctx, read_question(question),
                            frozenset({"cvs", "health", "corporation"}))
    assert answer.startswith("Driven by growth across all product lines"), answer
