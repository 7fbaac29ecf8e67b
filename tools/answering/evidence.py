"""Yes/no and "what drove / which segment" questions answered from the best evidence sentences.

The answer is extractive and says so: the sentences (and table rows) of the context that best cover the
question, each cited. For "what drove" questions sentences that give a cause ("driven by", "due to",
"primarily reflecting", "offset by") come first. The offline strategy does not decide yes or no itself:
it shows the evidence. Whether a question asks the causes or a yes/no is its form, read once with the question
(`QuestionFacts.form`, `question/form.py`); this module only adds the selection a question opening with "which",
"who" or "among" asks.
"""
from __future__ import annotations

import re

from finrag.state.question import QuestionFacts
from finrag.tools.answering.extractive import context_label, covered_units
from finrag.tools.question import read_question

__all__ = ["evidence_style", "evidence_answer"]

_WHICH = re.compile(r"(?i)^\s*(?:which|who|among)\b")
_CAUSE = re.compile(r"(?i)\b(?:driven by|due (?:primarily |mainly |largely )?to|primarily (?:due to|reflect\w*|as a result)|"
                    r"as a result of|reflect(?:s|ed|ing)|attributable to|because of|resulting from|offset by|"
                    r"(?:increase|decrease|decline|improvement)s? (?:was|were) (?:primarily |mainly )?(?:due|driven|attributable)|"
                    r"led by|benefit(?:ed)? from|partially offset)\b")


def evidence_style(question: str, facts: QuestionFacts) -> str:
    """'drivers' or 'yesno' by the question's form (`facts.form`), else 'which' for a question opening with
    "which", "who" or "among", else 'open'."""
    if facts.form in ("drivers", "yesno"):
        return facts.form
    return "which" if _WHICH.match(question) else "open"


def evidence_answer(question: str, keywords: list[str], contexts: list[dict], max_units: int = 3,
                    facts: QuestionFacts | None = None) -> str:
    """The best evidence sentences for a yes/no, drivers or which question, marked as extractive; '' when
    the context has none worth quoting (less than half of the question's keywords). `facts`: the question's one
    reading (`read_question` when not given)."""
    style = evidence_style(question, facts if facts is not None else read_question(question))
    if style == "open" or not contexts:
        return ""
    scored = []
    for cov, s, rank, unit, ctx in covered_units(question, keywords, contexts):
        if style == "drivers" and _CAUSE.search(unit):
            s += 0.25
        scored.append((s, cov, rank, unit, ctx))
    if not scored:
        return ""
    scored.sort(key=lambda t: (-t[0], t[2]))
    if scored[0][1] < 0.5:
        return ""
    picked, seen = [], set()
    for _s, cov, _r, unit, ctx in scored:
        key = unit[:80]
        if key in seen or cov < 0.3:
            continue
        seen.add(key)
        picked.append(f"{' '.join(unit.split())[:500]} {context_label(ctx)}")
        if len(picked) >= max_units:
            break
    lead = {"drivers": "Extractive answer, the filing's own explanation",
            "yesno": "Extractive answer, the passages that bear on the question",
            "which": "Extractive answer, the passages that bear on the question"}[style]
    return f"{lead}: " + " ... ".join(picked)
