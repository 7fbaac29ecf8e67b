"""The fallback that says so (issue 48): what an answer does when routing chose no filing.

HDRR keeps the paper's graceful fallback (no filing routed with confidence: the whole corpus is searched, or one
filing with `fallback_scope=top_document`), but what it found there is other companies' filings until shown
otherwise. So the answer:

* leads with what could not be resolved and the candidates routing set aside (`record_fallback` here, kept in the
  contract as `routing.extracted.fallback`; worded by `finrag.tools.answering.route_notes.lead_of_fallback`): "Did you mean Salesforce (CRM)? No filing was
  chosen for 'CRM' ...", each candidate with the question asked about it (`question`), which the page offers
  as a one-click choice;
* labels every passage with its company and filing (`route_notes.passages_of_fallback`), and states no figure as the answer:
  a figure is given as the answer only when it comes from a filing of a candidate the question may name, and
  then under "If you meant <candidate>";
* tells an LLM generator the same (`route_notes.instruction_of_fallback`), and the generate node withholds an LLM answer whose
  figures no candidate's passage states (`finrag.tools.answering.number_check.figures_outside`).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

from finrag.tools.routing.mentions import ACCEPT
from finrag.tools.routing.text import strip_legal_suffix
from finrag.tools.sequences import uniq

__all__ = ["CANDIDATE_FLOOR", "FALLBACK_STATUSES", "record_fallback", "left_out"]

FALLBACK_STATUSES = ("fallback_no_tickers", "fallback_low_confidence")
"""Routing statuses with no routed filing whose run still retrieves (the corpus, or its top filing)."""
CANDIDATE_FLOOR = 0.2
"""A reading at least this confident (and below acceptance) is a candidate the answer offers."""
MAX_CANDIDATES = 3


def _asked_about(question: str, mention: str, name: str) -> str:
    """The question with its mention of a candidate replaced by the candidate's name ('CRM's' -> "Salesforce's")."""
    shown = strip_legal_suffix(name).rstrip(" ,") or name
    pattern = re.compile(rf"(?<![\w$]){re.escape(mention)}(?!\w)") if mention else None
    if pattern is None or not pattern.search(question):
        return f"{question.rstrip()} ({shown})"
    return pattern.sub(lambda _m: shown, question, count=1).replace("$" + shown, shown)


def record_fallback(candidates: Iterable[Mapping[str, Any]], question: str, scope: str,
                    tickers_of: Callable[[str], list[str]], indexed: Callable[[str], bool]) -> dict:
    """What the contract records of a fallback: the `scope` searched ('corpus' or 'top_document'), the mentions
    routing could not resolve (`unresolved`) and the candidates it set aside, most confident first: name, ticker,
    the text that named it, confidence, whether the index holds a filing of it, why it was not chosen, and the
    question asked about it (`question`)."""
    best: dict[str, Mapping[str, Any]] = {}
    unresolved: list[str] = []
    for c in candidates:
        conf = float(c.get("confidence") or 0.0)
        if not CANDIDATE_FLOOR <= conf < ACCEPT:
            continue
        unresolved.append(str(c.get("text") or ""))
        key = str(c.get("key") or "")
        if key and (key not in best or conf > float(best[key].get("confidence") or 0.0)):
            best[key] = c
    rows = []
    for key, c in sorted(best.items(), key=lambda kv: -float(kv[1].get("confidence") or 0.0))[:MAX_CANDIDATES]:
        name, text = str(c.get("name") or key), str(c.get("text") or "")
        tickers = tickers_of(key)
        rows.append({"name": name, "ticker": tickers[0] if tickers else "", "text": text,
                     "confidence": round(float(c.get("confidence") or 0.0), 3), "in_index": indexed(key),
                     "reason": str(c.get("reason") or "")[:300], "question": _asked_about(question, text, name),
                     "key": key})
    return {"scope": scope, "unresolved": uniq(u for u in unresolved if u), "candidates": rows}


_LIST_BEFORE = r"(?:^|[,&/]\s*|\b(?:and|or|vs\.?|versus)\s+)"
_LIST_AFTER = r"(?=\s*(?:[,&/?.]|\b(?:and|or|vs\.?|versus)\b|$))"


def left_out(candidates: Iterable[Mapping[str, Any]], question: str, routed: set[str],
             indexed: Callable[[str], bool]) -> list[str]:
    """The indexed companies a question lists that routing did not take (issue 49 case 9: "AAPL, TGT and V" among
    many tickers): a reading below acceptance, of a company the index holds and that was not routed, whose mention
    stands in a list of the question ("X, Y and Z", "X vs Y"); each as 'Name (text)'."""
    out: list[str] = []
    for c in candidates:
        key, text, conf = str(c.get("key") or ""), str(c.get("text") or ""), float(c.get("confidence") or 0.0)
        if not key or key in routed or not CANDIDATE_FLOOR <= conf < ACCEPT or not indexed(key) or not text:
            continue
        if re.search(_LIST_BEFORE + re.escape(text) + _LIST_AFTER, question):
            out.append(f"{c.get('name') or key} ({text})")
    return uniq(out)
