"""The offline resolution of a follow-up: the new question inherits from the previous turn what it does not set.

    res = resolve_offline("And in FY2023?", registry, previous=record_of_turn_1, turn=2)
    res.resolved   # "What was Acme Widgets' total revenue in FY2023?"
    res.inherited  # {"company": 1, "measure": 1}

A company or period the question names replaces the previous one; a question that names company, period and
what it asks keeps its text (resolved == typed). `previous` is the previous turn's `Resolution.record()`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from finrag.tools.conversation import phrasing as ph
from finrag.tools.conversation.slots import QuestionSlots, read_slots
from finrag.tools.vocabulary.line_items import LINE_ITEMS

SLOTS = ("company", "period", "measure", "form")
"""The slots a turn may inherit, in the order the contract lists them."""

LEADING_CONJUNCTION = re.compile(r"^\s*(?:and|so|also|ok|okay|then)\b[,\s]+", re.I)
"""A follow-up's opening "And" / "So", dropped from the standalone question."""


@dataclass
class Resolution:
    """A turn's question made standalone."""

    typed: str
    resolved: str
    turn: int
    slots: dict[str, dict[str, Any]] = field(default_factory=dict)
    """{slot: {"value": ..., "turn": turn that set it, ...}} for each slot the resolved question has."""
    inherited: dict[str, int] = field(default_factory=dict)
    """{slot: turn it came from} for the slots taken from earlier turns."""
    strategy: str = "offline"
    """'none' (first turn), 'offline', or 'llm' (the condenser's question, checked)."""
    notes: list[str] = field(default_factory=list)
    """What was refused or fell back (e.g. the condenser named a company of no turn)."""

    def record(self, thread_id: str) -> dict[str, Any]:
        """The state's `conversation` record of this turn."""
        return {"thread_id": thread_id, "turn": self.turn, "typed": self.typed, "resolved": self.resolved,
                "inherited": dict(self.inherited), "slots": self.slots, "strategy": self.strategy,
                "notes": list(self.notes)}


def measure_display(measure: dict[str, Any] | None) -> str:
    """How a question names a measure slot: the line item's display name, else the words as typed."""
    if not measure:
        return ""
    value = str(measure.get("value") or "")
    item = LINE_ITEMS.get(value)
    return item.display if item is not None else value


def own_slots(s: QuestionSlots, turn: int) -> dict[str, dict[str, Any]]:
    """The slots a question sets itself, each marked with this turn."""
    out: dict[str, dict[str, Any]] = {}
    if s.company:
        out["company"] = {"value": s.company, "key": s.company_key or "", "turn": turn}
    if s.has_period:
        out["period"] = {"value": ph.period_label(s.years, s.periods), "years": s.years, "periods": s.periods,
                         "turn": turn}
    if s.measures:
        out["measure"] = {"value": s.measures[0], "turn": turn}
    elif s.content:
        out["measure"] = {"value": " ".join(s.content), "turn": turn}
    if s.forms:
        out["form"] = {"value": s.forms[0], "turn": turn}
    return out


def shifted_period(prev: dict[str, Any] | None, shift: int, turn: int) -> Optional[dict[str, Any]]:
    """The period `shift` years from the previous turn's ("the year before"), or None without one."""
    years = [int(y) for y in (prev or {}).get("years") or []]
    if not shift or not years:
        return None
    year = max(years) + shift
    return {"value": f"FY{year}", "years": [year], "periods": [f"FY{year}"], "turn": turn}


def first_turn(typed: str, registry: Any) -> Resolution:
    """The first turn of a thread: its own slots, its text unchanged."""
    return Resolution(typed=typed, resolved=typed, turn=1, slots=own_slots(read_slots(typed, registry), 1),
                      strategy="none")


def resolve_offline(typed: str, registry: Any, previous: dict[str, Any] | None, turn: int) -> Resolution:
    """`typed` made standalone from the previous turn's record (`Resolution.record`), without an LLM."""
    if not previous:
        res = first_turn(typed, registry)
        res.turn = turn
        for v in res.slots.values():
            v["turn"] = turn
        return res
    s = read_slots(typed, registry)
    mine = own_slots(s, turn)
    prev_slots: dict[str, dict[str, Any]] = dict(previous.get("slots") or {})
    if s.measure_pronoun and prev_slots.get("measure"):
        mine.pop("measure", None)  # "How does that compare ...?": the figure is the previous turn's
    shifted = shifted_period(prev_slots.get("period"), s.shift, turn) if not s.has_period else None
    if shifted:
        mine["period"] = shifted
    if s.elliptical and previous.get("resolved"):
        text = _elliptical(str(previous["resolved"]), registry, prev_slots, mine, s)
        keep: tuple[str, ...] = SLOTS
    else:
        text = _with_context(typed, prev_slots, mine, s)
        keep = ("company", "period", "measure") if s.measure_pronoun else ("company", "period")
    slots = dict(mine)
    inherited: dict[str, int] = {}
    for name in keep:
        if name not in mine and name in prev_slots:
            slots[name] = prev_slots[name]
            inherited[name] = int(prev_slots[name].get("turn") or turn - 1)
    return Resolution(typed=typed, resolved=ph.capitalised(text), turn=turn, slots=slots, inherited=inherited)


def _elliptical(base: str, registry: Any, prev: dict[str, dict[str, Any]], mine: dict[str, dict[str, Any]],
                s: QuestionSlots) -> str:
    """The previous standalone question with the company and period this one names put in ("What about X?")."""
    text = base
    new_company = mine.get("company")
    if new_company and new_company.get("value") != (prev.get("company") or {}).get("value"):
        mentions = read_slots(base, registry).mentions
        text = ph.replace_company(text, mentions, str(new_company["value"])) or \
            ph.append_slot(text, f"for {new_company['value']}")
    new_period = mine.get("period")
    if new_period:
        old_years = [int(y) for y in (prev.get("period") or {}).get("years") or []]
        text = (ph.replace_period(text, old_years, str(new_period["value"])) if old_years else None) or \
            ph.append_slot(text, f"in {new_period['value']}")
    return text


def _with_context(typed: str, prev: dict[str, dict[str, Any]], mine: dict[str, dict[str, Any]],
                  s: QuestionSlots) -> str:
    """A question with its own content, completed with the previous turn's company and period where it has
    none: pronouns replaced ("its" -> "Acme Widgets'"), else the slot added at the end."""
    text = LEADING_CONJUNCTION.sub("", typed) or typed  # "And its net income?" -> "its net income?"
    company = (mine.get("company") or prev.get("company") or {}).get("value")
    prev_period = (prev.get("period") or {}).get("value")
    covered = False
    if s.measure_pronoun and prev.get("measure"):
        figure = measure_display(prev["measure"])
        phrase = f"{ph.possessive(company)} {figure}" if company else figure
        phrase += f" in {prev_period}" if prev_period else ""
        text = ph.replace_measure_pronoun(text, phrase) or text
        covered = True
    if s.shift and "period" in mine and s.shift_text:
        text = ph.replace_words(text, s.shift_text, str(mine["period"]["value"])) or text
    if not s.company and prev.get("company") and not covered:
        name = str(prev["company"]["value"])
        text = (ph.replace_company_pronouns(text, name) if s.company_pronoun else None) or \
            ph.append_slot(text, f"for {name}")
    if "period" not in mine and prev_period and not covered:
        text = ph.append_slot(text, f"in {prev_period}")
    return text
