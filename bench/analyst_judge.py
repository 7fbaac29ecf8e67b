"""The judge of `bench/analyst_questions.py` (issue 33): does an answer state the gold, or another measure instead?

* `numbers(answer)`: the numbers an answer states, as (value, "pct" | "amount"), citations, concept names, pages,
  dates and fiscal years left out;
* `states_gold(q, answer)`: the question's gold stated, to its class's precision (see the benchmark's docstring);
* `headline(answer)`: the answer's first sentence; `other_measure(q, answer, facts)`: the other fact of the
  filing the headline states instead of the gold;
* `judge(q, res, facts)`: one answer's outcome (exact filing, evidence, value, wrong measure, extractive).
"""
from __future__ import annotations

import re
from typing import Any

from bench.analyst_common import MONTHS
from bench.analyst_ranking import other_member, states_member
from finrag.eval.edgar_gold import states_value

__all__ = ["headline", "judge", "numbers", "other_measure", "states_gold"]

_CITE = re.compile(r"\[[^\]]*\]|\b[a-z][a-z0-9-]*:[A-Z][A-Za-z0-9]+\b|\bp\.\s*\d+|\b\d{4}-\d\d-\d\d\b"
                   r"|\b(?:" + "|".join(MONTHS) + r")\s+\d{1,2},?\s+\d{4}\b|\b(?:FY|Q[1-4]\s*)\d{2,4}\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])(\(|-|\u2212)?\$?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\)?"
                     r"(?:\s*(%|percent|pp\b|x\b)|(?:\s+in)?\s+(billions?|millions?|thousands?|bn\b))?", re.I)
_MISSING = re.compile(r"(?i)\b(?:not found|could not (?:find|compute)|cannot (?:find|compute)|no (?:tagged )?facts? "
                      r"(?:for|of)|not the asked|is not (?:tagged|reported|disclosed)|no such)\b")


def numbers(answer: str) -> list[tuple[float, str]]:
    """The numbers an answer states, as (value, "pct" | "amount"), scale words applied; citations, concept names,
    page numbers, dates and fiscal years ("FY2024", a bare 2024) are not numbers stated."""
    text = _CITE.sub(" ", answer or "")
    out: list[tuple[float, str]] = []
    for m in _NUMBER.finditer(text):
        digits, unit, scale = m.group(2), (m.group(3) or "").lower(), (m.group(4) or "").lower().rstrip("s")
        try:
            value = float(digits.replace(",", ""))
        except ValueError:
            continue
        if m.group(1) and m.group(1) != "(":
            value = -value
        if unit in ("%", "percent", "pp"):
            out.append((value, "pct"))
            continue
        if not scale and re.fullmatch(r"(19|20)\d\d", digits):
            continue  # a year
        out.append((value * {"billion": 1e9, "million": 1e6, "thousand": 1e3, "bn": 1e9}.get(scale, 1.0), "amount"))
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", (text or "").lower().replace("&", " and "))).strip()


def states_gold(q: dict, answer: str) -> bool:
    """Does the answer state the question's gold (the module docstring says to what precision)?"""
    kind, gold = q["gold_kind"], q["gold_value"]
    if kind == "series":  # every year's value
        return all(states_value(_CITE.sub(" ", answer or ""), v, False) for v in q["gold_values"])
    if kind == "rank":  # the headline names the member that ranks first
        return states_member(q, headline(answer))
    nums = numbers(answer)
    if kind == "name":
        return _norm(gold) in _norm(answer)
    if kind == "cik":
        return any(int(d) == int(gold) for d in re.findall(r"\d{4,10}", answer or ""))
    if kind == "date":
        month, day = gold.split()
        return bool(re.search(rf"(?i)\b{month}\s+{day}\b|\b{day}(?:st|nd|rd|th)?\s+(?:of\s+)?{month}\b", answer or ""))
    if kind == "shares":  # a count is displayed exactly: within 0.01% (another date's count is often within 0.1%)
        return any(abs(abs(v) - gold) <= 0.0001 * gold for v, k in nums if k == "amount")
    pct = [abs(v) for v, k in nums if k == "pct"]
    if kind == "pct" or kind == "either":
        target = q.get("gold_pct", gold)
        if any(abs(v - abs(target)) <= 0.1 + 1e-9 for v in pct):
            return True
        if kind == "pct":
            return False
        gold = q["gold_abs"]
    if kind == "ratio":
        return any(abs(abs(v) - abs(gold)) <= 0.01 + 1e-9 for v, k in nums if k == "amount") \
            or any(abs(v - abs(gold) * 100) <= 1.0 for v in pct)
    return states_value(_CITE.sub(" ", answer or ""), gold, bool(q.get("per_share")))


_EXTRACTIVE = re.compile(r"(?i)^\s*(?:from the filings:|extractive answer|i could not find)")
_SENTENCE_END = re.compile(r"(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<!\bLtd)(?<!\bS)(?<!\bp)\.\s+(?=[A-Z])")


def headline(answer: str) -> str:
    """What an answer states as its answer: its first sentence ("... was $66,517 million [doc, p. 55]."), not the
    formula, inputs or table check after it; "" for an extractive answer (passages quoted, no value stated)."""
    if _EXTRACTIVE.match(answer or ""):
        return ""
    return _SENTENCE_END.split(answer or "", maxsplit=1)[0]


def _per_share(fact: dict) -> bool:
    unit = fact["unit"].lower()
    return "PerShare" in fact["concept"] or ("share" in unit and not re.search(r"(?:^|_)shares$", unit))


def other_measure(q: dict, answer: str, facts: list[dict]) -> dict | None:
    """The fact of the filing, other than the gold, whose value the answer's `headline` states (amounts within
    0.2%, per-share values to the cent, percents of pure facts within 0.05 pp; the closest one), or None. A change
    or margin question's inputs are other measures too: stating this year's value alone answers another question."""
    gold = q["gold_value"] if isinstance(q["gold_value"], (int, float)) else None
    mine = {abs(v) for v in [gold, q.get("gold_abs") if q["gold_kind"] == "either" else None]
            if isinstance(v, (int, float)) and v}
    best: tuple[float, dict] | None = None
    for value, kind in numbers(headline(answer)):
        v = abs(value)
        if kind == "amount" and any(abs(v - m) <= 0.005 * m for m in mine):
            continue
        for f in facts:
            fv = abs(f["value"])
            if not fv or any(abs(fv - m) <= 0.005 * m for m in mine):
                continue
            if kind == "pct":
                off = abs(v - fv * 100) / 0.05 if f["unit"].lower() in ("pure", "u_pure") and fv < 10 else 9.0
            elif _per_share(f):
                off = abs(v - fv) / 0.005 if 0.01 <= v < 1000 else 9.0
            else:
                off = abs(v - fv) / (0.002 * fv) if v >= 1000 and fv >= 1000 else 9.0
            if off <= 1 and (best is None or off < best[0]):
                best = (off, {"concept": f["concept"], "value": f["value"], "members": f["members"]})
    return best[1] if best else None


def judge(q: dict, res: Any, facts: list[dict]) -> dict:
    """One answer's outcome: exact filing, evidence (None when no input fact is displayed), value, wrong measure."""
    routed = list(res["routing"]["routed_docs"])
    gold_docs = set(q.get("gold_docs") or [q["doc_id"]])
    pages = {d: set(p) for d, p in (q.get("gold_pages_by_doc") or {q["doc_id"]: q["gold_pages"]}).items() if p}
    evidence = any(any(c["page_start"] <= p <= c["page_end"] for p in pages.get(c["doc_id"], ()))
                   for c in res["contexts"]) if pages else None
    answer = res.get("answer") or ""
    value = states_gold(q, answer)
    if q["gold_kind"] == "series":  # one year's value given as the series, without saying the others are missing
        stated = [v for v in q["gold_values"] if states_value(_CITE.sub(" ", answer), v, False)]
        other = None if value or _MISSING.search(answer) or not stated else {"concept": "one year only",
                                                                             "value": stated[0], "members": []}
    elif q["gold_kind"] == "rank":  # another member named as the one that ranks first
        other = None if value else other_member(q, headline(answer))
    else:
        other = None if value or _MISSING.search(answer) else other_measure(q, answer, facts)
    return {"routed": routed, "status": res["routing"]["status"], "exact": bool(routed) and set(routed) <= gold_docs,
            "evidence": evidence, "value": value, "wrong_measure": other is not None, "other_measure": other,
            "extractive": bool(_EXTRACTIVE.match(answer)), "answer": answer[:600]}
