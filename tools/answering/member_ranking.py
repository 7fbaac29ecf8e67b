"""Ranking questions from an inline-XBRL filing's one-member facts: which segment, region or product line ranks
first, or which pass a share of the total.

    result = answer_member_ranking(asked, facts, doc_id, info)   # a ReaderResult, or None

The tagged counterpart of `ranking_tables.py`: the members of one breakdown axis tagged with the asked measure
(`member_facts.members_of`: reconciling members such as eliminations and corporate are never parts, nor is a
member whose value is the sum of other members, as "Products" beside iPhone and Mac: `rankings.is_aggregate`), each
member's fact for the asked period (and the prior year's, for growth) chosen as the line items' are
(`xbrl_facts.choose_fact`), the consolidated fact as the total of a share. The axis is the one the question's
breakdown noun names ("region" -> the geographical axis, "product line" -> the product axis, "segment" -> the
segment axis), else the axis with the most members. `rankings.render_ranking` writes the answer.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.fact_sources.xbrl import CONCEPTS, PREFIX, XbrlFacts, member_view
from finrag.tools.answering.member_facts import Member, members_of
from finrag.tools.answering.rankings import Breakdown, Part, is_aggregate, operands, render_ranking
from finrag.tools.answering.reader import ReaderResult

__all__ = ["answer_member_ranking"]

_ITEMS = {"revenue": "revenue", "operating_income": "operating_income", "net_income": "net_income"}
_KIND_AXES = [(re.compile(r"(?i)region|geograph|countr|market|world"), re.compile(r"(?i)geograph|region|countr|area")),
              (re.compile(r"(?i)categor|product|brand|line|service"), re.compile(r"(?i)product|service")),
              (re.compile(r"(?i)segment|division|business|unit"), re.compile(r"(?i)segment"))]


def _name(m: Member) -> str:
    return next((n for n, k in m.names if k), m.names[-1][0] if m.names else m.member)


def _axis_fits(axis: str, kind_word: str) -> bool:
    local = axis.partition(":")[2]
    return any(kind.search(kind_word) and pat.search(local) for kind, pat in _KIND_AXES)


def answer_member_ranking(asked: QuestionFacts, facts: Optional[dict], doc_id: str,
                          info: Optional[dict]) -> Optional[ReaderResult]:
    """The ranking the question asks, from the tagged member facts (see the module docstring); None when it asks
    none, the measure is not tagged by member, or fewer than two members have a fact for the period."""
    ranking = asked.ranking
    if ranking is None or ranking.group != "member" or not facts:
        return None
    item = _ITEMS.get(ranking.measure)
    if item is None or item not in CONCEPTS:
        return None
    info = info or {}
    by_axis: dict[str, list[Member]] = {}
    for m in members_of(facts, [PREFIX + c for c in CONCEPTS[item]]):
        by_axis.setdefault(m.axis, []).append(m)
    axes: list[tuple[bool, int, str, list[tuple[Part, str]]]] = []
    for axis, members in by_axis.items():
        parts: list[tuple[Part, str]] = []
        for m in members:
            source = XbrlFacts(member_view(facts, m.facts), doc_id, info, dimensions=((m.axis, m.member),))
            fact = source.fact(item, asked)
            if fact is None:
                continue
            prior = source.fact(item, asked, 1)
            part = Part(name=_name(m), value=fact.value / 1e6, prior=prior.value / 1e6 if prior is not None else None,
                        raw=fact.text, page=fact.citation.page)
            parts.append((part, fact.period.words))
        values = [p.value for p, _per in parts]
        parts = [t for i, t in enumerate(parts) if not is_aggregate(t[0].value, values[:i] + values[i + 1:])]
        if len(parts) >= 2:
            axes.append((_axis_fits(axis, ranking.kind_word), len(parts), axis, parts))
    if not axes:
        return None
    _fits, _n, axis, chosen = max(axes, key=lambda a: (a[0], a[1]))
    consolidated = XbrlFacts(facts, doc_id, info)
    total = consolidated.fact(item, asked)
    prior_total = consolidated.fact(item, asked, 1)
    fy = int(info.get("fiscal_year") or 0)
    period = chosen[0][1]
    shown = [p for p, _per in chosen if p.page >= 0]
    page = max(shown, key=lambda p: abs(p.value)).page if shown else -1
    bd = Breakdown(doc_id=doc_id, page=max(page, 0), parts=[p for p, _per in chosen],
                   title=f"the members of {axis} tagged with {item.replace('_', ' ')}", period=period,
                   prior_period="the same period a year earlier" if prior_total is not None or any(
                       p.prior is not None for p, _per in chosen) else "",
                   scale="millions", total=total.value / 1e6 if total is not None else None,
                   total_label=f"consolidated {item.replace('_', ' ')}" if total is not None else "", source="facts")
    company = str(info.get("company") or "")
    text, named = render_ranking(ranking, bd, company=company)
    if not text:
        return None
    text += f" Source: the filing's inline XBRL facts for the members of {axis}."
    cited = [f for f in operands(bd, named, year=fy, item=item) if f.page >= 0]
    pages = list(dict.fromkeys((doc_id, p.page) for p in named if p.page >= 0))
    return ReaderResult(answer=text, confident=True, kind="item", found=cited, pages_added=pages,
                        value=named[0].value * 1e6 if named else None, asked="ranking", member=axis)
