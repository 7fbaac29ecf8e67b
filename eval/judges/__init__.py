"""finrag.eval.judges = `eval/judges/`: answer judges behind one interface, and the one judge factory `make_judge`.

Every judge grades a candidate answer against the gold answer of a question on the same 1-10
integer rubric (`finrag.state.prompts.RUBRIC`) and returns a `JudgeResult`; a score >=
`CORRECT_THRESHOLD` (8, "substantively correct") counts as a correct answer.

Modules, one concern each:

* `base`      `JudgeResult`, the `Judge` interface, `CORRECT_THRESHOLD`
* `llm`       `LLMJudge` (an LLM-as-judge through `finrag.tools.llm.calls`) and `parse_judge_json`
* `offline`   `OfflineJudge`, its calibrated `OfflineJudgeParams` (`DEFAULT_PARAMS_PATH`) and `JudgeFeatures`
* `numbers`   figures in text: `parse_numbers`, `numbers_match`
* `cues`      refusal cues, yes/no polarity, content words
* `agreement` Cohen's kappa, Spearman, `cross_evaluator_agreement`

`make_judge` (here) builds the judge of a role for `finrag eval run`, `finrag.eval.calibrate` and the API.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from finrag.eval.judges.agreement import cohen_kappa, cross_evaluator_agreement, spearman
from finrag.eval.judges.base import CORRECT_THRESHOLD, Judge, JudgeResult
from finrag.eval.judges.cues import content_tokens, detect_refusal, yes_no_polarity
from finrag.eval.judges.llm import LLMJudge, parse_judge_json
from finrag.eval.judges.numbers import NumberMention, numbers_match, parse_numbers
from finrag.eval.judges.offline import DEFAULT_PARAMS_PATH, JudgeFeatures, OfflineJudge, OfflineJudgeParams
from finrag.state.configuration import Configuration
from finrag.state.prompts import JUDGE_SYSTEM_PROMPT, JUDGE_USER_PROMPT, RUBRIC
from finrag.state.settings import EvalSettings, ProcessSettings
from finrag.tools.llm import chat

__all__ = [
    "CORRECT_THRESHOLD",
    "RUBRIC",
    "JUDGE_SYSTEM_PROMPT",
    "JUDGE_USER_PROMPT",
    "JudgeResult",
    "Judge",
    "LLMJudge",
    "OfflineJudge",
    "OfflineJudgeParams",
    "JudgeFeatures",
    "content_tokens",
    "cohen_kappa",
    "spearman",
    "NumberMention",
    "parse_numbers",
    "parse_judge_json",
    "detect_refusal",
    "yes_no_polarity",
    "numbers_match",
    "cross_evaluator_agreement",
    "make_judge",
    "DEFAULT_PARAMS_PATH",
]


def make_judge(role: str = "judge", configurable: Any = None, *, spec: Any = None, base_url: Optional[str] = None,
               **llm_kwargs: Any) -> Judge:
    """The judge for a role ("judge" or "judge2"): an `LLMJudge` (with `llm_kwargs`) on the chat model
    that `finrag.tools.llm.chat.get_chat_model(role, cfg)` returns, or the calibrated `OfflineJudge`
    when that returns None (the offline strategy).

    Without `spec`, the role's configured model: `configurable` is a `Configuration`, or the
    `configurable` dict of a RunnableConfig (e.g. `{"judge_model": "openai/gpt-4.1", "judge2_model":
    chat_model}`); `<role>_model` is honoured from that dict or from `FINRAG_<ROLE>_MODEL` even where
    `Configuration` has no such field, and falls back to the default `llm` otherwise. The judge is
    named after the role.

    With `spec` (what `finrag eval run --judge / --judge2` takes): a `Judge` is returned as it is; a
    LangChain chat model gives an `LLMJudge` named after the role; "offline" / "none" the
    `OfflineJudge`; "auto" means "openai/gpt-4.1" when OPENAI_API_KEY is set, else offline; any other
    string is a `provider/model` for `get_chat_model(role, Configuration(llm=spec, <role>_model=spec,
    llm_base_url=base_url))`, and the judge is named after the spec."""
    cfg, name = configurable, role
    from_spec = spec is not None and not (isinstance(spec, str) and not spec.strip())
    if from_spec:
        from langchain_core.language_models import BaseChatModel

        if isinstance(spec, Judge):
            return spec
        if isinstance(spec, BaseChatModel):
            return LLMJudge(spec, name=role, role=role, **llm_kwargs)
        name = str(spec).strip()
        if name.lower() == "auto":
            name = "openai/gpt-4.1" if ProcessSettings().openai_api_key else "offline"
        if name.lower() in ("offline", "none"):
            return OfflineJudge()
    if from_spec:  # a provider/model spec: it is the role's model, whatever the environment says
        cfg = Configuration(llm=name, llm_base_url=base_url or "").with_models(**{role: name})
    elif cfg is None or isinstance(cfg, Mapping):
        values = dict(cfg or {})
        cfg = Configuration.from_runnable_config({"configurable": values})
        key = f"{role}_model"
        if key in EvalSettings.model_fields:  # the dict's <role>_model, else FINRAG_<ROLE>_MODEL, else llm
            cfg = cfg.with_models(**{role: EvalSettings(**{key: values.get(key)}).model_for(role, cfg.llm)})
    model = chat.get_chat_model(role, cfg)
    if model is None:
        return OfflineJudge()
    return LLMJudge(model, name=name, role=role, **llm_kwargs)
