"""A segment, product or region value answered from the filing's one-member facts (`member_facts`), or its
change, share of the total or margin (`member_math`); a not-found answer that lists the tagged members, never
the consolidated total as the member's value.
"""
from __future__ import annotations

from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts, member_view
from finrag.tools.answering.member_facts import ambiguous_members, available, company_words, members_of, ranked_members
from finrag.tools.answering.member_math import answer_member_math
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.answering.xbrl_facts import (
    CONCEPTS,
    PREFIX,
    asked_item,
    fact_cite,
    fact_line,
    money,
    owner,
    part_display,
)
from finrag.tools.numbers import SCALE_OF_POWER

__all__ = ["answer_member"]


def answer_member(asked: QuestionFacts, facts: Optional[dict], doc_id: str, info: Optional[dict]) -> Optional[ReaderResult]:
    """The member's value the question asks (see the module docstring), or its change, its share of the total or
    a margin of it (`member_math`); a not-found answer when it names a breakdown that the filing does not tag for
    the period; None when it asks no member (the line item's answerer goes on)."""
    if not facts or asked.aggregate not in ("single", "change") or asked.yesno:
        return None
    item = "revenue" if asked.metric is not None else asked_item(asked.text)
    if item is None or item not in CONCEPTS:
        return None
    info = info or {}
    members = members_of(facts, [PREFIX + c for c in CONCEPTS[item]])
    own = company_words(info)
    scored = ranked_members(asked, members, own)
    display = part_display(item)
    whose = owner(info)
    several = ambiguous_members(asked, members, own) if not scored else []
    if len(several) > 1:  # "leasing": which of the members holding the word is asked is not known
        return ReaderResult(answer=f"The question names several {display} members of {doc_id} in part: "
                                   f"{', '.join(several[:6])}; which one is asked is not known, so no value is stated. "
                                   "Name the member as the filing does. The consolidated total is not the asked measure.",
                            confident=False, kind="item", asked="member")
    if asked.metric is not None or asked.aggregate == "change" or asked.share_of_total:
        return answer_member_math(asked, item, facts, members, scored, doc_id, info)
    if not scored:
        if asked.member_cue is None:
            return None
        tagged = f" It tags {display} by: {available(members)}." if members else (
            f" It tags no {display} by segment, product or region" + ("" if "member_facts" in facts else
                                                                    " in this index (indexed before finrag "
                                                                    "kept member facts: index the filing again)") + ".")
        return ReaderResult(answer=f"No tagged {display} fact for the {asked.member_cue} asked was found in "
                                   f"{doc_id}.{tagged} The consolidated total is not the asked measure.",
                            confident=False, kind="item", asked="member")
    top = scored[0][0][0]
    for (_n, name), _i, m in [s for s in scored if s[0][0] == top]:
        source = XbrlFacts(member_view(facts, m.facts), doc_id, info, dimensions=((m.axis, m.member),))
        fact = source.fact(item, asked)
        if fact is None:
            continue
        period = fact.period.words
        value = abs(fact.value) if item == "capex" else fact.value
        page = fact.citation.page
        scale = SCALE_OF_POWER.get(fact.scale, "")
        shown = fact.displayed + (f" in {scale}" if scale else "")
        when = period if period.startswith("as of") else "for " + period
        answer = (f"{whose} {display} from {name} {when} was {money(value, fact, item)} {fact_cite(fact)}. Source: "
                  f"the filing's inline XBRL fact {fact.concept} for the member {m.member} ({m.axis}), displayed "
                  f"as {shown}.")
        found = Found(item=item, year=int(info.get("fiscal_year") or 0), value=value, label=f"{fact.concept} "
                      f"[{m.member}]", raw=fact.text, header=period, doc_id=doc_id, page=max(page, 0), scale=None,
                      statement=None, score=1.0)
        lines = [fact_line(f) + f" | member {m.member}" for f in source.same_group(fact)][:6]
        block = (f"Tagged inline-XBRL facts of {doc_id} for the member {m.member} ({m.axis}; concept | period | "
                 "value | where displayed); the first answers the question:\n" + "\n".join("- " + x for x in lines))
        return ReaderResult(answer=answer, confident=True, kind="item", found=[found] if page >= 0 else [],
                            pages_added=[(doc_id, page)] if page >= 0 else [], value=value, facts_context=block,
                            asked="member", member=f"{m.member} ({m.axis})")
    name = scored[0][0][1]
    return ReaderResult(answer=f"No tagged {display} fact for {name} was found in {doc_id} for the period asked "
                               f"(the filing tags {name} for other periods). The consolidated total is not the "
                               f"asked measure.", confident=False, kind="item", asked="member")
