"""Arithmetic on one member of a breakdown: its change, its share of the total, a margin of it.

    result = answer_member_math(asked, "revenue", facts, members, ranked, doc_id, info)

`member_answer.answer_member` finds the member the question names (`ranked_members`) and hands over here when the
question asks more than the member's value:

* **a change** ("How much did AWS revenue grow in 2024?"): the member's fact for the asked period and the same
  period a year (or the years written) before, both tagged in the filing, the arithmetic shown by
  `fact_math.change_answer` (the consolidated change is another measure);
* **a share of the total** ("What share of Apple's fiscal 2024 net sales came from Services?"): the member's
  value over the consolidated line item of the same period, both cited;
* **a margin or ratio of the member** ("Apple's Services gross margin"): every input of the metric tagged for
  the same member (axis and member) and period; the metric's own formula.

When the member, or one of its inputs, is not tagged for the period, the answer says which and that the
consolidated figure is not the asked measure; when the question names no member and no breakdown, None (the
consolidated answerers go on).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from finrag.state.facts import Fact
from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_math import change_of, found_of, metric_answer, metric_inputs, number, years_of
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts, member_view
from finrag.tools.answering.member_facts import Member, available, members_of
from finrag.tools.answering.questions import Plan
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.xbrl_facts import (
    CONCEPTS,
    PREFIX,
    fact_cite,
    item_display,
    owner,
    part_display,
)
from finrag.tools.vocabulary.metrics import METRICS

__all__ = ["answer_member_math"]

Ranked = list[tuple[tuple[int, str], int, Member]]


def _member_source(facts: dict, m: Member, doc_id: str, info: dict) -> XbrlFacts:
    """One member's facts (`m.facts`) as a fact source."""
    return XbrlFacts(member_view(facts, m.facts), doc_id, info, dimensions=((m.axis, m.member),))


@dataclass(frozen=True)
class _SameMember:
    """A `FactSource` over one member (axis and member) of each line item's breakdown: a metric's inputs of the
    member the question names ("AWS": the product axis's member for revenue, the segment axis's for income)."""

    facts: dict
    member: Member
    doc_id: str
    info: dict

    def reads(self, item: str) -> bool:
        return item in CONCEPTS

    def fact(self, item: str, asked: QuestionFacts, years_back: int = 0) -> Optional[Fact]:
        same = [x for x in members_of(self.facts, [PREFIX + c for c in CONCEPTS[item]])
                if (x.axis, x.member) == (self.member.axis, self.member.member)]
        return _member_source(self.facts, same[0], self.doc_id, self.info).fact(item, asked, years_back) if same else None


def _not_found(what: str, doc_id: str, consolidated: str) -> ReaderResult:
    return ReaderResult(answer=f"{what} {doc_id} does not tag it for the period asked, so it is not computed. The "
                               f"consolidated {consolidated} is not the asked measure.",
                        confident=False, kind="item", asked="member")


def _change(asked: QuestionFacts, item: str, facts: dict, m: Member, name: str, doc_id: str,
            info: dict) -> ReaderResult:
    subject = f"{owner(info)} {part_display(item)} from {name}"
    result = change_of(asked, item, _member_source(facts, m, doc_id, info), info, subject=subject)
    if result is None:
        return _not_found(f"The change of {subject} needs its fact for both periods:", doc_id,
                          f"{item_display(item)}'s change")
    result.member = f"{m.member} ({m.axis})"
    return result


def _share(asked: QuestionFacts, item: str, facts: dict, m: Member, name: str, doc_id: str,
           info: dict) -> ReaderResult:
    part = _member_source(facts, m, doc_id, info).fact(item, asked)
    total = XbrlFacts(facts, doc_id, info).fact(item, asked)
    whose, display = owner(info), part_display(item)
    if part is None or total is None or not total.value:
        return _not_found(f"{name}'s share of {whose} {display} needs the member's and the total's fact:", doc_id,
                          item_display(item))
    period = part.period.words
    pv, tv = part.value, total.value
    pct = 100.0 * pv / tv
    when = period if period.startswith("as of") else "for " + period
    a, b = number(pv, item, part), number(tv, item, total)
    arithmetic = f"{a} / {b} = {pct:.1f}%"
    answer = (f"{name} accounted for {pct:.1f}% of {whose} {display} {when}. Arithmetic: {name} {display} {a} "
              f"{fact_cite(part)} / {item_display(item)} {b} {fact_cite(total)} = {pct:.1f}%. Source: the "
              f"filing's inline XBRL facts {part.concept} for the member {m.member} ({m.axis}) and {total.concept}.")
    shown = [(f, lab) for f, lab in ((part, f"{part.concept} [{m.member}]"), (total, total.concept))
             if f.citation.shown]
    # both inputs are said for the member's period (the total's own period words are the same period's)
    return ReaderResult(answer=answer, confident=True, kind="metric", value=pct, asked="share",
                        found=[found_of(item, _at(f, period), info, lab) for f, lab in shown],
                        pages_added=list(dict.fromkeys((doc_id, f.citation.page) for f, _l in shown)),
                        formula=arithmetic, member=f"{m.member} ({m.axis})",
                        plan=Plan(kind="item", item=item, years=years_of(info)))


def _at(fact: Fact, words: str) -> Fact:
    """`fact` with its period said as `words`."""
    return dataclasses.replace(fact, period=dataclasses.replace(fact.period, words=words))


def _metric(asked: QuestionFacts, facts: dict, m: Member, name: str, doc_id: str, info: dict) -> Optional[ReaderResult]:
    metric = METRICS.get(asked.metric or "")
    if metric is None:
        return None

    inputs = metric_inputs(metric, _SameMember(facts, m, doc_id, info), asked)
    if inputs is None:
        return None
    result = metric_answer(metric, inputs, doc_id, info, of=name, member=(m.member, m.axis))
    if result is None:
        missing = [item_display(i.item) for i in metric.inputs if not i.optional and (i.item, i.offset) not in inputs[0]]
        return _not_found(f"{owner(info)} {metric.display} of {name} needs {', '.join(missing) or 'its inputs'} tagged "
                          f"for {name}:", doc_id, metric.display)
    return result


def answer_member_math(asked: QuestionFacts, item: str, facts: dict, members: list[Member], ranked: Ranked,
                       doc_id: str, info: dict) -> Optional[ReaderResult]:
    """The change, share or metric of the member the question names (see the module docstring); a not-found
    answer when it names a breakdown none of whose members it names; None when it names neither."""
    if not ranked:
        # a share asked names a part even without a breakdown's noun ("What share of revenue came from X?")
        if asked.member_cue is None and not (asked.share_of_total and asked.metric is None
                                             and asked.aggregate == "single"):
            return None
        what = ("margin" if asked.metric else "change" if asked.aggregate == "change" else "share")
        tagged = f" It tags {part_display(item)} by: {available(members)}." if members else ""
        return ReaderResult(answer=f"No tagged {part_display(item)} fact for the {asked.member_cue or 'part'} asked was "
                                   f"found in {doc_id}, so its {what} is not computed.{tagged} The consolidated figure is not "
                                   "the asked measure.", confident=False, kind="item", asked="member")
    (_n, name), _i, m = ranked[0]
    if asked.metric is not None:  # the member of whichever axis tags every input ("AWS": product and segment axes)
        results = [_metric(asked, facts, m2, name2, doc_id, info) for (_n2, name2), _i2, m2 in ranked]
        return next((r for r in results if r is not None and r.confident), results[0])
    if asked.aggregate == "change":
        return _change(asked, item, facts, m, name, doc_id, info)
    return _share(asked, item, facts, m, name, doc_id, info)
