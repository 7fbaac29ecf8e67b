"""The fallback that says so (issue 48): what an answer does when routing chose no filing.

HDRR keeps the paper's graceful fallback (no filing routed with confidence: the whole corpus is searched, or one
filing with `fallback_scope=top_document`), but what it found there is other companies' filings until shown
otherwise. So the answer:

* leads with what could not be resolved and the candidates routing set aside (`record_fallback`, kept in the
  contract as `routing.extracted.fallback`; `lead_of_fallback`): "Did you mean Salesforce (CRM)? No filing was
  chosen for 'CRM' ...", each candidate with the question asked about it (`question`), which the page offers
  as a one-click choice;
* labels every passage with its company and filing (`passages_of_fallback`), and states no figure as the answer:
  a figure is given as the answer only when it comes from a filing of a candidate the question may name, and
  then under "If you meant <candidate>";
* tells an LLM generator the same (`instruction_of_fallback`), and the generate node withholds an LLM answer whose
  figures no candidate's passage states (`finrag.tools.answering.number_check.figures_outside`).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, Optional

from finrag.tools.routing.linker import ACCEPT
from finrag.tools.routing.text import strip_legal_suffix, uniq

__all__ = ["CANDIDATE_FLOOR", "FALLBACK_STATUSES", "instruction_of_fallback", "lead_of_fallback", "passages_of_fallback",
           "record_fallback", "left_out"]

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


def _named(c: Mapping[str, Any]) -> str:
    return f"{c['name']} ({c['ticker']})" if c.get("ticker") else str(c["name"])


def lead_of_fallback(record: Mapping[str, Any]) -> str:
    """The sentences a fallback answer leads with: the candidates ("Did you mean ...?"), what could not be resolved,
    and how the passages after it are to be read."""
    cands = list(record.get("candidates") or [])
    unresolved = [f"'{u}'" for u in record.get("unresolved") or []]
    parts = []
    if cands:
        parts.append(f"Did you mean {' or '.join(_named(c) for c in cands)}?")
        absent = [str(c["name"]) for c in cands if not c.get("in_index")]
        parts.append(f"No filing was chosen for {', '.join(unresolved) or 'the company asked about'}: the evidence "
                     f"that the question names {'it' if len(cands) == 1 else 'one of them'} was too weak"
                     + (f", and the index holds no filing of {', '.join(absent)}" if absent else "")
                     + "; ask again naming the company to read its filings.")
    elif unresolved:
        parts.append(f"No filing was chosen for {', '.join(unresolved)}: no indexed company was recognised there.")
    else:
        parts.append("No company in the question was resolved to an indexed filing, so no filing was chosen.")
    where = "the best-matching filing" if record.get("scope") == "top_document" else "the whole index"
    parts.append(f"What follows comes from a search of {where}, each passage labelled with its company and filing; "
                 "no figure from a company the question did not name is given as the answer.")
    return " ".join(parts)


def instruction_of_fallback(record: Mapping[str, Any], companies: Mapping[str, str]) -> str:
    """What an LLM generator is told with the context of a fallback: who each passage is from, and the rule."""
    cands = [_named(c) for c in record.get("candidates") or []]
    who = "\n".join(f"- {doc}: {name or 'unknown company'}" for doc, name in companies.items())
    return ("Routing note: no filing was chosen for this question"
            + (f" (the company may be {' or '.join(cands)})" if cands else "")
            + ", so the passages come from a search of the whole index and may be other companies' filings. "
            "Do not give a figure from a company the question does not name as the answer; if no passage is from "
            "the company asked about, say that the index search found none. The passages' companies:\n" + who)


def _unit(text: str, limit: int = 320) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + " ..."


def passages_of_fallback(contexts: list[dict], company_of: Callable[[str], str], label: Callable[[dict], str],
                      pick: Optional[Callable[[dict], str]] = None, limit: int = 3) -> str:
    """Up to `limit` passages of distinct filings, each as '- Company, doc_id: "text" [doc, p. N]' (`pick` chooses
    the passage's best sentence; its first characters otherwise)."""
    lines, seen = [], set()
    for c in contexts:
        doc = str(c.get("doc_id") or "")
        if doc in seen:
            continue
        seen.add(doc)
        text = (pick(c) if pick else "") or _unit(c.get("text", ""))
        lines.append(f"- {company_of(doc) or 'unknown company'}, {doc}: \"{_unit(text)}\" {label(c)}")
        if len(lines) >= limit:
            break
    if not lines:
        return "The search found no passage."
    return "Passages found (not an answer for a company the question did not name):\n" + "\n".join(lines)


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
