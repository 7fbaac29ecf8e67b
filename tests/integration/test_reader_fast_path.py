"""The statement reader inside the graphs, and the LLM fast path against a loopback OpenAI-compatible server.

The questions are written for these tests over the generated demo corpus; expected values come from the
demo's financial data (`finrag.tools.demo.financials`), not from the PDFs the reader parses.
"""
from __future__ import annotations

import re

import pytest

from finrag import run_query
from finrag.state.contract import Answer
from finrag.tools.demo.companies import DEMO_COMPANIES
from finrag.tools.demo.financials import demo_financials

ACME, BOREALIS, COBALT = DEMO_COMPANIES[:3]


def fin(company, year: int, key: str) -> float:
    """A demo amount in $ million (the data keeps tenths of a million)."""
    return demo_financials(company, year)[key] / 10.0


def first_number(answer: str) -> float:
    head = answer.split(". Formula")[0].split(" [")[0]
    return float(re.findall(r"-?[\d,]+\.?\d*", head)[-1].replace(",", ""))


QUESTIONS = [
    ("What was Acme Widgets' gross margin in FY2023? Answer in percent with one decimal place.",
     lambda: round(100 * fin(ACME, 2023, "gross_profit") / fin(ACME, 2023, "revenue"), 1)),
    ("What was Borealis Energy's inventory turnover ratio in FY2023 (cost of revenue over average inventory)?",
     lambda: round(fin(BOREALIS, 2023, "cost_of_revenue")
                   / ((fin(BOREALIS, 2023, "inventory") + fin(BOREALIS, 2022, "inventory")) / 2), 2)),
    ("What was CBLT's FY2022 free cash flow, in USD millions?",
     lambda: round(fin(COBALT, 2022, "cfo") - fin(COBALT, 2022, "capex"), 1)),
    ("What was Acme Widgets' current ratio at the end of fiscal 2022?",
     lambda: round(fin(ACME, 2022, "total_current_assets") / fin(ACME, 2022, "total_current_liabilities"), 2)),
]


pytestmark = pytest.mark.usefixtures("fresh_index")


def llm(stub, **extra) -> dict:
    return stub.configurable(**extra)


@pytest.mark.parametrize("question, expected", QUESTIONS)
def test_offline_hdrr_answers_metrics_with_a_citation_per_input(demo_index, question, expected):
    res = run_query(question, "hdrr", index_dir=str(demo_index))
    Answer.model_validate(res)
    reader = res["reader"]
    assert reader["confident"] and not reader["fast_path"] and res["cost"]["llm_calls_saved"] == 0
    assert first_number(res["answer"]) == pytest.approx(expected(), abs=0.011)
    # every number the answer uses is cited, and every cited page is in the contexts
    routed = res["routing"]["routed_docs"][0]
    pages = {(c["doc_id"], p) for c in res["contexts"] for p in range(c["page_start"], c["page_end"] + 1)}
    # the answer cites the viewer's page (1-based), the contexts and inputs count from 0
    cited = {(d, int(p) - 1) for d, p in re.findall(r"\[([A-Z0-9_]+), p\. (\d+)(?: \(printed [^)]+\))?\]",
                                                     res["answer"])}
    assert cited and cited <= pages and {d for d, _ in cited} == {routed}
    assert {(i["doc_id"], i["page"]) for i in reader["inputs"]} <= cited


def test_offline_without_the_reader_is_the_extractive_answer(demo_index):
    q = QUESTIONS[0][0]
    res = run_query(q, "hdrr", index_dir=str(demo_index), configurable={"reader": False})
    assert res["answer"].startswith("From the filings:") and "reader" not in res


def test_a_question_the_reader_cannot_answer_keeps_the_extractive_strategies(demo_index):
    res = run_query("Which company did Acme Widgets acquire during fiscal 2023?", "hdrr", index_dir=str(demo_index))
    assert res["reader"]["kind"] == "none" and "Tristate Gearworks" in res["answer"]


def test_hdrr_fast_path_skips_the_generator_call(demo_index, stub):
    stub.reset()
    q, expected = QUESTIONS[1]
    res = run_query(q, "hdrr", index_dir=str(demo_index), configurable=llm(stub))
    Answer.model_validate(res)
    roles = [c["role"] for c in res["cost"]["calls"]]
    assert roles[0] == "router" and "generator" not in roles
    assert res["cost"]["llm_calls"] == len(roles) and res["cost"]["llm_calls_saved"] == 1
    assert res["reader"]["fast_path"] is True and res["reader"]["confident"] is True
    assert len(stub.chat_requests()) == len(roles)  # nothing else went over the wire
    assert first_number(res["answer"]) == pytest.approx(expected(), abs=0.011)


def test_fast_path_off_gives_the_llm_the_reader_tables(demo_index, stub):
    stub.reset()
    q = QUESTIONS[1][0]
    res = run_query(q, "hdrr", index_dir=str(demo_index), configurable=llm(stub, fast_path="off"))
    roles = [c["role"] for c in res["cost"]["calls"]]
    assert roles[0] == "router" and roles[-1] == "generator" and roles.count("generator") == 1
    assert res["cost"]["llm_calls_saved"] == 0 and res["reader"]["fast_path"] is False
    assert res["answer"].startswith("Stub answer:")
    # the messages' own text (str() of the list would escape the apostrophe once a chunk holds a double quote)
    prompt = "\n".join(str(m.get("content")) for m in stub.chat_requests()[-1]["body"]["messages"])
    assert "Statement tables recovered by finrag's reader" in prompt and "Inventor" in prompt
    # the tables are part of what the generator saw, so they are counted in context_tokens
    assert res["cost"]["prompt_tokens"] > res["cost"]["context_tokens"] > 0


def test_fast_path_is_off_by_default_for_other_systems_and_can_be_turned_on(demo_index, stub):
    q = QUESTIONS[0][0]
    stub.reset()
    res = run_query(q, "cbr", index_dir=str(demo_index), configurable=llm(stub))
    assert [c["role"] for c in res["cost"]["calls"]][-1] == "generator" and res["cost"]["llm_calls_saved"] == 0
    stub.reset()
    res = run_query(q, "sfr", index_dir=str(demo_index), configurable=llm(stub, fast_path="on"))
    assert [c["role"] for c in res["cost"]["calls"]] == ["router"] and res["cost"]["llm_calls_saved"] == 1
    assert res["reader"]["fast_path"] is True


def test_not_confident_means_the_generator_is_asked(demo_index, stub):
    stub.reset()
    res = run_query("Which company did Acme Widgets acquire during fiscal 2023?", "hdrr", index_dir=str(demo_index),
                    configurable=llm(stub))
    assert [c["role"] for c in res["cost"]["calls"]][-1] == "generator"
    assert res["cost"]["llm_calls_saved"] == 0 and res["reader"]["fast_path"] is False


def test_a_bad_fast_path_value_is_a_clear_error(demo_index):
    with pytest.raises(ValueError, match="fast_path must be 'auto', 'on' or 'off'"):
        run_query(QUESTIONS[0][0], "hdrr", index_dir=str(demo_index), configurable={"fast_path": "sometimes"})
