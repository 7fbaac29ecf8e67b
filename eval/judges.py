"""Answer judges behind one interface: an LLM-as-judge and a calibrated offline judge.

Every judge grades a candidate answer against the gold answer of a question on the
same 1-10 integer rubric (see `RUBRIC`) and returns a `JudgeResult`:

- `LLMJudge(chat_model, name=...)` asks a LangChain chat model for `{score, justification}`
  (structured output when the model can bind tools, otherwise JSON parsed from the text).
  A second evaluator ("judge2", another model family) is just a second `LLMJudge`;
  `cross_evaluator_agreement` compares the two score lists.
- `OfflineJudge()` needs no model: numeric matching with units, scales and rounding,
  yes/no polarity, content-word overlap and refusal detection. Its thresholds were tuned
  against the FinanceBench human labels by `finrag.eval.calibrate` (tuning half only) and
  are stored in `eval/data/offline_judge_params.json`.
- `make_judge(role, configurable)` returns an `LLMJudge` for the configured chat model of
  that role, or the `OfflineJudge` when `finrag.tools.llm.chat.get_chat_model` returns None.

Score >= `CORRECT_THRESHOLD` (8, "substantively correct") counts as a correct answer.
"""
from __future__ import annotations

import json
import math
import os
import re
import threading
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from finrag.state.prompts import JUDGE_SYSTEM_PROMPT, JUDGE_USER_PROMPT, RUBRIC

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

CORRECT_THRESHOLD = 8
"""Scores at or above this value count as a correct answer (rubric: substantively correct)."""

DEFAULT_PARAMS_PATH = Path(__file__).resolve().parent / "data" / "offline_judge_params.json"

# --------------------------------------------------------------------------------------
# Prompt (one place)
# --------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------
# Result and interface
# --------------------------------------------------------------------------------------


class JudgeResult(BaseModel):
    """Grade of a candidate answer against the gold answer: an integer score on the 1-10 rubric
    and a short justification."""

    # `parse_error` (the LLM reply could not be parsed; score forced to 1) and `usage` (token
    # usage of the judge call) are bookkeeping set by the judge; SkipJsonSchema keeps them out of
    # the schema an LLM sees through with_structured_output.

    model_config = ConfigDict(extra="ignore")

    score: int = Field(
        description="Integer grade from 1 (completely incorrect or refusal) to 10 (fully correct)",
        json_schema_extra={"minimum": 1, "maximum": 10},
    )
    justification: str = Field("", description="One or two sentences explaining the grade")
    parse_error: SkipJsonSchema[bool] = False
    usage: SkipJsonSchema[Optional[dict]] = None

    @field_validator("score", mode="before")
    @classmethod
    def _clamp_score(cls, v: Any) -> int:
        if isinstance(v, str):
            m = re.search(r"-?\d+(?:\.\d+)?", v)
            if not m:
                raise ValueError(f"score is not a number: {v!r}")
            v = float(m.group(0))
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)):
            raise ValueError(f"score is not a number: {v!r}")
        return int(min(10, max(1, round(float(v)))))

    @field_validator("justification", mode="before")
    @classmethod
    def _coerce_justification(cls, v: Any) -> str:
        return "" if v is None else str(v)

    @property
    def correct(self) -> bool:
        return self.score >= CORRECT_THRESHOLD


def _as_item(item: Any) -> tuple[str, str, str, str]:
    """(question, gold, answer, justification) from a tuple/list or a mapping."""
    if isinstance(item, Mapping):
        gold = item.get("gold", item.get("gold_answer", item.get("answer_gold", "")))
        answer = item.get("answer", item.get("model_answer", ""))
        if "gold" not in item and "gold_answer" not in item and "answer_gold" not in item:
            raise KeyError("item needs a 'gold' (or 'gold_answer') key")
        return (str(item.get("question", "")), _to_text(gold), _to_text(answer),
                _to_text(item.get("justification", "")))
    seq = list(item)
    if len(seq) == 3:
        seq.append("")
    if len(seq) != 4:
        raise ValueError("items are (question, gold, answer[, justification])")
    return tuple(_to_text(x) for x in seq)  # type: ignore[return-value]


def _to_text(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return str(x)


class Judge(ABC):
    """Interface of every judge: a `name` and `score(question, gold, answer) -> JudgeResult`.

    `justification` (the gold justification / reasoning, when the dataset has one) is an
    optional extra input that judges may use."""

    name: str = "judge"

    @abstractmethod
    def score(self, question: str, gold: str, answer: str, justification: str = "") -> JudgeResult:
        ...

    def score_many(self, items: Iterable[Any]) -> list[JudgeResult]:
        """Grade many items: tuples `(question, gold, answer[, justification])` or mappings with
        keys `question`, `gold` (or `gold_answer`), `answer` (or `model_answer`)[, `justification`]."""
        return [self.score(*_as_item(it)) for it in items]


# --------------------------------------------------------------------------------------
# LLM judge
# --------------------------------------------------------------------------------------

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_SCORE_FALLBACK_RE = re.compile(r"""["']?score["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)""", re.I)
_JUST_FALLBACK_RE = re.compile(r"""["']?justification["']?\s*[:=]\s*"((?:[^"\\]|\\.)*)""", re.I | re.S)


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in (None, "text", "output_text"):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)


def parse_judge_json(text: str) -> Optional[JudgeResult]:
    """Parse `{score, justification}` from an LLM reply: plain JSON, JSON in a code fence, JSON
    followed or preceded by prose, or at least a `"score": N` pair. Scores are clamped to 1..10.
    Returns None when no score can be found."""
    if not text or not text.strip():
        return None
    candidates: list[str] = [m.group(1) for m in _FENCE_RE.finditer(text)]
    candidates.append(text)
    decoder = json.JSONDecoder()
    for cand in candidates:
        for start in [i for i, ch in enumerate(cand) if ch == "{"]:
            try:
                obj, _ = decoder.raw_decode(cand, start)
            except ValueError:
                continue
            if isinstance(obj, dict):
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
            return JudgeResult(score=float(m.group(1)), justification=just)
        except ValueError:
            return None
    return None


def _usage_of(message: Any) -> Optional[dict]:
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return None
    return {k: int(usage.get(k, 0) or 0) for k in ("input_tokens", "output_tokens", "total_tokens")}


def _add_usage(total: dict, usage: Optional[dict]) -> None:
    if usage:
        for k, v in usage.items():
            total[k] = total.get(k, 0) + v


class LLMJudge(Judge):
    """LLM-as-judge on the 1-10 rubric.

    `structured`: None (default) tries `chat_model.with_structured_output(JudgeResult,
    include_raw=True)` and falls back to parsing JSON from the text reply when the model
    cannot bind tools; True/False forces one path. After each call `last_usage` holds the
    token usage of the reply (`input_tokens`, `output_tokens`, `total_tokens`) when the model
    reports `usage_metadata`, `total_usage` accumulates it, and `calls` counts calls (thread-safe;
    each result also carries its own `usage`)."""

    def __init__(self, chat_model: Any, name: str = "judge", *, structured: Optional[bool] = None,
                 system_prompt: str = JUDGE_SYSTEM_PROMPT, user_prompt: str = JUDGE_USER_PROMPT,
                 max_concurrency: int = 4):
        self.chat_model = chat_model
        self.name = name
        self.system_prompt = system_prompt
        self.user_prompt = user_prompt
        self.max_concurrency = max_concurrency
        self.last_usage: Optional[dict] = None
        self.last_raw: str = ""
        self.total_usage: dict = {}
        self.calls = 0
        self._lock = threading.Lock()  # runners call score() from several threads
        self._structured = None
        if structured is not False:
            try:
                self._structured = chat_model.with_structured_output(JudgeResult, include_raw=True)
            except (NotImplementedError, AttributeError, TypeError, ValueError):
                if structured:
                    raise
                self._structured = None

    @property
    def uses_structured_output(self) -> bool:
        return self._structured is not None

    def messages(self, question: str, gold: str, answer: str, justification: str = "") -> list:
        from langchain_core.messages import HumanMessage, SystemMessage

        block = f"\nGOLD JUSTIFICATION:\n{justification.strip()}\n" if justification and justification.strip() else ""
        user = self.user_prompt.format(question=question.strip(), gold=str(gold).strip(),
                                       answer=str(answer).strip() or "(empty answer)",
                                       justification_block=block)
        return [SystemMessage(content=self.system_prompt), HumanMessage(content=user)]

    def _finish(self, output: Any) -> JudgeResult:
        """Turn a structured-output dict or a raw message into a JudgeResult."""
        if isinstance(output, dict) and "raw" in output:
            raw = output.get("raw")
            parsed = output.get("parsed")
        else:
            raw, parsed = output, None
        usage = _usage_of(raw)
        text = _message_text(getattr(raw, "content", raw))
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
        with self._lock:
            self.calls += 1
            self.last_usage = usage
            self.last_raw = text
            _add_usage(self.total_usage, usage)
        if result is None:
            return JudgeResult(score=1, justification=f"UNPARSEABLE JUDGE OUTPUT: {text.strip()}",
                               parse_error=True, usage=usage)
        return result.model_copy(update={"usage": usage, "parse_error": False})

    def score(self, question: str, gold: str, answer: str, justification: str = "") -> JudgeResult:
        msgs = self.messages(question, _to_text(gold), _to_text(answer), justification)
        runnable = self._structured if self._structured is not None else self.chat_model
        return self._finish(runnable.invoke(msgs))

    def score_many(self, items: Iterable[Any]) -> list[JudgeResult]:
        batch = [self.messages(*_as_item(it)) for it in items]
        if not batch:
            return []
        runnable = self._structured if self._structured is not None else self.chat_model
        outputs = runnable.batch(batch, config={"max_concurrency": self.max_concurrency})
        return [self._finish(o) for o in outputs]


def cross_evaluator_agreement(scores_a: Sequence[float], scores_b: Sequence[float],
                              threshold: int = CORRECT_THRESHOLD) -> dict:
    """Agreement of two judges on the same items: Spearman rho (scipy), mean |delta|, share of
    exact agreement, share within one point, and agreement / Cohen's kappa of the binary
    decision `score >= threshold`."""
    a = [float(x) for x in scores_a]
    b = [float(x) for x in scores_b]
    if len(a) != len(b):
        raise ValueError(f"score lists differ in length: {len(a)} != {len(b)}")
    n = len(a)
    out: dict[str, Any] = {"n": n, "spearman": None, "spearman_p": None, "mean_abs_delta": None,
                           "exact_agreement": None, "within_1": None, "binary_agreement": None,
                           "binary_kappa": None, "mean_a": None, "mean_b": None}
    if n == 0:
        return out
    from scipy.stats import spearmanr

    if len(set(a)) > 1 and len(set(b)) > 1:
        res = spearmanr(a, b)
        out["spearman"] = float(res.statistic if hasattr(res, "statistic") else res[0])
        out["spearman_p"] = float(res.pvalue if hasattr(res, "pvalue") else res[1])
    deltas = [abs(x - y) for x, y in zip(a, b)]
    out["mean_abs_delta"] = sum(deltas) / n
    out["exact_agreement"] = sum(d == 0 for d in deltas) / n
    out["within_1"] = sum(d <= 1 for d in deltas) / n
    ba = [x >= threshold for x in a]
    bb = [y >= threshold for y in b]
    out["binary_agreement"] = sum(x == y for x, y in zip(ba, bb)) / n
    out["binary_kappa"] = cohen_kappa(ba, bb)
    out["mean_a"] = sum(a) / n
    out["mean_b"] = sum(b) / n
    return out


def cohen_kappa(y1: Sequence[Any], y2: Sequence[Any]) -> Optional[float]:
    """Cohen's kappa of two label sequences (None when undefined)."""
    n = len(y1)
    if n == 0 or n != len(y2):
        return None
    labels = sorted(set(y1) | set(y2), key=str)
    po = sum(x == y for x, y in zip(y1, y2)) / n
    pe = sum((sum(x == lab for x in y1) / n) * (sum(y == lab for y in y2) / n) for lab in labels)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


# --------------------------------------------------------------------------------------
# Number parsing
# --------------------------------------------------------------------------------------

_SCALES = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mm": 1e6, "mil": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
    "trillion": 1e12, "trillions": 1e12, "tn": 1e12,
}
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")

_NUM_RE = re.compile(
    r"""
    (?<![A-Za-z0-9_.,])                       # not glued to a word / another number
    (?P<cur0>US\$|\$)?
    (?P<open>\(\s*)?                          # "(1,561)" accounting negative
    (?P<sign1>[-\u2212\u2013])?               # -$1,561
    (?P<cur>(?:US\$|USD|\$|\u20ac|\u00a3)\s?)?
    (?P<sign2>[-\u2212])?                     # $-1,561
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?![\d])
    (?P<close>\s*\))?
    (?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b|percentage\s+points?\b))?
    (?P<scale>\s?(?:trillions?|tn|billions?|bn|b|millions?|mn|mm|mil|m|thousands?|k)\b)?
    (?P<after_scale_pct>\s?%)?
    """,
    re.X | re.I,
)
_IN_SCALE_RE = re.compile(r"^\s*\)?\s*\(?\s*in\s+(?:(?:us|usd|u\.s\.)\s*\$?\s*|\$\s*)?(thousands|millions|billions)\b",
                          re.I)
_UNIT_TAIL_RE = re.compile(r"^\s*(?:-\s*[KQ]\b|st\b|nd\b|rd\b|th\b)", re.I)


@dataclass(frozen=True)
class NumberMention:
    """A number found in text. `value` is as written (sign applied, commas removed);
    `scale` is the explicit multiplier (1e3/1e6/1e9/1e12) or None; `decimals` the decimals as
    written, `sig_decimals` without trailing zeros; `percent`/`currency` flag the unit;
    `start`/`end` locate it in the text."""

    value: float
    raw: str
    start: int
    end: int
    scale: Optional[float] = None
    percent: bool = False
    currency: bool = False
    decimals: int = 0
    sig_decimals: int = 0  # decimals without trailing zeros ("$1577.00" -> 0)

    @property
    def absolute(self) -> float:
        """Value times its explicit scale (or as written when no scale is given)."""
        return self.value * (self.scale or 1.0)


def _decimals(num: str, strip_zeros: bool = False) -> int:
    if "." not in num:
        return 0
    frac = num.split(".", 1)[1]
    return len(frac.rstrip("0") if strip_zeros else frac)


def parse_numbers(text: Any, *, keep_years: bool = False) -> list[NumberMention]:
    """Extract numbers with units and scales (see `_parse_numbers`); cached per text."""
    if text is None:
        return []
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = _to_text(text)
    return list(_parse_numbers(str(text), keep_years))


@lru_cache(maxsize=8192)
def _parse_numbers(text: str, keep_years: bool = False) -> tuple[NumberMention, ...]:
    """Extract numbers with units and scales: "$1,577 million", "$1.577 billion", "(1,561)",
    "-$1561M", "65.4%", "USD 8.7bn", "5,466,312 (in thousands)".

    Skipped: years (1900-2099 written without currency, decimals or scale) unless
    `keep_years`, fiscal labels glued to letters (FY2022, Q2, 10-K), day numbers after a month
    name, ordinals, and list markers ("1. ")."""
    out: list[NumberMention] = []
    for m in _NUM_RE.finditer(text):
        num = m.group("num")
        try:
            value = float(num.replace(",", ""))
        except ValueError:
            continue
        start, end = m.start(), m.end()
        tail = text[end:end + 40]
        pre = text[max(0, start - 12):start]
        if _UNIT_TAIL_RE.match(text[m.end("num"):m.end("num") + 4]):
            continue
        cur = bool(m.group("cur") or m.group("cur0"))
        pct = bool(m.group("pct") or m.group("after_scale_pct"))
        scale_word = (m.group("scale") or "").strip().lower()
        scale = _SCALES.get(scale_word)
        # single-letter scales only when glued to the number or upper case ("8.7B", "$1561M")
        if scale_word in ("m", "b", "k") and (m.group("scale")[0].isspace() or pct):
            if not m.group("scale").strip().isupper():
                scale = None
                end = m.end("scale") - len(m.group("scale"))
        if pct:
            scale = None
        if (scale and not cur and len(scale_word) == 1 and "." not in num and value < 10
                and not m.group("scale")[0].isspace()):
            continue  # a name such as "3M", not three million
        if scale is None and not pct:
            ins = _IN_SCALE_RE.match(text[m.end("num"):m.end("num") + 40])
            if ins:
                scale = _SCALES[ins.group(1).lower()]
        is_plain_int = not cur and not pct and scale is None and "." not in num and "," not in num
        if is_plain_int and not keep_years and 1900 <= value <= 2099 and len(num) == 4:
            continue
        if is_plain_int and re.search(rf"(?i)\b(?:{_MONTHS})\.?\s*$", pre):
            continue  # day of month: "May 26, 2023"
        line_start = text.rfind("\n", 0, start) + 1
        if is_plain_int and value <= 30 and not text[line_start:start].strip() and re.match(r"^[.)]\s", tail):
            continue  # list marker "1. " / "2) "
        negative = bool(m.group("sign1") or m.group("sign2"))
        if m.group("open") and m.group("close") and not pct:
            negative = True
        elif m.group("open") and not m.group("close"):
            start = m.start("open") + len(m.group("open"))
        if m.group("sign1") and start > 0 and text[start - 1].isdigit():
            negative = False
        if negative:
            value = -value
        out.append(NumberMention(value=value, raw=text[start:end].strip(), start=start, end=end,
                                 scale=scale, percent=pct, currency=cur, decimals=_decimals(num),
                                 sig_decimals=_decimals(num, strip_zeros=True)))
    return tuple(out)


def _question_unit(question: str) -> tuple[Optional[float], bool]:
    """(scale, percent) the question asks for: 'in USD millions' -> (1e6, False);
    'in units of percents' / 'as a %' -> (None, True)."""
    q = question.lower()
    scale = None
    m = re.search(r"\b(thousands|millions|billions)\b", q) or re.search(
        r"(?:\busd|\bus\$|\$|\bin)\s*(thousand|million|billion)\b", q)
    if m:
        scale = _SCALES[m.group(1)]
    percent = bool(re.search(r"percent|%|\bpct\b|percentage", q))
    return scale, percent


def _rounding_tol(decimals: int, unit: float) -> float:
    """Half a unit in the last decimal place, in absolute terms."""
    return 0.5 * 10 ** (-decimals) * unit


def numbers_match(a: NumberMention, g: NumberMention, *, rel_tol: float = 0.01,
                  question_scale: Optional[float] = None, question_percent: bool = False,
                  answer_round_cap: float = 0.05) -> bool:
    """Whether answer mention `a` states gold mention `g`.

    Compares magnitudes (signs are often carried by words: "decreased by 3.7%") with a relative
    tolerance, or within the rounding of either side (gold 8.7 accepts 8.738; answer "1.6 billion"
    accepts gold 1,577 million, capped at `answer_round_cap` relative). Scales: explicit on both
    sides are compared as absolute amounts; when one side has no scale (tables "in thousands",
    "in USD millions" questions) any factor of 1000 is allowed. Percent vs bare fraction
    (65.4% vs 0.654) is accepted."""
    gs = g.scale or (question_scale if not g.percent else None)
    gv_abs = abs(g.value)
    av = abs(a.value)
    if a.percent and g.percent:
        pairs = [(av, gv_abs, 1.0, 1.0)]
    elif a.percent or g.percent or (question_percent and not (a.scale or g.scale)):
        if (a.percent and (a.scale or (a.currency and not g.percent))) or (g.percent and (g.scale or g.currency)):
            return False
        # one side percent: the other may be a fraction (0.654) or the same number without the sign
        pairs = [(av, gv_abs, 1.0, 1.0), (av * 100, gv_abs, 100.0, 1.0), (av, gv_abs * 100, 1.0, 100.0)]
    else:
        if a.scale and gs:
            pairs = [(av * a.scale, gv_abs * gs, a.scale, gs)]
        else:
            asc = a.scale or 1.0
            gsc = gs or 1.0
            pairs = [(av * asc * k, gv_abs * gsc, asc * k, gsc) for k in (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9)]
    for x, y, xunit, yunit in pairs:
        if y == 0:
            if x == 0:
                return True
            continue
        diff = abs(x - y)
        tol = max(rel_tol * y, _rounding_tol(g.sig_decimals, yunit) * 1.0000001,
                  min(_rounding_tol(a.decimals, xunit) * 1.0000001, answer_round_cap * y))
        if diff <= tol:
            return True
    return False


# --------------------------------------------------------------------------------------
# Refusals, yes/no polarity, content words
# --------------------------------------------------------------------------------------

_REFUSAL_PATTERNS = [
    r"\bi'?m sorry\b", r"\bi am sorry\b", r"\bi apologi[sz]e\b", r"\bunfortunately\b",
    r"\bas an ai\b", r"\bas an? (?:ai )?language model\b", r"\bknowledge cut-?off\b",
    r"\bas of my last (?:update|training|knowledge)\b", r"\breal-time\b",
    r"\bi (?:do not|don't|cannot|can't|can ?not) (?:have|access|provide|answer|determine|calculate|find|browse|give)\b",
    r"\b(?:i am|i'm) (?:unable|not able)\b",
    r"\bunable to (?:provide|determine|answer|calculate|find|locate|access|compute|give)\b",
    r"\b(?:cannot|can't|can ?not) be (?:determined|calculated|answered|found|computed|confirmed)\b",
    r"\b(?:does|do|did) ?(?:not|n't) (?:provide|contain|include|mention|specify|state|disclose|give|list|offer|"
    r"show|present|report|detail)\b",
    r"\bnot (?:explicitly |specifically |directly )?(?:provided|mentioned|stated|available|included|disclosed|"
    r"specified|given|found|present|listed|reported)\b",
    r"\bno (?:specific |explicit |relevant |direct )?(?:information|data|details|mention|figures?)\b",
    r"\b(?:insufficient|not enough|not sufficient|lack of|limited) (?:information|data|details|context)\b",
    r"\bwould need (?:to|more|additional|access)\b", r"\byou would need\b",
    r"\bi (?:would )?recommend (?:checking|consulting|referring|looking)\b",
    r"\bplease (?:check|refer|consult)\b", r"\b(?:it is|it's) (?:not possible|impossible) to\b",
    r"\bthere is no (?:information|mention|data|specific)\b",
]
_REFUSAL_RE = re.compile("|".join(_REFUSAL_PATTERNS), re.I)


def detect_refusal(answer: str) -> float:
    """Strength of refusal cues in an answer: 0 (none) .. 1 (a plain refusal).

    Cues: "I'm sorry", "cannot", "unable to", "not provided", "does not include", "as an AI",
    "as of my last update", ...; one cue scores 0.5, plus 0.25 when it opens the answer, plus
    0.25 when the answer is short, plus 0.1 per extra cue."""
    if not answer or not answer.strip():
        return 1.0
    text = answer.strip()
    hits = list(_REFUSAL_RE.finditer(text))
    if not hits:
        return 0.0
    head = hits[0].start() < max(200, len(text) * 0.25)
    strength = 0.5 + 0.25 * head + 0.25 * (len(text) < 400) + 0.1 * (len(hits) - 1)
    return float(min(1.0, strength))


_NEG_RE = re.compile(
    r"\b(?:not|no|never|neither|nor|none|without|cannot|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    r"hasn't|haven't|hadn't|won't|wouldn't|can't)\b|n't\b", re.I)
_POS_WORDS = {"increase", "increased", "increasing", "increases", "grow", "grew", "grown", "growing", "growth", "rise",
              "rose", "risen", "higher", "improve", "improved", "improving", "improvement", "gain", "gained",
              "expand", "expanded", "positive", "healthy", "surplus", "up"}
_NEG_PRED_WORDS = {"decrease", "decreased", "decreasing", "decreases", "decline", "declined", "declining", "fall",
                   "fell", "fallen", "drop", "dropped", "lower", "shrink", "shrank", "reduced", "reduction",
                   "deteriorate", "deteriorated", "worsen", "worsened", "negative", "unhealthy", "deficit", "down"}
_YES_RE = re.compile(r"^\W*(?:yes|yeah|indeed|affirmative)\b", re.I)
_NO_RE = re.compile(r"^\W*(?:no|nope)\b(?!\s+(?:doubt|change|material|significant|longer)\b)", re.I)
_CONCLUDE_RE = re.compile(r"^\W*(?:therefore|thus|hence|so|overall|in conclusion|in summary|to summari[sz]e|"
                          r"as a result|consequently|in short|this (?:indicates|suggests|means|shows))\b", re.I)
_DEFINITION_RE = re.compile(r"^\W*to (?:assess|determine|answer|calculate|evaluate|find)\b|"
                            r"\b(?:is|are) (?:a |an )?(?:measure|metric|ratio|calculated|defined|computed)\b", re.I)
_INLINE_YESNO_RE = re.compile(r"(?:^|[.:;!?]\s+|\b(?:summary|conclusion|short|answer is|so|overall),?\s+)(yes|no)\s*[,.!:;]",
                              re.I)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"'(\-*\u2022\d])|\n+", text)
    return [p.strip() for p in parts if p and p.strip()]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.lower()))


def _sentence_polarity(sentence: str, qwords: set[str], q_pos: bool, q_neg: bool) -> Optional[int]:
    words = _words(sentence)
    shared = {w for w in words & qwords if w not in _STOP and len(w) > 2}
    if len(shared) < min(2, max(1, len(qwords))):
        return None
    pol = -1 if len(_NEG_RE.findall(sentence)) % 2 else 1
    s_pos, s_neg = bool(words & _POS_WORDS), bool(words & _NEG_PRED_WORDS)
    if (q_pos and not q_neg and s_neg and not s_pos) or (q_neg and not q_pos and s_pos and not s_neg):
        pol = -pol
    return pol


def yes_no_polarity(text: str, question: str = "") -> Optional[int]:
    """+1 (yes), -1 (no) or None (unclear) for an answer to a yes/no question.

    An explicit "Yes"/"No" (leading, after a short "Based on ...," preamble, or as "so, yes,")
    decides. Otherwise sentences are read in the order: concluding ("Therefore ...", "Overall
    ..."), first, second, last; definitions ("To assess ...", "... is a measure ...") are skipped.
    The first sentence that shares words with the question gives the polarity: negations flip
    it, and so does an antonym of the question's predicate ("Did X increase?" / "X decreased")."""
    if not text or not text.strip():
        return None
    t = text.strip()
    if _YES_RE.match(t):
        return 1
    if _NO_RE.match(t):
        return -1
    m = re.match(r"^[^.?!\n]{0,160}?,\s*(yes|no)\b", t, re.I) or _INLINE_YESNO_RE.search(t)
    if m:
        return 1 if m.group(1).lower() == "yes" else -1
    qwords = {w for w in _words(question) if w not in _STOP and len(w) > 2}
    q_pos, q_neg = bool(qwords & _POS_WORDS), bool(qwords & _NEG_PRED_WORDS)
    sents = [s for s in _sentences(t) if not _DEFINITION_RE.search(s)]
    if not sents:
        return None
    ordered = [s for s in sents if _CONCLUDE_RE.match(s)] + sents[:2] + sents[-1:]
    for s in ordered:
        pol = _sentence_polarity(s, qwords | _POS_WORDS | _NEG_PRED_WORDS if (q_pos or q_neg) else qwords,
                                 q_pos, q_neg)
        if pol is not None:
            return pol
    return None


_STOP = set("""
a about above after again against all am an and any are aren't as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more my myself nor now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves also per via vs versus upon within whose whereas may might
must shall us one two three amongst among based answer question provided information data following shown given
company companies fiscal year years fy period periods total amount figure figures value values number
approximately approx around roughly near nearly reported report reports document filing filings statement
statements financial financials annual quarter quarterly usd dollar dollars million millions billion
billions thousand thousands percent percentage end ended ending compared comparison respectively let calculate
calculated calculation using use used however therefore thus hence overall according specifically primarily mainly
""".split())
_SYNONYMS = {
    "revenues": "revenue", "sales": "revenue", "topline": "revenue", "top-line": "revenue", "net sales": "revenue",
    "pp&e": "ppne", "ppe": "ppne", "capex": "capital expenditure", "capital expenditures": "capital expenditure",
    "declined": "decrease", "decline": "decrease", "declines": "decrease", "decreased": "decrease",
    "dropped": "decrease", "drop": "decrease", "fell": "decrease", "lower": "decrease", "reduction": "decrease",
    "reduced": "decrease", "increased": "increase", "increases": "increase", "grew": "increase", "growth": "increase",
    "grow": "increase", "rose": "increase", "higher": "increase", "improved": "improve", "improvement": "improve",
    "improving": "improve", "highest": "most", "largest": "most", "biggest": "most", "best": "most",
    "lowest": "least", "smallest": "least", "worst": "least",
    "earnings": "income", "profit": "income", "u.s.": "us", "usa": "us", "jnj": "johnson", "j&j": "johnson",
    "emea": "europe middle east africa", "apac": "asia pacific", "asia-pacific": "asia pacific",
    "lacc": "latin america caribbean canada", "latam": "latin america", "sg&a": "selling general administrative",
    "cogs": "cost goods sold", "ebitda": "ebitda", "fcf": "free cash flow", "eps": "earnings per share",
}


def _stem(w: str) -> str:
    """Crude stem: plural/verbal suffix stripping, then the first 6 letters."""
    for suf in ("ies", "es", "s"):
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w[:6]


def content_tokens(text: str) -> frozenset[str]:
    """Content words of a text (lower case, stop words removed, financial acronyms and synonyms
    normalised, crude stems); numbers are excluded (they are compared as numbers)."""
    return _content_tokens(text or "")


@lru_cache(maxsize=8192)
def _content_tokens(text: str) -> frozenset[str]:
    low = text.lower().replace("united states", "us").replace("net sales", "revenue")
    out = set()
    for t in re.findall(r"[a-z][a-z&'\-.]*[a-z]|[a-z]", low):
        t = t.strip("'.-")
        if t.endswith("'s"):
            t = t[:-2]
        if not t or t in _STOP or len(t) < 2:
            continue
        for u in _SYNONYMS.get(t, t).split():
            if u not in _STOP:
                out.add(_stem(u))
    return frozenset(out - {"compan", "year"})


# --------------------------------------------------------------------------------------
# Offline judge
# --------------------------------------------------------------------------------------

_CAVEAT_RE = re.compile(r"(?i)\b(?:the answer here assumes|this answer (?:considers|assumes)|note that the answer)\b.*$",
                        re.S)


@dataclass
class OfflineJudgeParams:
    """Knobs of `OfflineJudge`; the defaults in use come from `eval/data/offline_judge_params.json`."""

    rel_tol: float = 0.005              # relative tolerance of a numeric match (besides rounding)
    answer_round_cap: float = 0.01      # max relative slack granted by the answer's own rounding ("$11.6 billion")
    overlap_hi: float = 0.5             # text: weighted recall of gold content words -> substantively correct (8)
    overlap_lo: float = 0.25            # text: ... -> partially correct (5)
    refusal_min: float = 0.75           # refusal strength at which an answer without the gold figure scores 1
    nonfinal_match_score: int = 8       # numeric gold found only inside intermediate working
    yesno_wrong_numbers_score: int = 8  # yes/no polarity right, figures stated, none matches the gold's
    text_wrong_numbers_cap: int = 5     # text gold has figures, the answer has figures, none matches
    near_tol: float = 0.05              # "close but wrong" band (score 5); not tuned
    source: str = "built-in defaults"

    TUNABLE = ("rel_tol", "answer_round_cap", "overlap_hi", "overlap_lo", "refusal_min", "nonfinal_match_score",
               "yesno_wrong_numbers_score", "text_wrong_numbers_cap")
    FEATURE_PARAMS = ("rel_tol", "answer_round_cap", "near_tol")  # the ones that change the features

    @classmethod
    def load(cls, path: Optional[Path | str] = None) -> "OfflineJudgeParams":
        p = Path(path) if path else DEFAULT_PARAMS_PATH
        if not p.exists():
            return cls()
        data = json.loads(p.read_text())
        params = data.get("params", data)
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in params.items() if k in known}
        if "source" not in kwargs and "source" in data:
            kwargs["source"] = str(data["source"])
        return cls(**kwargs)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class JudgeFeatures:
    """What `OfflineJudge` measured on one (question, gold, answer)."""

    kind: str                                  # numeric | yesno | text | empty
    refusal: float = 0.0                       # refusal cue strength 0..1
    gold_numbers: int = 0                      # key figures of the gold answer
    answer_numbers: int = 0
    number_match: bool = False                 # a gold figure is stated in the answer
    number_match_final: bool = False           # ... in a conclusive position (numeric gold)
    number_near: bool = False                  # only within near_tol (numeric gold)
    number_recall: float = 0.0                 # share of gold figures stated (text / yes-no)
    overlap: float = 0.0                       # weighted recall of gold content words
    gold_polarity: Optional[int] = None
    answer_polarity: Optional[int] = None


class OfflineJudge(Judge):
    """Deterministic judge without an LLM, on the same 1-10 rubric.

    Gold kinds (from the gold answer's shape):
    - numeric ("$1577.00", "65.4%", "0.66", "-3.7"): 10 if the answer states the value in a
      conclusive position (first/last sentences, "therefore ...", last figure), allowing units,
      scales, fractions vs percents and rounding; `nonfinal_match_score` if it appears only in
      intermediate working; 5 if within `near_tol`; else 2.
    - yes/no ("Yes. ...", "No, ..."): contradicting polarity 2; agreeing polarity 10 with the
      gold's key figure, 8 without figures, `yesno_wrong_numbers_score` with other figures;
      unclear polarity: graded as text, capped at 7.
    - text: all gold figures stated -> 10 (8 with little gold wording), some -> 5; none but other
      figures -> capped at `text_wrong_numbers_cap`; otherwise by the weighted recall of the
      gold's content words (words not in the question weigh 1, question words 0.25, gold
      justification words 0.25): >= `overlap_hi` -> 8, >= `overlap_lo` -> 5, else 2.
    - a refusal ("I'm sorry", "cannot", "not provided", "does not include", ...) of strength
      >= `refusal_min` that does not state a gold figure scores 1; an empty answer scores 1.
    """

    def __init__(self, params: Optional[OfflineJudgeParams] = None, name: str = "offline", **overrides: Any):
        base = params or OfflineJudgeParams.load()
        self.params = replace(base, **overrides) if overrides else base
        self.name = name

    # ---- features -------------------------------------------------------------------
    def features(self, question: str, gold: Any, answer: Any, justification: str = "") -> JudgeFeatures:
        p = self.params
        question = _to_text(question)
        gold_raw = _to_text(gold).strip()
        gold_t = _CAVEAT_RE.sub("", gold_raw).strip() or gold_raw
        ans = _to_text(answer).strip()
        if not ans:
            return JudgeFeatures(kind="empty", refusal=1.0)
        q_scale, q_pct = _question_unit(question)
        gnums = parse_numbers(gold_t)
        anums = parse_numbers(ans)
        kind = _gold_kind(gold_t, gnums)
        f = JudgeFeatures(kind=kind, refusal=detect_refusal(ans), answer_numbers=len(anums))
        match = dict(rel_tol=p.rel_tol, question_scale=q_scale, question_percent=q_pct,
                     answer_round_cap=p.answer_round_cap)
        if kind == "numeric":
            g = gnums[0]
            if not g.percent and q_pct and not g.currency and abs(g.value) < 10 and g.scale is None:
                # FinanceBench stores percents as fractions: 0.654 for "in units of percents" questions
                g = NumberMention(value=g.value * 100, raw=g.raw, start=g.start, end=g.end, percent=True,
                                  decimals=max(0, g.decimals - 2), sig_decimals=max(0, g.sig_decimals - 2))
            f.gold_numbers = 1
            final_idx = _conclusive_indices(ans, anums)
            near = dict(match, rel_tol=p.near_tol, answer_round_cap=p.near_tol)
            for i, a in enumerate(anums):
                if numbers_match(a, g, **match):
                    f.number_match = True
                    f.number_match_final = f.number_match_final or i in final_idx
                elif numbers_match(a, g, **near):
                    f.number_near = True
            return f
        keys = _key_gold_numbers(gnums)
        f.gold_numbers = len(keys)
        if keys:
            found = sum(any(numbers_match(a, g, **match) for a in anums) for g in keys)
            f.number_recall = found / len(keys)
            f.number_match = found > 0
        qtok = content_tokens(question)
        gtok = content_tokens(gold_t)
        atok = content_tokens(ans)
        jtok = content_tokens(justification) - gtok - qtok if justification else frozenset()
        weights = {t: (0.25 if t in qtok else 1.0) for t in gtok}
        weights.update({t: 0.25 for t in jtok})
        total = sum(weights.values())
        f.overlap = sum(w for t, w in weights.items() if t in atok) / total if total else 0.0
        if kind == "yesno":
            f.gold_polarity = 1 if _YES_RE.match(gold_t) else -1
            f.answer_polarity = yes_no_polarity(ans, question)
        return f

    # ---- mapping to the rubric ------------------------------------------------------
    def grade(self, f: JudgeFeatures, params: Optional[OfflineJudgeParams] = None) -> tuple[int, str]:
        """Rubric score and reason for measured features (`params` overrides the judge's own
        grading thresholds; used by the calibration grid search)."""
        p = params or self.params
        if f.kind == "empty":
            return 1, "empty answer"
        if f.refusal >= p.refusal_min and not f.number_match:
            return 1, f"refusal (cue strength {f.refusal:.2f}) without the gold figure"
        if f.kind == "numeric":
            if f.number_match_final:
                return 10, "gold figure stated (units, scale and rounding normalised)"
            if f.number_match:
                return p.nonfinal_match_score, "gold figure appears, but not as the final answer"
            if f.refusal > 0:
                return 1, "no matching figure; the answer declines"
            if f.number_near:
                return 5, f"a figure within {p.near_tol:.0%} of the gold, not within tolerance"
            return 2, "no figure matches the gold answer"
        if f.kind == "yesno":
            if f.answer_polarity is None:
                s, why = self._grade_text(f, p)
                return min(s, 7), f"yes/no unclear; {why}"
            if f.answer_polarity != f.gold_polarity:
                return 2, "yes/no polarity contradicts the gold answer"
            if f.gold_numbers and f.number_match:
                return 10, "polarity agrees and the gold's key figure is stated"
            if f.gold_numbers and f.answer_numbers:
                return p.yesno_wrong_numbers_score, "polarity agrees; the gold's figures are not stated"
            return 8, "polarity agrees with the gold answer"
        return self._grade_text(f, p)

    @staticmethod
    def _grade_text(f: JudgeFeatures, p: OfflineJudgeParams) -> tuple[int, str]:
        if f.gold_numbers and f.number_recall >= 1.0:
            if f.overlap >= p.overlap_lo:
                return 10, f"all gold figures stated, overlap {f.overlap:.2f}"
            return 8, f"all gold figures stated, little gold wording (overlap {f.overlap:.2f})"
        if f.gold_numbers and f.number_match:
            return 5, f"{f.number_recall:.0%} of the gold figures stated"
        if f.overlap >= p.overlap_hi:
            s, why = 8, f"content overlap {f.overlap:.2f} >= {p.overlap_hi}"
        elif f.overlap >= p.overlap_lo:
            s, why = 5, f"content overlap {f.overlap:.2f}: partial"
        else:
            s, why = 2, f"content overlap {f.overlap:.2f}: incorrect"
        if f.gold_numbers and f.answer_numbers and s > p.text_wrong_numbers_cap:
            return p.text_wrong_numbers_cap, why + "; the gold's figures are not stated"
        return s, why

    def score(self, question: str, gold: str, answer: str, justification: str = "") -> JudgeResult:
        f = self.features(question, gold, answer, justification)
        s, why = self.grade(f)
        return JudgeResult(score=s, justification=f"[offline/{f.kind}] {why}")


def _gold_kind(gold: str, gnums: list[NumberMention]) -> str:
    g = gold.strip()
    if _YES_RE.match(g) or _NO_RE.match(g):
        return "yesno"
    if len(gnums) == 1:
        rest = (g[: gnums[0].start] + g[gnums[0].end:]).strip()
        rest = re.sub(r"(?i)\b(?:usd|dollars?|increase|decrease|approximately|about)\b|~", "", rest)
        if len(re.sub(r"[\W_]+", "", rest)) <= 3:
            return "numeric"
    return "text"


def _key_gold_numbers(gnums: list[NumberMention]) -> list[NumberMention]:
    """Up to four figures of the gold; small bare integers (counts, list markers) are left out."""
    keys = [g for g in gnums if g.percent or g.currency or g.scale or g.decimals or abs(g.value) >= 10]
    return keys[:4]


def _conclusive_indices(answer: str, mentions: list[NumberMention]) -> set[int]:
    """Indices of mentions in a conclusive position: the first sentence, the last two sentences,
    sentences opening with therefore/thus/so/overall..., and the last figure of the answer."""
    if not mentions:
        return set()
    idx = {len(mentions) - 1}
    spans = []
    pos = 0
    for s in _sentences(answer):
        k = answer.find(s, pos)
        if k < 0:
            continue
        spans.append((k, k + len(s), s))
        pos = k + len(s)
    conclusive = [(a, b) for j, (a, b, s) in enumerate(spans)
                  if j == 0 or j >= len(spans) - 2 or _CONCLUDE_RE.match(s)]
    for i, m in enumerate(mentions):
        if any(a <= m.start < b for a, b in conclusive):
            idx.add(i)
    return idx


# --------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------


def make_judge(role: str = "judge", configurable: Any = None, **llm_kwargs: Any) -> Judge:
    """The judge for a role ("judge" or "judge2"): an `LLMJudge` (named after the role, with
    `llm_kwargs`) on the chat model that `finrag.tools.llm.chat.get_chat_model(role, cfg)` returns,
    or the calibrated `OfflineJudge` when that returns None (the offline strategy).

    `configurable` is a `Configuration`, or the `configurable` dict of a RunnableConfig (e.g.
    `{"judge_model": "openai/gpt-4.1", "judge2_model": chat_model}`); `<role>_model` is honoured
    from that dict or from `FINRAG_<ROLE>_MODEL` even where `Configuration` has no such field,
    and falls back to the default `llm` otherwise."""
    try:
        from finrag.tools.llm.chat import get_chat_model  # type: ignore
    except ModuleNotFoundError as exc:  # the LLM factory itself is absent: offline
        if exc.name not in ("finrag.tools.llm.chat", "finrag.tools"):
            raise
        return OfflineJudge()
    cfg = configurable
    if cfg is None or isinstance(cfg, Mapping):
        values = dict(cfg or {})
        from finrag.state.configuration import Configuration  # type: ignore

        cfg = Configuration.from_runnable_config({"configurable": values})
        key = f"{role}_model"
        if key not in {f.name for f in fields(cfg)}:
            override = values.get(key) or os.environ.get(f"FINRAG_{key.upper()}")
            if override:
                setattr(cfg, key, override)
    model = get_chat_model(role, cfg)
    if model is None:
        return OfflineJudge()
    return LLMJudge(model, name=role, **llm_kwargs)
