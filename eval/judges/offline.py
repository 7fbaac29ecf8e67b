"""The offline judge: a deterministic judge without an LLM on the same 1-10 rubric.

`OfflineJudge.features` measures a (question, gold, answer): the gold's kind (numeric, yes/no, text),
figures stated (`finrag.eval.judges.numbers`), refusal cues, yes/no polarity and content-word overlap
(`finrag.eval.judges.cues`); `OfflineJudge.grade` maps those features to the rubric with the knobs of
`OfflineJudgeParams`. The knobs in use were tuned against the FinanceBench human labels by
`finrag.eval.calibrate` (tuning half only) and are stored in `eval/data/offline_judge_params.json`
(`DEFAULT_PARAMS_PATH`).
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Optional

from finrag.eval.judges.base import Judge, JudgeResult, to_text
from finrag.eval.judges.cues import (
    CONCLUDE_RE,
    NO_RE,
    YES_RE,
    content_tokens,
    detect_refusal,
    split_sentences,
    yes_no_polarity,
)
from finrag.eval.judges.numbers import NumberMention, numbers_match, parse_numbers, question_unit

__all__ = ["DEFAULT_PARAMS_PATH", "OfflineJudgeParams", "JudgeFeatures", "OfflineJudge"]

DEFAULT_PARAMS_PATH = Path(__file__).resolve().parents[1] / "data" / "offline_judge_params.json"

_CITATION_RE = re.compile(r"\[[^\[\]\n]{1,200}?\bpp?\.\s*[^\[\]\n]{0,120}\]")  # an answer's citation brackets
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
        question = to_text(question)
        gold_raw = to_text(gold).strip()
        gold_t = _CAVEAT_RE.sub("", gold_raw).strip() or gold_raw
        ans = to_text(answer).strip()
        if not ans:
            return JudgeFeatures(kind="empty", refusal=1.0)
        ans = _CITATION_RE.sub(" ", ans)  # "[3M_2022_10K, p. 45 (printed 43)]" cites pages; it states no figure
        q_scale, q_pct = question_unit(question)
        gnums = parse_numbers(gold_t)
        anums = parse_numbers(ans)
        kind = _gold_kind(gold_t, gnums)
        f = JudgeFeatures(kind=kind, refusal=detect_refusal(ans), answer_numbers=len(anums))
        match: dict[str, Any] = dict(rel_tol=p.rel_tol, question_scale=q_scale, question_percent=q_pct,
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
            f.gold_polarity = 1 if YES_RE.match(gold_t) else -1
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
    if YES_RE.match(g) or NO_RE.match(g):
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
    for s in split_sentences(answer):
        k = answer.find(s, pos)
        if k < 0:
            continue
        spans.append((k, k + len(s), s))
        pos = k + len(s)
    conclusive = [(a, b) for j, (a, b, s) in enumerate(spans)
                  if j == 0 or j >= len(spans) - 2 or CONCLUDE_RE.match(s)]
    for i, m in enumerate(mentions):
        if any(a <= m.start < b for a, b in conclusive):
            idx.add(i)
    return idx
