"""Text cues of the offline judge: refusal cues (`detect_refusal`), the polarity of a yes/no answer
(`yes_no_polarity`, with `YES_RE` / `NO_RE` for a leading yes or no), sentence splitting with the
concluding-sentence cue (`split_sentences`, `CONCLUDE_RE`), and content words (`content_tokens`: stop
words removed, financial acronyms and synonyms normalised, `prefix_stem` stems).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from finrag.tools.retrieval.vocabulary import prefix_stem

__all__ = ["detect_refusal", "yes_no_polarity", "content_tokens", "split_sentences", "YES_RE", "NO_RE",
           "CONCLUDE_RE"]

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
YES_RE = re.compile(r"^\W*(?:yes|yeah|indeed|affirmative)\b", re.I)
NO_RE = re.compile(r"^\W*(?:no|nope)\b(?!\s+(?:doubt|change|material|significant|longer)\b)", re.I)
CONCLUDE_RE = re.compile(r"^\W*(?:therefore|thus|hence|so|overall|in conclusion|in summary|to summari[sz]e|"
                          r"as a result|consequently|in short|this (?:indicates|suggests|means|shows))\b", re.I)
_DEFINITION_RE = re.compile(r"^\W*to (?:assess|determine|answer|calculate|evaluate|find)\b|"
                            r"\b(?:is|are) (?:a |an )?(?:measure|metric|ratio|calculated|defined|computed)\b", re.I)
_INLINE_YESNO_RE = re.compile(r"(?:^|[.:;!?]\s+|\b(?:summary|conclusion|short|answer is|so|overall),?\s+)(yes|no)\s*[,.!:;]",
                              re.I)


def split_sentences(text: str) -> list[str]:
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
    if YES_RE.match(t):
        return 1
    if NO_RE.match(t):
        return -1
    m = re.match(r"^[^.?!\n]{0,160}?,\s*(yes|no)\b", t, re.I) or _INLINE_YESNO_RE.search(t)
    if m:
        return 1 if m.group(1).lower() == "yes" else -1
    qwords = {w for w in _words(question) if w not in _STOP and len(w) > 2}
    q_pos, q_neg = bool(qwords & _POS_WORDS), bool(qwords & _NEG_PRED_WORDS)
    sents = [s for s in split_sentences(t) if not _DEFINITION_RE.search(s)]
    if not sents:
        return None
    ordered = [s for s in sents if CONCLUDE_RE.match(s)] + sents[:2] + sents[-1:]
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
                out.add(prefix_stem(u))
    return frozenset(out - {"compan", "year"})
