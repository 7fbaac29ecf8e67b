"""The LLM-as-judge: `LLMJudge` asks a LangChain chat model for `{score, justification}` on the 1-10
rubric, through the same call helpers as every node (`finrag.tools.llm.calls`: structured output when
the model can bind tools, otherwise a plain-text call whose JSON is parsed by `parse_judge_json`), so
every judgement carries an `llm_calls` record with its token accounting.

A second evaluator ("judge2", another model family) is just a second `LLMJudge`; the prompts are
`finrag.state.prompts.JUDGE_SYSTEM_PROMPT` / `JUDGE_USER_PROMPT`.
"""
from __future__ import annotations

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Optional

from finrag.eval.judges.base import Judge, JudgeResult, as_item, to_text
from finrag.state.prompts import JUDGE_SYSTEM_PROMPT, JUDGE_USER_PROMPT
from finrag.tools.llm.calls import invoke_structured_raw, invoke_tracked
from finrag.tools.llm.replies import json_objects, message_text

__all__ = ["LLMJudge", "parse_judge_json"]

_SCORE_FALLBACK_RE = re.compile(r"""["']?score["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)""", re.I)
_JUST_FALLBACK_RE = re.compile(r"""["']?justification["']?\s*[:=]\s*"((?:[^"\\]|\\.)*)""", re.I | re.S)


def parse_judge_json(text: str) -> Optional[JudgeResult]:
    """Parse `{score, justification}` from an LLM reply: plain JSON, JSON in a code fence, JSON
    followed or preceded by prose (`finrag.tools.llm.calls.json_objects`), or at least a `"score": N`
    pair. Scores are clamped to 1..10. Returns None when no score can be found."""
    if not text or not text.strip():
        return None
    for obj in json_objects(text):
        lowered = {str(k).lower(): v for k, v in obj.items()}
        if "score" in lowered:
            try:
                return JudgeResult(score=lowered["score"],
                                   justification=lowered.get("justification", lowered.get("reason", "")))
            except ValueError:
                continue
    m = _SCORE_FALLBACK_RE.search(text)
    if m:
        j = _JUST_FALLBACK_RE.search(text)
        just = j.group(1) if j else text.strip()
        try:
            # the score validator takes the float (and rounds and clamps it); the field itself is an int
            return JudgeResult.model_validate({"score": float(m.group(1)), "justification": just})
        except ValueError:
            return None
    return None


def _usage(record: dict) -> dict:
    """A call record's token accounting in the judge's `usage` shape."""
    pt, ct = int(record.get("prompt_tokens") or 0), int(record.get("completion_tokens") or 0)
    return {"input_tokens": pt, "output_tokens": ct, "total_tokens": pt + ct}


class LLMJudge(Judge):
    """LLM-as-judge on the 1-10 rubric.

    `structured`: None (default) uses `with_structured_output(JudgeResult)` when the chat model can
    bind tools and otherwise parses JSON from the text reply; True/False forces one path. Calls go
    through `finrag.tools.llm.calls` under `role` (default: `name`); each call's `llm_calls` record
    is appended to `llm_calls`. After each call `last_usage` holds the token usage of the call
    (`input_tokens`, `output_tokens`, `total_tokens`: the provider's numbers, else counted),
    `total_usage` accumulates it, and `calls` counts calls (thread-safe; each result also carries
    its own `usage`). `score_many` runs up to `max_concurrency` calls at a time."""

    def __init__(self, chat_model: Any, name: str = "judge", *, structured: Optional[bool] = None,
                 system_prompt: str = JUDGE_SYSTEM_PROMPT, user_prompt: str = JUDGE_USER_PROMPT,
                 max_concurrency: int = 4, role: Optional[str] = None):
        self.chat_model = chat_model
        self.name = name
        self.role = role or name
        self.system_prompt = system_prompt
        self.user_prompt = user_prompt
        self.max_concurrency = max_concurrency
        self.last_usage: Optional[dict] = None
        self.last_raw: str = ""
        self.total_usage: dict = {}
        self.calls = 0
        self.llm_calls: list[dict] = []
        self._lock = threading.Lock()  # runners call score() from several threads
        self._structured = False
        if structured is not False:
            try:  # can the model bind tools? (the call itself builds the runnable again)
                chat_model.with_structured_output(JudgeResult, include_raw=True)
                self._structured = True
            except (NotImplementedError, AttributeError, TypeError, ValueError):
                if structured:
                    raise

    @property
    def uses_structured_output(self) -> bool:
        return self._structured

    def messages(self, question: str, gold: str, answer: str, justification: str = "") -> list:
        from langchain_core.messages import HumanMessage, SystemMessage

        block = f"\nGOLD JUSTIFICATION:\n{justification.strip()}\n" if justification and justification.strip() else ""
        user = self.user_prompt.format(question=question.strip(), gold=str(gold).strip(),
                                       answer=str(answer).strip() or "(empty answer)",
                                       justification_block=block)
        return [SystemMessage(content=self.system_prompt), HumanMessage(content=user)]

    def _finish(self, parsed: Any, raw: Any, record: dict) -> JudgeResult:
        """Turn a call's parsed output and raw reply into a JudgeResult, and account for the call."""
        text = message_text(getattr(raw, "content", raw))
        if parsed is None and raw is not None:  # tool call may carry args the parser rejected
            for call in getattr(raw, "tool_calls", None) or []:
                try:
                    parsed = JudgeResult(**call.get("args", {}))
                    break
                except (ValueError, TypeError):
                    continue
        if isinstance(parsed, dict):
            try:
                parsed = JudgeResult(**parsed)
            except (ValueError, TypeError):
                parsed = None
        result = parsed if isinstance(parsed, JudgeResult) else parse_judge_json(text)
        if not text.strip() and raw is not None and getattr(raw, "tool_calls", None):
            text = json.dumps(raw.tool_calls[0].get("args", {}))
        usage = _usage(record)
        with self._lock:
            self.calls += 1
            self.llm_calls.append(record)
            self.last_usage = usage
            self.last_raw = text
            for k, v in usage.items():
                self.total_usage[k] = self.total_usage.get(k, 0) + v
        if result is None:
            return JudgeResult(score=1, justification=f"UNPARSEABLE JUDGE OUTPUT: {text.strip()}",
                               parse_error=True, usage=usage)
        return result.model_copy(update={"usage": usage, "parse_error": False})

    def score(self, question: str, gold: str, answer: str, justification: str = "") -> JudgeResult:
        msgs = self.messages(question, to_text(gold), to_text(answer), justification)
        if self._structured:
            parsed, raw, _error, record = invoke_structured_raw(self.role, self.chat_model, JudgeResult, msgs)
        else:
            (raw, record), parsed = invoke_tracked(self.role, self.chat_model, msgs), None
        return self._finish(parsed, raw, record)

    def score_many(self, items: Iterable[Any]) -> list[JudgeResult]:
        batch = [as_item(it) for it in items]
        if not batch:
            return []
        with ThreadPoolExecutor(max_workers=max(1, int(self.max_concurrency)),
                                thread_name_prefix="finrag-judge") as pool:
            return list(pool.map(lambda item: self.score(*item), batch))
