"""Judges: number parsing, yes/no, refusals, the LLM judge on fake chat models, agreement
statistics, and the calibration of the offline judge against the FinanceBench human labels."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

from finrag.eval.judges import make_judge
from finrag.eval.judges.agreement import cohen_kappa, cross_evaluator_agreement
from finrag.eval.judges.base import Judge, JudgeResult
from finrag.eval.judges.cues import detect_refusal, yes_no_polarity
from finrag.eval.judges.llm import LLMJudge, parse_judge_json
from finrag.eval.judges.numbers import numbers_match, parse_numbers, question_unit
from finrag.eval.judges.offline import DEFAULT_PARAMS_PATH, OfflineJudge, OfflineJudgeParams
from finrag.state.prompts import JUDGE_SYSTEM_PROMPT

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench"


def one(text):
    nums = parse_numbers(text)
    assert len(nums) == 1, nums
    return nums[0]


# ---------------------------------------------------------------------------------------
# number parser
# ---------------------------------------------------------------------------------------


def test_parse_scales_currency_and_commas():
    m = one("The FY2018 capital expenditure for 3M is $1,577 million.")  # "3M" and FY2018 are not figures
    assert (m.value, m.scale, m.currency, m.percent) == (1577.0, 1e6, True, False)
    assert one("net PP&E of $8.738 billion").absolute == pytest.approx(8.738e9)
    assert one("USD 2.5bn").absolute == pytest.approx(2.5e9)
    assert one("about 8.7B").absolute == pytest.approx(8.7e9)
    assert one("$4,200,000,000").absolute == 4.2e9
    assert one("$302,578 thousand").absolute == pytest.approx(302.578e6)
    assert one("$5,466,312 (in thousands)").scale == 1e3
    assert one("$5,466,312 in USD millions").scale == 1e6


def test_parse_negatives_and_percents():
    assert one("working capital of -$1561M").value == -1561
    assert one("net loss of (1,561)").value == -1561
    assert one("net loss of $(1,561)").value == -1561
    assert one("a change of −3.7").value == -3.7
    pct = one("margin rose to 65.4%")
    assert pct.percent and pct.value == 65.4 and pct.decimals == 1
    assert one("grew 20.1 percent").percent
    assert not one("Commercial Airplanes (39%)").value < 0  # parenthesised percent is not negative


def test_parse_skips_years_labels_dates_and_list_markers():
    assert parse_numbers("Form 10-K for Q2 of FY2022, filed in 2023") == []
    assert [m.value for m in parse_numbers("On May 26, 2023 it had $8.4 billion")] == [8.4]
    assert [m.value for m in parse_numbers("1. New stores: 47 opened")] == [47]
    assert parse_numbers(1577.0)[0].value == 1577  # floats from JSON gold answers


@pytest.mark.parametrize("answer, gold, question, ok", [
    ("$1.577 billion", "1577", "capex (in USD millions)?", True),
    ("$1,577 million", "1577", "capex (in USD millions)?", True),
    ("$1,577,000 (in thousands)", "1577", "capex (in USD millions)?", True),
    ("$8.738 billion", "8.7", "Answer in USD billions.", True),        # gold rounded to one decimal
    ("$8,738 million", "8.7", "Answer in USD billions.", True),
    ("$8.9 billion", "8.7", "Answer in USD billions.", False),
    ("$5,466,312 in USD millions", "5466", "liabilities (in USD millions)?", False),  # wrong scale
    ("$5,466.3 million", "5466", "liabilities (in USD millions)?", True),
    ("$302 million", "303", "Answer in USD millions.", False),
    ("0.654", "65.4%", "change in percent?", True),                    # fraction vs percent
    ("decreased by 3.7", "-3.7", "cash conversion cycle?", True),
])
def test_numbers_match(answer, gold, question, ok):
    qs, qp = question_unit(question)
    a = parse_numbers(answer)
    g = one(gold)
    assert any(numbers_match(x, g, rel_tol=0.001, question_scale=qs, question_percent=qp) for x in a) is ok


def test_offline_numeric_gold_stored_as_fraction():
    judge = OfflineJudge()
    q = "What is Adobe's year-over-year change in operating income (in units of percents and round to one decimal place)?"
    assert judge.score(q, "0.654", "The change was 65.4%.").score == 10
    assert judge.score(q, "0.654", "Therefore the answer is 65.37%.").score == 10
    assert judge.score(q, "0.654", "Therefore the answer is 65.2%.").score < 8
    q2 = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    assert judge.score(q2, 1577, "Capital expenditures were $1.577 billion in FY2018.").score == 10
    assert judge.score(q2, 1577, "Capital expenditures were $1,696 million.").score <= 2


# ---------------------------------------------------------------------------------------
# yes/no, refusals, text
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, question, polarity", [
    ("Yes, Corning had positive working capital.", "Does Corning have positive working capital?", 1),
    ("No. The quick ratio was 0.54.", "Is the liquidity healthy?", -1),
    ("Based on the data, yes, it paid dividends.", "Has MGM paid dividends?", 1),
    ("Based on the FY2022 data, Corning has positive working capital of $831 million.",
     "Does Corning have positive working capital based on FY2022 data?", 1),
    ("Johnson & Johnson's FY2022 financials do not indicate a high growth company.",
     "Are JnJ's FY2022 financials that of a high growth company?", -1),
    ("Verizon's total debt decreased between 2021 and 2022.",
     "Has Verizon increased its debt on balance sheet between 2022 and 2021?", -1),
    ("The quick ratio is a measure of liquidity. Therefore, Verizon does not have a healthy liquidity profile.",
     "Does Verizon have a reasonably healthy liquidity profile based on its quick ratio?", -1),
    ("Revenue details are in the tables.", "Did Pfizer grow its PPNE?", None),
])
def test_yes_no_polarity(answer, question, polarity):
    assert yes_no_polarity(answer, question) == polarity


def test_offline_yes_no_scores():
    judge = OfflineJudge()
    q = "Has Verizon increased its debt on balance sheet between 2022 and the 2021 fiscal period?"
    gold = "No. Verizon's debt decreased by $229 million."
    assert judge.score(q, gold, "No, total debt decreased by $229 million to $150,639 million.").score == 10
    assert judge.score(q, gold, "No, Verizon has not increased its debt.").score >= 8
    assert judge.score(q, gold, "Yes, Verizon increased its debt in 2022.").score <= 2


@pytest.mark.parametrize("answer", [
    "I'm sorry, but the information provided does not include the capital expenditure amount.",
    "As an AI, I don't have real-time access to financial databases.",
    "The text does not provide information on PepsiCo's restructuring costs for FY2022.",
    "The document does not include the net PP&E for 3M; it is not provided in the context.",
    "Unfortunately, I cannot answer this question with the given context.",
    "",
])
def test_refusals_score_one(answer):
    assert detect_refusal(answer) >= 0.75
    r = OfflineJudge().score("What is the FY2018 capex for 3M (in USD millions)?", "1577", answer)
    assert r.score == 1


def test_refusal_cue_does_not_hide_a_correct_figure():
    answer = ("The capital expenditure is not explicitly stated. However, purchases of property, plant and "
              "equipment were $1,577 million in 2018, so the FY2018 capex is $1,577 million.")
    assert OfflineJudge().score("What is the FY2018 capex for 3M (in USD millions)?", "1577", answer).score >= 8
    assert detect_refusal("Net income was $11,588 million in 2019.") == 0.0


def test_offline_text_overlap():
    judge = OfflineJudge()
    q = "Which region had the worst topline performance for MGM during FY2022?"
    gold = "MGM China experienced the worst topline performance. Its revenue declined 44% in FY2022."
    assert judge.score(q, gold, "MGM China had the worst performance: net revenues fell 44% year over year.").score >= 8
    assert judge.score(q, gold, "Las Vegas Strip resorts had the weakest results, down 12%.").score < 8
    q2 = "What are the geographies that American Express primarily operates in as of 2022?"
    gold2 = "United States, EMEA, APAC, and LACC"
    good = "The United States; Europe, the Middle East and Africa; Asia Pacific; and Latin America, Canada, Caribbean."
    assert judge.score(q2, gold2, good).score >= 8


def test_offline_is_deterministic_and_a_judge():
    judge = OfflineJudge()
    assert isinstance(judge, Judge) and judge.name == "offline"
    items = [("What is X (in USD millions)?", "1577", f"X is ${1500 + i:,} million.") for i in range(1500)]
    first = judge.score_many(items)
    assert [r.score for r in first] == [r.score for r in judge.score_many(items)]
    res = judge.score_many([{"question": "q (in USD millions)", "gold": "1577", "answer": "$1,577 million"}])
    assert res[0].score == 10 and res[0].justification.startswith("[offline/numeric]")


def test_offline_params_loaded_from_package_defaults():
    data = json.loads(DEFAULT_PARAMS_PATH.read_text())
    assert "TUNING half" in data["source"]
    params = OfflineJudgeParams.load()
    for k, v in data["params"].items():
        assert getattr(params, k) == v
    assert OfflineJudge(rel_tol=0.05).params.rel_tol == 0.05


# ---------------------------------------------------------------------------------------
# LLM judge on fake chat models
# ---------------------------------------------------------------------------------------


def test_judge_result_clamps_and_coerces():
    assert JudgeResult(score=0, justification="x").score == 1
    assert JudgeResult(score=15).score == 10
    assert JudgeResult(score="7").score == 7
    assert JudgeResult(score=7.6).score == 8
    assert JudgeResult(score=9).correct and not JudgeResult(score=5).correct
    with pytest.raises(ValueError):
        JudgeResult(score="n/a")


@pytest.mark.parametrize("text, score", [
    ('{"score": 8, "justification": "minor omission"}', 8),
    ('```json\n{"score": 10, "justification": "exact"}\n```', 10),
    ('Here is my grade:\n```\n{"score": 3, "justification": "wrong figure"}\n```\nHope this helps.', 3),
    ('{"score": 5, "justification": "partial"} Let me know if you need more.', 5),
    ('{"Score": 12, "justification": "over the top"}', 10),
    ('score: 6 -- partially correct', 6),
])
def test_parse_judge_json(text, score):
    assert parse_judge_json(text).score == score


def test_parse_judge_json_garbage():
    assert parse_judge_json("I think the answer is fine.") is None
    assert parse_judge_json("") is None


def test_llm_judge_text_json_fenced_and_garbage():
    model = FakeListChatModel(responses=[
        '{"score": 9, "justification": "Matches the gold figure."}',
        'Sure!\n```json\n{"score": 4, "justification": "Wrong year."}\n```',
        "The answer looks great to me!",
    ])
    judge = LLMJudge(model, name="judge")
    assert not judge.uses_structured_output  # FakeListChatModel cannot bind tools
    r1 = judge.score("What is X?", "1577", "$1,577 million")
    r2 = judge.score("What is X?", "1577", "$1,600 million")
    r3 = judge.score("What is X?", "1577", "no idea")
    assert (r1.score, r1.parse_error) == (9, False) and r1.justification == "Matches the gold figure."
    assert r2.score == 4
    assert r3.score == 1 and r3.parse_error and "The answer looks great to me!" in r3.justification
    assert judge.calls == 3


def test_llm_judge_prompt_and_usage():
    msg = AIMessage(content='{"score": 7, "justification": "ok"}',
                    usage_metadata={"input_tokens": 120, "output_tokens": 15, "total_tokens": 135})
    judge = LLMJudge(GenericFakeChatModel(messages=iter([msg, msg])), name="judge2")
    messages = judge.messages("Q?", "gold answer", "candidate", justification="because")
    assert messages[0].content == JUDGE_SYSTEM_PROMPT
    assert "gold answer" in messages[1].content and "GOLD JUSTIFICATION" in messages[1].content
    r = judge.score("Q?", "gold answer", "candidate")
    assert r.score == 7 and r.usage == {"input_tokens": 120, "output_tokens": 15, "total_tokens": 135}
    assert judge.last_usage["total_tokens"] == 135
    judge.score("Q?", "gold answer", "candidate")
    assert judge.total_usage == {"input_tokens": 240, "output_tokens": 30, "total_tokens": 270}


class _ToolFakeChatModel(GenericFakeChatModel):
    """A fake chat model that 'supports' tool calling, so with_structured_output works."""

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self


def test_llm_judge_structured_output_path():
    call = AIMessage(content="", tool_calls=[{"name": "JudgeResult", "args": {"score": 10, "justification": "exact"},
                                              "id": "c1"}],
                     usage_metadata={"input_tokens": 50, "output_tokens": 9, "total_tokens": 59})
    text_reply = AIMessage(content='```json\n{"score": 2, "justification": "no tool call"}\n```')
    judge = LLMJudge(_ToolFakeChatModel(messages=iter([call, text_reply])), name="judge")
    assert judge.uses_structured_output
    r = judge.score("Q?", "1577", "$1,577 million")
    assert (r.score, r.justification, r.parse_error) == (10, "exact", False)
    assert judge.last_usage == {"input_tokens": 50, "output_tokens": 9, "total_tokens": 59}
    r2 = judge.score("Q?", "1577", "$1,600 million")  # model answered in text: parsed from the raw reply
    assert r2.score == 2 and not r2.parse_error


def test_llm_judge_score_many_batches():
    model = FakeListChatModel(responses=['{"score": 8, "justification": "a"}'])
    judge = LLMJudge(model, name="judge", max_concurrency=1)
    results = judge.score_many([("Q1", "g", "a"), {"question": "Q2", "gold": "g", "answer": "a"}])
    assert [r.score for r in results] == [8, 8]


# ---------------------------------------------------------------------------------------
# agreement and factory
# ---------------------------------------------------------------------------------------


def test_cross_evaluator_agreement():
    a = [10, 8, 5, 1, 2, 10]
    b = [9, 8, 4, 1, 3, 9]
    out = cross_evaluator_agreement(a, b)
    assert out["n"] == 6
    assert out["spearman"] == pytest.approx(1.0)  # same ranking
    assert out["mean_abs_delta"] == pytest.approx(4 / 6)
    assert out["exact_agreement"] == pytest.approx(2 / 6)
    assert out["within_1"] == 1.0 and out["binary_agreement"] == 1.0
    assert cross_evaluator_agreement([5, 5], [1, 9])["spearman"] is None  # constant input
    with pytest.raises(ValueError):
        cross_evaluator_agreement([1, 2], [1])
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0


def test_make_judge_uses_llm_factory(monkeypatch):
    from finrag.tools.llm import chat

    monkeypatch.setattr(chat, "get_chat_model", lambda role, cfg: None)
    assert isinstance(make_judge("judge"), OfflineJudge)
    model = FakeListChatModel(responses=['{"score": 6, "justification": "x"}'])
    monkeypatch.setattr(chat, "get_chat_model",
                        lambda role, cfg: model if cfg.model_for(role) == "fake/judge2" else None)
    j2 = make_judge("judge2", {"judge2_model": "fake/judge2"})
    assert isinstance(j2, LLMJudge) and j2.name == "judge2" and j2.score("q", "g", "a").score == 6
    assert isinstance(make_judge("judge", {"judge2_model": "fake/judge2"}), OfflineJudge)


def test_make_judge_with_the_real_factory(monkeypatch):
    pytest.importorskip("finrag.tools.llm.chat")
    monkeypatch.delenv("FINRAG_LLM", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert isinstance(make_judge("judge", {"llm": "offline"}), OfflineJudge)
    model = FakeListChatModel(responses=['{"score": 9, "justification": "y"}'])
    judge = make_judge("judge2", {"llm": "offline", "judge2_model": model})
    assert isinstance(judge, LLMJudge) and judge.score("q", "g", "a").score == 9


# ---------------------------------------------------------------------------------------
# calibration against the human labels
# ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not (DATA / "human_labels").is_dir(), reason="shared FinanceBench data not available")
def test_calibration_on_human_labels(tmp_path):
    from finrag.eval import calibrate as cal

    report = cal.calibrate(DATA)
    tune_ids = set(report["split"]["tuning_questions"])
    held_ids = set(report["split"]["heldout_questions"])
    assert tune_ids and held_ids and not tune_ids & held_ids
    assert len(tune_ids | held_ids) == 86
    assert report["split"]["tuning_rows"] + report["split"]["heldout_rows"] == 1376
    held = report["heldout"]
    assert held["accuracy"] >= 0.80, held
    assert held["kappa"] >= 0.55, held
    assert held["spearman_binary"] > 0.5
    # the shipped defaults are exactly what this calibration produces (re-run with --save-defaults)
    stored = json.loads(DEFAULT_PARAMS_PATH.read_text())["params"]
    tuned = {k: v for k, v in report["tuned_params"].items() if k != "source"}
    assert stored == tuned
    # the split does not depend on anything but the seed
    rows = cal.load_rows(DATA)
    assert cal.split_questions(rows) == (tune_ids, held_ids)
    md = cal.markdown({k: v for k, v in report.items() if k != "_held_rows"})
    assert "held-out" in md and "Cohen's kappa" in md


@pytest.mark.skipif(not (DATA / "human_labels").is_dir(), reason="shared FinanceBench data not available")
def test_evaluate_llm_judge_on_heldout_with_fake_model():
    from finrag.eval import calibrate as cal

    judge = LLMJudge(FakeListChatModel(responses=['{"score": 10, "justification": "ok"}']), name="judge")
    rep = cal.evaluate_judge(judge, DATA, limit=20)
    assert rep["rows"] == 20 and rep["parse_errors"] == 0
    assert rep["heldout"]["judge_correct_rate"] == 1.0
    assert rep["agreement_with_offline"]["n"] == 20


def test_llm_judge_usage_is_thread_safe():
    from concurrent.futures import ThreadPoolExecutor

    msg = AIMessage(content='{"score": 8, "justification": "ok"}',
                    usage_metadata={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12})
    judge = LLMJudge(GenericFakeChatModel(messages=iter([msg] * 40)), name="judge")
    with ThreadPoolExecutor(8) as pool:
        scores = list(pool.map(lambda i: judge.score("q", "g", f"a{i}").score, range(40)))
    assert scores == [8] * 40 and judge.calls == 40
    assert judge.total_usage == {"input_tokens": 400, "output_tokens": 80, "total_tokens": 480}


def test_the_offline_judge_reads_no_figure_in_a_citation():
    """Citations carry page numbers, now also the printed ones ("[AMERICANEXPRESS_2022_10K, pp. 56-57 (printed 53 to
    54)]"): an answer quoting another company's passage scored 10 on a CAGR question because a page number matched
    the gold figure. A citation states no figure."""
    from finrag.eval.judges.offline import OfflineJudge

    judge = OfflineJudge()
    answer = ("From the filings: Total revenues net of interest expense increased in 2021 compared to 2020. "
              "[AMERICANEXPRESS_2022_10K, pp. 56-57 (printed 53 to 54)]")
    assert judge.score("What is the 2 year revenue CAGR (in percents)?", "54%", answer).score <= 2
    assert judge.score("What is the CAGR (in percents)?", "54%", "The CAGR was 54% [X_2022_10K, p. 3]").score == 10
