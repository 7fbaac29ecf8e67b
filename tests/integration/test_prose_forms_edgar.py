"""A list question over a real filing (issue 50): Boeing's FY2024 10-K (real EDGAR inline XBRL in ../shared/data/edgar;
skipped without it) enumerates its segments twice, with bullets and semicolons on p. 2 ("three reportable segments:
•Commercial Airplanes (BCA); •Defense, Space & Security (BDS); •Global Services (BGS).") and with commas in Note 1,
where a segment's own name holds a comma. Asked offline, the answer leads with the three segments, the list as the
filing writes it, cited; the form is read once with the question."""
from __future__ import annotations

from finrag import run_query
from finrag.tools.question import read_question


def test_a_list_question_leads_with_the_segments(boeing_index):
    question = "What are Boeing's reportable segments in its 2024 10-K?"
    assert read_question(question).form == "list"
    answer = run_query(question, system="hdrr", index_dir=str(boeing_index))["answer"]
    lead = answer.split("[ba-10-k-2025-02-03")[0]
    for segment in ("Commercial Airplanes", "Defense, Space & Security", "Global Services"):
        assert segment in lead.split(" (the filing:")[0], answer  # the items lead, before the quoted sentence
    assert "three reportable segments" in lead and "[ba-10-k-2025-02-03, p" in answer


def test_a_count_found_in_the_routed_filing(boeing_index):
    """"How many people work for Boeing?" writes none of the words of the sentence that answers it ("Boeing's total
    workforce was approximately 172,000", p. 3 of the 10-K): the routed filing's chunks that state a count of the
    workforce are read (`retrieval/form_evidence.py`), and the answer leads with the whole count, cited."""
    res = run_query("Roughly how many people work for Boeing?", system="hdrr", index_dir=str(boeing_index))
    lead = res["answer"].split("[ba-10-k-2025-02-03")[0]
    assert "172,000" in lead, res["answer"]
    assert any("172,000" in c["text"] for c in res["contexts"])
