"""The LLM follow-up resolution: one condense-the-question call (role `condenser`), its output checked.

The model sees the thread's earlier questions (as answered, standalone) and the new one, and writes the new one
as a standalone question. Its question is kept only when it names no company the typed question and the earlier
turns do not (the linker reads both); otherwise, or when the call fails, the offline resolution stands and
the reason is in `Resolution.notes`.
"""
from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from finrag.tools.conversation.resolve import Resolution
from finrag.tools.conversation.slots import linked_company
from finrag.tools.llm.calls import try_text

CONDENSE_PROMPT = ("You rewrite a follow-up question of a conversation about SEC filings as one standalone "
                   "question. Keep the company, fiscal period and measure of the earlier questions unless the "
                   "follow-up changes them; name the company and the period explicitly. Answer with the "
                   "question only, nothing else.")
"""The condenser's system prompt."""


def companies_of(text: str, registry: Any) -> set[str]:
    """The companies `text` names, as registry keys (a company the index does not hold: its name)."""
    ex = registry.link(text)
    out = {str(c.get("key") or c.get("name")) for c in ex.candidates or [] if c.get("in_index")
           and float(c.get("confidence") or 0) >= 0.5}
    return out | {str(n) for n in ex.not_indexed or []}


def allowed_companies(typed: str, history: list[str], registry: Any) -> set[str]:
    """The companies a condensed question may name: those of the typed question and the earlier turns."""
    out = companies_of(typed, registry)
    for q in history:
        out |= companies_of(q, registry)
    return out


def condense(model: Any, typed: str, history: list[str], offline: Resolution, registry: Any,
             max_chars: int) -> tuple[Resolution, dict]:
    """(resolution, the call's llm_calls record): the model's standalone question when it passes the checks,
    else `offline` with a note saying why."""
    turns = "\n".join(f"{i}. {q}" for i, q in enumerate(history, 1))
    text, record = try_text("condenser", model, [SystemMessage(CONDENSE_PROMPT),
                                                 HumanMessage(f"Earlier questions:\n{turns}\n\nFollow-up: {typed}")])
    question = " ".join((text or "").split()).strip().strip('"')
    if not question:
        offline.notes.append("condenser: no question returned; the offline resolution stands")
        return offline, record
    if len(question) > max_chars:
        offline.notes.append("condenser: question too long; the offline resolution stands")
        return offline, record
    extra = companies_of(question, registry) - allowed_companies(typed, history, registry)
    if extra:
        offline.notes.append(f"condenser: names {', '.join(sorted(extra))}, of no turn; the offline resolution "
                             "stands")
        return offline, record
    name, _, _ = linked_company(registry.link(question))
    res = Resolution(typed=offline.typed, resolved=question, turn=offline.turn, slots=dict(offline.slots),
                     inherited=dict(offline.inherited), strategy="llm", notes=list(offline.notes))
    if name and (offline.slots.get("company") or {}).get("value") not in (None, name):
        res.notes.append(f"condenser: company {name!r} where the offline reading has "
                         f"{offline.slots['company']['value']!r}")
    return res, record
