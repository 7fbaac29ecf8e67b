"""What an answer says about its route, in words: the caveats it leads with (a company the index does not hold,
a period no filing covers, filings of one identity, the fallback's "Did you mean ...?"), the answer of a route
that ends without retrieval, and how a fallback's passages are shown and what an LLM generator is told of them.

Routing (`finrag.tools.routing`) decides and records (statuses, `routing.extracted.fallback`, `same_identity`
groups); this module words what it recorded.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from finrag.state.contract import NO_RETRIEVAL_STATUSES
from finrag.tools.routing.fallback import FALLBACK_STATUSES

__all__ = ["answer_caveats", "instruction_of_fallback", "lead_of_fallback", "passages_of_fallback",
           "same_identity_note", "unanswerable_answer"]


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


def same_identity_note(group: dict) -> str:
    """The answer's caveat for filings of one identity (issue 34 case 7): all named, and which the answer reads."""
    ids = [str(i) for i in group.get("doc_ids") or []]
    read = [str(i) for i in group.get("read") or []]
    count = {2: "Two", 3: "Three"}.get(len(ids), str(len(ids)))
    which = "all of them" if set(read) >= set(ids) else ("only " + ", ".join(read))
    return (f"{count} filings in the index have the same identity ({group.get('identity')}): {', '.join(ids)}; "
            f"their figures may differ, and this answer reads {which}.")


def answer_caveats(extracted: dict | None, status: str, reason: str) -> list[str]:
    """What an answer must say about itself before anything else: each company the question names that the
    index does not hold (a comparison then covers only the others), and a period no filing of the company
    covers (the route is the company's nearest filing), and filings of one identity (`same_identity`: all
    named). Empty when routing found everything it was asked."""
    notes = []
    fallback = (extracted or {}).get("fallback")
    if isinstance(fallback, dict) and status in FALLBACK_STATUSES:  # no filing chosen: said before anything else
        notes.append(lead_of_fallback(fallback))
    missing = [str(m) for m in (extracted or {}).get("not_indexed") or [] if str(m).strip()]
    if missing and status not in NO_RETRIEVAL_STATUSES:
        names = ", ".join(missing)
        notes.append(f"Not in the index: {names} (no filing of {'it' if len(missing) == 1 else 'them'}): nothing "
                     f"below comes from {'its' if len(missing) == 1 else 'their'} filings.")
    dropped = [str(m) for m in (extracted or {}).get("left_out") or []]
    if dropped and status not in NO_RETRIEVAL_STATUSES:
        notes.append(f"Named in the question but not read (the evidence that it names {'this company' if len(dropped) == 1 else 'these companies'} was weak): "
                     f"{', '.join(dropped)}; ask about {'it' if len(dropped) == 1 else 'them'} by name to include {'it' if len(dropped) == 1 else 'them'}.")
    if status == "period_not_in_index":
        notes.append(f"The asked period is not in the index ({reason.split(';')[0]}): what follows comes from the "
                     "company's nearest filing, not from the asked period.")
    notes.extend(same_identity_note(g) for g in (extracted or {}).get("same_identity") or [] if isinstance(g, dict))
    return notes


def unanswerable_answer(status: str, reason: str) -> str:
    """The answer for a route that ends without retrieval (`NO_RETRIEVAL_STATUSES`): what is missing and why."""
    if status == "company_not_indexed":
        return f"The index holds no filing of the company this question asks about, so it is not answered from " \
               f"another company's filings. {reason}."
    if status == "which_company" and reason.startswith("Did you mean"):
        return f"No company in the question was resolved to an indexed filing, so it is not answered from a " \
               f"mixture of companies' filings. {reason}."
    if status == "which_company":
        return f"The question names no company, so it is not answered from a mixture of companies' filings. {reason}."
    return f"Not answered: {reason}."
